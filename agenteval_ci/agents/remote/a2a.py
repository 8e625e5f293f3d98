"""`kind: a2a`: an A2A agent through the a2a-sdk client (the `a2a` extra).

One context per case run (its id is the session id, which ADK's A2A wrapper uses as its session
id, so the agent's spans correlate by it), one message per turn; the final response is the task's
artifacts' text (else its status message, or the message the agent answered with). A2A returns no
trajectory: tool calls come from the task's history where the agent put them there (ADK's wrapper
marks them as data parts of type function_call / function_response), else from traces.

Every request goes to the configured server: a card's address on it is used (an endpoint path of
its own), any other is replaced by the configured URL. A2A has no session state, so a case's
initial state is not sent. Each message carries the turn's `traceparent`.
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

import httpx
from a2a.client import ClientCallContext, ClientConfig, ClientFactory
from a2a.client.card_resolver import A2ACardResolver
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState

from ...schema import Content, EvalCase
from ..parts import FILE_DATA, INLINE_DATA, TEXT, as_python, refuse_beyond, turn_parts
from ..traces.turn import ToolStep, TurnRecord, as_response
from .http import RemoteAgentError, same_origin
from .session import Session, TurnContext

_FAILED = {TaskState.TASK_STATE_FAILED: "failed", TaskState.TASK_STATE_REJECTED: "was rejected", TaskState.TASK_STATE_CANCELED: "was canceled"}
_TYPE_KEYS = ("adk_type", "type")  # ADK's wrapper's metadata key for what a data part holds


class A2aKind:
    default_ready = "/.well-known/agent-card.json"

    def __init__(self, url: str):
        self.url = url
        self._client: Any = None

    async def _client_for(self, session: Session) -> Any:
        if self._client is None:
            http = session.http.client
            try:
                card = await A2ACardResolver(http, self.url).get_agent_card()
            except Exception as exc:  # the SDK's own errors: say which request
                raise RemoteAgentError(f"reading the agent card at {self.url}: {type(exc).__name__}: {exc}") from None
            for interface in card.supported_interfaces:
                interface.url = on_our_server(interface.url, self.url)
            self._client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        return self._client

    async def open(self, session: Session, case: EvalCase) -> None:
        await self._client_for(session)

    async def final_state(self, session: Session) -> Optional[dict[str, Any]]:
        return None  # A2A has no session state to read

    async def turn(self, session: Session, user_content: Content, context: TurnContext) -> TurnRecord:
        client = await self._client_for(session)
        message = Message(message_id=str(uuid.uuid4()), context_id=session.session_id, role=Role.ROLE_USER, parts=_a2a_parts(user_content))
        answers = []
        call = ClientCallContext(service_parameters=context.headers)  # the SDK sends these as HTTP headers
        try:
            async for answer in client.send_message(SendMessageRequest(message=message), context=call):
                answers.append(answer)
        except Exception as exc:  # the SDK's errors (HTTP, JSON-RPC, transport): this run fails
            raise RemoteAgentError(f"POST {self.url} (A2A message): {await _why(exc, session)}") from None
        return _record(answers)


def _a2a_parts(user_content: Content) -> list[Any]:
    """Each part of the turn as A2A carries it: text, raw bytes or a URL, with its media type."""
    refuse_beyond(user_content, (TEXT, INLINE_DATA, FILE_DATA), "an A2A message")
    parts = []
    for part in turn_parts(user_content, as_python):
        if TEXT in part:
            parts.append(Part(text=part[TEXT]))
        elif INLINE_DATA in part:
            blob = part[INLINE_DATA]
            parts.append(Part(raw=blob["data"], media_type=blob.get("mime_type") or "", filename=blob.get("display_name") or ""))
        else:
            file = part[FILE_DATA]
            parts.append(Part(url=file.get("file_uri") or "", media_type=file.get("mime_type") or "", filename=file.get("display_name") or ""))
    return parts or [Part(text="")]


async def _why(exc: Exception, session: Session) -> str:
    """The SDK's error, or that the server died, when the connection failed with it."""
    cause = exc.__cause__ or exc.__context__
    if isinstance(exc, httpx.TransportError) or isinstance(cause, httpx.TransportError):
        return await session.http.why_failed(exc)
    return f"{type(exc).__name__}: {exc}"


def on_our_server(card_url: str, url: str) -> str:
    """The card's address when it is on the configured server (an endpoint path of its own),
    else the configured URL: a card never sends our requests anywhere else."""
    return card_url if same_origin(card_url, url) else url


def _texts(parts: Any) -> list[str]:
    return [part.text for part in parts if part.text]


def _record(answers: list[Any]) -> TurnRecord:
    task, reply = None, None
    for answer in answers:
        if answer.HasField("task"):
            task = answer.task
        elif answer.HasField("message"):
            reply = answer.message
    if task is None and reply is None:
        raise RemoteAgentError("the A2A agent answered neither a task nor a message")
    if task is None:
        assert reply is not None  # one of the two, said just above
        return TurnRecord(final_text="\n".join(_texts(reply.parts)))
    if task.status.state in _FAILED:
        why = "\n".join(_texts(task.status.message.parts)) if task.status.HasField("message") else ""
        raise RemoteAgentError(f"the A2A task {_FAILED[task.status.state]}{': ' + why if why else ''}")
    texts = [t for artifact in task.artifacts for t in _texts(artifact.parts)]
    if not texts and task.status.HasField("message"):
        texts = _texts(task.status.message.parts)
    return TurnRecord(final_text="\n".join(texts), steps=_history_steps(task))


def _history_steps(task: Any) -> Optional[list[ToolStep]]:
    """Tool calls the agent put in the task's history, with their responses; None if it put none."""
    calls: list[dict[str, Any]] = []
    responses: dict[str, Any] = {}
    for message in task.history:
        for part in message.parts:
            if not part.HasField("data"):
                continue
            metadata = _plain_struct(part.metadata)
            kind = next((str(v) for k, v in metadata.items() if k in _TYPE_KEYS or k.endswith("_type")), "")
            data = _plain(part.data)
            if kind == "function_call" and isinstance(data, dict):
                calls.append(data)
            elif kind == "function_response" and isinstance(data, dict):
                responses[str(data.get("id") or data.get("name"))] = data.get("response")
    if not calls:
        return None
    return [
        ToolStep(str(c.get("name")), c.get("args") or {}, as_response(responses[key]) if (key := str(c.get("id") or c.get("name"))) in responses else None, c.get("id"))
        for c in calls
    ]


def _plain_struct(struct: Any) -> dict[str, Any]:
    return {key: _plain(value) for key, value in struct.fields.items()}


def _plain(value: Any) -> Any:
    """A protobuf Value as plain JSON (without importing protobuf, which the image does not ship)."""
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return _plain_struct(value.struct_value)
    if kind == "list_value":
        return [_plain(v) for v in value.list_value.values]
    if kind in (None, "null_value"):
        return None
    return getattr(value, kind)
