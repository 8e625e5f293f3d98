"""Whole-process wall time of `agenteval score` vs google-adk 2.13's evaluators on the same files.

    python bench/score_vs_adk.py [--cases 2000] [--seed 7] [--repeat 3]

Generates seeded cases with perturbed actual outputs (tests/core/metrics/casegen.py) into a temp
dir: an eval set, an actual file and a test_config.json with tool_trajectory_avg_score and
response_match_score. Then times, each in its own process:
  ours: `python -m agenteval_ci score EVALSET --actual ACTUAL --json OUT`
  ADK:  this script's --adk-side mode: ADK's EvalSet and config readers, then
        TrajectoryEvaluator + RougeEvaluator over every case.
Each side runs --repeat times (default 3), the two alternating so that a noisy machine
slows both alike; the best wall time of each counts, as timeit and hyperfine report.
Our package is byte-compiled first, as pip compiles an installed one and google-adk's is: a
checkout run with PYTHONDONTWRITEBYTECODE would otherwise compile ours from source every run.
Prints both, the ratio, each process's peak memory, and checks every overall and
per-invocation score is identical. The target is >= 8x (issue 37).
Also prints what our alignment metrics (tool_trajectory_alignment_score, tool_argument_match_score)
cost on the same cases: in process, and whole process with both added to the criteria.
"""

from __future__ import annotations

import argparse
import compileall
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METRICS = ("tool_trajectory_avg_score", "response_match_score")
Scores = dict[str, dict[str, list]]  # eval_id -> metric -> [overall, per-invocation...]


def write_inputs(folder: Path, cases: int, seed: int, words: tuple[int, int]) -> tuple[Path, Path]:
    sys.path.insert(0, str(ROOT))
    from tests.core.metrics.casegen import generate

    expected, actual = generate(seed=seed, num_cases=cases, eval_set_id="bench", words_per_reply=words)
    eval_set, actual_file = folder / "bench.evalset.json", folder / "actual.json"
    eval_set.write_text(json.dumps(expected))
    actual_file.write_text(json.dumps(actual))
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}))
    return eval_set, actual_file


