"""Records each turn's app_details the way `adk eval` does: for every agent that got a model
answer in the turn, the system instruction (session state already filled in) and the tool
declarations of its first model request.

Imported only when an ADK agent runs (it subclasses google-adk's BasePlugin).
"""

from __future__ import annotations

from typing import Any, Optional

from google.adk.plugins.base_plugin import BasePlugin

from ..schema import AgentDetails, AppDetails


class AppDetailsRecorder(BasePlugin):
    """Unlike ADK's own recorder it leaves session state alone: requests are paired with
    answers by agent and invocation, not through a key written into the state."""

    def __init__(self) -> None:
        super().__init__(name="agenteval_app_details")
        self._pending: dict[tuple[str, str], Any] = {}
        self._first: dict[str, dict[str, Any]] = {}  # invocation id -> agent name -> request

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> Optional[Any]:
        self._pending[(callback_context.invocation_id, callback_context.agent_name)] = llm_request
        return None

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> Optional[Any]:
        key = (callback_context.invocation_id, callback_context.agent_name)
        request = self._pending.get(key)
        if request is not None:
            self._first.setdefault(key[0], {}).setdefault(key[1], request)
        return None

    def take(self, invocation_id: str) -> Optional[AppDetails]:
        """The turn's app_details (read now, at the end of the turn, as ADK reads them)."""
        requests = self._first.pop(invocation_id, None)
        for key in [k for k in self._pending if k[0] == invocation_id]:
            del self._pending[key]
        if requests is None:
            return None
        return AppDetails(agent_details={name: _agent_details(name, request) for name, request in requests.items()})


def _agent_details(name: str, request: Any) -> AgentDetails:
    config = request.config
    return AgentDetails(name=name, instructions=_instruction_text(config.system_instruction), tool_declarations=[_json(t) for t in config.tools or []])


def _instruction_text(instruction: Any) -> str:
    """ADK sets a string; a Content (or parts) is read as its text."""
    if instruction is None or isinstance(instruction, str):
        return instruction or ""
    parts = getattr(instruction, "parts", None)
    if parts is not None:
        return "\n".join(part.text for part in parts if getattr(part, "text", None))
    return str(instruction)


def _json(tool: Any) -> Any:
    """A google.genai Tool as JSON with unset fields left out (what ADK's judges are sent)."""
    return tool.model_dump(mode="json", exclude_none=True) if hasattr(tool, "model_dump") else str(tool)
