"""Seeded fuzzing of the CLI on mutations of the example's files: never exit 3, never a
traceback, never a changed output file after a failure. bench/fuzz.py runs the same engine
longer, in subprocesses with a timeout."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from agenteval_ci.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _engine():
    spec = importlib.util.spec_from_file_location("agenteval_fuzz", ROOT / "bench" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


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
    assert main(["validate", str(eval_set)]) == 1
    assert main(["score", str(eval_set), "--actual", str(eval_set), "--no-judge-cache"]) == 2
    out, err = capsys.readouterr()
    assert "$.eval_cases[0].eval_id" in out + err and "Traceback" not in out + err


def test_an_argument_that_is_not_utf8_is_exit_2(tmp_path, capsys):
    eval_set = ROOT / "examples" / "home_automation" / "evals" / "basic" / "home.evalset.json"
    argv = ["score", str(eval_set), "--actual", str(eval_set), "--no-judge-cache", "--suite", "s\udcff", "--json", str(tmp_path / "r.json")]
    assert main(argv) == 2
    assert "not valid UTF-8" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()
