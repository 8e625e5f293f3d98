"""One in-memory OpenTelemetry SDK for the tests that record real spans (the global tracer
provider can be set once per process), and the reference OTLP encodings of what it recorded."""

from __future__ import annotations

import base64
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_exporter = None


def recorder() -> InMemorySpanExporter:
    global _exporter
    if _exporter is None:
        _exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_exporter))
        trace.set_tracer_provider(provider)
    _exporter.clear()
    return _exporter


def as_protobuf(spans: Any) -> bytes:
    return encode_spans(spans).SerializeToString()


def as_otlp_json(spans: Any) -> dict[str, Any]:
    """OTLP/JSON: protobuf's JSON mapping, but ids in hex as the OTLP spec writes them."""
    data = MessageToDict(encode_spans(spans))
    for resource in data.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return data
