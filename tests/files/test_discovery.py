"""Finding the project from a subfolder, the default results path, and eval configs by
name and by content (issue 15, items 2, 4 and 5)."""

from __future__ import annotations

import json

from agenteval_ci.cli import main
from agenteval_ci.files.discovery import find_project_file, looks_like_eval_config
from agenteval_ci.files.project import load_project
from tests.runner.test_suites import make_project


def test_run_then_accept_from_a_subfolder_use_the_projects_files(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()  # the repository root: the search stops here
    make_project(tmp_path, ["c1", "c2"])
    sub = tmp_path / "evals"
    monkeypatch.chdir(sub)
    assert main(["run"]) == 0
    streams = capsys.readouterr()
    assert "no baseline at ../.agenteval/baseline.json" in streams.err
    assert "`agenteval accept` (it reads .agenteval/results.json" in streams.err
    assert (tmp_path / ".agenteval" / "results.json").is_file()
    assert main(["accept"]) == 0
    assert "into ../.agenteval/baseline.json" in capsys.readouterr().out
    assert (tmp_path / ".agenteval" / "baseline.json").is_file()
    assert not (sub / ".agenteval").exists()  # never a second baseline beside the working folder
    assert main(["compare"]) == 0
    assert "gate passed" in capsys.readouterr().out


def test_the_search_stops_at_the_repository_root(tmp_path, monkeypatch, capsys):
    make_project(tmp_path, ["c1"])  # agenteval.yaml above the repository: not this project's
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    assert find_project_file(repo / "src") is None
    monkeypatch.chdir(repo / "src")
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert "no agenteval.yaml in" in err and "create one with `agenteval init`" in err


def test_accept_without_results_says_to_run_first(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["accept"]) == 2
    assert "no results file at .agenteval/results.json: run `agenteval run` first" in capsys.readouterr().err


def test_the_starter_packs_eval_config_applies_to_the_eval_sets_below_it(tmp_path):
    config = make_project(tmp_path, ["c1"])
    evals = tmp_path / "evals"
    nested = evals / "evalsets"
    nested.mkdir()
    (evals / "a.evalset.json").rename(nested / "a.evalset.json")
    (evals / "eval_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.3}}))
    config.write_text(config.read_text().replace("evals/*.json", "evals/**/*.evalset.json"))
    eval_set = load_project(config).suites[0].eval_sets[0]
    assert eval_set.config.path == (evals / "eval_config.json").as_posix()
    assert [m.name for m in eval_set.config.metrics if m.threshold is not None] == ["response_match_score"]
    # test_config.json beside the eval set is ADK's rule, and wins.
    (nested / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    assert load_project(config).suites[0].eval_sets[0].config.path == (nested / "test_config.json").as_posix()


def test_validate_tells_configs_from_eval_sets_by_content(tmp_path, capsys):
    (tmp_path / "eval_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    (tmp_path / "criteria.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    (tmp_path / "broken.json").write_text(json.dumps({"criteria": {"response_match_score": "high"}}))
    assert main(["validate", str(tmp_path)]) == 0  # a folder: the starter pack's name is found
    assert f"ok      {(tmp_path / 'eval_config.json').as_posix()} (eval config, 1 criteria)" in capsys.readouterr().out
    assert main(["validate", str(tmp_path / "criteria.json")]) == 0
    assert "(eval config, 1 criteria)" in capsys.readouterr().out
    assert main(["validate", str(tmp_path / "broken.json")]) == 2
    out = capsys.readouterr().out
    assert "$.criteria.response_match_score" in out and "eval_set_id" not in out


def test_what_counts_as_a_config():
    assert looks_like_eval_config({"criteria": {}})
    assert looks_like_eval_config({"userSimulatorConfig": {}})
    assert not looks_like_eval_config({"eval_set_id": "x", "eval_cases": [], "criteria": {}})
    assert not looks_like_eval_config([{"query": "hi"}])
    assert not looks_like_eval_config({"name": "x"})
