"""`agenteval merge RESULTS... --json OUT`: join the results files of `--shard I/N` jobs."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.digest import ResultsDigest
from ..core.shards import plan_merge
from ..errors import EXIT_PASSED
from ..files.merge_index import SpilledMergeIndex
from ..files.results_file import ResultsFile, results_file, utc_timestamp
from ._common import Done, Verbosity, applies_verbosity


@dataclass(frozen=True)
class MergeSettings:
    results: tuple[str, ...]  # one file per shard
    json: str  # the merged file ('-' for stdout)
    verbosity: Verbosity = Verbosity()  # -q, --log-level


@dataclass(frozen=True)
class Merged(Done):
    shards: list[ResultsDigest]


@applies_verbosity
def merge_shards(settings: MergeSettings) -> Merged:
    """Each shard is read for its cases' digests, then each case's line is copied as it is into
    the merged file, in the merged order: the digests and the merged order are kept on disk
    (files/spill.py, files/merge_index.py), never the shards' cases, so memory stays flat."""
    files = [ResultsFile(path) for path in settings.results]
    digests = [f.digest() for f in files]
    index = SpilledMergeIndex()
    try:
        plan = plan_merge([(f.name, d) for f, d in zip(files, digests)], utc_timestamp(), index)
        with results_file(settings.json) as writer:
            for shard, key in plan.order:
                writer.add_json(files[shard].line(key))
            writer.finish(plan.header)
    finally:
        index.close()
    return Merged(EXIT_PASSED, digests)
