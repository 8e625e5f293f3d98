"""A loopback fake of the Gemini REST API, driven by the real google-genai client.

Point google-genai (and so google-adk agents and our judge) at it with
`GOOGLE_GEMINI_BASE_URL=server.base_url` and any `GOOGLE_API_KEY`. It speaks
`POST /{version}/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`.

A test scripts it with a responder, a function from the request to a reply body (see
`text_reply`, `function_call_reply`, and the replies a judge cannot use: `cut_short_reply`,
`finished_reply`, `blocked_prompt_reply`, `no_candidates_reply`) or a `Fault`. A request asking
for several candidates (`generationConfig.candidateCount`) calls the responder once per
candidate, so scripted replies are consumed one per sample; the answer carries their
candidates in order, the prompt's tokens once and the candidates' tokens summed.
`multiple_candidates=False` rejects candidateCount > 1 as Gemini does for models without it;
`max_candidates` silently answers fewer. Faults queued with `fail_next` are served first, one
per request; `random_faults(rate, faults, seed)` answers a seeded random share of the requests
with one of `faults` (a flaky provider). Every request is recorded; `max_in_flight` tells the
highest concurrency seen.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Optional, Union

from .loopback import TRANSIENT_FAULTS as TRANSIENT_FAULTS  # the tests' faults, named here as before
from .loopback import FakeHandler, Fault, LoopbackFake

_PATH = re.compile(r"^/(?P<version>v[^/]+)/(?:.*/)?models/(?P<model>[^/:]+):(?P<method>\w+)")


@dataclass(frozen=True)
class GeminiRequest:
    model: str
    method: str
    body: dict[str, Any]
    headers: dict[str, str]
    path: str = ""  # e.g. /v1beta/models/gemini-2.5-flash:generateContent (Vertex: /v1beta1/projects/...)

    @property
    def contents(self) -> list[dict[str, Any]]:
        return self.body.get("contents", [])

    @property
    def candidate_count(self) -> int:
        return int(self.body.get("generationConfig", {}).get("candidateCount", 1))

    @property
    def last_user_text(self) -> str:
        """Text of the last content that carries text (the newest user turn or tool result)."""
        for content in reversed(self.contents):
            texts = [p["text"] for p in content.get("parts", []) if "text" in p]
            if texts:
                return "\n".join(texts)
        return ""

    @property
    def prompt_text(self) -> str:
        """All text of the request (system instruction and contents), for judge prompts."""
        parts = list(self.body.get("systemInstruction", {}).get("parts", []))
        for content in self.contents:
            parts.extend(content.get("parts", []))
        return "\n".join(p.get("text", "") for p in parts)

    @property
    def function_responses(self) -> list[dict[str, Any]]:
        return [
            p["functionResponse"]
            for content in self.contents
            for p in content.get("parts", [])
            if "functionResponse" in p
        ]


Reply = Union[dict[str, Any], Fault]
Responder = Callable[[GeminiRequest], Reply]


def usage(prompt_tokens: int = 10, output_tokens: int = 5) -> dict[str, int]:
    return {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": output_tokens,
        "totalTokenCount": prompt_tokens + output_tokens,
    }


def _reply(parts: list[dict[str, Any]], prompt_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage(prompt_tokens, output_tokens),
        "modelVersion": "fake-gemini",
    }


def text_reply(text: str, prompt_tokens: int = 10, output_tokens: int = 5) -> dict[str, Any]:
    return _reply([{"text": text}], prompt_tokens, output_tokens)


def grounded_reply(text: str, queries: list[str], sources: list[tuple[str, str]]) -> dict[str, Any]:
    """A google_search-grounded answer: the text, with grounding metadata naming its queries and
    (uri, title) sources, as Gemini returns it."""
    reply = _reply([{"text": text}], 10, 5)
    reply["candidates"][0]["groundingMetadata"] = {
        "webSearchQueries": queries,
        "groundingChunks": [{"web": {"uri": uri, "title": title}} for uri, title in sources],
        "searchEntryPoint": {"renderedContent": "<div>search</div>"},
    }
    return reply


def function_call_reply(calls: list[tuple[str, dict[str, Any]]], prompt_tokens: int = 10, output_tokens: int = 5) -> dict[str, Any]:
    return _reply([{"functionCall": {"name": n, "args": a}} for n, a in calls], prompt_tokens, output_tokens)


def cut_short_reply(text: str) -> dict[str, Any]:
    """A reply that hit the output token limit mid-answer (finish reason MAX_TOKENS)."""
    reply = text_reply(text)
    reply["candidates"][0]["finishReason"] = "MAX_TOKENS"
    return reply


def finished_reply(finish_reason: str, text: Optional[str] = None) -> dict[str, Any]:
    """A candidate that ended for `finish_reason` (SAFETY, RECITATION, ...), with or without text."""
    content = {"content": {"role": "model", "parts": [{"text": text}]}} if text is not None else {}
    return {"candidates": [{**content, "finishReason": finish_reason, "index": 0}], "usageMetadata": usage()}


def blocked_prompt_reply(reason: str = "SAFETY") -> dict[str, Any]:
    """No candidates: the prompt itself was blocked."""
    return {"promptFeedback": {"blockReason": reason}, "usageMetadata": usage(output_tokens=0)}


def no_candidates_reply() -> dict[str, Any]:
    """An answer with no candidates and no reason given."""
    return {"candidates": [], "usageMetadata": usage(output_tokens=0)}


def _candidates_of(replies: list[dict[str, Any]]) -> dict[str, Any]:
    """One response holding each reply's candidates, as Gemini answers candidateCount > 1."""
    if len(replies) == 1:
        return replies[0]
    candidates = [candidate for reply in replies for candidate in reply.get("candidates", [])]
    prompt_tokens = replies[0].get("usageMetadata", {}).get("promptTokenCount", 0)
    output_tokens = sum(reply.get("usageMetadata", {}).get("candidatesTokenCount", 0) for reply in replies)
    return {
        **replies[0],
        "candidates": [{**candidate, "index": index} for index, candidate in enumerate(candidates)],
        "usageMetadata": usage(prompt_tokens, output_tokens),
    }


