"""OTLP trace export requests (JSON and protobuf) as spans.

Only what the mapping reads is kept: ids, parent, name, times, attributes (with the resource's
beside them) and span events. OTLP/JSON writes ids as hex and 64-bit integers as strings or
numbers; protobuf is decoded by the small reader in `protobuf.py` (no dependency needed).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from . import protobuf


class OtlpError(ValueError):
    """An export request that is not OTLP; the message names the JSON path or the byte offset."""


@dataclass(frozen=True)
class SpanEvent:
    name: str
    time_ns: int
    attributes: dict[str, Any]


@dataclass(frozen=True)
class Span:
    trace_id: str  # lowercase hex
    span_id: str
    parent_span_id: str  # "" for a root span
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    events: tuple[SpanEvent, ...] = ()
    resource: dict[str, Any] = field(default_factory=dict)

    def attr(self, *names: str) -> Any:
        """The first of these attributes the span has (the span's own, then its resource's)."""
        for name in names:
            if name in self.attributes:
                return self.attributes[name]
        for name in names:
            if name in self.resource:
                return self.resource[name]
        return None


# ---------------------------------------------------------------- JSON


def spans_from_json(data: Any, where: str = "$") -> list[Span]:
    """An ExportTraceServiceRequest (`{"resourceSpans": [...]}`) as OTLP/JSON writes it."""
    if not isinstance(data, dict):
        raise OtlpError(f"{where}: expected an object with resourceSpans")
    spans = []
    for i, resource_spans in enumerate(_list(data, "resourceSpans", where)):
        at = f"{where}.resourceSpans[{i}]"
        resource = _attributes(_get(_dict(resource_spans, at), "resource") or {}, f"{at}.resource")
        for j, scope_spans in enumerate(_list(resource_spans, "scopeSpans", at) or _list(resource_spans, "instrumentationLibrarySpans", at)):
            scope_at = f"{at}.scopeSpans[{j}]"
            for k, span in enumerate(_list(_dict(scope_spans, scope_at), "spans", scope_at)):
                spans.append(_json_span(_dict(span, f"{scope_at}.spans[{k}]"), f"{scope_at}.spans[{k}]", resource))
    return spans


def _json_span(span: dict[str, Any], at: str, resource: dict[str, Any]) -> Span:
    events = tuple(
        SpanEvent(str(_get(e, "name") or ""), _int(_get(e, "timeUnixNano"), f"{at}.events[{i}].timeUnixNano"), _attributes(e, f"{at}.events[{i}]"))
        for i, e in enumerate(_list(span, "events", at))
        if isinstance(e, dict)
    )
    return Span(
        trace_id=_id(_get(span, "traceId"), f"{at}.traceId", required=True),
        span_id=_id(_get(span, "spanId"), f"{at}.spanId", required=True),
        parent_span_id=_id(_get(span, "parentSpanId"), f"{at}.parentSpanId"),
        name=str(_get(span, "name") or ""),
        start_ns=_int(_get(span, "startTimeUnixNano"), f"{at}.startTimeUnixNano"),
        end_ns=_int(_get(span, "endTimeUnixNano"), f"{at}.endTimeUnixNano"),
        attributes=_attributes(span, at),
        events=events,
        resource=resource,
    )


def _get(obj: dict[str, Any], camel: str) -> Any:
    """OTLP/JSON's lowerCamelCase key, or the proto's snake_case one."""
    if camel in obj:
        return obj[camel]
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return obj.get(snake)


def _dict(value: Any, at: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise OtlpError(f"{at}: expected an object")
    return value


def _list(obj: dict[str, Any], key: str, at: str) -> list[Any]:
    value = _get(obj, key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise OtlpError(f"{at}.{key}: expected a list")
    return value


def _id(value: Any, at: str, required: bool = False) -> str:
    if value in (None, ""):
        if required:
            raise OtlpError(f"{at}: missing")
        return ""
    if not isinstance(value, str):
        raise OtlpError(f"{at}: expected a hex string")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        try:  # protobuf's own JSON mapping writes bytes as base64
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise OtlpError(f"{at}: {value[:40]!r} is neither hex nor base64") from None
    return "" if not any(raw) else raw.hex()


def _int(value: Any, at: str) -> int:
    if value in (None, ""):
        return 0
    try:
        return int(value)
    except (TypeError, ValueError):
        raise OtlpError(f"{at}: expected an integer, got {str(value)[:40]!r}") from None


def _attributes(obj: dict[str, Any], at: str) -> dict[str, Any]:
    out = {}
    for i, kv in enumerate(_list(obj, "attributes", at)):
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            out[kv["key"]] = _any_value(kv.get("value"), f"{at}.attributes[{i}].value")
    return out


def _any_value(value: Any, at: str) -> Any:
    if not isinstance(value, dict) or not value:
        return None
    if "stringValue" in value or "string_value" in value:
        return _get(value, "stringValue")
    if "boolValue" in value or "bool_value" in value:
        return bool(_get(value, "boolValue"))
    if "intValue" in value or "int_value" in value:
        return _int(_get(value, "intValue"), at)
    if "doubleValue" in value or "double_value" in value:
        return float(_get(value, "doubleValue"))
    if "arrayValue" in value or "array_value" in value:
        values = (_get(value, "arrayValue") or {}).get("values") or []
        return [_any_value(v, f"{at}.arrayValue.values[{i}]") for i, v in enumerate(values)]
    if "kvlistValue" in value or "kvlist_value" in value:
        return _attributes({"attributes": (_get(value, "kvlistValue") or {}).get("values") or []}, at)
    if "bytesValue" in value or "bytes_value" in value:
        return _get(value, "bytesValue")  # kept base64, as JSON has it
    return None


# ---------------------------------------------------------------- protobuf


def spans_from_protobuf(data: bytes) -> list[Span]:
    """An ExportTraceServiceRequest in protobuf's binary encoding."""
    try:
        return list(_proto_spans(data))
    except protobuf.DecodeError as exc:
        raise OtlpError(f"not an OTLP protobuf export request: {exc}") from None


