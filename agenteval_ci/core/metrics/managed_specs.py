"""agents-cli's managed metrics as rows of the registry (registry.py joins them to its own).

Each is scored by Google's Gen AI evaluation service (managed.py builds the request; the judge's
`vertex_eval` provider sends it). This module is data and loads with the registry; managed.py
loads the first time a managed metric scores.
"""

from __future__ import annotations

from collections.abc import Awaitable

from ...schema import MetricRun
from ...schema.eval_config import managed_criterion
from .base import Evaluate, MetricInput, MetricSpec

# agents-cli's managed metrics (`agents-cli eval metric list`, named as `metrics_to_run` writes
# them) -> the Gen AI evaluation service's spec that google-cloud-aiplatform 2.7 resolves each
# to when no version is given (_evals_constant.METRIC_LATEST_SPEC_NAME, else the loader's
# pinned version), and what it grades.
MANAGED_SPECS: dict[str, tuple[str, str]] = {
    "general_quality": ("general_quality_v2", "overall quality against rubrics the service writes for the prompt"),
    "text_quality": ("text_quality_v2", "fluency, coherence and grammar of the response"),
    "instruction_following": ("instruction_following_v2", "adherence to the constraints the prompt states"),
    "grounding": ("grounding_v2", "share of the response's sentences the case's context supports"),
    "safety": ("safety_v3", "policy compliance of the response (PII, hate, danger, harassment, sexual content)"),
    "hallucination": ("hallucination_v2", "share of the response's claims the tool outputs support"),
    "final_response_quality": ("final_response_quality_v2", "the final response, with the tool use behind it, against adaptive rubrics"),
    "final_response_match": ("final_response_match_v3", "semantic match of the final response with the reference"),
    "final_response_reference_free": ("final_response_reference_free_v2", "the final response against the case's rubrics, no reference"),
    "tool_use_quality": ("tool_use_quality_v2", "tool selection, parameters and order in the turn"),
    "multi_turn_general_quality": ("multi_turn_general_quality_v2", "the conversation's overall quality"),
    "multi_turn_text_quality": ("multi_turn_text_quality_v2", "the conversation's text quality"),
    "multi_turn_tool_use_quality": ("multi_turn_tool_use_quality_v1", "tool calls across the conversation"),
    "multi_turn_trajectory_quality": ("multi_turn_trajectory_quality_v1", "step order, efficiency and recovery across the conversation"),
    "multi_turn_task_success": ("multi_turn_task_success_v1", "whether the user's goal was met over the conversation"),
}
NEEDS_REFERENCE = frozenset({"final_response_match"})  # the service refuses it without a reference


def _evaluate(name: str, needs_reference: bool) -> Evaluate:
    def evaluate(inp: MetricInput) -> Awaitable[MetricRun]:
        from .managed import metric  # asyncio and the request builder, on the first score

        return metric(name, needs_reference)(inp)

    return evaluate


MANAGED_METRICS = [
    MetricSpec(name, managed_criterion(spec), _evaluate(name, name in NEEDS_REFERENCE),
               f"Managed (Gen AI evaluation service, {spec}): {description}.", needs_expected=name in NEEDS_REFERENCE, judged=True,
               prompts=("metrics/managed.py",))  # what the service is sent is built there: a change to it is a changed judge
    for name, (spec, description) in MANAGED_SPECS.items()
]
