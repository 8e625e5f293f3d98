"""`-q` and `--log-level` on every command, from one definition: -q keeps what matters (the
verdict, problems, next steps) and drops the routine lines; agenteval's notes wait for INFO."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.cli.arguments import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "home_automation"
CASE = {"eval_id": "a", "conversation": [{"user_content": {"parts": [{"text": "hi"}]}}]}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_takes_quiet_and_log_level(command):
    parser = build_parser([command])
    sub = parser._subparsers._group_actions[0].choices[command]  # the command's own parser
    flags = {option for action in sub._actions for option in action.option_strings}
    assert {"-q", "--quiet", "--log-level"} <= flags, command
    assert "--log-level" in sub.format_help() and "agenteval's notes are INFO" in sub.format_help()


def test_a_bad_level_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["validate", ".", "--log-level", "chatty"])
    assert exit_.value.code == 2 and "invalid choice: 'CHATTY'" in capsys.readouterr().err


def test_validate_quiet_names_only_the_problems(tmp_path, capsys):
    (tmp_path / "good.evalset.json").write_text(json.dumps({"eval_set_id": "s", "eval_cases": [CASE]}))
    (tmp_path / "bad.evalset.json").write_text(json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": 3}]}))
    assert main(["validate", str(tmp_path), "-q"]) == 2
    out = capsys.readouterr().out
    assert "INVALID" in out and "bad.evalset.json" in out and "2 file(s) checked, 1 invalid" in out
    assert "ok " not in out and "good.evalset.json" not in out
    assert main(["validate", str(tmp_path / "good.evalset.json")]) == 0
    assert "ok      " in capsys.readouterr().out


def test_warnings_show_by_default_and_not_from_error(tmp_path, capsys):
    (tmp_path / "odd.evalset.json").write_text(json.dumps({"eval_set_id": "s", "eval_cases": [CASE], "colour": "blue"}))
    assert main(["validate", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "warning: " in err and "$.colour: unknown key" in err
    assert main(["validate", str(tmp_path), "--log-level", "error"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_run_accept_compare_and_score_quiet(tmp_path, capsys):
    """The offline example, as the README runs it: -q leaves the verdict, and accept says nothing."""
    project = tmp_path / "home"
    shutil.copytree(EXAMPLE, project)
    config = str(project / "agenteval.yaml")
    assert main(["run", "--config", config, "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("baseline ") and "gate passed" in out and "PASS" not in out
    assert main(["accept", "--config", config, "--baseline", str(tmp_path / "b.json"), "-q"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["accept", "--config", config, "--baseline", str(tmp_path / "b.json")]) == 0
    assert "accepted all cases into" in capsys.readouterr().out
    results = str(project / ".agenteval" / "results.json")
    assert main(["compare", results, "--config", config, "-q"]) == 0
    assert "gate passed" in capsys.readouterr().out
    evalset = project / "evals" / "basic" / "home.evalset.json"
    assert main(["score", str(evalset), "--actual", str(evalset), "-q"]) in (0, 1)
    assert "PASS" not in capsys.readouterr().out
    assert main(["score", str(evalset), "--actual", str(evalset)]) in (0, 1)
    assert "PASS" in capsys.readouterr().out
