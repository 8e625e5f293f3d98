"""The sequential rule of `num_runs: auto`: its factors are fair bets when nothing changed, a
flip weighs what the suite's learned flakiness says, and peeking after every round keeps false
alarms under alpha."""

from __future__ import annotations

import math
import random

from agenteval_ci.core.adaptive import _metric_reruns
from agenteval_ci.core.gate import Pair
from agenteval_ci.core.sequential import GRID, CaseCounts, Counts, fit_prior, metric_evidence, predict


def _case(history: tuple[int, int], now: tuple[int, int], key: str = "k") -> CaseCounts:
    return CaseCounts(key, Counts(*history), Counts(*now))


def _sequence_probability(prior: tuple[float, ...], history: Counts, now: Counts) -> float:
    """P(one given sequence of runs now | the rate is the baseline's), averaged over the posterior."""
    post = [w * g**history.passes * (1 - g) ** history.fails for w, g in zip(prior, GRID)]
    return sum(p * g**now.passes * (1 - g) ** now.fails for p, g in zip(post, GRID)) / sum(post)


def test_a_factor_is_a_fair_bet_when_nothing_changed():
    """E[factor] = 1 under "unchanged", for any history and any number of runs: the property
    that makes the suite's evidence a test martingale (and Ville's bound hold)."""
    prior = fit_prior([Counts(5, 0)] * 50 + [Counts(3, 2)] * 30 + [Counts(0, 5)] * 5)
    for history in [(5, 0), (3, 2), (1, 0), (0, 1), (30, 0), (12, 9)]:
        for n in (1, 2, 5):
            expected = sum(
                math.comb(n, k) * _sequence_probability(prior, Counts(*history), Counts(k, n - k)) * predict(prior, _case(history, (k, n - k)), 0.3).factor
                for k in range(n + 1)
            )
            assert abs(expected - 1) < 1e-9, (history, n, expected)


def test_flakiness_is_learned_from_the_suite_not_assumed():
    """One failing run against five passing ones: strong evidence in a suite where no case ever
    varied, weak in one where many cases do; and a longer history makes it stronger."""
    deterministic = fit_prior([Counts(5, 0)] * 95 + [Counts(0, 5)] * 5)
    flaky = fit_prior([Counts(5, 0)] * 60 + [Counts(3, 2)] * 20 + [Counts(4, 1)] * 20)
    flip = _case((5, 0), (0, 1))
    assert predict(deterministic, flip, 0.3).factor > 100 > 10 > predict(flaky, flip, 0.3).factor > 1
    assert predict(deterministic, _case((20, 0), (0, 1)), 0.3).factor > predict(deterministic, flip, 0.3).factor
    # a case that varied in its own history explains a failure now, whatever the suite
    assert predict(deterministic, _case((3, 2), (0, 1)), 0.3).factor < 3
    # passing runs are evidence against a drop; no runs are no evidence
    assert predict(flaky, _case((5, 0), (2, 0)), 0.3).factor < predict(flaky, _case((5, 0), (1, 0)), 0.3).factor < 1
    assert abs(predict(flaky, _case((5, 0), (0, 0)), 0.3).factor - 1) < 1e-12


def test_one_case_of_a_hundred_flipping_in_a_deterministic_suite_needs_confirming_then_fails():
    history = [Counts(5, 0)] * 100
    confirmations = []
    for fails in range(1, 11):
        cases = [_case((5, 0), (0, fails), "flip")] + [_case((5, 0), (1, 0), str(i)) for i in range(99)]
        evidence = metric_evidence("m", cases, 0.3, 0.05, 0.9, history)
        confirmations.append(evidence.regressed)
    assert confirmations[0] is False  # one failing run is not yet sure ...
    assert True in confirmations[:4] and all(confirmations[confirmations.index(True):])  # ... a few more are


