"""A judge cache entry that cannot be trusted is a miss with a warning: judged again, never a crash
or a reply to another prompt (issue 13)."""

from __future__ import annotations

import json
import shutil

import pytest

from agenteval_ci.files.judge_cache import MAX_ENTRY_BYTES, DiskCache, cache_key
from tests.fakes.gemini import FakeGemini, text_reply
from tests.judge.helpers import judge_for
from tests.judge.test_judge import MODEL, ask_singly

KEY = cache_key(MODEL, None, "grade this", 0, 0)
GOOD = {"text": "cached", "tokens_in": 1, "tokens_out": 2}


def entry_path(tmp_path):
    return DiskCache(tmp_path)._path(KEY)


BAD_ENTRIES = {
    "truncated": b'{"text": "cac',
    "empty": b"",
    "not UTF-8": b'{"text": "caf\xe9", "tokens_in": 1, "tokens_out": 2}',
    "array": b"[]",
    "text is a number": json.dumps({**GOOD, "text": 7}).encode(),
    "tokens are negative": json.dumps({**GOOD, "tokens_in": -1}).encode(),
    "tokens are a bool": json.dumps({**GOOD, "tokens_out": True}).encode(),
    "tokens are NaN": b'{"text": "x", "tokens_in": NaN, "tokens_out": 2}',
    "huge tokens": json.dumps({**GOOD, "tokens_in": 10**40}).encode(),
    "missing text": json.dumps({"tokens_in": 1, "tokens_out": 2}).encode(),
    "lone surrogate": b'{"text": "\\ud800", "tokens_in": 1, "tokens_out": 2}',
    "deep": b'{"text": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    "another prompt's entry": json.dumps({**GOOD, "key": "0" * 64}).encode(),
    "oversized": json.dumps({**GOOD, "text": "x" * (MAX_ENTRY_BYTES + 1)}).encode(),
}


@pytest.mark.parametrize("kind", sorted(BAD_ENTRIES))
def test_a_bad_entry_is_judged_again_and_overwritten(tmp_path, capsys, kind):
    path = entry_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(BAD_ENTRIES[kind])
    with FakeGemini(responder=lambda r: text_reply("fresh")) as fake:
        [answer] = ask_singly(judge_for(fake, tmp_path), ["grade this"])
        assert len(fake.requests) == 1
    assert answer.text == "fresh" and not answer.cached
    err = capsys.readouterr().err
    assert f"warning: ignoring a judge cache entry: {path.as_posix()}" in err and "Traceback" not in err
    stored = json.loads(path.read_text())
    assert (stored["text"], stored["key"]) == ("fresh", KEY)
    assert DiskCache(tmp_path).get(KEY).text == "fresh"  # the rewritten entry is a hit


def test_a_folder_where_an_entry_belongs_is_a_miss_not_a_crash(tmp_path, capsys):
    path = entry_path(tmp_path)
    path.mkdir(parents=True)
    with FakeGemini(responder=lambda r: text_reply("fresh")) as fake:
        [answer] = ask_singly(judge_for(fake, tmp_path), ["grade this"])
    assert answer.text == "fresh" and path.is_dir()
    err = capsys.readouterr().err
    assert "is a folder" in err and f"cannot write the judge cache entry {path.as_posix()}" in err


def test_an_entry_written_before_keys_were_recorded_is_still_a_hit(tmp_path, capsys):
    path = entry_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(GOOD))
    hit = DiskCache(tmp_path).get(KEY)
    assert (hit.text, hit.tokens_in, hit.tokens_out) == ("cached", 1, 2) and capsys.readouterr().err == ""


def test_an_absent_entry_is_a_quiet_miss(tmp_path, capsys):
    assert DiskCache(tmp_path).get(KEY) is None and capsys.readouterr().err == ""
    shutil.rmtree(tmp_path / "judge", ignore_errors=True)


def strict_yes(text: str):
    """A reader that takes only the reply 'yes'."""
    from agenteval_ci.judge import Unreadable

    return text if text == "yes" else Unreadable(f"{text!r} is not yes")


def test_an_entry_the_metric_cannot_read_is_removed_even_when_judging_again_fails(tmp_path, capsys):
    import asyncio

    from tests.fakes.gemini import Fault

    path = entry_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({**GOOD, "text": "maybe", "key": KEY}))
    with FakeGemini(responder=lambda r: Fault(503, "overloaded")) as fake:
        judge = judge_for(fake, tmp_path, max_retries=0)
        answer = asyncio.run(judge.ask("metric", MODEL, None, "grade this", 0, strict_yes))
    assert answer.verdict is None and "HTTP 503" in answer.error
    assert not path.exists()  # never read again as a verdict
    assert f"warning: ignoring a judge cache entry: {path.as_posix()}: not a complete verdict ('maybe' is not yes); judging it again" in capsys.readouterr().err
    with FakeGemini(responder=lambda r: text_reply("yes")) as fake:
        healed = asyncio.run(judge_for(fake, tmp_path).ask("metric", MODEL, None, "grade this", 0, strict_yes))
    assert (healed.verdict, json.loads(path.read_text())["text"]) == ("yes", "yes")
    assert asyncio.run(judge_for(fake, tmp_path).ask("metric", MODEL, None, "grade this", 0, strict_yes)).cached
