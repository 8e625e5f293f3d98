"""Our OTLP readers against the reference encoder (opentelemetry-proto), and the receiver over
real HTTP: protobuf and JSON, gzip, chunked, and a bad request reported by the turn that waits."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import struct
import threading
import time

import httpx
import pytest

from agenteval_ci.agents.remote.receiver import OtlpReceiver, TraceMissing, TurnQuery
from agenteval_ci.agents.traces.otlp import OtlpError, spans_from_json, spans_from_protobuf
from tests.agents.traces.otel_sdk import as_otlp_json, as_protobuf, recorder

ATTRIBUTES = {"s": "tëxt", "b": True, "i": -42, "big": 2**62, "f": 0.25, "strings": ["a", "b"], "ints": [1, -2], "empty": ""}


def _recorded():
    from opentelemetry import trace

    exporter = recorder()
    tracer = trace.get_tracer("test")
    with tracer.start_as_current_span("parent", attributes=ATTRIBUTES) as parent:
        parent.add_event("gen_ai.choice", {"index": 1})
        with tracer.start_as_current_span("child", attributes={"gen_ai.operation.name": "execute_tool"}):
            pass
    return exporter.get_finished_spans()


def _fields(span) -> tuple:
    return (span.trace_id, span.span_id, span.parent_span_id, span.name, span.start_ns, span.end_ns, span.attributes, [(e.name, e.time_ns, e.attributes) for e in span.events])


def test_protobuf_and_json_readers_match_the_reference_encoder():
    recorded = _recorded()
    ours = spans_from_protobuf(as_protobuf(recorded))
    by_name = {s.name: s for s in ours}
    reference = {s.name: s for s in recorded}
    for name, span in by_name.items():
        expected = reference[name]
        assert span.trace_id == f"{expected.context.trace_id:032x}"
        assert span.span_id == f"{expected.context.span_id:016x}"
        assert span.parent_span_id == (f"{expected.parent.span_id:016x}" if expected.parent else "")
        assert (span.start_ns, span.end_ns) == (expected.start_time, expected.end_time)
        assert span.attributes == {k: list(v) if isinstance(v, tuple) else v for k, v in expected.attributes.items()}
        assert span.resource["service.name"] == expected.resource.attributes["service.name"]
    assert [(e.name, e.attributes) for e in by_name["parent"].events] == [("gen_ai.choice", {"index": 1})]
    assert [_fields(s) for s in spans_from_json(as_otlp_json(recorded))] == [_fields(s) for s in ours]


@pytest.mark.parametrize("data", [b"\x0a\x05abc", b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x0b"])
def test_bytes_that_are_not_otlp_are_an_error(data):
    with pytest.raises(OtlpError, match="not an OTLP protobuf export request"):
        spans_from_protobuf(data)


def test_receiver_takes_a_turns_trace_by_trace_id_or_session_and_says_what_is_missing():
    recorded = _recorded()
    parent = next(s for s in recorded if s.name == "parent")
    receiver = OtlpReceiver().start()
    try:
        async def scenario():
            trace_id = f"{parent.context.trace_id:032x}"
            waiting = asyncio.ensure_future(receiver.store.wait_turn(TurnQuery(trace_id, "0" * 16, "no-session"), 5))
            async with httpx.AsyncClient() as client:
                body = gzip.compress(json.dumps(as_otlp_json(recorded)).encode())
                headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
                answer = await client.post(f"{receiver.endpoint}/v1/traces", content=body, headers=headers)
                assert answer.status_code == 200 and answer.json() == {}
                bad = await client.post(f"{receiver.endpoint}/v1/traces", content=b"\x0b", headers={"Content-Type": "application/x-protobuf"})
                assert bad.status_code == 400
                assert (await client.post(f"{receiver.endpoint}/v1/metrics", content=b"")).status_code == 200
            spans = await waiting
            assert sorted(s.name for s in spans) == ["child", "parent"]
            with pytest.raises(TraceMissing, match=r"no span of trace 1{32} or of session s1 arrived \(2 span\(s\) received in all; 1 export request\(s\) could not be read"):
                await receiver.store.wait_turn(TurnQuery("1" * 32, "0" * 16, "s1"), 0.2)

        asyncio.run(scenario())
    finally:
        receiver.stop()


def test_stopping_the_receiver_closes_exporters_connections_and_ends_its_threads():
    OtlpReceiver().stop()  # never started (the run ended before its first case): nothing to wait for
    receiver = OtlpReceiver().start()
    with httpx.Client(trust_env=False) as exporter:  # keeps its connection open, as an SDK's exporter does
        assert exporter.post(f"{receiver.endpoint}/v1/metrics", content=b"").status_code == 200
        endpoint = receiver.endpoint
        receiver.stop()
        assert not [t.name for t in threading.enumerate() if t.name.startswith("agenteval-otlp")]
        with pytest.raises(httpx.ConnectError):
            exporter.post(f"{endpoint}/v1/metrics", content=b"")


def _reset(connection: socket.socket) -> None:
    """Closed as a process that exits with the connection open may close it: a reset (RST)."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


@pytest.mark.parametrize("when", ["after its last export", "in the middle of a body"])
def test_an_exporter_that_resets_its_connection_prints_no_traceback(when, capfd):
    receiver = OtlpReceiver().start()
    try:
        port = int(receiver.endpoint.rsplit(":", 1)[1])
        connection = socket.create_connection(("127.0.0.1", port))
        head = b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        if when == "after its last export":
            connection.sendall(head % 2 + b"{}")
            assert connection.recv(4096).startswith(b"HTTP/1.1 200")  # the keep-alive connection stays open
        else:
            connection.sendall(head % 1000 + b'{"resourceSpans": [')
        time.sleep(0.2)  # the handler waits on the connection
        _reset(connection)
        time.sleep(0.2)  # ... and reads the reset
    finally:
        receiver.stop()
    assert "Traceback" not in capfd.readouterr().err
