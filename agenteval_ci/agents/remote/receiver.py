"""The OTLP/HTTP receiver on 127.0.0.1: the agent's exporter sends its spans here during a run
(POST /v1/traces, protobuf or JSON, gzip or not); a turn waits for the spans of its own trace
(the `traceparent` we sent) or of its session (a session id attribute), until the trace's root
span is in, which an exporter sends only after every span under it ended.

Metrics and logs (/v1/metrics, /v1/logs) are accepted and dropped, so an SDK exporting every
signal to the endpoint we set logs no errors.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import socket
import sys
import threading
import zlib
from collections import defaultdict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional

from ..traces.mapping import session_of
from ..traces.otlp import OtlpError, Span, spans_from_json, spans_from_protobuf

MAX_EXPORT_BYTES = 64 * 1024 * 1024
CLOSE_WAIT_SECONDS = 2.0  # for a connection's handler to end once its socket is shut down


@dataclass(frozen=True)
class TurnQuery:
    trace_id: str  # the trace we propagated
    parent_span_id: str  # our span: the agent's top span has it as parent
    session_id: str


class TraceMissing(Exception):
    """The turn's spans did not all arrive in time; the message says what did."""


class TraceStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._traces: dict[str, list[Span]] = defaultdict(list)
        self._by_session: dict[str, set[str]] = defaultdict(set)
        self._taken: set[str] = set()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self.received = 0
        self.bad_requests: list[str] = []

    def add(self, spans: list[Span]) -> None:
        with self._lock:
            for span in spans:
                if span.trace_id in self._taken:
                    continue  # a straggler of a turn already scored: dropped, not given to the next turn
                self._traces[span.trace_id].append(span)
                session = session_of(span)
                if session:
                    self._by_session[session].add(span.trace_id)
            self.received += len(spans)
            waiters = list(self._waiters)
        for loop, event in waiters:
            loop.call_soon_threadsafe(event.set)

    def bad_request(self, reason: str) -> None:
        with self._lock:
            self.bad_requests.append(reason)

    def _take(self, query: TurnQuery) -> Optional[list[Span]]:
        """The turn's spans once each of its traces has its root, taken out of the store."""
        with self._lock:
            trace_ids = ({query.trace_id} if query.trace_id in self._traces else set()) | self._by_session.get(query.session_id, set())
            trace_ids -= self._taken
            if not trace_ids or not all(_has_root(self._traces[t], query.parent_span_id) for t in trace_ids):
                return None
            spans = [span for t in sorted(trace_ids) for span in self._traces.pop(t)]
            self._taken |= trace_ids
            for ids in self._by_session.values():
                ids -= trace_ids
            return spans

    def _partial(self, query: TurnQuery) -> str:
        with self._lock:
            ids = ({query.trace_id} if query.trace_id in self._traces else set()) | self._by_session.get(query.session_id, set())
            count = sum(len(self._traces.get(t, [])) for t in ids - self._taken)
            received, bad = self.received, list(self.bad_requests)
        if count:
            return f"{count} span(s) of it arrived, but not the root span that closes the trace"
        why = f"no span of trace {query.trace_id} or of session {query.session_id} arrived ({received} span(s) received in all"
        if bad:
            why += f"; {len(bad)} export request(s) could not be read, the last: {bad[-1]}"
        return why + ")"

    async def wait_turn(self, query: TurnQuery, timeout: float) -> list[Span]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            event = asyncio.Event()
            waiter = (loop, event)
            with self._lock:
                self._waiters.append(waiter)
            try:
                spans = self._take(query)
                if spans is not None:
                    return spans
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise TraceMissing(f"the turn's trace did not arrive within {timeout:g}s: {self._partial(query)}")
                try:
                    await asyncio.wait_for(event.wait(), remaining)
                except asyncio.TimeoutError:
                    pass
            finally:
                with self._lock:
                    self._waiters.remove(waiter)


def _has_root(spans: list[Span], our_span_id: str) -> bool:
    return any(not s.parent_span_id or s.parent_span_id == our_span_id for s in spans)


def decode_export(body: bytes, content_type: str, encoding: str) -> list[Span]:
    """One export request's spans; OtlpError when it is not one."""
    if encoding == "gzip":
        try:
            body = gzip.decompress(body)
        except (OSError, EOFError, zlib.error) as exc:
            raise OtlpError(f"a gzip body that does not decompress: {exc}") from None
    elif encoding == "deflate":
        try:
            body = zlib.decompress(body)
        except zlib.error as exc:
            raise OtlpError(f"a deflate body that does not decompress: {exc}") from None
    if "json" in content_type:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise OtlpError(f"a JSON body that is not JSON: {exc}") from None
        return spans_from_json(data)
    return spans_from_protobuf(body)


