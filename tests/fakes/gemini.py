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
import random
import re
import socket
import struct
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional, Union

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


@dataclass(frozen=True)
class Fault:
    """An injected failure: an HTTP error (optionally with Retry-After), a hang, garbage, or a
    connection dropped without an answer."""

    status: int = 500
    message: str = "injected fault"
    retry_after: Optional[float] = None
    hang: float = 0.0  # seconds to stall before answering (0: do not stall)
    malformed: bool = False  # answer 200 with a body that is not a valid response
    drop: bool = False  # reset the connection instead of answering


# The faults of a flaky provider: throttling, overload, a crash, a dropped connection.
TRANSIENT_FAULTS = (
    Fault(429, "Resource has been exhausted (e.g. check quota).", retry_after=0.01),
    Fault(503, "The model is overloaded. Please try again later."),
    Fault(500, "An internal error has occurred."),
    Fault(drop=True),
)


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


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog of 5 resets connections under a judge's 32 parallel calls

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that gave up on an injected hang closes its socket: expected, not an error.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@dataclass
class FakeGemini:
    responder: Responder = field(default=lambda req: text_reply("ok"))
    latency: float = 0.0  # seconds added to every answer
    api_key: Optional[str] = None  # when set, requests must carry it
    multiple_candidates: bool = True  # False: candidateCount > 1 is a 400, as for Gemini models without it
    max_candidates: Optional[int] = None  # answer at most this many candidates, whatever was asked

    def __post_init__(self) -> None:
        self.requests: list[GeminiRequest] = []
        self.faults_served = 0
        self.max_in_flight = 0
        self._in_flight = 0
        self._faults: deque[Fault] = deque()
        self._random_faults: tuple[float, tuple[Fault, ...], random.Random] | None = None
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # ---- lifecycle

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def env(self) -> dict[str, str]:
        """Environment that points google-genai at this server."""
        return {"GOOGLE_GEMINI_BASE_URL": self.base_url, "GOOGLE_API_KEY": self.api_key or "fake-key"}

    def start(self) -> "FakeGemini":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeGemini":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- scripting

    def fail_next(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    def random_faults(self, rate: float, faults: tuple[Fault, ...] = TRANSIENT_FAULTS, seed: int = 0) -> None:
        """From now on answer each request, with probability `rate`, with one of `faults`
        (seeded: the same run of requests meets the same faults); rate 0 stops it."""
        with self._lock:
            self._random_faults = (rate, faults, random.Random(seed)) if rate else None

    def _injected(self) -> Optional[Fault]:
        if self._faults:
            return self._faults.popleft()
        if self._random_faults:
            rate, faults, rng = self._random_faults
            if rng.random() < rate:
                return rng.choice(faults)
        return None

    def _next_reply(self, request: GeminiRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            fault = self._injected()
            if fault:
                self.faults_served += 1
                return fault
        asked = request.candidate_count
        if asked > 1 and not self.multiple_candidates:
            return Fault(400, f"Multiple candidates is not enabled for models/{request.model}")
        replies = [self.responder(request) for _ in range(min(asked, self.max_candidates or asked))]
        fault = next((reply for reply in replies if isinstance(reply, Fault)), None)
        return fault or _candidates_of(replies)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                with fake._lock:
                    fake._in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake._in_flight)
                try:
                    self._serve()
                finally:
                    with fake._lock:
                        fake._in_flight -= 1

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length) if length else b"{}"
                match = _PATH.match(self.path)
                if not match:
                    return self._send(404, {"error": {"code": 404, "message": f"no route {self.path}", "status": "NOT_FOUND"}})
                key = self.headers.get("x-goog-api-key")
                if fake.api_key and key != fake.api_key:
                    return self._send(400, {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}})
                request = GeminiRequest(match["model"], match["method"], json.loads(raw or b"{}"), dict(self.headers), self.path)
                reply = fake._next_reply(request)
                if fake.latency:
                    time.sleep(fake.latency)
                if isinstance(reply, Fault):
                    return self._fault(reply)
                if match["method"] == "streamGenerateContent":
                    return self._send_sse(reply)
                self._send(200, reply)

            def _fault(self, fault: Fault) -> None:
                if fault.hang:
                    time.sleep(fault.hang)
                if fault.drop:  # a reset, as a proxy or a crashed backend gives: no status line at all
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    return
                if fault.malformed:
                    body = b'{"candidates": [{"content": '
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                status_names = {400: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
                error = {"error": {"code": fault.status, "message": fault.message, "status": status_names.get(fault.status, "UNKNOWN")}}
                headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
                self._send(fault.status, error, headers)

            def _send(self, status: int, body: dict[str, Any], headers: Optional[dict[str, str]] = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _send_sse(self, body: dict[str, Any]) -> None:
                data = f"data: {json.dumps(body)}\r\n\r\n".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