@dataclass
class FakeGemini(LoopbackFake):
    responder: Responder = field(default=lambda req: text_reply("ok"))
    latency: float = 0.0  # seconds added to every answer
    api_key: Optional[str] = None  # when set, requests must carry it
    multiple_candidates: bool = True  # False: candidateCount > 1 is a 400, as for Gemini models without it
    max_candidates: Optional[int] = None  # answer at most this many candidates, whatever was asked

    def __post_init__(self) -> None:
        self._open()

    @property
    def base_url(self) -> str:
        return self.root_url

    def env(self) -> dict[str, str]:
        """Environment that points google-genai at this server."""
        return {"GOOGLE_GEMINI_BASE_URL": self.base_url, "GOOGLE_API_KEY": self.api_key or "fake-key"}

    def _next_reply(self, request: GeminiRequest) -> Reply:
        if request.candidate_count > 1 and not self.multiple_candidates:
            self._recorded(request)
            return Fault(400, f"Multiple candidates is not enabled for models/{request.model}")
        return self._samples(request, request.candidate_count, self.max_candidates, self.responder, _candidates_of)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(FakeHandler):
            malformed_body = b'{"candidates": [{"content": '

            def serve(self) -> None:
                raw = self.body()
                match = _PATH.match(self.path)
                if not match:
                    return self.send_json(404, {"error": {"code": 404, "message": f"no route {self.path}", "status": "NOT_FOUND"}})
                key = self.headers.get("x-goog-api-key")
                if fake.api_key and key != fake.api_key:
                    return self.send_json(400, {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}})
                request = GeminiRequest(match["model"], match["method"], json.loads(raw or b"{}"), dict(self.headers), self.path)
                reply = fake._next_reply(request)
                if match["method"] == "streamGenerateContent" and not isinstance(reply, Fault):
                    return self.send_bytes(200, f"data: {json.dumps(reply)}\r\n\r\n".encode(), "text/event-stream")
                self.answer(reply, _error_body)

        Handler.fake = fake
        return Handler


STATUS_NAMES = {400: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}


def _error_body(fault: Fault) -> dict[str, Any]:
    return {"error": {"code": fault.status, "message": fault.message, "status": STATUS_NAMES.get(fault.status, "UNKNOWN")}}
