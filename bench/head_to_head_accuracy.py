"""How often the head-to-head rule is right on simulated judges (issue 42's "Show").

Each trial is a suite of `--cases` one-turn cases. The baseline's recorded answer and the PR's
are the same text, except on a share of the cases (`--loss-share`) where the PR's answer is
worse. A simulated judge answers every sample: between two different answers it names the
better one with probability `--accuracy`, and otherwise (and always between equal answers) it
names the first answer with probability `--bias` and the second with 1 - bias: it never says
"tie", the hardest case for the rule. Everything else is the real code: the case goes through
core/scoring.py's score_all with head_to_head_v1's criterion (num_samples as given, 5 by
default: the criterion's default), its prompt and its reply reader, then the baseline and the
gate (core/gate.py's compare, default settings) decide. Rates come with 95% Wilson intervals.

  python bench/head_to_head_accuracy.py [--trials 400] [--cases 100] [--num-samples 5]
                                        [--biases 0.5,0.6] [--accuracy 0.9] [--loss-share 0.15] [--seed 1]

Targets (docs/gate.md, "Head to head"): A/A (nothing changed) fails at most 5% of the time, and
a 15% share of lost cases is caught at least 90% of the time, with a judge that names the first
answer 60% of the time when it cannot tell.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.fingerprint import case_fingerprint
from agenteval_ci.core.gate import compare
from agenteval_ci.core.judging import JudgeAnswer, MediaPart, Reader, any_text
from agenteval_ci.core.metrics import ConfiguredMetric
from agenteval_ci.core.metrics.registry import REGISTRY
from agenteval_ci.core.scoring import CaseToScore, score_all
from agenteval_ci.files.results_file import new_results
from agenteval_ci.schema import EvalCase, Invocation, LlmAsAJudgeCriterion, RunRecord
from agenteval_ci.schema.settings import GateSettings

_ANSWERS = re.compile(r"### Answer A\n(.*)\n\n### Answer B\n(.*)\n\nAnswer with", re.S)


@dataclass
class SimulatedJudge:
    """The Judge protocol, answering each sample at random as the module's docstring says."""

    rng: random.Random
    bias: float
    accuracy: float

    def _pick(self, first: str, second: str) -> str:
        worse_first, worse_second = first.startswith("worse"), second.startswith("worse")
        if worse_first != worse_second and self.rng.random() < self.accuracy:
            return "B" if worse_first else "A"
        return "A" if self.rng.random() < self.bias else "B"

    async def ask(self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, sample: int,
                  read: Reader[Any] = any_text, media: Sequence[MediaPart] = ()) -> JudgeAnswer:
        found = _ANSWERS.search(prompt)
        assert found, prompt[:200]
        text = json.dumps({"reasoning": "simulated", "better": self._pick(found.group(1).strip(), found.group(2).strip())})
        return JudgeAnswer(text=text, verdict=read(text), provider="simulated")

    async def ask_many(self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, count: int,
                       read: Reader[Any] = any_text, media: Sequence[MediaPart] = ()) -> list[JudgeAnswer]:
        return [await self.ask(metric, model, config, prompt, i, read) for i in range(count)]


def _turn(user: str, answer: str) -> Invocation:
    return Invocation.model_validate({"user_content": {"role": "user", "parts": [{"text": user}]},
                                      "final_response": {"role": "model", "parts": [{"text": answer}]}})


def _suite(cases: int, lost: set[int], num_samples: int, judge: SimulatedJudge) -> tuple[Any, Any]:
    """(the PR's results, the baseline) of one trial."""
    metric = REGISTRY["head_to_head_v1"]
    criterion = LlmAsAJudgeCriterion.model_validate({"threshold": 0, "judge_model_options": {"num_samples": num_samples}})
    configured = ConfiguredMetric(metric, criterion, "bench")
    base_items, pr_items = [], []
    for i in range(cases):
        user = f"request {i}"
        case = EvalCase.model_validate({"eval_id": f"c{i}", "conversation": [_turn(user, f"answer {i}").model_dump()]})
        before = RunRecord(index=0, invocations=[_turn(user, f"answer {i}")])
        now = RunRecord(index=0, invocations=[_turn(user, f"worse answer {i}" if i in lost else f"answer {i}")])
        base_items.append(CaseToScore(case, [before], [configured], "bench"))
        pr_items.append(CaseToScore(case, [now], [configured], "bench", baseline_runs=[before]))
        assert case_fingerprint(case)  # the same case on both sides: the baseline holds it under the same test
    baseline = baseline_from_results(new_results(score_all(base_items, judge), num_runs=1))
    return new_results(score_all(pr_items, judge), num_runs=1), baseline


def trial(cases: int, loss_share: float, num_samples: int, bias: float, accuracy: float, rng: random.Random) -> bool:
    """One pull request: True when the gate failed it."""
    lost = {i for i in range(cases) if rng.random() < loss_share}
    results, baseline = _suite(cases, lost, num_samples, SimulatedJudge(rng, bias, accuracy))
    return compare(results, baseline, GateSettings()).verdict == "failed"


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--num-samples", type=int, default=5)
    parser.add_argument("--biases", default="0.5,0.6")
    parser.add_argument("--accuracy", type=float, default=0.9)
    parser.add_argument("--loss-share", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"{args.trials} trials of {args.cases} cases, num_samples {args.num_samples}, judge accuracy {args.accuracy:g}; "
          f"the gate fails at sign test p <= 0.05")
    print(f"{'bias (first)':>12}  {'A/A false alarms':>26}  {f'{args.loss_share:.0%} lost: caught':>26}")
    for bias in (float(b) for b in args.biases.split(",")):
        rng = random.Random(args.seed)
        rates = []
        for share in (0.0, args.loss_share):
            failed = sum(trial(args.cases, share, args.num_samples, bias, args.accuracy, rng) for _ in range(args.trials))
            low, high = wilson(failed, args.trials)
            rates.append(f"{failed / args.trials:6.1%} [{low:5.1%}, {high:5.1%}]")
        print(f"{bias:>12g}  {rates[0]:>26}  {rates[1]:>26}")


if __name__ == "__main__":
    main()
