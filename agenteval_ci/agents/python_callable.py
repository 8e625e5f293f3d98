"""A plain Python function as the agent: called once per user turn.

    def agent(text: str, session: AgentSession) -> dict: ...      # or `async def`

It returns `{"response": str, "tool_calls": [{"name", "args"}]}`, Vertex's custom-function
shape `{"response": str, "predicted_trajectory": [{"tool_name", "tool_input"}]}`, or just
the response text. Either dict may carry `app_details` (ADK's AppDetails: the agent's
instructions and tool declarations), which the judged metrics show their judge. Sync functions run in a thread pool so a slow one does not block others.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import pydantic

from ..schema import AppDetails, Content, EvalCase, FunctionCall, IntermediateData, Invocation
from . import AgentExited, describe_import_error
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
    app_details: Optional[AppDetails] = None  # what the judges may see of the agent (ADK's shape)


class _VertexToolCall(pydantic.BaseModel):
    tool_name: str
    tool_input: dict[str, Any] = {}


class _VertexReply(pydantic.BaseModel):
    response: str
    predicted_trajectory: list[_VertexToolCall] = []
    app_details: Optional[AppDetails] = None


@dataclass(frozen=True)
class ParsedReply:
    response: str
    tool_calls: list[FunctionCall]
    app_details: Optional[AppDetails] = None


class AgentReplyError(ValueError):
    """The function returned something that is neither accepted shape."""


def parse_reply(value: Any) -> ParsedReply:
    if isinstance(value, str):
        return ParsedReply(value, [])
    try:
        if isinstance(value, dict) and "predicted_trajectory" in value:
            vertex = _VertexReply.model_validate(value)
            calls = [FunctionCall(name=t.tool_name, args=t.tool_input) for t in vertex.predicted_trajectory]
            return ParsedReply(vertex.response, calls, vertex.app_details)
        reply = _Reply.model_validate(value)
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "the reply"
        raise AgentReplyError(
            f"the agent returned an invalid reply ({where}: {first['msg']}); expected "
            '{"response": str, "tool_calls": [{"name", "args"}]} or '
            '{"response": str, "predicted_trajectory": [{"tool_name", "tool_input"}]}'
        ) from None
    return ParsedReply(reply.response, [FunctionCall(name=t.name, args=t.args) for t in reply.tool_calls], reply.app_details)


class CallableConversation:
    def __init__(self, function: Callable[..., Any], session: AgentSession, threads: "DaemonThreads"):
        self._function = function
        self._session = session
        self._threads = threads

    async def send(self, user_content: Content) -> Invocation:
        text = user_content.text
        started = time.monotonic()
        if inspect.iscoroutinefunction(self._function):
            value = await self._function(text, self._session)
        else:
            value = await self._threads.call(self._function, text, self._session)
            if inspect.isawaitable(value):
                value = await value
        reply = parse_reply(value)
        self._session.history.append(Turn(text, reply.response, reply.tool_calls))
        return Invocation(
            invocation_id=str(uuid.uuid4()),
            user_content=user_content,
            final_response=Content.from_text(reply.response, "model"),
            intermediate_data=IntermediateData(tool_uses=reply.tool_calls),
            creation_timestamp=time.time(),
            duration=round(time.monotonic() - started, 3),
            app_details=reply.app_details,
        )

    async def close(self) -> None:
        pass


class DaemonThreads:
    """Sync calls in daemon threads, at most `workers` at once. A turn that timed out may
    still be blocked in its thread (a `time.sleep(3600)`); a daemon thread cannot keep the
    process alive after the verdict, where a ThreadPoolExecutor's workers are joined at exit."""

    def __init__(self, workers: int):
        self._slots = threading.BoundedSemaphore(workers)

    async def call(self, function: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def settle(value: Any, error: BaseException | None) -> None:
            if future.cancelled():
                return
            future.set_exception(error) if error is not None else future.set_result(value)

        def work() -> None:
            with self._slots:
                try:
                    value, error = function(*args), None
                except (SystemExit, KeyboardInterrupt) as exc:  # it ends this run, not the process
                    value, error = None, AgentExited.of(exc)
                except BaseException as exc:
                    value, error = None, exc
            try:
                loop.call_soon_threadsafe(settle, value, error)
            except RuntimeError:  # the loop closed: the run timed out and the command moved on
                pass

        threading.Thread(target=work, name="agenteval-agent", daemon=True).start()
        return await future


class CallableAgent:
    def __init__(self, function: Callable[..., Any], workers: int):
        self._function = function
        self._threads = DaemonThreads(workers)

    async def start(self, case: EvalCase, run_index: int) -> CallableConversation:
        given = case.session_input
        session = AgentSession(
            case_id=case.eval_id,
            run_index=run_index,
            app_name=given.app_name if given else "",
            user_id=given.user_id if given else "",
            state=dict(given.state) if given else {},
        )
        return CallableConversation(self._function, session, self._threads)

    async def aclose(self) -> None:
        pass

    def close(self) -> None:
        pass  # a turn that timed out may still run in its daemon thread; nothing waits for it


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
    except (Exception, SystemExit) as exc:  # the user's code failed to import: say which and why
        raise describe_import_error(spec, exc) from exc
    function = getattr(module, function_name, None)
    if not callable(function):
        raise describe_import_error(spec, AttributeError(f"{target} has no function {function_name!r}"))
    return CallableAgent(function, workers)
