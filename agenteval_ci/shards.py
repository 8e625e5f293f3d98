"""Deterministic shards for splitting a run over CI jobs, and joining them again."""

from __future__ import annotations

import hashlib
import re

from .errors import UsageError
from .schema import ShardInfo
from .schema.results import MAX_SHARDS

_SHARD = re.compile(r"^([0-9]{1,9})/([0-9]{1,9})$")  # ASCII digits only; a bounded int()


def parse_shard(text: str) -> ShardInfo:
    match = _SHARD.match(text.strip())
    if not match or not 1 <= int(match[1]) <= int(match[2]) <= MAX_SHARDS:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise UsageError(f"--shard must be I/N with 1 <= I <= N <= {MAX_SHARDS} (like 2/3), got {shown!r}")
    return ShardInfo(index=int(match[1]), count=int(match[2]))


def shard_of(eval_set_id: str, eval_id: str, count: int) -> int:
    """1-based shard of a case: a stable hash, the same on every machine and Python."""
    digest = hashlib.sha256(f"{eval_set_id}\x00{eval_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def in_shard(shard: ShardInfo | None, eval_set_id: str, eval_id: str) -> bool:
    return shard is None or shard_of(eval_set_id, eval_id, shard.count) == shard.index
