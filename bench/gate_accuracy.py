"""How often the gate is right on simulated stochastic agents (issue 3's "Show").

Each case passes the metric in each run with its own probability (100 cases x 3 runs);
a run scores 1.0 (pass) or 0.0 (fail) against threshold 1.0, like a tool trajectory.
The results and baselines go through the real pipeline: baseline_from_results, then
gate.compare with the default GateSettings.

  python bench/gate_accuracy.py [--trials 200] [--seed 1]

Prints: the A/A false-failure rate (target <= 5%), the power when 20% of cases drop their
pass probability by 0.4 (target >= 80%), and whether any single newly failing case fails
the gate when every case is deterministic (target: 100%).
"""

from __future__ import annotations

import argparse
import random
import time

from agenteval_ci.baseline import baseline_from_results
from agenteval_ci.gate import compare
from agenteval_ci.results_file import new_results
from agenteval_ci.schema import CaseResult, EvalCase, MetricResult, MetricRun, Status
from agenteval_ci.schema.settings import GateSettings

CASES, RUNS, METRIC = 100, 3, "tool_trajectory_avg_score"


def _eval_case(i: int) -> EvalCase:
    turn = {"user_content": {"role": "user", "parts": [{"text": f"task {i}"}]}}
    return EvalCase.model_validate({"eval_id": f"case-{i:03d}", "conversation": [turn]})


def simulate(probabilities: list[float], rng: random.Random):
    """One results file: each case's runs drawn with its pass probability."""
    cases = []
    for i, p in enumerate(probabilities):
        runs = [1.0 if rng.random() < p else 0.0 for _ in range(RUNS)]
        score = sum(runs) / len(runs)
        status = Status.PASSED if score >= 1.0 else Status.FAILED
        metric = MetricResult(
            score=score, threshold=1.0, status=status, config_fingerprint="cfg",
            runs=[MetricRun(score=s, status=Status.PASSED if s >= 1.0 else Status.FAILED) for s in runs],
        )
        cases.append(CaseResult(eval_set_id="sim", eval_id=f"case-{i:03d}", fingerprint="fp", status=status,
                                metrics={METRIC: metric}, eval_case=_eval_case(i)))
    return new_results(cases, num_runs=RUNS)


def pass_probabilities(rng: random.Random, spread: str) -> list[float]:
    if spread == "uniform":  # hardest: every case flaky somewhere in [0.4, 1]
        return [rng.uniform(0.4, 1.0) for _ in range(CASES)]
    # typical suite: most cases pass reliably, a third are flaky
    return [rng.uniform(0.95, 1.0) if rng.random() < 2 / 3 else rng.uniform(0.4, 0.95) for _ in range(CASES)]


def failure_rate(trials: int, seed: int, spread: str, drop: float) -> float:
    rng = random.Random(seed)
    failures = 0
    for trial in range(trials):
        probabilities = pass_probabilities(rng, spread)
        baseline = baseline_from_results(simulate(probabilities, rng))
        affected = set(rng.sample(range(CASES), CASES // 5)) if drop else set()
        candidate = [max(0.0, p - drop) if i in affected else p for i, p in enumerate(probabilities)]
        comparison = compare(simulate(candidate, rng), baseline, GateSettings(seed=trial))
        failures += comparison.verdict == "failed"
    return failures / trials


def deterministic_catch_rate(trials: int, seed: int) -> float:
    """All cases pass or fail every run; exactly one passing case breaks."""
    rng = random.Random(seed)
    caught = 0
    for trial in range(trials):
        probabilities = [1.0 if rng.random() < 0.8 else 0.0 for _ in range(CASES)]
        baseline = baseline_from_results(simulate(probabilities, rng))
        broken = rng.choice([i for i, p in enumerate(probabilities) if p == 1.0])
        candidate = [0.0 if i == broken else p for i, p in enumerate(probabilities)]
        caught += compare(simulate(candidate, rng), baseline, GateSettings(seed=trial)).verdict == "failed"
    return caught / trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"{CASES} cases x {RUNS} runs, {args.trials} trials each, default GateSettings (tolerance 0.05, confidence 0.95)")
    for spread in ("typical", "uniform"):
        aa = failure_rate(args.trials, args.seed, spread, drop=0.0)
        power = failure_rate(args.trials, args.seed + 1, spread, drop=0.4)
        print(f"[{spread:>7} pass probabilities] A/A trials failed: {aa:6.1%} (target <= 5%)   "
              f"20% of cases -0.4: failed {power:6.1%} (target >= 80%)")
    print(f"deterministic cases, one newly failing case: failed {deterministic_catch_rate(args.trials, args.seed):.1%} (target 100%)")
    print(f"({time.perf_counter() - start:.1f}s)")


if __name__ == "__main__":
    main()
