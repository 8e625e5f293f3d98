"""How often the gate is right on simulated stochastic agents (issues 3 and 17's "Show").

Each case passes the metric in each run with its own probability (100 cases); a run scores
1.0 (pass) or 0.0 (fail) against threshold 1.0, like a tool trajectory. The results and
baselines go through the real pipeline: baseline_from_results, then gate.compare with the
default GateSettings; `num_runs: auto` rounds are planned by the real adaptive.plan_round and
adaptive.within_limits (min_runs 1, max_runs 10, run_budget 3), only the agent is simulated.

  python bench/gate_accuracy.py [--trials 200] [--seed 1]

Prints, per suite and run mode (fixed 1, 3, 5 runs per case; auto): the A/A false-failure
rate (target <= 5%), the power when 20% of cases drop their pass probability by 0.4, and the
mean runs per case of the new results; then a deterministic suite with one newly failing case.
Fixed modes compare with a baseline of as many runs per case; auto with a 3-run baseline.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

from agenteval_ci.core.adaptive import plan_round, within_limits
from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.files.results import new_results
from agenteval_ci.schema import AdaptiveInfo, CaseResult, EvalCase, MetricResult, MetricRun, Results, Status
from agenteval_ci.schema.baseline import Baseline
from agenteval_ci.schema.project import AdaptiveRuns
from agenteval_ci.schema.settings import GateSettings

CASES, METRIC = 100, "tool_trajectory_avg_score"
AUTO = AdaptiveRuns()  # the defaults: min_runs 1, max_runs 10, run_budget 3
AUTO_BASELINE_RUNS = 3
MODES = ("fixed 1", "fixed 3", "fixed 5", "auto")


def _eval_case(i: int) -> EvalCase:
    turn = {"user_content": {"role": "user", "parts": [{"text": f"task {i}"}]}}
    return EvalCase.model_validate({"eval_id": f"case-{i:03d}", "conversation": [turn]})


EVAL_CASES = [_eval_case(i) for i in range(CASES)]


def _case(i: int, runs: list[float]) -> CaseResult:
    score = sum(runs) / len(runs)
    status = Status.PASSED if score >= 1.0 else Status.FAILED
    metric = MetricResult(
        score=score, threshold=1.0, status=status, config_fingerprint="cfg",
        runs=[MetricRun(score=s, status=Status.PASSED if s >= 1.0 else Status.FAILED) for s in runs],
    )
    return CaseResult(eval_set_id="sim", eval_id=f"case-{i:03d}", fingerprint="fp", status=status, metrics={METRIC: metric}, eval_case=EVAL_CASES[i])


def results_of(outcomes: list[list[float]], adaptive: AdaptiveInfo | None = None) -> Results:
    return new_results([_case(i, runs) for i, runs in enumerate(outcomes)], num_runs=max(map(len, outcomes)), adaptive=adaptive)


def draw(p: float, rng: random.Random) -> float:
    return 1.0 if rng.random() < p else 0.0


def simulate(probabilities: list[float], rng: random.Random, runs: int) -> Results:
    """One results file: each case's runs drawn with its pass probability."""
    return results_of([[draw(p, rng) for _ in range(runs)] for p in probabilities])


def simulate_auto(probabilities: list[float], rng: random.Random, baseline: Baseline, settings: GateSettings) -> Results:
    """num_runs: auto: one run per case, then rounds of the cases plan_round asks for."""
    outcomes = [[draw(p, rng)] for p in probabilities]
    index = {f"default/sim/case-{i:03d}": i for i in range(CASES)}
    room = {"default": int(AUTO.run_budget * CASES) - CASES}
    info = AdaptiveInfo(min_runs=AUTO.min_runs, max_runs=AUTO.max_runs, run_budget=AUTO.run_budget)
    while True:
        results = results_of(outcomes, info)
        plan = plan_round(results, baseline, settings)
        chosen, _ = within_limits(plan.reruns, {c.key: c for c in results.cases}, {"default": AUTO}, room)
        if plan.decided or not chosen:
            return results
        for rerun in chosen:
            outcomes[index[rerun.key]].append(draw(probabilities[index[rerun.key]], rng))


