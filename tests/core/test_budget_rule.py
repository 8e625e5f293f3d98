"""The budget rule itself (core/budgets.py): one-sided, judged on the shuffle spread of every
run, looked at twice under num_runs: auto. Pure: pairs of figures in, a summary out."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from agenteval_ci.core.budgets import ALPHA_SPENT, CaseDelta, Looks, Pair, Pairs, budget_summary, runs_to_settle, shuffled, t_quantile, typical_rise


def pair(case: str, before: list[float], now: list[float]) -> Pair:
    return Pair(CaseDelta(case, sum(before) / len(before), sum(now) / len(now), len(now)), tuple(before), tuple(now))


def summary(pairs: list[Pair], budget: float = 0.05, alpha: float = 0.05, **kw):
    return budget_summary("default", "token_usage_v1", budget, pairs, [], alpha, **kw)


@pytest.mark.parametrize("now, before", [(1, 5), (2, 5), (3, 5), (1, 1), (2, 3), (4, 2)])
def test_the_shuffle_spread_is_exactly_that_of_every_way_to_split_the_runs(now, before):
    rng = random.Random(now * 10 + before)
    values = [math.exp(rng.gauss(0, 0.5)) * (0.3 if rng.random() < 0.3 else 1) for _ in range(now + before)]
    found = shuffled(pair("c", values[now:], values[:now]), 0.0)
    logs = [math.log(v) for v in values]
    ratios = []
    for chosen in itertools.combinations(range(now + before), now):
        rest = [logs[i] for i in range(now + before) if i not in chosen]
        ratios.append(sum(logs[i] for i in chosen) / now - sum(rest) / before)
    mean = sum(ratios) / len(ratios)
    assert mean == pytest.approx(0, abs=1e-12)
    assert found.variance == pytest.approx(sum((r - mean) ** 2 for r in ratios) / len(ratios))
    assert found.skew == pytest.approx(sum((r - mean) ** 3 for r in ratios) / len(ratios), abs=1e-12)
    assert found.ratio == pytest.approx(sum(logs[:now]) / now - sum(logs[now:]) / before)


def _suite(rise: float) -> list[Pair]:
    """40 cases whose runs spread about 20%, every run now `rise` heavier (no randomness: the
    spread is fixed, so the test's side and alpha are what decide)."""
    spread = [0.8, 0.9, 1.0, 1.1, 1.2]
    return [pair(f"c{i}", [1000 * s for s in spread], [1000 * (1 + rise) * spread[i % 5]]) for i in range(40)]


def test_a_breach_is_one_sided_at_alpha():
    """A rise between the one-sided and the two-sided bar breaches: the question is only whether
    the figure rose (a fall never breaches, whatever its size)."""
    rises = {r: typical_rise(_suite(r), 0.05) for r in (0.045, 0.05, 0.052, 0.055)}
    z = {r: math.log1p(rise.typical) / rise.error for r, rise in rises.items()}
    between = [r for r in rises if t_quantile(0.95, 39) < z[r] < t_quantile(0.975, 39)]
    assert between, z
    assert all(summary(_suite(r), budget=0.0).breached for r in between)
    assert not summary(_suite(-0.5), budget=0.0).breached


def test_lopsided_noise_the_runs_now_happen_to_miss_is_not_a_breach():
    """Every baseline case ran five times, one of them stopping early (a third of the tokens);
    the one run now of each case happened to finish. The cases' log ratios agree exactly, so
    Student's t over cases would call +27% certain; but a run in six stopping early makes that
    happen (5/6)^10 = 16% of the time with nothing changed, and the shuffle spread knows it."""
    pairs = [pair(f"c{i}", [1000.0, 1000.0, 1000.0, 1000.0, 300.0], [1000.0]) for i in range(10)]
    verdict = summary(pairs)
    assert verdict.typical > 0.2 and not verdict.breached and verdict.typical_bound <= 0
    assert verdict.reason.startswith("unsure: over the budget by the estimate but not beyond noise")
    # ... while the same rise in every run, the early stop too, is beyond noise
    heavier = [pair(f"c{i}", [1000.0, 1010.0, 990.0, 1000.0, 300.0], [1300.0, 1310.0, 1290.0, 1300.0, 390.0]) for i in range(10)]
    assert summary(heavier).breached


def test_skew_raises_the_bar_and_never_lowers_it():
    """A right-skewed spread (a run in six retrying a call) raises the bar above the normal
    one; a left-skewed one leaves it."""
    right = [pair(f"c{i}", [1000.0] * 5, [1800.0 if i % 6 == 0 else 1000.0]) for i in range(60)]
    left = [pair(f"c{i}", [1000.0] * 4 + [300.0], [1000.0]) for i in range(60)]
    z = t_quantile(0.95, 59)
    assert typical_rise(right, 0.05).critical > z + 0.01
    assert typical_rise(left, 0.05).critical == pytest.approx(z)


def test_the_looks_of_num_runs_auto_spend_alpha_once_each():
    fixed, auto = Looks(), Looks(first=1, last=3)
    assert fixed.share(1) == fixed.share(7) == 1.0
    assert auto.share(1) == auto.share(3) == 0.5 and auto.share(2) == 0.0
    assert sum(auto.share(r) for r in range(1, 11)) == 1.0
    assert Looks(first=1, last=1).share(1) == 1.0  # a run budget of 1: one look, all of alpha
    # a heavy rise judged when the cases have two runs is not a breach: that look has no alpha
    pairs = [pair(f"c{i}", [1000.0 * s for s in (0.9, 1.0, 1.1)], [2000.0, 2100.0]) for i in range(20)]
    assert not summary(pairs, looks=auto).breached
    assert summary(pairs, looks=Looks(first=1, last=2)).breached


def test_a_plausible_breach_is_unsure_until_the_last_look_and_names_the_runs_that_would_settle_it():
    rng = random.Random(5)
    pairs = [pair(f"c{i}", [1000 * math.exp(rng.gauss(0, 0.4)) for _ in range(5)], [1080 * math.exp(rng.gauss(0, 0.4))]) for i in range(30)]
    looks = Looks(first=1, last=3)
    early = summary(pairs, looks=looks, last_look=False)
    assert early.verdict == "unsure"
    last = summary(pairs, looks=looks)
    assert last.verdict == "within"
    # over a +0% budget by the estimate, not beyond noise: the reason says what would settle it
    over = summary(pairs, budget=0.0, looks=looks)
    rise = typical_rise(pairs, 0.05)
    assert over.doubtful and rise.typical > 0 and over.reason.startswith("unsure: over the budget by the estimate but not beyond noise")
    needed = runs_to_settle(pairs, rise, 0.05)
    assert (f"about {needed} run(s) per case would settle it" if needed else "more runs now cannot settle it") in over.reason
    # a breach ruled out (well under the budget, little noise) is settled at once
    calm = [pair(f"c{i}", [1000.0, 1010.0, 990.0], [1000.0 + i % 3]) for i in range(30)]
    assert summary(calm, looks=looks, last_look=False).verdict == "within"


def test_runs_to_settle_grow_with_the_noise_and_give_up_when_the_baseline_is_the_noise():
    quiet = [pair(f"c{i}", [1000.0 * s for s in (0.8, 1.0, 1.2, 0.9, 1.1)], [1100.0 * (0.85 if i % 2 else 1.15)]) for i in range(20)]
    loud = [pair(f"c{i}", [1000.0 * s for s in (0.5, 1.0, 1.5, 0.7, 1.3)], [1100.0 * (0.6 if i % 2 else 1.4)]) for i in range(20)]
    few = [pair(f"c{i}", [1000.0 * (0.4 if i % 2 else 1.6)], [1100.0]) for i in range(6)]
    settle = {name: runs_to_settle(p, typical_rise(p, 0.05), 0.05) for name, p in (("quiet", quiet), ("loud", loud), ("few", few))}
    assert settle["quiet"] is not None and settle["loud"] is not None and settle["loud"] > settle["quiet"]
    assert settle["few"] is None


def test_a_single_noisy_case_over_the_budget_is_unsure_for_want_of_cases_not_of_baseline_runs():
    alone = summary([pair("c0", [1000.0, 1100.0, 900.0], [1500.0])], budget=0.1)
    assert not alone.breached and alone.doubtful
    assert "one case has the figure on both sides, too few to tell a rise from noise" in alone.reason
    assert "baseline's own runs are too few" not in alone.reason


def test_pairs_kept_in_columns_read_back_as_the_pairs_and_judge_alike():
    rng = random.Random(11)
    pairs = [pair(f"c{i}", [1000 * math.exp(rng.gauss(0, 0.3)) for _ in range(rng.randint(1, 4))],
                  [1150 * math.exp(rng.gauss(0, 0.3)) for _ in range(rng.randint(1, 3))]) for i in range(40)]
    columns = Pairs()
    for p in pairs:
        columns.add(p.delta.case, list(p.before), list(p.now))
    assert list(columns) == pairs and len(columns) == 40 and pairs[3] in columns
    verdicts = []
    for budget in (0.0, 0.05, 0.5):  # breached (the drivers and every case over it named), then within
        found = summary(columns, budget=budget)
        assert found == summary(pairs, budget=budget)
        verdicts.append((found.verdict, len(found.drivers), bool(found.over)))
    assert verdicts == [("breached", 10, True), ("breached", 10, True), ("within", 7, False)]


def test_under_30_cases_a_deterministic_rise_on_one_run_a_side_is_caught_by_the_drawn_bar():
    """A baseline accepted from one run per case and one run now: nothing shows the figure is
    deterministic, and Student's t over cases of unequal rises (0 -> 1 tool calls is a large log
    ratio, 3 -> 4 a small one) could not reach its bar on ten cases. Every case rising is 1 in
    2^n of the shuffles: beyond noise from 6 cases at the 3% a lone budget spends, not at 5 (1 in 32)."""
    def suite(n: int) -> list[Pair]:
        return [pair(f"c{i}", [float(i % 4)], [float(i % 4 + 1)]) for i in range(n)]

    spent = 0.05 * ALPHA_SPENT
    for n in (6, 10, 20, 29):
        assert summary(suite(n), budget=0.0, alpha=spent).breached, n
    five = summary(suite(5), budget=0.0, alpha=spent)
    assert not five.breached and five.doubtful


def test_the_drawn_bar_holds_alpha_on_skewed_noise():
    """Nothing changed, 8 cases, one run a side, a run in six retrying (x1.8): breaches at most
    about alpha of the time (exact, up to the draws; here the whole 5%, not the share spent)."""
    rng = random.Random(3)

    def run(size: float) -> float:
        return size * math.exp(rng.gauss(0, 0.1)) * (1.8 if rng.random() < 1 / 6 else 1.0)

    suites = 300
    breaches = 0
    for _ in range(suites):
        sizes = [1000 * math.exp(rng.gauss(0, 1)) for _ in range(8)]
        breaches += summary([pair(f"c{i}", [run(s)], [run(s)]) for i, s in enumerate(sizes)], budget=0.0).breached
    assert breaches / suites <= 0.08, breaches
