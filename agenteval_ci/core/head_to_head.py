"""Head to head: is the PR's answer better or worse than the baseline's? (pure, no I/O)

head_to_head_v1 (core/metrics/head_to_head.py) asks the judge, for each turn of each run, which
of two answers serves the request better, the baseline's recorded answer and this run's, once in
each order. An order names an answer when at least three quarters of its samples do (else a
tie); the two orders must name the same answer for a win or a loss, and when each order
names the answer in the same position the judge followed the position, not the answers: a tie,
counted as a position disagreement. A turn scores 1 (win), 0.5 (tie) or 0 (loss); a case is a win
when its mean over turns and runs is above 0.5, a loss below.

The suite's rule (docs/gate.md, "Head to head"): the PR regressed when losses outnumber wins
beyond chance, by an exact one-sided sign test over the cases that were not ties, at
α = 1 - gate.confidence. With the two orders, a judge's position bias favours neither side, so
when nothing changed a win and a loss are equally likely and the test keeps its α. The net win
rate, (wins - losses) / cases, is shown with an interval at gate.confidence (`net_interval`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from ..schema import Status
from .digest import ScoredCase, ScoredMetric

HEAD_TO_HEAD = "head_to_head_v1"
ORDERS_AGREE = "orders_agree"  # a run's rubric-like figure: 1.0 when no turn's two orders disagreed on position
EVEN = 1e-9  # a case's mean this close to 0.5 is a tie
SURE = 0.75  # the share of an order's samples that must name one answer for the order to name it

Order = Literal["first", "second", "tie"]
Outcome = Literal["win", "tie", "loss"]


@dataclass(frozen=True)
class TurnVerdict:
    """One turn judged in both orders: baseline first, then the PR's answer first."""

    outcome: Outcome
    position_disagreement: bool

    @property
    def score(self) -> float:
        return {"win": 1.0, "tie": 0.5, "loss": 0.0}[self.outcome]


def order_verdict(samples: Sequence[Order]) -> Order:
    """An order's verdict: the position at least three quarters of its samples named (4 of 5, all
    of 3, the one of 1), else a tie. A bare majority would let a judge's position bias decide the
    many close calls of answers that are alike, in both orders, and cost the test its power."""
    need = math.ceil(SURE * len(samples))
    for position in ("first", "second"):
        if samples and sum(s == position for s in samples) >= need:
            return position
    return "tie"


def turn_verdict(baseline_first: Order, pr_first: Order) -> TurnVerdict:
    """Both orders' verdicts, as the PR's win, tie or loss."""
    pr_in_first = {"first": "baseline", "second": "pr", "tie": "tie"}[baseline_first]
    pr_in_second = {"first": "pr", "second": "baseline", "tie": "tie"}[pr_first]
    if pr_in_first == pr_in_second == "pr":
        return TurnVerdict("win", False)
    if pr_in_first == pr_in_second == "baseline":
        return TurnVerdict("loss", False)
    return TurnVerdict("tie", {pr_in_first, pr_in_second} == {"pr", "baseline"})


def case_outcome(score: float) -> Outcome:
    return "win" if score > 0.5 + EVEN else "loss" if score < 0.5 - EVEN else "tie"


def losses_beyond_chance(losses: int, wins: int) -> float:
    """Exact one-sided sign test: P(at least `losses` of the wins and losses | each equally likely)."""
    n = losses + wins
    return sum(math.comb(n, k) for k in range(losses, n + 1)) / 2**n if n else 1.0


def net_interval(wins: int, ties: int, losses: int, confidence: float) -> tuple[float, float, float]:
    """The net win rate (wins - losses) / cases, and its interval: normal, with one more win and
    one more loss counted (as Agresti and Caffo add to each side), so that a suite of all losses
    or all ties still gets an interval as wide as its few cases warrant; clipped to [-1, 1]."""
    n = wins + ties + losses
    net = (wins - losses) / n
    centre = (wins - losses) / (n + 2)
    spread = (wins + losses + 2) / (n + 2) - centre * centre  # the variance of a case's +1 / 0 / -1
    half = NormalDist().inv_cdf(1 - (1 - confidence) / 2) * math.sqrt(spread / (n + 2))
    return net, max(-1.0, centre - half), min(1.0, centre + half)


# ---------------------------------------------------------------- the suite's record


@dataclass(frozen=True)
class HeadToHead:
    """A suite's head-to-head record against the baseline's recorded answers."""

    metric: str
    verdict: str  # regressed | improved | unchanged | not evaluated
    wins: int
    ties: int
    losses: int
    position_disagreements: int  # cases with a turn whose two orders each named the same position (ties)
    net: float | None  # (wins - losses) / cases
    ci_low: float | None
    ci_high: float | None
    p_loss: float | None  # the sign test's p of losses beating wins; the gate fails at p <= alpha
    alpha: float
    lost: tuple[str, ...] = ()  # case keys, the worst first
    not_evaluated: tuple[str, ...] = ()  # "case key: why", where the baseline has the case
    reason: str = ""


def _disagreed(metric: ScoredMetric) -> bool:
    return any(v.rubric_id == ORDERS_AGREE and v.score == 0.0 for run in metric.runs for v in run.rubric_scores or ())


def head_to_head(cases: Iterable[ScoredCase], compared: Callable[[ScoredCase], bool], metric: str, confidence: float) -> HeadToHead | None:
    """The record of `metric` over `cases`; `compared`: whether the baseline has a case under
    the same test (a case it has not is new, not missing evidence). None when no case has the metric."""
    wins: list[tuple[float, str]] = []
    losses: list[tuple[float, str]] = []
    ties = disagreements = 0
    missing: list[str] = []
    seen = False
    for case in cases:
        scored = case.metrics.get(metric)
        if scored is None:
            continue
        seen = True
        if scored.score is None or scored.status == Status.NOT_EVALUATED:
            if compared(case):
                missing.append(f"{case.key}: {scored.reason or 'not evaluated'}")
            continue
        disagreements += _disagreed(scored)
        outcome = case_outcome(scored.score)
        if outcome == "win":
            wins.append((scored.score, case.key))
        elif outcome == "loss":
            losses.append((scored.score, case.key))
        else:
            ties += 1
    if not seen:
        return None
    return _record(metric, len(wins), ties, sorted(losses), disagreements, missing, confidence)


def _record(metric: str, wins: int, ties: int, losses: list[tuple[float, str]], disagreements: int, missing: list[str],
            confidence: float) -> HeadToHead:
    alpha = 1 - confidence
    lost = tuple(key for _, key in losses)
    if not wins + ties + len(losses):
        why = missing[0] if missing else "no case was judged"
        return HeadToHead(metric, "not evaluated", 0, 0, 0, 0, None, None, None, None, alpha, (), tuple(missing), why)
    net, low, high = net_interval(wins, ties, len(losses), confidence)
    p_loss = losses_beyond_chance(len(losses), wins)
    p_win = losses_beyond_chance(wins, len(losses))
    verdict = "regressed" if p_loss <= alpha else "improved" if p_win <= alpha else "unchanged"
    reason = (f"head to head, losses beat wins beyond chance: {len(losses)} loss(es) to {wins} win(s), "
              f"sign test p = {p_loss:.3g} <= {alpha:g}") if verdict == "regressed" else ""
    return HeadToHead(metric, verdict, wins, ties, len(losses), disagreements, net, low, high, p_loss, alpha, lost, tuple(missing), reason)
