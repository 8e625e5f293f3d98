"""Where a comparison keeps its case outcomes: a protocol, with the in-memory stores (a
big suite's go to disk: files/spilled_outcomes.py)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property

from ...schema import Status
from .records import OUTCOMES, CaseOutcome


def importance(case: CaseOutcome) -> tuple[int, bool, float, str]:
    """Most important first: by outcome, failing before passing, the largest drop, then the key."""
    drops = [m.delta for m in case.metrics if m.delta is not None]
    return OUTCOMES.index(case.outcome), case.status != Status.FAILED.value, min(drops, default=0.0), case.key


class OutcomeList:
    """CaseOutcomes in memory while a comparison is made (`compare` then seals them as an OutcomeTuple)."""

    def __init__(self) -> None:
        self._cases: list[CaseOutcome] = []
        self._by_key: dict[str, list[CaseOutcome]] = {}

    def add(self, case: CaseOutcome) -> None:
        self._cases.append(case)
        self._by_key.setdefault(case.key, []).append(case)

    def __len__(self) -> int:
        return len(self._cases)

    def __iter__(self) -> Iterator[CaseOutcome]:
        return iter(sorted(self._cases, key=importance))

    def __getitem__(self, index: int) -> CaseOutcome:
        return sorted(self._cases, key=importance)[index]

    def of(self, outcome: str) -> Iterator[CaseOutcome]:
        return (c for c in self if c.outcome == outcome)

    def with_key(self, key: str) -> list[CaseOutcome]:
        return sorted(self._by_key.get(key, []), key=importance)


class OutcomeTuple(tuple[CaseOutcome, ...]):
    """Sealed CaseOutcomes in memory, most important first: a tuple (what a small comparison's
    `cases` is, and what `dataclasses.asdict` copies)."""

    def add(self, case: CaseOutcome) -> None:
        raise TypeError("a comparison's outcomes are sealed")

    def of(self, outcome: str) -> Iterator[CaseOutcome]:
        return (c for c in self if c.outcome == outcome)

    def with_key(self, key: str) -> list[CaseOutcome]:
        return self._by_key.get(key, [])

    @cached_property
    def _by_key(self) -> dict[str, list[CaseOutcome]]:
        by_key: dict[str, list[CaseOutcome]] = {}
        for case in self:
            by_key.setdefault(case.key, []).append(case)
        return by_key