@dataclass
class Tally:
    failed: int = 0
    runs: int = 0
    trials: int = 0

    def add(self, results: Results, baseline: Baseline, seed: int) -> None:
        self.failed += compare(results, baseline, GateSettings(seed=seed)).verdict == "failed"
        self.runs += sum(len(c.metrics[METRIC].runs) for c in results.cases)
        self.trials += 1

    @property
    def rate(self) -> float:
        return self.failed / self.trials

    @property
    def runs_per_case(self) -> float:
        return self.runs / (self.trials * CASES)


def run_mode(mode: str, candidate: list[float], probabilities: list[float], rng: random.Random, seed: int) -> tuple[Results, Baseline]:
    runs = AUTO_BASELINE_RUNS if mode == "auto" else int(mode.split()[1])
    baseline = baseline_from_results(simulate(probabilities, rng, runs))
    if mode == "auto":
        return simulate_auto(candidate, rng, baseline, GateSettings(seed=seed)), baseline
    return simulate(candidate, rng, runs), baseline


def pass_probabilities(rng: random.Random, spread: str) -> list[float]:
    if spread == "hard":  # every case flaky somewhere in [0.4, 1]
        return [rng.uniform(0.4, 1.0) for _ in range(CASES)]
    # typical suite: most cases pass reliably, a third are flaky
    return [rng.uniform(0.95, 1.0) if rng.random() < 2 / 3 else rng.uniform(0.4, 0.95) for _ in range(CASES)]


def measure(mode: str, trials: int, seed: int, spread: str, drop: float) -> Tally:
    rng = random.Random(f"{seed}:{spread}:{drop}:{mode}")
    tally = Tally()
    for trial in range(trials):
        probabilities = pass_probabilities(rng, spread)
        affected = set(rng.sample(range(CASES), CASES // 5)) if drop else set()
        candidate = [max(0.0, p - drop) if i in affected else p for i, p in enumerate(probabilities)]
        tally.add(*run_mode(mode, candidate, probabilities, rng, trial), seed=trial)
    return tally


def deterministic(mode: str, trials: int, seed: int) -> Tally:
    """All cases pass or fail every run; exactly one passing case breaks."""
    rng = random.Random(f"{seed}:deterministic:{mode}")
    tally = Tally()
    for trial in range(trials):
        probabilities = [1.0 if rng.random() < 0.8 else 0.0 for _ in range(CASES)]
        broken = rng.choice([i for i, p in enumerate(probabilities) if p == 1.0])
        candidate = [0.0 if i == broken else p for i, p in enumerate(probabilities)]
        tally.add(*run_mode(mode, candidate, probabilities, rng, trial), seed=trial)
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of: " + ", ".join(MODES))
    parser.add_argument("--suites", default="typical,hard,deterministic", help="comma-separated subset of: typical, hard, deterministic")
    args = parser.parse_args()
    modes = args.modes.split(",")
    start = time.perf_counter()
    d = GateSettings()
    print(f"{CASES} cases, {args.trials} trials each, default GateSettings "
          f"(tolerance {d.tolerance}, confidence {d.confidence}, power {d.power}, case_drop {d.case_drop})")
    print("A/A target <= 5%; power (20% of cases lose 0.4): target >= 90% on the hard suite; runs/case: target <= 3 for auto")
    print(f"{'suite':<8} {'mode':<8} {'A/A failed':>10} {'runs/case':>9}   {'power':>6} {'runs/case':>9}")
    suites = args.suites.split(",")
    for spread in [s for s in ("typical", "hard") if s in suites]:
        for mode in modes:
            aa = measure(mode, args.trials, args.seed, spread, drop=0.0)
            power = measure(mode, args.trials, args.seed + 1, spread, drop=0.4)
            print(f"{spread:<8} {mode:<8} {aa.rate:>10.1%} {aa.runs_per_case:>9.2f}   {power.rate:>6.1%} {power.runs_per_case:>9.2f}", flush=True)
    for mode in [m for m in ("fixed 1", "auto") if m in modes and "deterministic" in suites]:
        caught = deterministic(mode, args.trials, args.seed)
        print(f"deterministic suite, one newly failing case, {mode:<7}: caught {caught.rate:.1%} (target 100%), {caught.runs_per_case:.2f} runs per case")
    print(f"({time.perf_counter() - start:.1f}s)")


if __name__ == "__main__":
    main()
