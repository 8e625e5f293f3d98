"""Builders shared by the judge and LLM-metric tests: fast judge settings, small invocations."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Optional

from agenteval_ci.core.metrics import MetricInput
from agenteval_ci.core.metrics.registry import REGISTRY
from agenteval_ci.judge import Judge, make_judge
from agenteval_ci.schema import Content, EvalCase, Invocation, MetricRun
from agenteval_ci.schema.settings import JudgeSettings
from tests.fakes.gemini import FakeGemini, text_reply


def fast_settings(cache_dir: Path, **overrides: Any) -> JudgeSettings:
    """Backoff in milliseconds so fault tests take well under a second."""
    values = dict(cache_dir=str(cache_dir), backoff_initial_seconds=0.01, backoff_max_seconds=0.05, request_timeout_seconds=2.0)
    values.update(overrides)
    return JudgeSettings(**values)


def judge_for(fake: FakeGemini, cache_dir: Path, **overrides: Any) -> Judge:
    return make_judge(fast_settings(cache_dir, **overrides), fake.env())


def json_reply(value: dict[str, Any]) -> dict[str, Any]:
    return text_reply(json.dumps(value), prompt_tokens=100, output_tokens=20)


def turn(user: str, response: str, **fields: Any) -> Invocation:
    return Invocation(
        user_content=Content.from_text(user),
        final_response=Content.from_text(response, role="model"),
        **fields,
    )


def score(metric: str, criterion: dict[str, Any], actual: list[Invocation], judge: Optional[Judge],
          expected: Optional[list[Invocation]] = None, **case_fields: Any) -> MetricRun:
    """One metric on one run, through the registry as `agenteval score` reaches it."""
    spec = REGISTRY[metric]
    case = EvalCase(eval_id="case", conversation=expected if expected is not None else actual, **case_fields)
    inp = MetricInput(spec.criterion_type.model_validate(criterion), actual, case.conversation, case, judge)
    return asyncio.run(spec.evaluate(inp))
