"""A plain Python function as the agent: called once per user turn.

    def agent(text: str, session: AgentSession) -> dict | str: ...      # or `async def`

It returns the response text, or a reply object (docs/config.md has the shapes):

    {"response": str, "tool_calls": [{"name", "args", "response"}], "app_details": {...}}
    {"response": str, "steps": [{"text"} | {"name", "args", "response"}, ...], "app_details": {...}}
    {"response": str, "predicted_trajectory": [{"tool_name", "tool_input"}]}   # Vertex's shape

Each object may add "usage" ({"input_tokens", "output_tokens"}, or a list: one per model call
of the turn) and "model" (what prices it), as the JSON contract's reply does: without them the
turn's tokens and cost are unknown. A tool call's `response` is what the tool returned; `steps`
keeps the texts the agent wrote between calls, in order. The turn is recorded as the ADK adapter
records an ADK agent's (events: text, call, response, ..., one per model call with its usage), so
the judges and the budgets see the same turn for both.

The reply is checked here, at the boundary: it must be plain JSON within limits, and lone
surrogates are repaired, so every later sink (results file, judge prompts and cache keys,
reports) can take it. A bad reply fails its run with the JSON path; the other runs go on.
Sync functions run in daemon threads so a slow one does not block others.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

import pydantic

from ..schema import AppDetails, Content, EvalCase, FunctionCall, Invocation, InvocationEvent, InvocationEvents, Part, UsageMetadata
from ..schema._base import StrictModel
from ..schema.content import FunctionResponse
from . import AgentExited, describe_import_error
from ._imports import import_file, import_module, on_path
from .parts import as_python, turn_parts
from .traces.turn import ModelField, UsageField, usage_events, usage_records

INTERMEDIATE_TEXTS = "intermediate_texts"  # what a reply without `steps` cannot report
DEFAULT_AUTHOR = "agent"  # the events' author when the reply names no agent in app_details

# Limits on one reply (docs/config.md): far above what an agent returns, below what breaks a sink.
MAX_DEPTH = 100  # nesting of lists and objects; the results file around them stays within its 200
MAX_VALUES = 100_000
MAX_TEXT = 10_000_000  # characters over all strings of the reply
MAX_INT_DIGITS = 4300  # what Python's JSON reader takes back
_INT_LIMIT = 10**MAX_INT_DIGITS

REPLY_SHAPES = (
    'the response text, or {"response": str, "tool_calls": [{"name": str, "args": {...}, "response": ...}], '
    '"app_details": {...}}, with "steps" instead of "tool_calls" to keep texts between calls '
    '([{"text": str} or a tool call, ...]), or {"response": str, "predicted_trajectory": '
    '[{"tool_name": str, "tool_input": {...}}]}; any object may add "usage": {"input_tokens": int, '
    '"output_tokens": int} (or a list, one per model call) and "model": str; see docs/config.md'
)


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
    # This turn's parts, in order (docs/config.md): {"text": str}, {"inline_data": {"mime_type": str,
    # "data": bytes}}, {"file_data": {"mime_type": str, "file_uri": str}}; the text argument has the texts only.
    parts: list[dict[str, Any]] = field(default_factory=list)


class AgentReplyError(ValueError):
    """The function returned something that is not a reply: the run fails with this message."""


# ---------------------------------------------------------------- plain, safe JSON


def repaired(text: str) -> str:
    """`text` as valid Unicode: a surrogate pair (as a UTF-16 source leaves it) becomes its
    character, a lone surrogate (no file, prompt or cache key can hold it) becomes U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _type_name(value: Any) -> str:
    try:
        return str(type.__dict__["__name__"].__get__(type(value)))
    except Exception:
        return "object"


def _key_path(at: str, key: str) -> str:
    return f"{at}.{key if len(key) <= 40 else key[:37] + '...'}"


def _bad(at: str, message: str) -> AgentReplyError:
    return AgentReplyError(f"the agent returned an invalid reply: at {at if len(at) <= 200 else at[:200] + '...'}: {message}")


