"""What the loopback fakes of model APIs share (gemini.py, openai.py): a threaded server on
127.0.0.1, its lifecycle, injected faults served before the scripted replies (queued with
`fail_next`, or a seeded random share with `random_faults`), the requests recorded, the highest
concurrency seen, and a handler base that answers JSON, hangs, garbage or a reset connection."""

from __future__ import annotations

import json
import random
import socket
import struct
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional


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


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog of 5 resets connections under a judge's 32 parallel calls

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that gave up on an injected hang closes its socket: expected, not an error.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class LoopbackFake:
    """A fake model server: subclasses give `_handler()` and call `_open()` once."""

    latency: float = 0.0

    def _open(self) -> None:
        self.requests: list[Any] = []
        self.faults_served = 0
        self.max_in_flight = 0
        self._in_flight = 0
        self._faults: deque[Fault] = deque()
        self._random_faults: tuple[float, tuple[Fault, ...], random.Random] | None = None
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    @property
    def root_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> Any:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def fail_next(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    def random_faults(self, rate: float, faults: tuple[Fault, ...] = TRANSIENT_FAULTS, seed: int = 0) -> None:
        """From now on answer each request, with probability `rate`, with one of `faults`
        (seeded: the same run of requests meets the same faults); rate 0 stops it."""
        with self._lock:
            self._random_faults = (rate, faults, random.Random(seed)) if rate else None

    def _recorded(self, request: Any) -> Optional[Fault]:
        """Record `request`; the fault to answer it with, if one is due."""
        with self._lock:
            self.requests.append(request)
            fault = self._faults.popleft() if self._faults else None
            if fault is None and self._random_faults:
                rate, faults, rng = self._random_faults
                fault = rng.choice(faults) if rng.random() < rate else None
            if fault:
                self.faults_served += 1
            return fault

    def _samples(self, request: Any, asked: int, most: Optional[int], responder: Callable[[Any], Any],
                 merge: Callable[[list[Any]], Any]) -> Any:
        """A sampled request's answer, as every provider's fake gives it: the fault due, else the
        responder's answer for each sample asked (at most `most`), merged into one reply; a
        fault among them answers the whole request."""
        fault = self._recorded(request)
        if fault:
            return fault
        replies = [responder(request) for _ in range(min(asked, most or asked))]
        return next((reply for reply in replies if isinstance(reply, Fault)), None) or merge(replies)


class FakeHandler(BaseHTTPRequestHandler):
    """POSTs counted in flight and served by `serve`; JSON answers and injected faults."""

    protocol_version = "HTTP/1.1"
    fake: LoopbackFake
    malformed_body = b'{"broken": [{"content": '

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        fake = self.fake
        with fake._lock:
            fake._in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake._in_flight)
        try:
            self.serve()
        finally:
            with fake._lock:
                fake._in_flight -= 1

    def serve(self) -> None:
        raise NotImplementedError

    def body(self) -> bytes:
        length = int(self.headers.get("Content-Length", 0))
        return self.rfile.read(length) if length else b"{}"

    def answer(self, reply: Any, error_body: Callable[[Fault], dict[str, Any]]) -> None:
        """A reply after the fake's latency: a JSON body, or a fault (`error_body` words its error)."""
        if self.fake.latency:
            time.sleep(self.fake.latency)
        if not isinstance(reply, Fault):
            return self.send_json(200, reply)
        if reply.hang:
            time.sleep(reply.hang)
        if reply.drop:  # a reset, as a proxy or a crashed backend gives: no status line at all
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if reply.malformed:
            return self.send_bytes(200, self.malformed_body, "application/json")
        headers = {"Retry-After": f"{reply.retry_after:g}"} if reply.retry_after is not None else {}
        self.send_json(reply.status, error_body(reply), headers)

    def send_json(self, status: int, body: dict[str, Any], headers: Optional[dict[str, str]] = None) -> None:
        self.send_bytes(status, json.dumps(body).encode(), "application/json", headers)

    def send_bytes(self, status: int, data: bytes, content_type: str, headers: Optional[dict[str, str]] = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
