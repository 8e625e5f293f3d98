"""Recorded traces as runs, for `agenteval score EVALSET --actual traces.json`.

The file is an OTLP/JSON export: one ExportTraceServiceRequest (`{"resourceSpans": [...]}`), a
list of them, or one per line (the OpenTelemetry Collector's file exporter). A case's session is
the one whose id (gen_ai.conversation.id, gcp.vertex.agent.session_id or session.id) is the case's
session_input.session_id, else its eval_id; each trace of that session is one turn, in the order
the traces started, paired with the case's user turns.
"""

from __future__ import annotations

import json
from typing import Any

from ...schema import EvalCase, RunRecord
from .mapping import TraceContentMissing, turn_from_spans, turns_by_session
from .otlp import OtlpError, Span, spans_from_json
from .turn import to_invocation


def looks_like_otlp(text: str) -> bool:
    head = text.lstrip()[:4096]
    return head[:1] in "{[" and ('"resourceSpans"' in head or '"resource_spans"' in head)


def spans_from_text(text: str) -> list[Span]:
    """Every span of the file; OtlpError naming the line or JSON path of a problem."""
    try:
        documents: Any = json.loads(text)
        documents = documents if isinstance(documents, list) else [documents]
        named = [(f"$[{i}]" if len(documents) > 1 else "$", d) for i, d in enumerate(documents)]
    except ValueError:  # JSON lines
        named = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    named.append((f"line {number}: $", json.loads(line)))
                except ValueError as exc:
                    raise OtlpError(f"line {number}: not JSON ({exc})") from None
    return [span for where, document in named for span in spans_from_json(document, where)]


def case_session(case: EvalCase) -> str:
    given = case.session_input
    return given.session_id if given and given.session_id else case.eval_id


def runs_from_spans(spans: list[Span], cases: list[EvalCase]) -> dict[str, list[RunRecord]]:
    """eval_id -> its one recorded run, for the cases whose session the traces hold."""
    sessions = turns_by_session(spans)
    runs = {}
    for case in cases:
        traces = sessions.get(case_session(case))
        if traces is not None:
            runs[case.eval_id] = [_run(case, traces)]
    return runs


def _run(case: EvalCase, traces: list[list[Span]]) -> RunRecord:
    turns = case.conversation or []
    invocations = []
    try:
        for turn, trace in zip(turns, traces):
            duration = (max(s.end_ns for s in trace) - min(s.start_ns for s in trace)) / 1e9
            invocations.append(to_invocation(turn.user_content, turn_from_spans(trace), duration))
    except TraceContentMissing as exc:
        return RunRecord(invocations=invocations, error=str(exc))
    error = None
    if len(traces) != len(turns):
        error = f"session {case_session(case)!r} has {len(traces)} trace(s) (one per turn); the case has {len(turns)} turn(s)"
    return RunRecord(invocations=invocations, error=error)
