"""The scanner that finds where each element of a big JSON object's array lies: every span it
reports parses to the element json.loads finds, at any chunk size; what it cannot follow is None
(the caller then reads the file whole and names the error)."""

from __future__ import annotations

import json

import pytest

from agenteval_ci.files import json_stream
from agenteval_ci.files.json_stream import array_layout, read_span

ELEMENTS = [
    {"eval_id": "a", "text": 'brackets ] } [ { and "quotes" and \\ backslashes'},
    {"eval_id": "é", "text": "accents àéî, a CJK 漢字 and an emoji 😀 (escaped as a surrogate pair when ASCII only)", "n": [1, 2.5e3, -0.0, None, True]},
    {"eval_id": "c", "nested": {"eval_cases": [{"x": []}], "list": [[], {}, [[{}]]]}},
    {},
]


def _spans(path, key="eval_cases"):
    layout = array_layout(path, key)
    assert layout is not None
    with path.open("rb") as f:
        elements = [json.loads(read_span(f, s, e)) for s, e in zip(layout.starts, layout.ends)]
    return elements, json.loads(layout.rest)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1024 * 1024])
@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("ascii_only", [True, False])
def test_every_span_is_the_element_json_loads_finds(tmp_path, monkeypatch, chunk, indent, ascii_only):
    monkeypatch.setattr(json_stream, "CHUNK", chunk)
    data = {"eval_set_id": "s", "description": "[{ not the array", "eval_cases": ELEMENTS, "after": {"k": [1]}, "n": 12345}
    path = tmp_path / "set.json"
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=ascii_only), encoding="utf-8")
    elements, rest = _spans(path)
    assert elements == json.loads(path.read_text(encoding="utf-8"))["eval_cases"]
    assert rest == {**data, "eval_cases": []}


def test_an_empty_array_and_surrounding_whitespace(tmp_path):
    path = tmp_path / "set.json"
    path.write_text(' \n{ "eval_cases" : [ ] , "eval_set_id" : "s" }\n\n')
    assert _spans(path) == ([], {"eval_cases": [], "eval_set_id": "s"})


def test_a_number_cut_by_a_chunk_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(json_stream, "CHUNK", 4)
    path = tmp_path / "set.json"
    path.write_text('{"eval_cases": [{"a": 1}], "count": 1234567890123}')
    assert _spans(path)[1]["count"] == 1234567890123


@pytest.mark.parametrize(
    "text",
    [
        "[]",  # not an object
        '{"eval_set_id": "s"}',  # no such key
        '{"eval_cases": {"a": 1}}',  # not an array
        '{"eval_cases": [1, 2]}',  # elements that are not objects
        '{"eval_cases": [{"a": 1},]}',  # a trailing comma
        '{"eval_cases": [{"a": 1} {"b": 2}]}',  # a missing comma
        '{"eval_cases": [{"a": 1}]',  # cut short
        '{"eval_cases": [{"a": 1}]} {}',  # something after the object
        '{"eval_cases": [{"a": "unterminated}]}',
        '{"eval_cases": [], "eval_cases": [{"a": 1}]}',  # a repeated key: json.loads keeps the last
        '{"eval_cases": [{"a": 1}], "x": 1, "x": 2}',
        "",
    ],
)
def test_what_the_scanner_cannot_follow_is_left_to_the_whole_reader(tmp_path, text):
    path = tmp_path / "set.json"
    path.write_text(text)
    assert array_layout(path, "eval_cases") is None


def test_text_that_is_not_utf8_is_left_to_the_whole_reader(tmp_path):
    path = tmp_path / "set.json"
    path.write_bytes(b'{"eval_cases": [{"a": "\xff"}]}')
    assert array_layout(path, "eval_cases") is None