def test_the_flipped_case_is_doubtful_the_others_are_not_and_a_drop_on_many_needs_their_runs_to_be_ruled_out():
    history = [Counts(5, 0)] * 50
    for runs, ruled_out in ((1, False), (3, True)):  # one passing run each cannot rule out 5 of 50 cases losing 0.3
        cases = [_case((5, 0), (0, 1), "flip")] + [_case((5, 0), (runs, 0), str(i)) for i in range(49)]
        evidence = metric_evidence("m", cases, 0.3, 0.05, 0.9, history)
        assert [c.counts.key for c in evidence.doubtful()] == ["flip"]
        assert evidence.open is not ruled_out  # the flipped case is left out: its own re-runs settle it
    settle = evidence.settle(evidence.cases[0], runs_left=9)
    assert 1 <= settle.fails_to_fail <= 9 and settle.passes_to_clear >= 1
    small = metric_evidence("m", cases[:20], 0.3, 0.05, 0.9, history[:20])
    assert not small.open  # a tenth of 20 cases is two: each case's own re-runs settle it


def test_several_flips_leave_a_drop_on_many_cases_open_and_the_evidence_grows():
    history = [Counts(5, 0)] * 60 + [Counts(3, 2)] * 40
    calm = [_case((5, 0), (1, 0), str(i)) for i in range(60)] + [_case((3, 2), (1, 0), f"f{i}") for i in range(40)]
    flips = [_case((5, 0), (0, 1), str(i)) for i in range(6)] + calm[6:]
    quiet, loud = (metric_evidence("m", c, 0.3, 0.05, 0.9, history) for c in (calm, flips))
    assert quiet.evidence < 1 < loud.evidence and not quiet.open and loud.open


def test_the_runs_that_look_for_hidden_drops_spread_over_the_cases():
    """While a drop on several cases is open, the cases run again besides the doubtful ones are
    those whose next run tells most about whether *they* dropped: one that passed once tells more
    than one that already passed six times. (Ranked by how far the two predictions differ
    alone, the six-pass cases came first round after round until they hit max_runs, and the
    rounds ended with budget left and most cases run once.)"""
    def pair(key: str, now: tuple[int, int]) -> Pair:
        return Pair(key, 1.0, now[0] / sum(now), 5, 0, now[0], now[1], True, now[1] == 0, False, Counts(5, 0))

    pairs = [pair(f"flip{i}", (0, 1)) for i in range(5)] + [pair(f"many{i}", (6, 0)) for i in range(20)] + [pair(f"once{i}", (1, 0)) for i in range(75)]
    flaky_suite = [Counts(5, 0)] * 70 + [Counts(3, 2)] * 30
    evidence = metric_evidence("m", [p.counts for p in pairs], 0.3, 0.05, 0.9, flaky_suite)
    assert evidence.open and not evidence.regressed
    many, once = (next(c for c in evidence.cases if c.counts.key == k) for k in ("many0", "once0"))
    assert evidence.telling(once) > evidence.telling(many) > 0
    broad = [r.key for r in _metric_reruns("m", pairs, evidence) if "not ruled out" in r.why]
    assert len(broad) == 15 and all(k.startswith("once") for k in broad)


def _false_alarm(rates: list[float], rng: random.Random, rounds: int = 8) -> bool:
    """5 planned baseline runs per case, one run now, then rounds re-running the doubtful cases;
    True when the evidence reaches 1/alpha at any look (peeking after every round)."""
    history = [Counts(b := sum(rng.random() < p for _ in range(5)), 5 - b) for p in rates]
    now = [[int(rng.random() < p)] for p in rates]
    for _ in range(rounds):
        cases = [CaseCounts(str(i), history[i], Counts(sum(r), len(r) - sum(r))) for i, r in enumerate(now)]
        evidence = metric_evidence("m", cases, 0.3, 0.05, 0.9, history)
        if evidence.regressed:
            return True
        for case in evidence.doubtful():
            i = int(case.counts.key)
            now[i].append(int(rng.random() < rates[i]))
    return False


def test_peeking_after_every_round_keeps_false_alarms_under_alpha():
    rng = random.Random(5)
    trials = 100
    alarms = sum(_false_alarm([rng.choice([0.5, 0.8, 0.95, 1.0, 1.0]) for _ in range(30)], rng) for _ in range(trials))
    assert alarms / trials <= 0.08  # alpha 0.05, with room for the simulation's own noise
