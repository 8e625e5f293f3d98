"""A comparison's case outcomes on disk (core/gate/records.py's CaseOutcomes) for `compare`, `report`
and the action: each kept with its importance as indexed columns in a private temporary
database (files/spill.py), so SQLite sorts them and nothing in Python holds them all; a
500,000-case comparison's outcomes take ~0.3 KB a case on disk, none in memory.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator, Sequence
from typing import Any

from ..core.gate import CaseMetric, CaseOutcome, importance
from .spill import database

_ORDER = "rank, passing, worst, key, id"  # core/gate/outcome_store.py's importance; then the order added, as a stable sort keeps it


def _pack_outcome(case: CaseOutcome) -> bytes:
    metrics = tuple((m.name, m.baseline, m.candidate, m.delta, m.baseline_status, m.candidate_status, m.threshold, m.comparable, m.counted)
                    for m in case.metrics)
    return marshal.dumps((case.suite, case.eval_set_id, case.eval_id, case.outcome, case.status, case.baseline_status, metrics, case.note))


def _outcome(data: bytes) -> CaseOutcome:
    suite, eval_set_id, eval_id, outcome, status, baseline_status, metrics, note = marshal.loads(data)
    return CaseOutcome(suite, eval_set_id, eval_id, outcome, status, baseline_status, tuple(CaseMetric(*m) for m in metrics), note)


class SpilledOutcomes:
    """Case outcomes on disk, read back most important first (each decoded anew); the indexes
    are made when they are first read, so adding stays an append."""

    def __init__(self) -> None:
        self._db = database()
        self._db.execute("CREATE TABLE outcomes (id INTEGER PRIMARY KEY, key TEXT, rank INTEGER, passing INTEGER, worst REAL, data BLOB)")
        self._count = 0
        self._indexed = False

    def add(self, case: CaseOutcome) -> None:
        rank, passing, worst, key = importance(case)
        self._db.execute("INSERT INTO outcomes VALUES (?, ?, ?, ?, ?, ?)", (self._count, key, rank, passing, worst, _pack_outcome(case)))
        self._count += 1

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[CaseOutcome]:
        if not self._indexed:
            self._db.execute(f"CREATE INDEX by_importance ON outcomes ({_ORDER})")
            self._db.execute("CREATE INDEX by_key ON outcomes (key)")
            self._indexed = True
        return (_outcome(data) for (data,) in self._db.execute(sql, args))

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[CaseOutcome]:
        return self._read(f"SELECT data FROM outcomes ORDER BY {_ORDER}")

    def __getitem__(self, index: int) -> CaseOutcome:
        """The outcome at a place in importance order (SQLite walks to it: for the first few)."""
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        return next(self._read(f"SELECT data FROM outcomes ORDER BY {_ORDER} LIMIT 1 OFFSET ?", (index,)))

    def of(self, outcome: str) -> Iterator[CaseOutcome]:
        rank = importance(CaseOutcome("", "", "", outcome, None, None))[0]
        return self._read(f"SELECT data FROM outcomes WHERE rank = ? ORDER BY {_ORDER}", (rank,))

    def with_key(self, key: str) -> list[CaseOutcome]:
        return list(self._read(f"SELECT data FROM outcomes WHERE key = ? ORDER BY {_ORDER}", (key,)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __repr__(self) -> str:
        return f"<{self._count} case outcome(s) on disk>"
