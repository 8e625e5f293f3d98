"""Deterministic shards for splitting a run over CI jobs, and joining their results again (pure)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from ..errors import InputError, Problem, UsageError
from ..schema import AdaptiveInfo, Results, RunStats, ShardInfo, TokenCounts
from ..schema.results import MAX_SHARDS
from .digest import ScoredCase, ScoredResults
from .results_record import results_of, total_cost, total_usage

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


# ---------------------------------------------------------------- joining shards


class MergeIndex(Protocol):
    """The merged cases' ids, where the caller keeps them (a dict here; on disk for a big merge,
    files/merge_index.py): each case claimed once, then read back in the merged order."""

    def claim(self, shard: int, rank: int, place: int, case: ScoredCase) -> int | None:
        """The case of shard `shard` (its `rank` in the merged order) noted at `place` (its
        suite's); if another shard claimed the same case already, that shard, and nothing noted."""
        ...

    def ordered(self) -> Iterable[tuple[int, str]]:
        """(shard, case key) of every case noted, by place, eval set id, case id, rank, then as noted."""
        ...


class InMemoryIndex:
    """A MergeIndex in memory (small merges, tests)."""

    def __init__(self) -> None:
        self._owners: dict[tuple[str, str, str], int] = {}
        self._noted: list[tuple[tuple[int, str, str, int, int], int, str]] = []

    def claim(self, shard: int, rank: int, place: int, case: ScoredCase) -> int | None:
        owner = self._owners.get(ids := (case.suite, case.eval_set_id, case.eval_id))
        if owner is not None:
            return owner
        self._owners[ids] = shard
        self._noted.append(((place, case.eval_set_id, case.eval_id, rank, len(self._noted)), shard, case.key))
        return None

    def ordered(self) -> Iterable[tuple[int, str]]:
        return ((shard, key) for _, shard, key in sorted(self._noted))


def check_headers(named: list[tuple[str, ScoredResults]]) -> list[Problem]:
    """Every file a shard of the same split, each shard once, none missing: what is wrong
    (a file that is no shard at all is refused at once)."""
    problems = [Problem(name, "$.shard", "not a shard (run with --shard I/N)") for name, r in named if r.shard is None]
    if problems:
        raise InputError(problems)
    count = _shard(named[0][1]).count
    for name, r in named:
        if _shard(r).count != count:
            problems.append(Problem(name, "$.shard.count", f"is {_shard(r).count}, but {named[0][0]} is a shard of {count}"))
        if (r.adaptive is None) != (named[0][1].adaptive is None):
            problems.append(Problem(name, "$.adaptive", f"num_runs: auto in one shard but not in {named[0][0]}"))
        elif r.adaptive is None and r.num_runs != named[0][1].num_runs:
            problems.append(Problem(name, "$.num_runs", f"is {r.num_runs}, but {named[0][0]} has {named[0][1].num_runs}"))
        if r.case_filter != named[0][1].case_filter:
            problems.append(Problem(name, "$.case_filter", f"is {r.case_filter}, but {named[0][0]} has {named[0][1].case_filter}"))
    seen: dict[int, str] = {}
    for name, r in named:
        if _shard(r).index in seen:
            problems.append(Problem(name, "$.shard.index", f"shard {_shard(r).index}/{count} is also {seen[_shard(r).index]}"))
        seen.setdefault(_shard(r).index, name)
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing and not problems:
        problems.append(Problem(named[0][0], "$.shard", f"shard(s) {', '.join(f'{i}/{count}' for i in missing)} missing from the merge"))
    return problems


def _claimed(named: list[tuple[str, ScoredResults]], index: MergeIndex, place: dict[str, int], problems: list[Problem] | None = None) -> None:
    """Every shard's cases claimed in `index`, a case at a time; raises with `problems` and
    every case found twice."""
    problems = list(problems or [])
    ranks = {i: rank for rank, i in enumerate(sorted(range(len(named)), key=lambda i: _shard(named[i][1]).index))}
    for shard, (name, r) in enumerate(named):
        for i, case in enumerate(r.cases):
            owner = index.claim(shard, ranks[shard], place.get(case.suite, len(place)), case)
            if owner is not None:
                problems.append(Problem(name, f"$.cases[{i}]", f"case {case.eval_set_id}/{case.eval_id} is also in {named[owner][0]}"))
    if problems:
        raise InputError(problems)


def _shard(results: ScoredResults) -> ShardInfo:
    """The shard a results file is (check_headers has refused any file that is none)."""
    if results.shard is None:
        raise InputError(Problem("<merged results>", "$.shard", "not a shard (run with --shard I/N)"))
    return results.shard


@dataclass(frozen=True)
class MergePlan:
    """The merged file: its other fields, and its cases as (the shard's place in `named`, case key)
    in the order they are written."""

    header: Results  # no cases
    order: Iterable[tuple[int, str]]


def plan_merge(named: list[tuple[str, ScoredResults]], created_at: str, index: MergeIndex | None = None) -> MergePlan:
    """The shards' results as one file, created at `created_at`: checked, then planned, so that
    the cases can be copied from the shards' files one at a time. The cases' ids go to `index`
    (memory, unless the caller keeps them elsewhere), each shard's cases read once."""
    index = index if index is not None else InMemoryIndex()
    problems = check_headers(named)
    ordered = [r for _, r in sorted(named, key=lambda item: _shard(item[1]).index)]
    suites = list(dict.fromkeys(s for r in ordered for s in r.suites))
    # Shards interleave cases; sort by suite, eval set and case id so every merge of the same split is identical.
    _claimed(named, index, {suite: i for i, suite in enumerate(suites)}, problems)
    header = results_of(
        [],
        created_at=created_at,
        num_runs=max(r.num_runs for r in ordered),  # auto: shards differ; fixed: all equal
        suites=suites or sorted({c.suite for r in ordered for c in r.cases}),
        stats=_sum_stats([r.stats for r in ordered]),
        warnings=list(dict.fromkeys(w for r in ordered for w in r.warnings)),
        commit=ordered[0].commit,
        case_filter=ordered[0].case_filter,
        adaptive=_merge_adaptive([r.adaptive for r in ordered if r.adaptive]),
    )
    rejudged = [entry for r in ordered for entry in r.rejudged or []]  # each shard re-judged its own cases' baseline
    if rejudged:
        header = header.model_copy(update={"rejudged": rejudged})
    return MergePlan(header, index.ordered())


def merge(named: list[tuple[str, Results]], created_at: str) -> Results:
    """The shards' results as one record in memory (small merges, tests)."""
    plan = plan_merge(list(named), created_at)
    by_key = [{c.key: c for c in results.cases} for _, results in named]
    cases = [by_key[i][key] for i, key in plan.order]
    return plan.header.model_copy(update={"cases": cases})


def _merge_adaptive(infos: list[AdaptiveInfo]) -> AdaptiveInfo | None:
    """Each shard adapted its own cases: runs add up, rounds are the longest shard's."""
    if not infos:
        return None
    stopped = "; ".join(dict.fromkeys(i.stopped for i in infos))
    return infos[0].model_copy(update={"runs": sum(i.runs for i in infos), "rounds": max(i.rounds for i in infos), "stopped": stopped})


def _sum_stats(all_stats: list[RunStats]) -> RunStats:
    def tokens(field: str) -> TokenCounts:
        counts = [getattr(s, field) for s in all_stats]
        return TokenCounts(input=sum(c.input for c in counts), output=sum(c.output for c in counts))

    metrics = sorted({name for s in all_stats for name in s.judge_by_metric})
    return RunStats(
        duration_seconds=max(s.duration_seconds for s in all_stats),  # shards run side by side
        agent_turns=sum(s.agent_turns for s in all_stats),
        agent_tokens=tokens("agent_tokens"),
        judge_calls=sum(s.judge_calls for s in all_stats),
        judge_cache_hits=sum(s.judge_cache_hits for s in all_stats),
        judge_cache_misses=sum(s.judge_cache_misses for s in all_stats),
        judge_tokens=tokens("judge_tokens"),
        estimated_cost_usd=total_cost(s.estimated_cost_usd for s in all_stats),
        judge_by_metric={m: total_usage(s.judge_by_metric[m] for s in all_stats if m in s.judge_by_metric) for m in metrics},
    )
