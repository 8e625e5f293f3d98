"""A loopback fake of Anthropic's Messages API, driven by LiteLLM (the judge's optional extra)
unpatched: what `anthropic/claude-...` judge models, ADK's LiteLLM prefix, are sent to.

It speaks `POST /v1/messages` with the `x-api-key` and `anthropic-version` headers. Point a
judge at it with `ANTHROPIC_API_BASE=server.root_url` (LiteLLM's variable; ours too) and
`ANTHROPIC_API_KEY`. A test scripts it as the other fakes: a responder from the request to a
reply (`message_reply`, `refusal_reply`) or a `Fault` (429 with Retry-After, 5xx, malformed,
dropped, hangs) queued with `fail_next` or spread with `random_faults`. Every request is recorded.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Optional, Union

from .loopback import FakeHandler, Fault, LoopbackFake

MODEL_VERSION = "claude-fake-20250101"


@dataclass(frozen=True)
class MessagesRequest:
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def prompt_text(self) -> str:
        """The user messages' text (a string, or text content blocks)."""
        texts = []
        for message in self.body.get("messages", []):
            content = message.get("content", "")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            texts.extend(str(block.get("text", "")) for block in blocks if block.get("type") == "text")
        return "\n".join(texts)


@dataclass(frozen=True)
class Arrival:
    at: float  # time.monotonic()
    prompt: str
    fault: Optional[Fault]


Reply = Union[dict[str, Any], Fault]
Responder = Callable[[MessagesRequest], Reply]


def message_reply(text: str, stop_reason: Optional[str] = "end_turn", model: str = MODEL_VERSION,
                  input_tokens: int = 10, output_tokens: int = 5) -> dict[str, Any]:
    return {
        "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": text}] if text else [],
        "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def refusal_reply() -> dict[str, Any]:
    """Claude's refusal: the stop reason says so (LiteLLM maps it to content_filter)."""
    return message_reply("", stop_reason="refusal")


@dataclass
class FakeAnthropic(LoopbackFake):
    responder: Responder = field(default=lambda req: message_reply("ok"))
    api_key: str = "fake-anthropic-key"  # requests must carry it in x-api-key
    latency: float = 0.0

    def __post_init__(self) -> None:
        self.refused = 0  # requests without the right key (not in `requests`)
        self.arrivals: list[Arrival] = []  # when each request came, and the fault it met
        self._open()

    def env(self) -> dict[str, str]:
        return {"ANTHROPIC_API_BASE": self.root_url, "ANTHROPIC_API_KEY": self.api_key}

    def _next_reply(self, request: MessagesRequest) -> Reply:
        arrived = time.monotonic()
        fault = self._recorded(request)
        with self._lock:
            self.arrivals.append(Arrival(arrived, request.prompt_text, fault))
        return fault or self.responder(request)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(FakeHandler):
            malformed_body = b'{"type": "message", "content": [{"type": "te'

            def serve(self) -> None:
                raw = self.body()
                if self.path != "/v1/messages":
                    return self.send_json(404, _error("not_found_error", f"no route {self.path}"))
                if not self.headers.get("anthropic-version"):
                    return self.send_json(400, _error("invalid_request_error", "anthropic-version header is required"))
                if self.headers.get("x-api-key") != fake.api_key:
                    with fake._lock:
                        fake.refused += 1
                    return self.send_json(401, _error("authentication_error", "invalid x-api-key"))
                request = MessagesRequest(json.loads(raw or b"{}"), dict(self.headers))
                self.answer(fake._next_reply(request), _error_body)

        Handler.fake = fake
        return Handler


TYPES = {400: "invalid_request_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _error_body(fault: Fault) -> dict[str, Any]:
    return _error(TYPES.get(fault.status, "api_error"), fault.message)