def _proto_spans(data: bytes) -> Iterator[Span]:
    for field_no, value in protobuf.fields(data):
        if field_no != 1:
            continue
        resource: dict[str, Any] = {}
        scopes = []
        for f, v in protobuf.fields(value):
            if f == 1:
                resource = _proto_attributes(v, 1)
            elif f in (2, 1000):  # scope_spans; 1000: the old instrumentation_library_spans
                scopes.append(v)
        for scope in scopes:
            for f, v in protobuf.fields(scope):
                if f == 2:
                    yield _proto_span(v, resource)


def _proto_span(data: protobuf.Value, resource: dict[str, Any]) -> Span:
    values: dict[str, Any] = {"trace_id": "", "span_id": "", "parent": "", "name": "", "start": 0, "end": 0}
    attributes: dict[str, Any] = {}
    events = []
    for f, v in protobuf.fields(data):
        if f == 1:
            values["trace_id"] = _hex(v)
        elif f == 2:
            values["span_id"] = _hex(v)
        elif f == 4:
            values["parent"] = _hex(v)
        elif f == 5:
            values["name"] = protobuf.text(v)
        elif f == 7:
            values["start"] = protobuf.fixed64(v)
        elif f == 8:
            values["end"] = protobuf.fixed64(v)
        elif f == 9:
            key, value = _proto_key_value(v)
            attributes[key] = value
        elif f == 11:
            events.append(_proto_event(v))
    if not values["trace_id"] or not values["span_id"]:
        raise OtlpError("a span without a trace id or span id")
    return Span(values["trace_id"], values["span_id"], values["parent"], values["name"], values["start"], values["end"], attributes, tuple(events), resource)


def _proto_event(data: protobuf.Value) -> SpanEvent:
    name, time_ns, attributes = "", 0, {}
    for f, v in protobuf.fields(data):
        if f == 1:
            time_ns = protobuf.fixed64(v)
        elif f == 2:
            name = protobuf.text(v)
        elif f == 3:
            key, value = _proto_key_value(v)
            attributes[key] = value
    return SpanEvent(name, time_ns, attributes)


def _hex(value: Any) -> str:
    raw = protobuf.raw(value)
    return "" if not any(raw) else raw.hex()


def _proto_attributes(data: protobuf.Value, field_no: int) -> dict[str, Any]:
    return dict(_proto_key_value(v) for f, v in protobuf.fields(data) if f == field_no)


def _proto_key_value(data: protobuf.Value) -> tuple[str, Any]:
    key, value = "", None
    for f, v in protobuf.fields(data):
        if f == 1:
            key = protobuf.text(v)
        elif f == 2:
            value = _proto_any_value(v)
    return key, value


def _proto_any_value(data: protobuf.Value) -> Optional[Any]:
    value: Any = None
    for f, v in protobuf.fields(data):
        if f == 1:
            value = protobuf.text(v)
        elif f == 2:
            value = bool(v)
        elif f == 3:
            value = protobuf.signed64(v)
        elif f == 4:
            value = protobuf.double(v)
        elif f == 5:
            value = [_proto_any_value(x) for g, x in protobuf.fields(v) if g == 1]
        elif f == 6:
            value = _proto_attributes(v, 1)
        elif f == 7:
            value = base64.b64encode(protobuf.raw(v)).decode()
    return value
