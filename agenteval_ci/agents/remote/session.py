"""What a remote kind sees of one case run (its session) and of one turn."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from ...schema import EvalCase
from .http import AgentHttp

# ADK's names when an eval case has no session_input (as the in-process adapter uses them).
DEFAULT_APP_NAME = "EvaluationGenerator"
DEFAULT_USER_ID = "test_user_id"


@dataclass
class Session:
    """One case run: a fresh session id (runs of a case may overlap), the case's initial state."""

    case_id: str
    run_index: int
    session_id: str
    app_name: str
    user_id: str
    state: dict[str, Any]
    http: AgentHttp
    given: bool = False  # the case has a session_input (app_name and user_id are its own)
    state_reported: bool = False  # the agent handed back a state (the JSON contract's `state`)
    trace_id_hint: str = ""  # the session id the agent's spans carry, when it is not ours (A2A)

    @property
    def trace_session_id(self) -> str:
        return self.trace_id_hint or self.session_id

    @classmethod
    def of(cls, case: EvalCase, run_index: int, http: AgentHttp) -> "Session":
        given = case.session_input
        return cls(
            case_id=case.eval_id,
            run_index=run_index,
            session_id=f"{case.eval_id[:40]}-r{run_index}-{secrets.token_hex(4)}",
            app_name=given.app_name if given else DEFAULT_APP_NAME,
            user_id=given.user_id if given else DEFAULT_USER_ID,
            state=dict(given.state) if given else {},
            http=http,
            given=given is not None,
        )


@dataclass(frozen=True)
class TurnContext:
    """One turn: its W3C trace context, sent as `traceparent` so the agent's spans join our trace."""

    number: int
    trace_id: str = field(default_factory=lambda: secrets.token_hex(16))
    span_id: str = field(default_factory=lambda: secrets.token_hex(8))

    @property
    def headers(self) -> dict[str, str]:
        return {"traceparent": f"00-{self.trace_id}-{self.span_id}-01"}
