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
from dataclasses import dataclass, field

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
    return _kappa(len(pairs), sum(a == b for a, b in pairs), sum(a for a, _ in pairs), sum(b for _, b in pairs))


def _kappa(n: int, agreed: int, first_yes: int, second_yes: int) -> float | None:
    if not n:
        return None
    observed = agreed / n
    first, second = first_yes / n, second_yes / n
    chance = first * second + (1 - first) * (1 - second)
    return None if chance >= 1 else (observed - chance) / (1 - chance)


def _turn_verdicts(turn: InvocationScore) -> Iterator[tuple[str, bool]]:
    rubrics = [(r.rubric_id, r.score) for r in turn.rubric_scores or [] if r.score is not None]
    if rubrics:
        yield from ((rubric, score >= 0.5) for rubric, score in rubrics)
    elif turn.status in (Status.PASSED, Status.FAILED):
        yield "", turn.status == Status.PASSED


VerdictKey = tuple[str, int, int, str]  # metric, run, turn, rubric


def case_verdicts(case: CaseResult | None) -> dict[VerdictKey, bool]:
    """Every verdict a judge gave on one case."""
    found = {}
    for metric, result in case.metrics.items() if case is not None else ():
        for run_index, run in enumerate(result.runs):
            for turn_index, turn in enumerate(run.per_invocation):
                for rubric, value in _turn_verdicts(turn):
                    found[(metric, run_index, turn_index, rubric)] = value
    return found


@dataclass
class _Counts:
    """One metric's or rubric's tally so far."""

    both: int = 0
    agreed: int = 0
    first_yes: int = 0
    second_yes: int = 0
    only_one: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)


class AgreementTally:
    """The two judges' verdicts counted a case at a time (memory: the counts and the verdicts
    they disagree on), then read as rows."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], _Counts] = {}

    def add(self, key: str, first: CaseResult | None, second: CaseResult | None) -> None:
        """The same stored case (`key`) as each judge scored it (None: not scored by that one)."""
        a, b = case_verdicts(first), case_verdicts(second)
        for verdict in a.keys() | b.keys():
            metric, run, turn, rubric = verdict
            counts = self._counts.setdefault((metric, rubric), _Counts())
            if verdict not in a or verdict not in b:
                counts.only_one += 1
                continue
            x, y = a[verdict], b[verdict]
            counts.both += 1
            counts.agreed += x == y
            counts.first_yes += x
            counts.second_yes += y
            if x != y:
                counts.disagreements.append(Disagreement(key, run, turn, x, y))

    def rows(self, metrics: list[str]) -> list[AgreementRow]:
        """Per metric, then per rubric of it, the two judges' agreement on the verdicts both gave."""
        return [_row(metric, rubric, self._counts[(metric, rubric)]) for metric in metrics
                for rubric in sorted(r for m, r in self._counts if m == metric)]


def _row(metric: str, rubric: str, counts: _Counts) -> AgreementRow:
    n = counts.both
    return AgreementRow(
        metric=metric, rubric=rubric, verdicts=n,
        agreement=counts.agreed / n if n else None,
        kappa=_kappa(n, counts.agreed, counts.first_yes, counts.second_yes),
        first_yes=counts.first_yes / n if n else None,
        second_yes=counts.second_yes / n if n else None,
        only_one=counts.only_one,
        disagreements=tuple(sorted(counts.disagreements, key=lambda d: (d.case, d.run, d.turn))),
    )


def agreement(first: list[CaseResult], second: list[CaseResult], metrics: list[str]) -> list[AgreementRow]:
    """Per metric, then per rubric of it, the two judges' agreement on the verdicts both gave
    (cases paired by key; a key given twice is its last case)."""
    a, b = {c.key: c for c in first}, {c.key: c for c in second}
    tally = AgreementTally()
    for key in {**a, **b}:
        tally.add(key, a.get(key), b.get(key))
    return tally.rows(metrics)
