"""A loopback fake of OpenAI's chat-completions API, driven by our OpenAI-compatible judge
provider unpatched (and by LiteLLM's, when it is installed).

It speaks `POST {base}/chat/completions` (OpenAI, vLLM, Ollama's /v1, a LiteLLM proxy) and
Azure OpenAI's `POST /openai/deployments/{deployment}/chat/completions?api-version=...`.
Point a judge at it with `judge.providers.openai.base_url: server.base_url` (or
`OPENAI_BASE_URL`) and `OPENAI_API_KEY`. A test scripts it as the fake Gemini is scripted: a
responder from the request to a reply (`text_reply`, `refusal_reply`, `finished_reply`) or a
`Fault` (the fake Gemini's: 429 with Retry-After, 5xx, malformed, dropped, hangs). A request with
`n` calls the responder once per choice; `multiple_choices=False` refuses n > 1 with a 400 (as
Groq does), `max_choices` silently answers fewer (as Ollama does). Every request is recorded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Optional, Union
from urllib.parse import parse_qs, urlsplit

from .loopback import FakeHandler, Fault, LoopbackFake

_AZURE = re.compile(r"^/openai/deployments/(?P<deployment>[^/]+)/chat/completions$")


@dataclass(frozen=True)
class ChatRequest:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    query: dict[str, str]

    @property
    def model(self) -> str:
        match = _AZURE.match(self.path)
        return match["deployment"] if match else str(self.body.get("model", ""))

    @property
    def n(self) -> int:
        return int(self.body.get("n", 1))

    @property
    def prompt_text(self) -> str:
        return "\n".join(text for m in self.body.get("messages", []) for text in _texts(m.get("content", "")))

    @property
    def content_parts(self) -> list[dict[str, Any]]:
        """The messages' content parts that are not text (images, files): none for a plain-text prompt."""
        return [part for m in self.body.get("messages", []) if isinstance(m.get("content"), list)
                for part in m["content"] if part.get("type") != "text"]


def _texts(content: Any) -> list[str]:
    """A message's text: the content itself, or its text parts (a request with images or files)."""
    if isinstance(content, list):
        return [str(part.get("text", "")) for part in content if part.get("type") == "text"]
    return [str(content)]


Reply = Union[dict[str, Any], Fault]
Responder = Callable[[ChatRequest], Reply]


def _choice(message: dict[str, Any], finish_reason: Optional[str] = "stop") -> dict[str, Any]:
    return {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason}


def _completion(choices: list[dict[str, Any]], model: str, prompt_tokens: int = 10, output_tokens: int = 5) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
        "choices": choices,
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": output_tokens, "total_tokens": prompt_tokens + output_tokens},
    }


def text_reply(text: str, model: str = "fake-gpt-2024-01-01", prompt_tokens: int = 10, output_tokens: int = 5) -> dict[str, Any]:
    return _completion([_choice({"content": text})], model, prompt_tokens, output_tokens)


def refusal_reply(refusal: str = "I'm sorry, I can't help with that.", model: str = "fake-gpt-2024-01-01") -> dict[str, Any]:
    return _completion([_choice({"content": None, "refusal": refusal})], model)


def finished_reply(finish_reason: str, text: Optional[str] = None, model: str = "fake-gpt-2024-01-01") -> dict[str, Any]:
    """A choice that ended for `finish_reason` (length, content_filter, ...)."""
    return _completion([_choice({"content": text}, finish_reason)], model)


def _merged(replies: list[dict[str, Any]]) -> dict[str, Any]:
    """One completion holding each reply's choices, as OpenAI answers n > 1: the prompt's tokens once."""
    choices = [choice for reply in replies for choice in reply.get("choices", [])]
    usage = dict(replies[0].get("usage", {}))
    usage["completion_tokens"] = sum(reply.get("usage", {}).get("completion_tokens", 0) for reply in replies)
    return {**replies[0], "choices": [{**choice, "index": index} for index, choice in enumerate(choices)], "usage": usage}


@dataclass
class FakeOpenAI(LoopbackFake):
    responder: Responder = field(default=lambda req: text_reply("ok"))
    api_key: Optional[str] = None  # when set, requests must carry it (Bearer, or Azure's api-key header)
    multiple_choices: bool = True
    max_choices: Optional[int] = None
    latency: float = 0.0

    def __post_init__(self) -> None:
        self.refused = 0  # requests without the right key (not in `requests`)
        self._open()

    @property
    def base_url(self) -> str:
        """OpenAI's base URL shape: the server's root plus /v1 (`root_url` is Azure's AZURE_API_BASE)."""
        return f"{self.root_url}/v1"

    def env(self) -> dict[str, str]:
        return {"OPENAI_BASE_URL": self.base_url, "OPENAI_API_KEY": self.api_key or "fake-openai-key"}

    def _next_reply(self, request: ChatRequest) -> Reply:
        if request.n > 1 and not self.multiple_choices:
            self._recorded(request)
            return Fault(400, "'n' : number must be at most 1")
        return self._samples(request, request.n, self.max_choices, self.responder, _merged)

    def _authorized(self, headers: Any, azure: bool) -> bool:
        if not self.api_key:
            return True
        given = headers.get("api-key") if azure else (headers.get("Authorization") or "").removeprefix("Bearer ")
        return given == self.api_key

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(FakeHandler):
            malformed_body = b'{"choices": [{"message": '

            def serve(self) -> None:
                raw = self.body()
                url = urlsplit(self.path)
                azure = bool(_AZURE.match(url.path))
                if url.path != "/v1/chat/completions" and not azure:
                    return self.send_json(404, {"error": {"message": f"no route {url.path}", "type": "invalid_request_error", "code": None}})
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                if azure and "api-version" not in query:
                    return self.send_json(404, {"error": {"code": "404", "message": "Resource not found"}})
                if not fake._authorized(self.headers, azure):
                    with fake._lock:
                        fake.refused += 1
                    return self.send_json(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                                          "code": "invalid_api_key"}})
                request = ChatRequest(url.path, json.loads(raw or b"{}"), dict(self.headers), query)
                self.answer(fake._next_reply(request), _error_body)

        Handler.fake = fake
        return Handler


CODES = {429: "rate_limit_exceeded", 400: "invalid_request_error", 500: "server_error", 503: "server_error"}


def _error_body(fault: Fault) -> dict[str, Any]:
    return {"error": {"message": fault.message, "type": CODES.get(fault.status, "error"), "code": CODES.get(fault.status)}}
