"""`merge`'s index of the shards' cases on disk (core/shards.py's MergeIndex): each case's ids
in a private temporary SQLite database, which finds a case claimed twice and gives the merged
order, so that memory stays flat however many cases the shards hold.

Ids are kept as their UTF-8 bytes: SQLite orders bytes as Python orders the strings (UTF-8
keeps code point order), so the order is the in-memory index's exactly.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from ..core.digest import ScoredCase
from .spill import CACHE_KIB

BATCH = 1000  # rows read at a time


def _text(value: str) -> bytes:
    return value.encode("utf-8", "surrogatepass")


class SpilledMergeIndex:
    """A MergeIndex in a temporary database (deleted when closed or when the process ends)."""

    def __init__(self) -> None:
        self._db = sqlite3.connect("", isolation_level=None)
        for pragma in (f"cache_size = -{CACHE_KIB}", "journal_mode = OFF", "synchronous = OFF"):
            self._db.execute(f"PRAGMA {pragma}")
        self._db.execute("BEGIN")  # never committed: nothing else reads the file
        self._db.execute(
            "CREATE TABLE cases (id INTEGER PRIMARY KEY, suite BLOB, eval_set_id BLOB, eval_id BLOB, shard INTEGER, "
            "rank INTEGER, place INTEGER, key TEXT, UNIQUE (suite, eval_set_id, eval_id))"
        )

    def claim(self, shard: int, rank: int, place: int, case: ScoredCase) -> int | None:
        ids = (_text(case.suite), _text(case.eval_set_id), _text(case.eval_id))
        added = self._db.execute("INSERT OR IGNORE INTO cases (suite, eval_set_id, eval_id, shard, rank, place, key) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 (*ids, shard, rank, place, case.key))
        if added.rowcount:
            return None
        row = self._db.execute("SELECT shard FROM cases WHERE suite = ? AND eval_set_id = ? AND eval_id = ?", ids).fetchone()
        return int(row[0])

    def ordered(self) -> Iterator[tuple[int, str]]:
        """A batch of rows at a time, from a cursor SQLite sorts for (an index built on disk)."""
        self._db.execute("CREATE INDEX merged ON cases (place, eval_set_id, eval_id, rank, id)")
        rows = self._db.execute("SELECT shard, key FROM cases ORDER BY place, eval_set_id, eval_id, rank, id")
        while batch := rows.fetchmany(BATCH):
            yield from batch

    def close(self) -> None:
        self._db.close()
