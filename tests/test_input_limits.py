"""Issue 13: globs, schema maxima, shards and output paths; exit 2 naming the file, no traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.core.shards import parse_shard
from agenteval_ci.errors import InputError, UsageError
from agenteval_ci.files.project import load_project
from agenteval_ci.files.writing import write_atomic
from tests.unprivileged import agenteval, shared_folder

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "home_automation"
EVAL_SET = EXAMPLE / "evals" / "basic" / "home.evalset.json"


def _project(tmp_path: Path, eval_sets: str, extra: str = "") -> Path:
    (tmp_path / "evals" / "sub").mkdir(parents=True, exist_ok=True)
    shutil.copy(EVAL_SET, tmp_path / "evals" / "home.evalset.json")
    (tmp_path / "evals" / "notes.txt").write_text("not json")
    path = tmp_path / "agenteval.yaml"
    path.write_text(f"suites:\n  - agent: agent.py:handle\n    eval_sets: {eval_sets}\n{extra}")
    return path


def test_star_star_reads_no_folder_and_an_empty_glob_is_an_error(tmp_path):
    with pytest.raises(InputError, match=r"at \$\.suites\[0\]\.eval_sets\[0\]"):
        load_project(_project(tmp_path, '"**"'))
    with pytest.raises(InputError, match=r"agenteval.yaml at \$\.suites\[0\]\.eval_sets\[0\]: an empty glob"):
        load_project(_project(tmp_path, '""'))


def test_glob_through_a_symlink_loop_ends(tmp_path):
    path = _project(tmp_path, '"loops/**/*.evalset.json"')
    (tmp_path / "loops").mkdir()
    shutil.copy(EVAL_SET, tmp_path / "loops" / "x.evalset.json")
    os.symlink(".", tmp_path / "loops" / "a")
    project = load_project(path)
    assert [s.loaded.path for s in project.suites[0].eval_sets] == [(tmp_path / "loops" / "x.evalset.json").as_posix()]


def test_glob_keeps_glob_globs_rules(tmp_path):
    path = _project(tmp_path, '"evals/**/*.json"')
    shutil.copy(EVAL_SET, tmp_path / "evals" / ".hidden.evalset.json")
    shutil.copy(EVAL_SET, tmp_path / "evals" / "sub" / "deeper.evalset.json")
    names = [Path(s.loaded.path).name for s in load_project(path).suites[0].eval_sets]
    assert names == ["home.evalset.json", "deeper.evalset.json"]


@pytest.mark.parametrize("key, value", [("num_runs", 101), ("num_runs", 10**30), ("concurrency", 10**6)])
def test_suite_maxima(tmp_path, key, value):
    with pytest.raises(InputError, match=rf"at \$\.suites\[0\]\.{key}"):
        load_project(_project(tmp_path, '"evals/*.evalset.json"', f"    {key}: {value}\n"))


def test_num_samples_maximum(tmp_path, capsys):
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps({"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 10**9}}}}))
    assert main(["validate", str(config)]) == 2
    assert "judge_model_options.num_samples" in capsys.readouterr().out


@pytest.mark.parametrize("text", ["1/" + "9" * 5000, "1/1001", "0/3", "4/3", "1/\u0663", "9" * 5000 + "/1"])
def test_shard_bounds(text):
    with pytest.raises(UsageError, match="--shard"):
        parse_shard(text)
    assert parse_shard("1000/1000").count == 1000


def test_merge_refuses_a_huge_shard_count(tmp_path, capsys):
    out = tmp_path / "results.json"
    assert main(["score", str(EVAL_SET), "--actual", str(EVAL_SET), "--no-judge-cache", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    data["shard"] = {"index": 1, "count": 10**30}
    out.write_text(json.dumps(data))
    assert main(["merge", str(out), "--json", str(tmp_path / "merged.json")]) == 2
    err = capsys.readouterr().err
    assert "$.shard.count" in err and out.as_posix() in err and "Traceback" not in err


def test_write_atomic_refuses_paths_it_cannot_write(tmp_path):
    old = tmp_path / "old.json"
    old.write_text("old")
    folder = tmp_path / "folder"
    folder.mkdir()
    for path in [old / "x.json", folder, tmp_path / ("n" * 300)]:
        with pytest.raises(UsageError, match="cannot write|is a folder"):
            write_atomic(path, "new")
    with pytest.raises(InputError, match="lone surrogate"):
        write_atomic(old, "bad \ud800")
    assert old.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "old.json"]


def test_writing_into_a_read_only_folder_is_exit_2():
    """As a user permissions apply to (root writes anywhere)."""
    work = shared_folder()
    try:
        shutil.copy(EVAL_SET, work / "home.evalset.json")
        (work / "ro").mkdir()
        (work / "ro").chmod(0o555)
        done = agenteval(["score", "home.evalset.json", "--actual", "home.evalset.json", "--no-judge-cache", "--json", "ro/x.json"], work)
        assert done.returncode == 2 and "ro/x.json: cannot write here: Permission denied" in done.stderr, done.stderr
        assert list((work / "ro").iterdir()) == []
    finally:
        shutil.rmtree(work)


def test_report_to_an_unwritable_path_exits_2(tmp_path, capsys, monkeypatch):
    out = tmp_path / "results.json"
    assert main(["score", str(EVAL_SET), "--actual", str(EVAL_SET), "--no-judge-cache", "--json", str(out)]) == 0
    target = tmp_path / "report.md"
    target.mkdir()
    monkeypatch.chdir(tmp_path)  # no baseline at the default path: a first run
    assert main(["report", str(out), "--format", "md", "-o", str(target)]) == 2
    assert "is a folder" in capsys.readouterr().err
