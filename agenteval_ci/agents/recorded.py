"""Recorded agent outputs for `agenteval score` ("bring your own predictions").

An ACTUAL file is one of:
- an EvalSet-shaped file whose cases (same eval_ids) hold the agent's actual invocations;
- an ADK `*.evalset_result.json` (ADK writes it as a JSON string inside JSON; both read);
- an agenteval results file: each of its runs becomes a run here (re-scoring without re-running);
- an OTLP/JSON trace export: each case's session becomes a run (agents/traces/recorded.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

import pydantic

from ..errors import InputError, Problem
from ..files.eval_sets import eval_set_from_data, valid_eval_set_json
from ..files.readers import parse_json, read_text
from ..files.results import results_from_data
from ..schema import EvalCase, EvalSet, Invocation, RunRecord
from ..schema._base import AdkModel
from ..schema.problems import problems_from
from .traces.otlp import OtlpError
from .traces.recorded import looks_like_otlp, runs_from_spans, spans_from_text

RunsByCase = dict[str, list[RunRecord]]
ADK_FAILED = 2  # google-adk's EvalStatus.FAILED


class _AdkResultModel(AdkModel):
    """The parts of ADK's EvalSetResult we read; the rest (metric results, sessions) is ignored."""

    model_config = pydantic.ConfigDict(extra="ignore")


class _PerInvocation(_AdkResultModel):
    actual_invocation: Invocation


class _CaseResult(_AdkResultModel):
    eval_id: str
    final_eval_status: Optional[Union[int, str]] = None  # ADK's EvalStatus: 1 PASSED, 2 FAILED, 3 NOT_EVALUATED
    eval_metric_result_per_invocation: list[_PerInvocation] = []

    def run(self) -> RunRecord:
        """ADK writes a case whose inference failed (the agent raised) as FAILED with no
        invocations: that run failed, it is not a case with nothing to evaluate."""
        invocations = [p.actual_invocation for p in self.eval_metric_result_per_invocation]
        failed = self.final_eval_status in (ADK_FAILED, "FAILED")
        error = "google-adk recorded this case as FAILED with no invocations: the agent's run failed" if failed and not invocations else None
        return RunRecord(invocations=invocations, error=error)


class _EvalSetResult(_AdkResultModel):
    eval_set_result_id: str
    eval_case_results: list[_CaseResult] = []


# Keys that make a file one of the other formats below, even if it also reads as an EvalSet.
_OTHER_FORMATS_KEYS = {"schema_version", "eval_case_results", "evalCaseResults"}


def load_actuals(path: str | Path, cases: Optional[list[EvalCase]] = None) -> RunsByCase:
    """eval_id -> the runs recorded in this file (one per file, except results files). A trace
    export is read against `cases` (their sessions and user turns)."""
    name, text = Path(path).as_posix(), read_text(path)
    if looks_like_otlp(text):
        return _from_traces(name, text, cases or [])
    eval_set = valid_eval_set_json(text)
    if eval_set is not None and not (eval_set.model_extra or {}).keys() & _OTHER_FORMATS_KEYS:
        return _from_eval_set(name, eval_set)
    data: Any = parse_json(name, text)
    if isinstance(data, str):  # ADK's double-encoded evalset_result.json
        data = parse_json(f"{name} (the JSON inside its string)", data)
    if isinstance(data, list):  # a legacy test file or the old eval set format: read as the loader does
        return _from_eval_set(name, eval_set_from_data(name, data).eval_set)
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", "expected an EvalSet, an ADK evalset_result or an agenteval results file"))
    if "schema_version" in data:
        return _from_results(name, data)
    if "eval_case_results" in data or "evalCaseResults" in data:
        return _from_adk_result(name, data)
    return _from_eval_set(name, data)


def _validate(model: type[pydantic.BaseModel], name: str, data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, model)) from None


def _from_eval_set(name: str, data: dict[str, Any] | EvalSet) -> RunsByCase:
    eval_set = data if isinstance(data, EvalSet) else _validate(EvalSet, name, data)
    runs: RunsByCase = {}
    for i, case in enumerate(eval_set.eval_cases):
        if case.conversation is None:
            raise InputError(Problem(name, f"$.eval_cases[{i}]", "an actual case must hold the agent's `conversation`"))
        runs[case.eval_id] = [RunRecord(invocations=case.conversation)]
    return runs


def _from_adk_result(name: str, data: dict[str, Any]) -> RunsByCase:
    result = _validate(_EvalSetResult, name, data)
    return {c.eval_id: [c.run()] for c in result.eval_case_results}


def _from_traces(name: str, text: str, cases: list[EvalCase]) -> RunsByCase:
    try:
        spans = spans_from_text(text)
    except OtlpError as exc:
        raise InputError(Problem(name, "$", f"not an OTLP/JSON trace export: {exc}")) from None
    return runs_from_spans(spans, cases)


def _from_results(name: str, data: dict[str, Any]) -> RunsByCase:
    return {c.eval_id: list(c.runs) for c in results_from_data(name, data).cases}