class _Server(ThreadingHTTPServer):
    """Keeps its exporters' connections, so stopping closes them: an exporter we did not start
    holds its keep-alive connection open, and a handler thread blocked on it would stay."""

    request_queue_size = 128

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]):
        self._open: dict[socket.socket, threading.Thread] = {}
        self._open_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        """ThreadingMixIn's, with each connection and its thread kept until it closes."""
        thread = threading.Thread(target=self.process_request_thread, args=(request, client_address), name="agenteval-otlp-connection", daemon=True)
        with self._open_lock:
            self._open[request] = thread
        thread.start()

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.pop(request, None)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection the exporter reset or dropped (it stopped with its keep-alive connection
        open) ends its handler quietly; anything else is our bug, printed as socketserver does."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)

    def close_connections(self) -> None:
        with self._open_lock:
            still_open = list(self._open.items())
        for connection, thread in still_open:
            try:
                connection.shutdown(socket.SHUT_RDWR)  # the handler's read ends; it closes the socket
            except OSError:
                pass
            thread.join(CLOSE_WAIT_SECONDS)


class OtlpReceiver:
    """Listens from `start()` to `stop()` (a thread serving, one more per exporter connection)."""

    def __init__(self, port: int = 0):
        self.store = TraceStore()
        self._port = port
        self._server: Optional[_Server] = None
        self._thread: Optional[threading.Thread] = None

    @property
    def endpoint(self) -> str:
        assert self._server is not None, "the receiver is not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def exporter_env(self) -> dict[str, str]:
        """The standard variables an OpenTelemetry SDK reads, for an agent we start."""
        return {
            "OTEL_EXPORTER_OTLP_ENDPOINT": self.endpoint,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{self.endpoint}/v1/traces",
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_BSP_SCHEDULE_DELAY": "50",  # ms: a turn's spans arrive right after it, not 5 s later
        }

    def start(self) -> "OtlpReceiver":
        self._server = _Server(("127.0.0.1", self._port), _handler(self.store))
        self._thread = threading.Thread(target=self._server.serve_forever, name="agenteval-otlp", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """The listening socket and every exporter connection closed, the threads ended."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        self._server = self._thread = None
        server.shutdown()
        thread.join()
        server.server_close()
        server.close_connections()


class _OtlpHandler(BaseHTTPRequestHandler):
    """OTLP/HTTP's trace export into `store`; metrics and logs are taken and dropped."""

    protocol_version = "HTTP/1.1"
    store: TraceStore  # set by _handler on the subclass each receiver serves

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        try:
            body = self._body()
        except ValueError as exc:
            self.store.bad_request(str(exc))
            return self._answer(413, b"", "text/plain", close=True)
        content_type = (self.headers.get("Content-Type") or "application/x-protobuf").lower()
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/v1/metrics", "/v1/logs"):
            return self._ok(content_type)
        if path != "/v1/traces":
            return self._answer(404, b"", "text/plain")
        try:
            spans = decode_export(body, content_type, (self.headers.get("Content-Encoding") or "").lower())
        except OtlpError as exc:
            self.store.bad_request(str(exc))
            return self._answer(400, str(exc).encode(), "text/plain")
        self.store.add(spans)
        self._ok(content_type)

    def _body(self) -> bytes:
        """Content-Length, or chunked (Node's exporter streams its body)."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return _read_chunked(self.rfile)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_EXPORT_BYTES:
            raise ValueError(f"{length:,} bytes (the limit is {MAX_EXPORT_BYTES:,})")
        return self.rfile.read(length)

    def _ok(self, content_type: str) -> None:
        # An empty ExportTraceServiceResponse: no bytes in protobuf, {} in JSON.
        json_body = "json" in content_type
        self._answer(200, b"{}" if json_body else b"", "application/json" if json_body else "application/x-protobuf")

    def _answer(self, status: int, body: bytes, content_type: str, close: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)


def _read_chunked(rfile: io.BufferedIOBase) -> bytes:
    """A chunked body, refused past MAX_EXPORT_BYTES; trailers are read and dropped."""
    chunks: list[bytes] = []
    total = 0
    while True:
        size = int(rfile.readline(100).split(b";")[0].strip() or b"0", 16)
        total += size
        if total > MAX_EXPORT_BYTES:
            raise ValueError(f"more than {MAX_EXPORT_BYTES:,} bytes")
        if size == 0:
            while rfile.readline(8192).strip():  # trailers
                pass
            return b"".join(chunks)
        chunks.append(rfile.read(size))
        rfile.readline(8)


def _handler(store: TraceStore) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_OtlpHandler,), {"store": store})