def measure(command: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MiB, stderr) of `command`, in a fresh wrapper so RSS is its own."""
    wrapper = [sys.executable, __file__, "--measure", "--", *command]
    proc = subprocess.run(wrapper, capture_output=True, text=True, check=True)
    *stderr, last = proc.stdout.strip().splitlines()
    wall, peak = last.split()
    return float(wall), float(peak), "\n".join(stderr)


def run_measured(command: list[str]) -> None:
    start = time.perf_counter()
    proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # 1: some generated cases fail, as they should
        sys.exit(f"{command[:4]} exited {proc.returncode}:\n{proc.stderr}")
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    print(proc.stderr.strip())
    print(f"{wall:.4f} {peak_kib / 1024:.1f}")


def adk_side(eval_set_path: str, actual_path: str, config_path: str, out_path: str) -> None:
    """What a user of google-adk runs: its readers, then its two evaluators per case."""
    from google.adk.evaluation.eval_config import get_eval_metrics_from_config, get_evaluation_criteria_or_default
    from google.adk.evaluation.eval_set import EvalSet
    from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

    expected = EvalSet.model_validate_json(Path(eval_set_path).read_text())
    actual = {c.eval_id: c for c in EvalSet.model_validate_json(Path(actual_path).read_text()).eval_cases}
    metrics = {m.metric_name: m for m in get_eval_metrics_from_config(get_evaluation_criteria_or_default(config_path))}
    evaluators = {
        "tool_trajectory_avg_score": TrajectoryEvaluator(eval_metric=metrics["tool_trajectory_avg_score"]),
        "response_match_score": RougeEvaluator(metrics["response_match_score"]),
    }
    scores: Scores = {}
    start = time.perf_counter()
    for case in expected.eval_cases:
        scores[case.eval_id] = {}
        for name, evaluator in evaluators.items():
            result = evaluator.evaluate_invocations(actual[case.eval_id].conversation, case.conversation)
            scores[case.eval_id][name] = [result.overall_score] + [p.score for p in result.per_invocation_results]
    print(f"metrics-only {time.perf_counter() - start:.4f}", file=sys.stderr)
    Path(out_path).write_text(json.dumps(scores))


def our_metrics_only(eval_set_path: str, actual_path: str) -> float:
    """Seconds our two metric functions take on already-loaded cases (no I/O, no results file)."""
    sys.path.insert(0, str(ROOT))
    from agenteval_ci.agents.recorded import load_actuals
    from agenteval_ci.core.metrics import MetricInput
    from agenteval_ci.files.discovery import adk_eval_config
    from agenteval_ci.files.eval_configs import load_eval_config
    from agenteval_ci.files.eval_sets import load_eval_set

    cases = load_eval_set(eval_set_path).eval_set.eval_cases
    actual = {ref.eval_id: runs for ref, runs in load_actuals(actual_path).items()}  # one eval set's outputs
    metrics = [m for m in load_eval_config(adk_eval_config([eval_set_path])).metrics if m.name in METRICS]
    start = time.perf_counter()
    for case in cases:
        for metric in metrics:
            metric.spec.evaluate(MetricInput(metric.criterion, actual[case.eval_id][0].invocations, case.conversation, case))
    return time.perf_counter() - start


ALIGNMENT_METRICS = ("tool_trajectory_alignment_score", "tool_argument_match_score")


def alignment_cost(eval_set_path: str, actual_path: str) -> dict[str, float]:
    """Seconds each of our alignment metrics takes (default rules) on the same loaded cases."""
    sys.path.insert(0, str(ROOT))
    from agenteval_ci.agents.recorded import load_actuals
    from agenteval_ci.core.metrics import REGISTRY, MetricInput
    from agenteval_ci.files.eval_sets import load_eval_set
    from agenteval_ci.schema import ToolArgsCriterion

    cases = load_eval_set(eval_set_path).eval_set.eval_cases
    actual = {ref.eval_id: runs for ref, runs in load_actuals(actual_path).items()}  # one eval set's outputs
    criterion = ToolArgsCriterion(threshold=1.0)
    seconds = {}
    for name in ALIGNMENT_METRICS:
        evaluate = REGISTRY[name].evaluate
        start = time.perf_counter()
        for case in cases:
            evaluate(MetricInput(criterion, actual[case.eval_id][0].invocations, case.conversation, case))
        seconds[name] = time.perf_counter() - start
    return seconds


def our_scores(results_path: Path) -> Scores:
    results = json.loads(results_path.read_text())
    scores: Scores = {}
    for case in results["cases"]:
        runs = {name: case["metrics"][name]["runs"][0] for name in METRICS}
        scores[case["eval_id"]] = {
            name: [run.get("score")] + [p.get("score") for p in run["per_invocation"]] for name, run in runs.items()
        }
    return scores


def _spread(runs: list[tuple[float, float, str]]) -> str:
    walls = sorted(wall for wall, _, _ in runs)
    return f"(all runs: {', '.join(f'{w:.2f}' for w in walls)} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--reply-words", type=int, nargs=2, default=(20, 80), metavar=("MIN", "MAX"),
        help="words per expected reply (default 20 80: a typical agent answer of one to four sentences)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side; the best wall time counts")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "agenteval_ci", quiet=1)  # as an installed package is (see the docstring)
    with tempfile.TemporaryDirectory(prefix="agenteval-bench-") as tmp:
        folder = Path(tmp)
        eval_set, actual = write_inputs(folder, args.cases, args.seed, tuple(args.reply_words))
        ours_out, adk_out = folder / "results.json", folder / "adk_scores.json"
        ours_cmd = [sys.executable, "-m", "agenteval_ci", "score", str(eval_set), "--actual", str(actual), "--json", str(ours_out)]
        adk_cmd = [sys.executable, __file__, "--adk-side", str(eval_set), str(actual), str(folder / "test_config.json"), str(adk_out)]
        ours_runs, adk_runs = [], []
        for _ in range(args.repeat):
            ours_runs.append(measure(ours_cmd))
            adk_runs.append(measure(adk_cmd))
        (ours_wall, ours_peak, _), (adk_wall, adk_peak, _) = min(ours_runs), min(adk_runs)
        ours, adk = our_scores(ours_out), json.loads(adk_out.read_text())
        adk_metrics = min(float(err.rsplit("metrics-only ", 1)[1].split()[0]) for _, _, err in adk_runs)
        ours_metrics = our_metrics_only(str(eval_set), str(actual))
        aligned = alignment_cost(str(eval_set), str(actual))
        with_alignment = folder / "alignment_config.json"
        with_alignment.write_text(json.dumps({"criteria": {**dict.fromkeys(METRICS, 0.8), **dict.fromkeys(ALIGNMENT_METRICS, 0.8)}}))
        aligned_wall = min(measure([*ours_cmd, "--eval-config", str(with_alignment)])[0] for _ in range(args.repeat))
    pairs = sum(len(v) - 1 for case in adk.values() for v in case.values())
    different = [eval_id for eval_id in adk if adk[eval_id] != ours.get(eval_id)]
    low, high = args.reply_words
    print(f"cases: {args.cases} (seed {args.seed}, {low}-{high} words per reply), scored turn-metric pairs: {pairs}")
    print(f"agenteval score:        {ours_wall:7.2f} s   peak RSS {ours_peak:7.1f} MiB   {_spread(ours_runs)}")
    print(f"google-adk evaluators:  {adk_wall:7.2f} s   peak RSS {adk_peak:7.1f} MiB   {_spread(adk_runs)}")
    print(f"speed-up, whole process: {adk_wall / ours_wall:.1f}x, best of {args.repeat} each (target >= 8x)")
    print(f"metric computation only (in process, data loaded): agenteval {ours_metrics:.2f} s, "
          f"google-adk {adk_metrics:.2f} s, {adk_metrics / ours_metrics:.1f}x")
    print("alignment metrics (in process, data loaded, default rules): "
          + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in aligned.items()))
    print(f"agenteval score with both alignment metrics added: {aligned_wall:.2f} s whole process "
          f"(+{aligned_wall - ours_wall:.2f} s over the default metrics)")
    print(f"identical scores: {'yes' if not different else 'NO'} ({len(adk) - len(different)}/{len(adk)} cases)")
    if different:
        sys.exit(f"scores differ, e.g. {different[0]}: ours {ours.get(different[0])} vs ADK {adk[different[0]]}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        run_measured(sys.argv[3:])
    elif sys.argv[1:2] == ["--adk-side"]:
        adk_side(*sys.argv[2:6])
    else:
        main()
