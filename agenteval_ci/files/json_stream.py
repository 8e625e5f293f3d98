"""Where the elements of one array of a big JSON object lie in its file, found chunk by chunk,
so that each element can be read and parsed alone: memory is set by the largest element, not
the file.

Used for eval sets and the recorded outputs that take their shape: `{"eval_cases": [...], ...}`.
Each element is run through the json module's C decoder once, only to find where it ends (a
Python tokenizer was four times slower); the caller parses it again, into its own model. A file
this reader cannot follow (not UTF-8, not an object, the key missing or not an array of objects,
broken JSON) is None, and the caller reads it whole, where the errors are found and named.
"""

from __future__ import annotations

import codecs
import json
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from .readers import open_regular

CHUNK = 1024 * 1024
_WHITESPACE = json.decoder.WHITESPACE  # type: ignore[attr-defined]
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ArrayLayout:
    """The array's elements as (start, end) byte offsets, and the object around it with the
    array emptied (`{"eval_set_id": "x", "eval_cases": []}`): small, parsed as a whole."""

    starts: array[int]
    ends: array[int]
    rest: bytes

    def __len__(self) -> int:
        return len(self.starts)


class _Incomplete(Exception):
    """The buffer ends inside the value being read: read on."""


class _Text:
    """The file's text, decoded a chunk at a time; `at` is the reading position in `text`, and
    byte offsets are counted as the text is passed (ASCII text: its index)."""

    def __init__(self, f: BinaryIO) -> None:
        self._f = f
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.at = 0
        self.eof = False
        self._base = 0  # bytes before text[0]
        self._counted = (0, 0)  # (index in text, its byte offset) counted so far

    def more(self) -> None:
        """Reads on (more each time a value does not fit, so a huge one costs no quadratic time)."""
        if self.eof:
            raise _Incomplete
        if self.at > CHUNK:  # what was read is let go
            self._base = self.offset(self.at)
            self.text, self.at = self.text[self.at :], 0
            self._counted = (0, self._base)
        data = self._f.read(max(CHUNK, len(self.text)))
        self.text += self._decoder.decode(data, final=not data)
        self.eof = not data

    def offset(self, index: int) -> int:
        """The byte offset in the file of text[index] (asked in increasing order)."""
        if self.text.isascii():
            self._counted = (index, self._base + index)
            return self._base + index
        seen, counted = self._counted
        counted += len(self.text[seen:index].encode())
        self._counted = (index, counted)
        return counted

    def skip_whitespace(self) -> str:
        """The next character past whitespace ('' at the end of the file)."""
        while True:
            self.at = _WHITESPACE.match(self.text, self.at).end()
            if self.at < len(self.text) or self.eof:
                return self.text[self.at : self.at + 1]
            self.more()

    def expect(self, char: str) -> None:
        if self.skip_whitespace() != char:
            raise ValueError(f"expected {char!r}")
        self.at += 1

    def value(self) -> Any:
        """The JSON value at the position (whitespace skipped), decoded; the position moves past it."""
        self.skip_whitespace()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.at)
            except (json.JSONDecodeError, StopIteration) as exc:
                if self.eof or not _may_be_cut(exc, len(self.text)):
                    raise ValueError("not valid JSON") from None
                self.more()
                continue
            if end == len(self.text) and not self.eof:  # a number may go on in the next chunk
                self.more()
                continue
            self.at = end
            return value


_CUT_ESCAPE = 12  # a surrogate pair's escape, `\ud83d\ude00`: an error this near the end may be a cut


def _may_be_cut(exc: Exception, size: int) -> bool:
    """Whether the error may only be that the buffer ends inside the value (read on to know)."""
    if isinstance(exc, StopIteration):
        return True
    error = exc if isinstance(exc, json.JSONDecodeError) else None
    return error is not None and (error.msg.startswith("Unterminated string") or error.pos >= size - _CUT_ESCAPE)


def array_layout(path: str | Path, key: str) -> ArrayLayout | None:
    """The layout of the array at top-level `key` of the JSON object in the file, or None."""
    try:
        with open_regular(path) as f:
            return _layout(_Text(f), key)
    except (ValueError, _Incomplete, RecursionError):  # UnicodeDecodeError is a ValueError
        return None


def _layout(text: _Text, key: str) -> ArrayLayout | None:
    starts, ends = array("q"), array("q")
    others: dict[str, Any] = {}
    found = False
    text.expect("{")
    while text.skip_whitespace() != "}":
        if others or found:
            text.expect(",")
        name = text.value()
        if not isinstance(name, str) or name in others:
            return None  # a repeated key: the json module keeps the last, so read whole as it would
        text.expect(":")
        if name == key:
            found = True
            others[name] = []
            _elements(text, starts, ends)
        else:
            others[name] = text.value()
    text.at += 1
    if not found or text.skip_whitespace() != "":
        return None
    return ArrayLayout(starts, ends, json.dumps(others, ensure_ascii=False).encode())


def _elements(text: _Text, starts: array[int], ends: array[int]) -> None:
    """Each object of the array, passed over; where it lies noted."""
    text.expect("[")
    if text.skip_whitespace() == "]":
        text.at += 1
        return
    while True:
        if text.skip_whitespace() != "{":
            raise ValueError("an element that is not an object")
        start = text.offset(text.at)
        text.value()
        starts.append(start)
        ends.append(text.offset(text.at))
        after = text.skip_whitespace()
        text.at += 1
        if after == "]":
            return
        if after != ",":
            raise ValueError("expected ',' or ']'")


def read_span(f: BinaryIO, start: int, end: int) -> bytes:
    """The bytes of one element (`f` an open binary file)."""
    f.seek(start)
    return f.read(end - start)
