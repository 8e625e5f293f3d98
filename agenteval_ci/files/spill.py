"""What `compare`, `report` and `accept` keep of every case of a big suite, on disk instead of
in memory: the results' case digests and the baseline's cases, each as bytes in a private
temporary SQLite database (deleted when it is closed or the process ends; SQLite keeps a few
MB of it cached), decoded again as each is read. Memory then stays flat however many cases
a suite has; reading a record costs a few microseconds.

- `SpilledDigests`: a results file's case digests, a read-only sequence in file order
  (packed by core/digest.py), with where each case's line lies, for reading it again.
- `SpilledCases`: one eval set's cases of a baseline, a mapping eval id -> BaselineCase that
  keeps a dict's order; a copy shares nothing with the original (accept builds the new
  baseline in a copy of the old one). A case read from it is a new object each time: change
  one by assigning it back.
- `SpilledOutcomes` (files/spilled_outcomes.py, in the same kind of database): a comparison's
  case outcomes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, ItemsView, Iterator, MutableMapping, Sequence, ValuesView
from typing import Any, cast, overload

from ..core.digest import CaseDigest, pack, unpack
from ..schema.baseline import BaselineCase

CACHE_KIB = 8 * 1024  # SQLite's page cache per database: what stays in memory of the records
BATCH = 1000  # rows read at a time when iterating


def database() -> sqlite3.Connection:
    """A private temporary database: SQLite makes it on disk, in the temp folder, and deletes it.
    One transaction, never committed (nothing else ever reads the file): pages are written
    only when the cache overflows, never at each change."""
    db = sqlite3.connect("", check_same_thread=False, isolation_level=None)
    db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("BEGIN")
    return db


# ---------------------------------------------------------------- a results file's digests


class SpilledDigests(Sequence[CaseDigest]):
    """Case digests added in order, then read back by index or in order (each unpacked anew),
    and each case's place in its file by key."""

    def __init__(self) -> None:
        self._db = database()
        self._db.execute("CREATE TABLE digests (id INTEGER PRIMARY KEY, key TEXT, member INTEGER, offset INTEGER, data BLOB)")
        self._db.execute("CREATE INDEX by_key ON digests (key)")  # not unique: a file may repeat a case, as a list may
        self._count = 0

    def add(self, case: CaseDigest, member: int = 0, offset: int = 0) -> None:
        """A case's digest, and where its line starts (the gzip member and the offset into it)."""
        self._db.execute("INSERT INTO digests VALUES (?, ?, ?, ?, ?)", (self._count, case.key, member, offset, pack(case)))
        self._count += 1

    def where(self, key: str) -> tuple[int, int] | None:
        """(member, offset) of the case's line (the last, if the key repeats), None when no case has the key."""
        row = self._db.execute("SELECT member, offset FROM digests WHERE key = ? ORDER BY id DESC LIMIT 1", (key,)).fetchone()
        return None if row is None else (row[0], row[1])

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> CaseDigest: ...
    @overload
    def __getitem__(self, index: slice) -> list[CaseDigest]: ...
    def __getitem__(self, index: int | slice) -> CaseDigest | list[CaseDigest]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        row = self._db.execute("SELECT data FROM digests WHERE id = ?", (index,)).fetchone()
        return unpack(row[0])

    def __iter__(self) -> Iterator[CaseDigest]:
        for (data,) in self._db.execute("SELECT data FROM digests ORDER BY id"):
            yield unpack(data)

    def __repr__(self) -> str:
        return f"<{self._count} case digest(s) on disk>"


# ---------------------------------------------------------------- a baseline's cases


class CaseStore:
    """One database for a baseline's eval sets: each a group of rows, in the order added."""

    def __init__(self) -> None:
        self.db = database()
        self.db.execute("CREATE TABLE cases (id INTEGER PRIMARY KEY, grp INTEGER, key TEXT, data BLOB, UNIQUE (grp, key))")
        self._groups = 0

    def group(self) -> int:
        self._groups += 1
        return self._groups

    def new_cases(self) -> SpilledCases:
        """An empty eval set's cases in this store."""
        return SpilledCases(self, self.group())