class _Plain:
    """One walk over a reply, turning it into JSON values (tuples into lists, str/int/float
    subclasses into their plain types) or naming the first place that is not JSON."""

    def __init__(self) -> None:
        self.values = 0
        self.characters = 0

    def value(self, value: Any, at: str, depth: int) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            raise _bad(at, f"the reply holds more than {MAX_VALUES:,} values")
        kind = type(value)
        if value is None or kind is bool:
            return value
        if issubclass(kind, str):
            return self.text(str.__str__(value), at)
        if issubclass(kind, int):
            number = int.__int__(value)
            if abs(number) >= _INT_LIMIT:
                raise _bad(at, f"an integer of more than {MAX_INT_DIGITS:,} digits")
            return number
        if issubclass(kind, float):
            real = float.__float__(value)
            if not math.isfinite(real):
                raise _bad(at, f"{real} is not a JSON number (JSON has no NaN or Infinity)")
            return real
        if not issubclass(kind, (dict, list, tuple)):
            raise _bad(at, f"a value of type {_type_name(value)} is not JSON (use str, int, float, bool, None, lists and dicts)")
        if depth >= MAX_DEPTH:
            raise _bad(at, f"nested more than {MAX_DEPTH} levels deep (or it contains itself)")
        if issubclass(kind, dict):
            return self.object(value, at, depth)
        items = list.__iter__(value) if issubclass(kind, list) else tuple.__iter__(value)
        return [self.value(item, f"{at}[{index}]", depth + 1) for index, item in enumerate(items)]

    def object(self, value: dict[Any, Any], at: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in dict.items(value):
            if not issubclass(type(key), str):
                raise _bad(at, f"a key of type {_type_name(key)}; object keys are strings")
            name = self.text(str.__str__(key), at)
            out[name] = self.value(item, _key_path(at, name), depth + 1)
        return out

    def text(self, text: str, at: str) -> str:
        self.characters += len(text)
        if self.characters > MAX_TEXT:
            raise _bad(at, f"the reply's strings hold more than {MAX_TEXT:,} characters")
        return repaired(text)


def plain_json(value: Any) -> Any:
    """The reply as plain JSON values, or an AgentReplyError naming the JSON path."""
    return _Plain().value(value, "$", 0)


# ---------------------------------------------------------------- the reply's shape


class _Step(StrictModel):
    """One step of `steps`: a text, or a tool call (also the items of `tool_calls`)."""

    text: Optional[str] = None
    name: Optional[str] = None
    args: dict[str, Any] = {}
    response: Any = None  # what the tool returned; a value that is not an object is {"result": value}

    @pydantic.model_validator(mode="after")
    def _a_text_or_a_call(self) -> "_Step":
        is_text = self.text is not None
        if is_text == ("name" in self.model_fields_set) or (is_text and self.model_fields_set & {"args", "response"}):
            raise ValueError('a step is a text {"text": str} or a tool call {"name": str, "args": {...}, "response": ...}')
        return self


class _Reported(StrictModel):
    """What the turn's model calls used, as the JSON contract's reply says it (docs/agents.md)."""

    usage: UsageField = None
    model: ModelField = None


class _Reply(_Reported):
    response: str
    tool_calls: Optional[list[_Step]] = None
    steps: Optional[list[_Step]] = None
    app_details: Optional[AppDetails] = None  # what the judges may see of the agent (ADK's shape)

    @pydantic.model_validator(mode="after")
    def _calls_or_steps(self) -> "_Reply":
        if self.tool_calls is not None and self.steps is not None:
            raise ValueError('give "steps" (texts and tool calls, in order) or "tool_calls", not both')
        if any(step.text is not None for step in self.tool_calls or []):
            raise ValueError('"tool_calls" holds tool calls only; texts between calls go in "steps"')
        return self


class _VertexToolCall(StrictModel):
    tool_name: str
    tool_input: dict[str, Any] = {}


class _VertexReply(_Reported):
    response: str
    predicted_trajectory: list[_VertexToolCall] = []
    app_details: Optional[AppDetails] = None


@dataclass(frozen=True)
class ToolStep:
    call: FunctionCall
    response: Optional[FunctionResponse] = None  # None: the reply did not say what the tool returned


Step = Union[str, ToolStep]  # a text the agent wrote between calls, or a tool call


@dataclass(frozen=True)
class ParsedReply:
    response: str
    steps: list[Step]
    app_details: Optional[AppDetails] = None
    reports_texts: bool = False  # the reply could hold texts between calls (`steps`, or no calls at all)
    usage: Optional[list[UsageMetadata]] = None  # one per model call; None: not reported
    model: Optional[str] = None

    @property
    def tool_calls(self) -> list[FunctionCall]:
        return [step.call for step in self.steps if isinstance(step, ToolStep)]


def _tool_step(name: str, args: dict[str, Any], response: Any, reported: bool) -> ToolStep:
    call = FunctionCall(name=name, args=args)
    if not reported:
        return ToolStep(call)
    # As ADK records a tool's return value: an object as it is, anything else under "result".
    body = response if isinstance(response, dict) else {"result": response}
    return ToolStep(call, FunctionResponse(name=name, response=body))


def _from_step(step: _Step) -> Step:
    if step.text is not None:
        return step.text
    return _tool_step(step.name or "", step.args, step.response, "response" in step.model_fields_set)


def _shape_error(exc: pydantic.ValidationError) -> str:
    found = []
    for error in exc.errors(include_url=False)[:3]:
        loc = error["loc"]
        where = "$" + "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in loc)
        if error["type"] == "extra_forbidden":
            message = f"unknown key {loc[-1]!r}"
        elif error["type"] == "missing":
            message = f"required key {loc[-1]!r} is missing"
        else:
            message = error["msg"].removeprefix("Value error, ")
        found.append(f"at {where}: {message}")
    return "; ".join(found)


def parse_reply(value: Any) -> ParsedReply:
    """The function's return value as a reply, or an AgentReplyError saying where it is wrong."""
    data = plain_json(value)
    if isinstance(data, str):
        return ParsedReply(data, [], reports_texts=True)
    if not isinstance(data, dict):
        got = "None" if value is None else f"a value of type {_type_name(value)}"
        raise AgentReplyError(f"the agent returned an invalid reply: {got}; expected {REPLY_SHAPES}")
    try:
        if "predicted_trajectory" in data:
            vertex = _VertexReply.model_validate(data)
            steps: list[Step] = [_tool_step(t.tool_name, t.tool_input, None, False) for t in vertex.predicted_trajectory]
            return ParsedReply(vertex.response, steps, vertex.app_details, not steps, usage_records(vertex.usage), vertex.model)
        reply = _Reply.model_validate(data)
    except pydantic.ValidationError as exc:
        raise AgentReplyError(f"the agent returned an invalid reply: {_shape_error(exc)}; expected {REPLY_SHAPES}") from None
    steps = [_from_step(step) for step in (reply.steps if reply.steps is not None else reply.tool_calls or [])]
    reports_texts = reply.steps is not None or not steps
    return ParsedReply(reply.response, steps, reply.app_details, reports_texts, usage_records(reply.usage), reply.model)


# ---------------------------------------------------------------- the turn, as ADK records one


def record_steps(steps: list[Step], author: str) -> list[InvocationEvent]:
    """The events an ADK agent's turn would leave: a text, a call, the tool's response, in order."""
    events = []
    for step in steps:
        if isinstance(step, str):
            if step:
                events.append(InvocationEvent(author=author, content=Content.from_text(step, "model")))
            continue
        events.append(InvocationEvent(author=author, content=Content(role="model", parts=[Part(function_call=step.call)])))
        if step.response is not None:
            events.append(InvocationEvent(author=author, content=Content(role="user", parts=[Part(function_response=step.response)])))
    return events


def _author(app_details: Optional[AppDetails]) -> str:
    return next(iter(app_details.agent_details), DEFAULT_AUTHOR) if app_details else DEFAULT_AUTHOR


class CallableConversation:
    def __init__(self, function: Callable[..., Any], session: AgentSession, threads: "DaemonThreads"):
        self._function = function
        self._session = session
        self._threads = threads
        self._unreported: dict[str, None] = {}

    async def send(self, user_content: Content) -> Invocation:
        text = user_content.text
        self._session.parts = turn_parts(user_content, as_python)
        started = time.monotonic()
        if inspect.iscoroutinefunction(self._function):
            value = await self._function(text, self._session)
        else:
            value = await self._threads.call(self._function, text, self._session)
            if inspect.isawaitable(value):
                value = await value
        reply = parse_reply(value)
        if not reply.reports_texts:
            self._unreported[INTERMEDIATE_TEXTS] = None
        self._session.history.append(Turn(text, reply.response, reply.tool_calls))
        author = _author(reply.app_details)
        events = record_steps(reply.steps, author) + usage_events(reply.usage, author, reply.model)
        return Invocation(
            invocation_id=str(uuid.uuid4()),
            user_content=user_content,
            final_response=Content.from_text(reply.response, "model"),
            intermediate_data=InvocationEvents(invocation_events=events),
            creation_timestamp=time.time(),
            duration=round(time.monotonic() - started, 3),
            app_details=reply.app_details,
        )

    def unreported(self) -> list[str]:
        """What the judges read that the replies could not hold (texts between calls without `steps`)."""
        return list(self._unreported)

    async def final_state(self) -> dict[str, Any] | None:
        """`session.state` as the function left it, checked as a reply is (plain JSON within limits)."""
        try:
            state = plain_json(self._session.state)
        except AgentReplyError as exc:
            raise AgentReplyError(str(exc).replace("the agent returned an invalid reply: at $", "session.state after the last turn: at $", 1)) from None
        if not isinstance(state, dict):
            raise AgentReplyError(f"session.state after the last turn is a {_type_name(self._session.state)}, not a dict")
        return state

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
            error: BaseException | None
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
