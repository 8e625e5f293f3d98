"""`agenteval merge RESULTS... --json OUT`: join the results files of `--shard I/N` jobs."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.shards import merge
from ..errors import EXIT_PASSED
from ..files.results import read_results, utc_timestamp, write_results
from ..schema import Results
from ._common import Done


@dataclass(frozen=True)
class MergeSettings:
    results: tuple[str, ...]  # one file per shard
    json: str  # the merged file ('-' for stdout)


@dataclass(frozen=True)
class Merged(Done):
    results: Results


def merge_shards(settings: MergeSettings) -> Merged:
    named = [(path, read_results(path)) for path in settings.results]
    merged = merge(named, utc_timestamp())
    write_results(merged, settings.json)
    return Merged(EXIT_PASSED, merged)
