"""session_state_match (ours; ADK stores `final_session_state` in eval cases but no metric reads it):
the agent's session state after the last turn against the case's `final_session_state`, key by
key, under the same rules as tool arguments (`state_rules`: path -> rule, `$` the whole state).

The score is the share of the top-level keys that match (partial credit per key); each key's
check is kept in the run's `details.state`, so the reports can show the state diff.
"""

from __future__ import annotations

from ...schema import MetricRun, SessionStateCriterion
from ...schema.arg_rules import ANY_TOOL
from .arg_match import ToolRuleSet, compare_args, similarity
from .base import MetricInput, not_evaluated, status_for

NO_EXPECTED_STATE = "the case has no final_session_state to compare with (an empty one is not checked)"
NOT_REPORTED = "the agent did not report its final session state (docs/agents.md says which agent kinds do)"


def evaluate(inp: MetricInput) -> MetricRun:
    criterion = inp.criterion
    assert isinstance(criterion, SessionStateCriterion)
    expected = inp.case.final_session_state
    if not expected:  # ADK's default is {}: every case without the key would otherwise "expect" an empty state
        return not_evaluated(NO_EXPECTED_STATE)
    if inp.final_state is None:
        return not_evaluated(NOT_REPORTED)
    checks = compare_args(expected, inp.final_state, ToolRuleSet({ANY_TOOL: criterion.state_rules}, ANY_TOOL))
    score = float(similarity(checks))
    return MetricRun(score=score, status=status_for(score, criterion.threshold), details={"state": [c.to_json() for c in checks]})
