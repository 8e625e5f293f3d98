"""The user's own metrics: overhead per case of each form against a built-in metric.

2,000 generated cases are scored with a trivial metric of each form (an ADK code_config
function, an agents-cli inline `evaluate(instance)`, a Python file, a program) and with the
built-in `response_match_score` (ROUGE-1) as the anchor, all in this one run. A program's own
run time is measured apart (the same program started 2,000 times, one at a time, no agenteval),
so its line shows what we add on top. Goals (issue 38): a Python function <= 0.2 ms a case over
the anchor, a program <= its own run time + 2 ms.

    python bench/user_metrics.py [--cases 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agenteval_ci.core.metrics import REGISTRY, MetricInput  # noqa: E402
from agenteval_ci.files.eval_configs import read_custom_metrics  # noqa: E402
from agenteval_ci.schema import BaseCriterion, EvalSet  # noqa: E402
from agenteval_ci.schema.eval_config import CustomMetricConfig  # noqa: E402
from tests.core.metrics.casegen import generate  # noqa: E402

ADK_METRIC = '''
from google.adk.evaluation.evaluator import EvaluationResult
def trivial(eval_metric, actual, expected, scenario):
    return EvaluationResult(overall_score=1.0)
'''
EVALUATE = "def evaluate(instance):\n    return {'score': 1.0}\n"
PROGRAM = [sys.executable, "-S", "-c", "import sys; sys.stdin.read(); print('{\"score\": 1}')"]


def _inputs(num_cases: int) -> list[MetricInput]:
    expected_json, actual_json = generate(seed=7, num_cases=num_cases)
    expected, actual = EvalSet.model_validate(expected_json), EvalSet.model_validate(actual_json)
    criterion = BaseCriterion(threshold=0.5)
    return [MetricInput(criterion, a.conversation, e.conversation, e) for e, a in zip(expected.eval_cases, actual.eval_cases)]


async def _gathered(evaluate, inputs):
    return await asyncio.gather(*(evaluate(inp) for inp in inputs))


def _seconds(evaluate, inputs, awaited: bool) -> float:
    start = time.perf_counter()
    runs = asyncio.run(_gathered(evaluate, inputs)) if awaited else [evaluate(inp) for inp in inputs]
    elapsed = time.perf_counter() - start
    assert all(r.score is not None for r in runs), [r.reason for r in runs if r.score is None][:3]
    return elapsed


def _program_alone(num_cases: int) -> float:
    start = time.perf_counter()
    for _ in range(num_cases):
        subprocess.run(PROGRAM, input=b"{}", capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=2000)
    n = parser.parse_args().cases
    inputs = _inputs(n)
    folder = Path(tempfile.mkdtemp(prefix="agenteval-bench-"))
    (folder / "bench_adk_metric.py").write_text(ADK_METRIC)
    (folder / "bench_evaluate.py").write_text(EVALUATE)
    forms = {
        "code_config": {"code_config": {"name": "bench_adk_metric.trivial"}},
        "custom_function": {"custom_function": EVALUATE},
        "custom_function_file": {"custom_function_file": "bench_evaluate.py"},
        "command": {"command": PROGRAM},
    }
    metrics = read_custom_metrics({k: CustomMetricConfig.model_validate(v) for k, v in forms.items()}, folder)
    anchor = _seconds(REGISTRY["response_match_score"].evaluate, inputs, awaited=False)
    print(f"{n} cases; anchor response_match_score: {anchor / n * 1e3:.3f} ms a case")
    for name, spec in metrics.items():
        spent = _seconds(spec.evaluate, inputs, awaited=True)
        line = f"{name:>22}: {spent / n * 1e3:.3f} ms a case, {(spent - anchor) / n * 1e3:+.3f} ms over the anchor"
        if name == "command":
            alone = _program_alone(min(n, 200)) / min(n, 200)
            line += f"; the program alone {alone * 1e3:.3f} ms a run, one at a time"
        print(line)


if __name__ == "__main__":
    main()
