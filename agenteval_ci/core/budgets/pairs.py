"""A budget's paired cases: each case's figure in the baseline's runs and in its runs now, kept in
columns, and why a case has none now."""

from __future__ import annotations

import math
from array import array
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from ...schema.baseline import Baseline, BaselineCase
from ..digest import ScoredCase, ScoredResults
from ..figures import run_figure

SAME = 1e-9  # relative: figures closer than this are the same figure (floats written and read back)

@dataclass(frozen=True)
class CaseDelta:
    case: str
    baseline: float
    candidate: float
    runs: int  # runs now

    @property
    def rise(self) -> float:
        """Relative: +0.5 is 50% more; inf from nothing to something."""
        if self.baseline == 0:
            return 0.0 if self.candidate == 0 else math.inf
        return self.candidate / self.baseline - 1


def candidate_mean(case: ScoredCase, key: str) -> tuple[float | None, int]:
    values = [v for v in (run_figure(r, key) for r in case.runs) if v is not None]
    return (sum(values) / len(values) if values else None), len(values)


def _varies(values: list[float]) -> bool:
    return len(values) > 1 and max(values) - min(values) > SAME * max(1.0, abs(max(values)))


@dataclass(frozen=True)
class Pair:
    delta: CaseDelta
    before: tuple[float, ...]  # each baseline run's figure
    now: tuple[float, ...]  # each run's figure now

    @property
    def noisy(self) -> bool:
        return _varies(list(self.before)) or _varies(list(self.now))

    @property
    def settled(self) -> bool:
        """Its runs agree, and ran more than once to show it: a further run would tell nothing."""
        return not self.noisy and self.repeated

    @property
    def repeated(self) -> bool:
        """Ran more than once on some side: its agreement is evidence of no noise."""
        return len(self.before) > 1 or len(self.now) > 1


class Pairs(Collection[Pair]):
    """One budget's paired cases, kept in columns (the figures in one array): ~150 bytes a case
    where a `Pair` object is ~500, so a 500,000-case suite's budget fits beside the comparison.
    Iterating gives each case's `Pair`, made when asked for, in the results' order."""

    def __init__(self) -> None:
        self._keys: list[str] = []
        self._figures = array("d")  # each case's baseline runs, then its runs now
        self._ends = array("q")  # where each case's figures end in `_figures`
        self._now = array("q")  # how many of them are runs now

    def add(self, key: str, before: list[float], now: list[float]) -> None:
        self._keys.append(key)
        self._figures.extend(before + now)
        self._ends.append(len(self._figures))
        self._now.append(len(now))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[Pair]:
        start = 0
        for key, end, runs in zip(self._keys, self._ends, self._now):
            before, now = tuple(self._figures[start:end - runs]), tuple(self._figures[end - runs:end])
            yield Pair(CaseDelta(key, sum(before) / len(before), sum(now) / len(now), runs), before, now)
            start = end

    def __contains__(self, item: object) -> bool:
        return any(p == item for p in self)


def pairs_of(results: ScoredResults, baseline: Baseline, suite: str, key: str) -> tuple[Pairs, list[str], str]:
    """The paired cases, the cases that lost the figure, and why no run of the suite has it now
    ("" when one has, or no case ran without failing)."""
    pairs, lost = Pairs(), []
    measured, unmeasured = False, ""
    for case in results.cases:
        if case.suite != suite:
            continue
        now = [v for v in (run_figure(r, key) for r in case.runs) if v is not None]
        measured = measured or bool(now)
        if not now and not case.run_errors and not unmeasured:
            unmeasured = f"{case.key}: {missing_figure(case, key)}"
        old = baseline.case(case.suite, case.eval_set_id, case.eval_id)
        before = [v for v in (old.figures.get(key, []) if old is not None and same_test(old, case) else []) if v is not None]
        if not before:
            continue
        if not now:
            if not case.run_errors:
                lost.append(f"{case.key}: {missing_figure(case, key)}")
            continue
        pairs.add(case.key, before, now)
    return pairs, lost, "" if measured else unmeasured


def same_test(old: BaselineCase | None, case: ScoredCase) -> bool:
    return old is not None and old.fingerprint == case.fingerprint


def missing_figure(case: ScoredCase, key: str) -> str:
    if key == "cost_usd":
        unpriced = sorted({m for r in case.runs for m in r.unpriced_models or []})
        if unpriced:
            return f"cost_usd unknown: no price for {', '.join(unpriced)} (add it under `prices:` in agenteval.yaml)"
        return "cost_usd unknown: no model call reported its token usage"
    return f"{key} not reported by any run"
