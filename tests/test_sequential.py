"""The sequential rule of `num_runs: auto`: its factors are fair bets when nothing changed,
its evidence grows with a drop, and peeking after every run keeps false alarms under alpha."""

from __future__ import annotations

import math
import random

from agenteval_ci.core.sequential import GRID, CaseCounts, Counts, bayes_factor, chance_dropped, fit_prior, metric_evidence, suite_evidence


def _case(baseline: tuple[int, int], now: tuple[int, int]) -> CaseCounts:
    return CaseCounts("k", Counts(*baseline), Counts(*now))


def _unchanged_probability(prior: list[float], baseline: Counts, now: Counts) -> float:
    """P(one given sequence of runs now | the rate is the baseline's), averaged over the posterior."""
    post = [w * g**baseline.passes * (1 - g) ** baseline.fails for w, g in zip(prior, GRID)]
    return sum(p * g**now.passes * (1 - g) ** now.fails for p, g in zip(post, GRID)) / sum(post)


def test_a_factor_is_a_fair_bet_when_nothing_changed():
    """E[factor] = 1 under "unchanged", for any baseline and any number of runs: the property
    that makes the suite's evidence a test martingale (and Ville's bound hold)."""
    prior = fit_prior([Counts(3, 0)] * 50 + [Counts(2, 1)] * 30 + [Counts(0, 3)] * 5)
    for baseline in [(3, 0), (2, 1), (1, 0), (0, 1), (10, 0)]:
        for n in (1, 2, 5):
            expected = sum(
                math.comb(n, k) * _unchanged_probability(prior, Counts(*baseline), Counts(k, n - k)) * bayes_factor(prior, _case(baseline, (k, n - k)), 0.3)
                for k in range(n + 1)
            )
            assert abs(expected - 1) < 1e-9, (baseline, n, expected)


def test_failures_against_a_passing_baseline_are_evidence_and_passes_are_not():
    prior = fit_prior([Counts(3, 0)] * 60 + [Counts(2, 1)] * 40)
    assert bayes_factor(prior, _case((3, 0), (0, 0)), 0.3) == 1.0  # no runs, no evidence
    assert bayes_factor(prior, _case((3, 0), (1, 0)), 0.3) < 0.5
    one, two = bayes_factor(prior, _case((3, 0), (0, 1)), 0.3), bayes_factor(prior, _case((3, 0), (0, 2)), 0.3)
    assert 1 < one < two
    assert chance_dropped(two) > chance_dropped(one) > 0.1
    # a baseline that fails as often explains a failure now: less evidence than against a clean one
    assert bayes_factor(prior, _case((1, 2), (0, 1)), 0.3) < one


def test_the_suites_evidence_needs_several_cases_or_a_strong_one():
    assert suite_evidence([1.0] * 50) == 1.0
    assert suite_evidence([0.3] * 50) < 1
    assert suite_evidence([30.0] * 5 + [0.5] * 45) > 20
    assert math.isinf(suite_evidence([math.inf, 0.1]))


def _regressed_within_rounds(baseline_rates: list[float], rates_now: list[float], rng: random.Random, rounds: int = 8) -> bool:
    """3 baseline runs per case, one run now, then rounds re-running the unsure cases; True
    when the evidence reaches 1/alpha at any look (peeking after every round)."""
    baseline = [Counts(b := sum(rng.random() < p for _ in range(3)), 3 - b) for p in baseline_rates]
    now = [[int(rng.random() < p)] for p in rates_now]
    for _ in range(rounds):
        evidence = metric_evidence("m", [CaseCounts(str(i), baseline[i], Counts(sum(r), len(r) - sum(r))) for i, r in enumerate(now)], 0.3, 0.05)
        if evidence.regressed:
            return True
        for case in evidence.unsure(0.9):
            i = int(case.counts.key)
            now[i].append(int(rng.random() < rates_now[i]))
    return False


def test_peeking_after_every_round_keeps_false_alarms_under_alpha():
    """A/A with pass rates drawn as the prior says: stopping at the first look the evidence
    reaches 1/alpha fails at most ~alpha of the time."""
    rng = random.Random(5)
    trials = 100
    alarms = 0
    for _ in range(trials):
        rates = [rng.choice([0.5, 0.8, 0.95, 1.0]) for _ in range(30)]
        alarms += _regressed_within_rounds(rates, rates, rng)
    assert alarms / trials <= 0.08  # alpha 0.05, with room for the simulation's own noise


def test_a_drop_on_a_fifth_of_the_cases_is_found():
    rng = random.Random(6)
    found = 0
    for _ in range(30):
        rates = [rng.uniform(0.6, 1.0) for _ in range(40)]
        found += _regressed_within_rounds(rates, [p - 0.5 if i < 8 else p for i, p in enumerate(rates)], rng)
    assert found >= 22  # most of the time; bench/gate_accuracy.py measures the power