def spilled_cases() -> Callable[[], dict[str, BaselineCase]]:
    """A maker of eval sets' cases kept in one new store: for core/baseline.py, which builds a
    baseline of dicts (a SpilledCases is used as one: it is what the model's type says)."""
    return cast(Callable[[], dict[str, BaselineCase]], CaseStore().new_cases)


def _packed(case: BaselineCase) -> bytes:
    return case.__pydantic_serializer__.to_json(case, exclude_none=True)


def _case(data: bytes) -> BaselineCase:
    return BaselineCase.model_validate_json(data)


class SpilledCases(MutableMapping[str, BaselineCase]):
    """An eval set's baseline cases by eval id, kept as their JSON in a CaseStore. Like a dict,
    a key keeps its place when its case is replaced."""

    def __init__(self, store: CaseStore, group: int) -> None:
        self._store = store
        self._group = group
        self._count = 0

    @property
    def _db(self) -> sqlite3.Connection:
        return self._store.db

    def __getitem__(self, key: str) -> BaselineCase:
        row = self._db.execute("SELECT data FROM cases WHERE grp = ? AND key = ?", (self._group, key)).fetchone()
        if row is None:
            raise KeyError(key)
        return _case(row[0])

    def __contains__(self, key: object) -> bool:
        return self._db.execute("SELECT 1 FROM cases WHERE grp = ? AND key = ?", (self._group, key)).fetchone() is not None

    def __setitem__(self, key: str, case: BaselineCase) -> None:
        self.set_packed(key, _packed(case))

    def set_packed(self, key: str, data: bytes) -> None:
        """A case's JSON as its model writes it compactly (the reader adds cases so)."""
        self._count += key not in self
        self._db.execute("INSERT INTO cases (grp, key, data) VALUES (?, ?, ?) ON CONFLICT (grp, key) DO UPDATE SET data = excluded.data",
                         (self._group, key, data))

    def __delitem__(self, key: str) -> None:
        if self._db.execute("DELETE FROM cases WHERE grp = ? AND key = ?", (self._group, key)).rowcount == 0:
            raise KeyError(key)
        self._count -= 1

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._rows("key, NULL"))

    def _rows(self, columns: str = "key, data") -> Iterator[tuple[Any, Any]]:
        """(key, data) in order, a batch at a time (cases changed meanwhile are seen as a dict's are)."""
        after = -1
        while True:
            batch = self._db.execute(f"SELECT id, {columns} FROM cases WHERE grp = ? AND id > ? ORDER BY id LIMIT {BATCH}",
                                     (self._group, after)).fetchall()
            for _, key, data in batch:
                yield key, data
            if len(batch) < BATCH:
                return
            after = batch[-1][0]

    def values(self) -> ValuesView[BaselineCase]:
        return _Values(self)

    def items(self) -> ItemsView[str, BaselineCase]:
        return _Items(self)

    def copy(self) -> SpilledCases:
        """Another eval set's cases with the same content (what `dict(cases)` is to a dict)."""
        twin = SpilledCases(self._store, self._store.group())
        self._db.execute("INSERT INTO cases (grp, key, data) SELECT ?, key, data FROM cases WHERE grp = ? ORDER BY id", (twin._group, self._group))
        twin._count = self._count
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> SpilledCases:
        return self.copy()

    def __repr__(self) -> str:
        return f"<{self._count} baseline case(s) on disk>"


class _Values(ValuesView[BaselineCase]):
    def __init__(self, cases: SpilledCases) -> None:
        super().__init__(cases)
        self._cases = cases

    def __iter__(self) -> Iterator[BaselineCase]:
        return (_case(data) for _, data in self._cases._rows())


class _Items(ItemsView[str, BaselineCase]):
    def __init__(self, cases: SpilledCases) -> None:
        super().__init__(cases)
        self._cases = cases

    def __iter__(self) -> Iterator[tuple[str, BaselineCase]]:
        return ((key, _case(data)) for key, data in self._cases._rows())

