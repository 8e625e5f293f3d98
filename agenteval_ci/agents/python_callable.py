"""A plain Python function as the agent: called once per user turn.

    def agent(text: str, session: AgentSession) -> dict: ...      # or `async def`

It returns `{"response": str, "tool_calls": [{"name", "args"}]}`, Vertex's custom-function
shape `{"response": str, "predicted_trajectory": [{"tool_name", "tool_input"}]}`, or just
the response text. Sync functions run in a thread pool so a slow one does not block others.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pydantic

from ..schema import Content, EvalCase, FunctionCall, IntermediateData, Invocation
from . import describe_import_error
from ._imports import import_file, import_module, on_path


@dataclass
class Turn:
    user: str
    response: str
    tool_calls: list[FunctionCall]


@dataclass
class AgentSession:
    """What the function sees of the conversation so far; `state` is its to change."""

    case_id: str
    run_index: int
    app_name: str = ""
    user_id: str = ""
    state: dict[str, Any] = field(default_factory=dict)
    history: list[Turn] = field(default_factory=list)


class _ToolCall(pydantic.BaseModel):
    name: str
    args: dict[str, Any] = {}


class _Reply(pydantic.BaseModel):
    response: str
    tool_calls: list[_ToolCall] = []


class _VertexToolCall(pydantic.BaseModel):
    tool_name: str
    tool_input: dict[str, Any] = {}


class _VertexReply(pydantic.BaseModel):
    response: str
    predicted_trajectory: list[_VertexToolCall] = []


class AgentReplyError(ValueError):
    """The function returned something that is neither accepted shape."""


def parse_reply(value: Any) -> tuple[str, list[FunctionCall]]:
    if isinstance(value, str):
        return value, []
    try:
        if isinstance(value, dict) and "predicted_trajectory" in value:
            vertex = _VertexReply.model_validate(value)
            return vertex.response, [FunctionCall(name=t.tool_name, args=t.tool_input) for t in vertex.predicted_trajectory]
        reply = _Reply.model_validate(value)
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "the reply"
        raise AgentReplyError(
            f"the agent returned an invalid reply ({where}: {first['msg']}); expected "
            '{"response": str, "tool_calls": [{"name", "args"}]} or '
            '{"response": str, "predicted_trajectory": [{"tool_name", "tool_input"}]}'
        ) from None
    return reply.response, [FunctionCall(name=t.name, args=t.args) for t in reply.tool_calls]


class CallableConversation:
    def __init__(self, function: Callable[..., Any], session: AgentSession, executor: ThreadPoolExecutor):
        self._function = function
        self._session = session
        self._executor = executor

    async def send(self, user_content: Content) -> Invocation:
        text = user_content.text
        started = time.monotonic()
        if inspect.iscoroutinefunction(self._function):
            value = await self._function(text, self._session)
        else:
            loop = asyncio.get_running_loop()
            value = await loop.run_in_executor(self._executor, self._function, text, self._session)
            if inspect.isawaitable(value):
                value = await value
        response, tool_calls = parse_reply(value)
        self._session.history.append(Turn(text, response, tool_calls))
        return Invocation(
            invocation_id=str(uuid.uuid4()),
            user_content=user_content,
            final_response=Content.from_text(response, "model"),
            intermediate_data=IntermediateData(tool_uses=tool_calls),
            creation_timestamp=time.time(),
            duration=round(time.monotonic() - started, 3),
        )

    async def close(self) -> None:
        pass


class CallableAgent:
    def __init__(self, function: Callable[..., Any], workers: int):
        self._function = function
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="agenteval-agent")

    async def start(self, case: EvalCase, run_index: int) -> CallableConversation:
        given = case.session_input
        session = AgentSession(
            case_id=case.eval_id,
            run_index=run_index,
            app_name=given.app_name if given else "",
            user_id=given.user_id if given else "",
            state=dict(given.state) if given else {},
        )
        return CallableConversation(self._function, session, self._executor)

    def close(self) -> None:
        # A turn that timed out may still be running in a thread; do not wait for it.
        self._executor.shutdown(wait=False, cancel_futures=True)


def load_callable_agent(target: str, function_name: str, base_dir: Path, workers: int) -> CallableAgent:
    spec = f"{target}:{function_name}"
    try:
        if target.endswith(".py"):
            path = base_dir / target
            if not path.is_file():
                raise FileNotFoundError(f"no such file: {path.as_posix()}")
            on_path(path.parent)
            module = import_file(path)
        else:
            module = import_module(target, base_dir)
    except Exception as exc:  # the user's code failed to import: say which and why
        raise describe_import_error(spec, exc) from exc
    function = getattr(module, function_name, None)
    if not callable(function):
        raise describe_import_error(spec, AttributeError(f"{target} has no function {function_name!r}"))
    return CallableAgent(function, workers)
