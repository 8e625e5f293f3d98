"""How far two judges agree on the same stored outputs (`agenteval judge-agreement`).

The unit is a verdict both judges gave: per rubric of each judged turn for the rubric metrics
(yes/no), per judged turn for the others (its status against the threshold, passed or failed:
valid/invalid, safe/unsafe, a share of supported sentences or a coherence rating over the
threshold). Per metric and rubric: how many verdicts both gave, the share on which they agree,
Cohen's kappa (agreement beyond what their own rates of yes would give by chance), and every
verdict they disagree on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..schema import CaseResult, InvocationScore, Status


@dataclass(frozen=True)
class Verdict:
    case: str
    run: int
    turn: int
    rubric: str  # "" for a metric's own verdict
    value: bool  # yes / passed


@dataclass(frozen=True)
class Disagreement:
    case: str
    run: int
    turn: int
    first: bool
    second: bool


@dataclass(frozen=True)
class AgreementRow:
    metric: str
    rubric: str  # "" for the metric's own verdicts
    verdicts: int  # given by both judges
    agreement: float | None
    kappa: float | None  # None when chance agreement is total (both said the same thing every time)
    first_yes: float | None  # each judge's rate of yes
    second_yes: float | None
    only_one: int  # verdicts only one judge gave (the other's sample failed)
    disagreements: tuple[Disagreement, ...]


def cohen_kappa(pairs: list[tuple[bool, bool]]) -> float | None:
    """(observed - chance) / (1 - chance), chance from each judge's own rate of yes."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    chance = first * second + (1 - first) * (1 - second)
    return None if chance >= 1 else (observed - chance) / (1 - chance)


def _turn_verdicts(turn: InvocationScore) -> Iterator[tuple[str, bool]]:
    rubrics = [(r.rubric_id, r.score) for r in turn.rubric_scores or [] if r.score is not None]
    if rubrics:
        yield from ((rubric, score >= 0.5) for rubric, score in rubrics)
    elif turn.status in (Status.PASSED, Status.FAILED):
        yield "", turn.status == Status.PASSED


def verdicts(cases: list[CaseResult], metric: str) -> dict[tuple[str, int, int, str], bool]:
    found = {}
    for case in cases:
        result = case.metrics.get(metric)
        for run_index, run in enumerate(result.runs if result else []):
            for turn_index, turn in enumerate(run.per_invocation):
                for rubric, value in _turn_verdicts(turn):
                    found[(case.key, run_index, turn_index, rubric)] = value
    return found


def agreement(first: list[CaseResult], second: list[CaseResult], metrics: list[str]) -> list[AgreementRow]:
    """Per metric, then per rubric of it, the two judges' agreement on the verdicts both gave."""
    rows = []
    for metric in metrics:
        a, b = verdicts(first, metric), verdicts(second, metric)
        for rubric in sorted({key[3] for key in (*a, *b)}):
            keys_a = {k for k in a if k[3] == rubric}
            keys_b = {k for k in b if k[3] == rubric}
            both = sorted(keys_a & keys_b)
            pairs = [(a[k], b[k]) for k in both]
            rows.append(AgreementRow(
                metric=metric, rubric=rubric, verdicts=len(pairs),
                agreement=sum(x == y for x, y in pairs) / len(pairs) if pairs else None,
                kappa=cohen_kappa(pairs),
                first_yes=sum(x for x, _ in pairs) / len(pairs) if pairs else None,
                second_yes=sum(y for _, y in pairs) / len(pairs) if pairs else None,
                only_one=len(keys_a ^ keys_b),
                disagreements=tuple(Disagreement(k[0], k[1], k[2], a[k], b[k]) for k in both if a[k] != b[k]),
            ))
    return rows
