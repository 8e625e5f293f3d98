"""Seeded fuzzing of the CLI on mutations of the example's files and on issue 24's surfaces
(init layouts, convert, judge cache entries as files, odd paths): never exit 3, never a
traceback or a hang, never a changed output file after a failure, never a config written that
does not load. bench/fuzz.py runs the same engine longer, in subprocesses with a timeout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.fuzz_engine import load_engine

ROOT = Path(__file__).resolve().parent.parent


def _engine():
    return load_engine()


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")


@pytest.mark.parametrize("seed", [0, 1])
def test_no_mutation_crashes_a_command(tmp_path, seed, offline):
    fuzz = _engine()
    ran, crashes = fuzz.fuzz(tmp_path, iterations=100, seed=seed, run=fuzz.in_process)
    assert ran > 150
    assert not crashes, "\n\n".join(f"agenteval {' '.join(c.argv)} -> {c.code}\n{c.stderr[-2000:]}" for c in crashes[:3])


def test_lone_surrogates_are_refused_at_the_edge(tmp_path, offline, capsys):
    fuzz = _engine()
    fuzz.prepare(tmp_path, fuzz.in_process)
    results = tmp_path / "results.json"
    text = results.read_text().replace('"eval_id":"', '"eval_id":"c\\ud800', 1)
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    md = tmp_path / "comment.md"
    md.write_text("old")
    assert main(["compare", str(bad), "--baseline", str(tmp_path / "baseline.json"), "--md", str(md)]) == 2
    err = capsys.readouterr().err
    assert bad.as_posix() in err and "lone surrogate" in err and "Traceback" not in err
    assert md.read_text() == "old" and not list(tmp_path.glob(".comment.md.*"))
    eval_set = tmp_path / "evals" / "basic" / "home.evalset.json"
    data = json.loads(eval_set.read_text())
    data["eval_cases"][0]["eval_id"] = "c\ud800"
    eval_set.write_text(json.dumps(data))
    assert main(["validate", str(eval_set)]) == 2
    assert main(["score", str(eval_set), "--actual", str(eval_set), "--no-judge-cache"]) == 2
    out, err = capsys.readouterr()
    assert "$.eval_cases[0].eval_id" in out + err and "Traceback" not in out + err


def test_an_argument_that_is_not_utf8_is_exit_2(tmp_path, capsys):
    eval_set = ROOT / "examples" / "home_automation" / "evals" / "basic" / "home.evalset.json"
    argv = ["score", str(eval_set), "--actual", str(eval_set), "--no-judge-cache", "--suite", "s\udcff", "--json", str(tmp_path / "r.json")]
    assert main(argv) == 2
    assert "not valid UTF-8" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("surface, iterations, seed", [("init", 12, 0), ("convert", 12, 0), ("cache", 3, 0), ("paths", 60, 0)])
def test_no_input_of_a_surface_crashes_hangs_or_writes_an_unloadable_config(tmp_path, surface, iterations, seed, offline):
    pytest.importorskip("google.adk", reason="google-adk (test extra) is not installed")  # init's layouts hold ADK agents
    fuzz = _engine()
    tally = fuzz.SURFACES[surface](tmp_path, iterations, seed, fuzz.in_process)
    assert tally.inputs == iterations
    failures = [*tally.crashes, *tally.unloadable]
    assert not failures, tally.line() + "\n" + "\n\n".join(f"agenteval {c.argv} -> {c.code}\n{c.stderr[-2000:]}" for c in failures[:3])
