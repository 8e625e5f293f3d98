"""`agenteval run` end to end through the CLI: the example, adk eval's form, flags."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from agenteval_ci.cli import main
from tests.runner.test_suites import make_project

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "home_automation"


def test_the_offline_example_passes_from_the_repo_root(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CI", "true")
    out = tmp_path / "results.json"
    assert main(["run", "--config", "examples/home_automation/agenteval.yaml", "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert results["suites"] == ["home"]
    assert {c["eval_set_id"] for c in results["cases"]} == {"home_basic", "home_in_order", "home_judged"}
    assert all(c["status"] == "PASSED" for c in results["cases"])
    streams = capsys.readouterr()
    assert "11 passed, 0 failed" in streams.out
    assert "baseline examples/home_automation/.agenteval/baseline.json: gate passed" in streams.out
    assert "rubric confirms_change: 0.000" in streams.out  # the per-rubric breakdown, from the committed judge cache
    assert "agenteval: ran 11 case(s)" in streams.err


def test_the_first_run_ends_saying_where_the_results_are_and_what_to_try_next(monkeypatch, tmp_path, capsys):
    """The README's first command: after the verdict, the results file, the report and details
    commands (which run as printed) and how a regression shows; a case passing with a rubric at
    0.000 says why it passes."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "results.json"
    assert main(["run", "--config", "examples/home_automation/agenteval.yaml", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    block = text.split("\nnext:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in block] == ["results", "report", "details", "regression"]
    assert block[0].startswith(f"  results     {out}: ")
    assert "REGRESSED" in block[3] and "exits 1" in block[3] and "`agenteval accept --config examples/home_automation/agenteval.yaml`" in block[3]
    report = shlex.split(block[1].split(None, 1)[1].split(": ", 1)[0])
    assert report[:2] == ["agenteval", "report"] and "--config" in report
    report[report.index("-o") + 1] = str(tmp_path / "report.html")
    assert main(report[1:]) == 0 and "out_of_scope" in (tmp_path / "report.html").read_text()
    judged = text.split("PASS  home / home_judged / out_of_scope", 1)[1].split("\nPASS", 1)[0]
    assert "rubric confirms_change: 0.000" in judged and "the metric is their mean, which meets the threshold" in judged
    assert text.count("the metric is their mean") == 1  # only where a rubric is below 1
    assert main(["run", "--config", "examples/home_automation/agenteval.yaml", "--json", str(out), "-q"]) == 0
    assert "next:" not in capsys.readouterr().out


def test_in_order_config_is_discovered_beside_its_eval_set(tmp_path, capsys):
    """The agent checks the thermostat before changing it: only IN_ORDER accepts that."""
    eval_set = EXAMPLE / "evals" / "in_order" / "relative.evalset.json"
    strict = tmp_path / "exact.json"
    strict.write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    agent = f"{EXAMPLE}/agent.py:handle"
    assert main(["run", agent, str(eval_set)]) == 0  # test_config.json (IN_ORDER) beside it
    assert main(["run", agent, str(eval_set), "--config_file_path", str(strict)]) == 1
    assert "Tests failed: 2" in capsys.readouterr().out


def test_an_adk_folder_without_an_agent_is_a_clear_error(tmp_path, capsys):
    make_project(tmp_path, ["c1", "c2", "c3"])
    eval_set = tmp_path / "evals" / "a.evalset.json"
    agent = tmp_path / "pkg"
    agent.mkdir()
    (agent / "__init__.py").write_text("")
    out = tmp_path / "r.json"
    # An ADK folder must expose root_agent, get_agent_async or app, as adk eval requires.
    assert main(["run", str(agent), f"{eval_set}:c1,c3", "--json", str(out)]) == 2
    assert "exposes none of `app`, `root_agent` or `get_agent_async()`" in capsys.readouterr().err


def test_adk_form_with_an_unknown_case_id_names_the_file(tmp_path, capsys):
    make_project(tmp_path, ["c1"])
    eval_set = tmp_path / "evals" / "a.evalset.json"
    assert main(["run", f"{EXAMPLE}/agent.py:handle", f"{eval_set}:c1,zzz"]) == 2
    assert "a.evalset.json at $.eval_cases: no eval case with eval_id 'zzz'" in capsys.readouterr().err


def test_suite_flag_and_bad_shard(tmp_path, capsys):
    config = make_project(tmp_path, ["c1"])
    assert main(["run", "--config", str(config), "--suite", "nope"]) == 2
    assert "no suite named nope; suites are: default" in capsys.readouterr().err
    assert main(["run", "--config", str(config), "--shard", "4/3"]) == 2
    assert "--shard must be I/N" in capsys.readouterr().err
    assert main(["run", "--config", str(config), "--suite", "default", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "PASSED"


def test_a_shared_test_config_warns_once_and_the_results_keep_the_warning(tmp_path, capsys):
    """Two eval sets beside one test_config.json: the config is read once, its warning said once."""
    evals = tmp_path / "evals"
    evals.mkdir()
    example = json.loads((EXAMPLE / "evals" / "basic" / "home.evalset.json").read_text())
    for name in ("a", "b"):
        (evals / f"{name}.evalset.json").write_text(json.dumps({**example, "eval_set_id": name}))
    (evals / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}, "bogus": 1}))
    (tmp_path / "agenteval.yaml").write_text(
        f"suites:\n  - agent: {EXAMPLE / 'agent.py'}:handle\n    eval_sets: ['evals/*.evalset.json']\n"
    )
    out = tmp_path / "results.json"
    assert main(["run", "--config", str(tmp_path / "agenteval.yaml"), "--json", str(out)]) == 0
    assert capsys.readouterr().err.count("$.bogus: unknown key") == 1
    assert [w for w in json.loads(out.read_text())["warnings"] if "$.bogus" in w] == [
        f"{(evals / 'test_config.json').as_posix()} at $.bogus: unknown key; google-adk ignores it"
    ]
