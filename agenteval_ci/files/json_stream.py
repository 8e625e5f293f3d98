"""Where the elements of one array of a big JSON object lie in its file, found chunk by chunk,
so that each element can be read and parsed alone: memory is set by the largest element, not
the file. Only strings and brackets are tokens (a string may hold brackets); the parsing is
left to whoever reads an element.

Used for eval sets and the recorded outputs that take their shape: `{"eval_cases": [...], ...}`.
A file this scanner cannot follow (not an object, the key missing or not an array of objects,
broken JSON) is None, and the caller reads it whole, where the errors are found and named.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass
from pathlib import Path

from .readers import open_regular

CHUNK = 1024 * 1024
# A whole string, a bracket, or a quote whose string does not end in this buffer (read on).
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]|"')
_OPENS_ARRAY = re.compile(rb"\s*:\s*\[")
_COLON = re.compile(rb"\s*:")
_UNDECIDED = re.compile(rb"\s*(?::\s*)?\Z")  # a key whose colon or bracket is still to come
_SEPARATORS = re.compile(rb"[\s,]*\Z")


@dataclass(frozen=True)
class ArrayLayout:
    """The array's elements as (start, end) byte offsets, and the object around it with the
    array emptied (`{"eval_set_id": "x", "eval_cases": []}`): small, parsed as a whole."""

    starts: array[int]
    ends: array[int]
    rest: bytes

    def __len__(self) -> int:
        return len(self.starts)


class _Scan:
    """The scanner's state over the whole file (offsets are the file's)."""

    def __init__(self, key: str) -> None:
        self.wanted = b'"' + key.encode() + b'"'
        self.starts, self.ends = array("q"), array("q")
        self.depth = 0
        self.opened = self.closed = -1  # the array's brackets
        self.element = -1  # where the element being read starts
        self.gap = -1  # inside the array between elements: where the separators not yet read begin
        self.elements_before = False
        self.comma = False  # a comma since the last element

    def in_array(self) -> bool:
        return self.opened >= 0 and self.closed < 0

    def separators(self, buffer: bytes, base: int, end: int) -> bool:
        """Reads the bytes between elements up to `end` (a buffer offset): whitespace and at most
        the one comma that must follow an element."""
        text = buffer[max(self.gap - base, 0) : end]
        self.gap = base + end
        if not _SEPARATORS.match(text):
            return False
        commas = text.count(b",")
        if commas and (self.comma or commas > 1 or not self.elements_before):
            return False
        self.comma = self.comma or commas == 1
        return True

    def element_may_start(self) -> bool:
        return self.comma == self.elements_before


def array_layout(path: str | Path, key: str) -> ArrayLayout | None:
    """The layout of the array at top-level `key` of the JSON object in the file, or None."""
    scan = _Scan(key)
    base = 0  # file offset of buffer[0]
    buffer = b""
    with open_regular(path) as f:
        while True:
            chunk = f.read(CHUNK)
            buffer += chunk
            pos = _tokens(scan, buffer, base, last=not chunk)
            if pos is None:
                return None
            base += pos
            buffer = buffer[pos:]
            if not chunk:
                break
        if scan.depth != 0 or scan.opened < 0 or scan.closed < 0 or buffer.strip():
            return None
        f.seek(0)
        head = f.read(scan.opened + 1)
        f.seek(scan.closed)
        tail = f.read()  # the object's other keys after the array: small
    return ArrayLayout(scan.starts, scan.ends, head + tail)


def _tokens(scan: _Scan, buffer: bytes, base: int, last: bool) -> int | None:
    """Follows the tokens of `buffer`; how much of it was consumed, or None for a file to read whole."""
    for match in _TOKEN.finditer(buffer):
        token, start = match.group(), match.start()
        if token == b'"':  # a string this buffer does not finish
            return start
        if scan.in_array() and scan.depth == 2:  # an element begins or the array ends: only separators before
            if not scan.separators(buffer, base, start) or token[0:1] not in b"{]" or (token[0:1] == b"{" and not scan.element_may_start()):
                return None
        if token[0:1] == b'"':
            if scan.depth == 1 and scan.opened < 0 and token == scan.wanted:
                opens = _OPENS_ARRAY.match(buffer, match.end())
                if opens is None and not last and _UNDECIDED.match(buffer, match.end()):
                    return start  # its colon or bracket is in the next chunk
                if opens is None and _COLON.match(buffer, match.end()):
                    return None  # the key, but its value is no array
                if opens is None:
                    continue  # a value that reads like the key
                scan.opened = base + opens.end() - 1
                scan.gap = scan.opened + 1
                scan.depth += 1
                return _tokens_after(scan, buffer, base, opens.end(), last)
            continue
        if token in (b"[", b"{"):
            scan.depth += 1
            if scan.depth == 3 and scan.in_array():
                scan.element = base + start
            continue
        scan.depth -= 1
        if scan.depth < 0:
            return None
        if scan.depth == 2 and scan.in_array():
            scan.starts.append(scan.element)
            scan.ends.append(base + match.end())
            scan.gap, scan.elements_before, scan.comma = base + match.end(), True, False
        elif scan.depth == 1 and scan.in_array():
            if scan.comma:  # a trailing comma
                return None
            scan.closed = base + start
    if scan.in_array() and scan.depth == 2 and not scan.separators(buffer, base, len(buffer)):
        return None
    return len(buffer)


def _tokens_after(scan: _Scan, buffer: bytes, base: int, pos: int, last: bool) -> int | None:
    """The rest of the buffer once the array opened (the key's match moved past its bracket)."""
    consumed = _tokens(scan, buffer[pos:], base + pos, last)
    return None if consumed is None else pos + consumed


def read_span(f: object, start: int, end: int) -> bytes:
    """The bytes of one element (`f` an open binary file)."""
    f.seek(start)  # type: ignore[attr-defined]
    data: bytes = f.read(end - start)  # type: ignore[attr-defined]
    return data
