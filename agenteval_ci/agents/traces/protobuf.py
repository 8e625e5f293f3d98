"""Just enough of protobuf's wire format to read OTLP export requests: fields as (number, value),
where a varint is an int, a fixed64/fixed32 is its 8/4 raw bytes and a length-delimited field is
a memoryview (a nested message, a string or bytes, as the schema says)."""

from __future__ import annotations

import struct
from typing import Iterator, Union

Value = Union[int, memoryview]

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
MAX_VARINT_BYTES = 10


class DecodeError(ValueError):
    pass


def _varint(data: memoryview, pos: int) -> tuple[int, int]:
    result = shift = 0
    for i in range(MAX_VARINT_BYTES):
        if pos + i >= len(data):
            raise DecodeError(f"a varint runs past the end at byte {pos}")
        byte = data[pos + i]
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos + i + 1
        shift += 7
    raise DecodeError(f"a varint longer than {MAX_VARINT_BYTES} bytes at byte {pos}")


def fields(data: Union[bytes, Value]) -> Iterator[tuple[int, Value]]:
    """A message's fields; a number where a message should be is malformed, not a message."""
    if isinstance(data, int):
        raise DecodeError(f"the number {data} where a message was expected")
    view = memoryview(data) if not isinstance(data, memoryview) else data
    pos = 0
    while pos < len(view):
        key, pos = _varint(view, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise DecodeError(f"field number 0 at byte {pos}")
        if wire == VARINT:
            value, pos = _varint(view, pos)
            yield number, value
            continue
        size = {FIXED64: 8, FIXED32: 4}.get(wire)
        if wire == LENGTH:
            size, pos = _varint(view, pos)
        if size is None:
            raise DecodeError(f"wire type {wire} (groups are not used by OTLP) at byte {pos}")
        if pos + size > len(view):
            raise DecodeError(f"field {number} runs past the end ({size} bytes at byte {pos} of {len(view)})")
        yield number, view[pos:pos + size]
        pos += size


def raw(value: Value) -> bytes:
    if isinstance(value, int):
        raise DecodeError("expected bytes, got a varint")
    return bytes(value)


def text(value: Value) -> str:
    try:
        return raw(value).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"a string that is not UTF-8 ({exc})") from None


def fixed64(value: Value) -> int:
    if isinstance(value, int):  # a sender that wrote it as a varint
        return value
    data = raw(value)
    if len(data) != 8:
        raise DecodeError("a fixed64 field of the wrong size")
    return int(struct.unpack("<Q", data)[0])


def signed64(value: Value) -> int:
    number = value if isinstance(value, int) else fixed64(value)
    return number - (1 << 64) if number >= 1 << 63 else number


def double(value: Value) -> float:
    data = raw(value)
    if len(data) != 8:
        raise DecodeError("a double field of the wrong size")
    return float(struct.unpack("<d", data)[0])
