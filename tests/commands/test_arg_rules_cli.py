"""Argument rules end to end: agenteval.yaml suites and eval configs, through `agenteval run`
(the offline example agent), `score`, `accept` and `compare --md`; bad rules are exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "home_automation" / "agent.py"


def _invocation(text: str, response: str, *calls: tuple[str, dict]) -> dict:
    return {
        "invocation_id": "i",
        "user_content": {"parts": [{"text": text}], "role": "user"},
        "final_response": {"parts": [{"text": response}], "role": "model"},
        "intermediate_data": {"tool_uses": [{"name": n, "args": a} for n, a in calls]},
    }


# What a recorded eval set often holds: "19" where the agent passes 19, a room typed with
# a capital and a trailing space. ADK's exact match scores both 0.
EVAL_SET = {
    "eval_set_id": "home_rules",
    "eval_cases": [
        {"eval_id": "thermostat", "conversation": [_invocation("Set the thermostat to 19", "The thermostat is set to 19 degrees.", ("set_thermostat", {"temperature": "19"}))]},
        {"eval_id": "light", "conversation": [_invocation("Turn on the kitchen light", "The kitchen light is now on.", ("set_light", {"room": "Kitchen ", "on": True}))]},
    ],
}
RULES = "set_thermostat: {temperature: {number: {lenient: true}}}\n      set_light: {room: text}"


def _project(tmp_path: Path, suite_extra: str) -> Path:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "home.evalset.json").write_text(json.dumps(EVAL_SET))
    (tmp_path / "evals" / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    config = tmp_path / "agenteval.yaml"
    config.write_text(f"suites:\n  - agent: {AGENT}:handle\n    eval_sets: ['evals/*.evalset.json']\n{suite_extra}")
    return config


def _scores(results: Path) -> dict[str, dict[str, float]]:
    data = json.loads(results.read_text())
    return {c["eval_id"]: {name: m["score"] for name, m in c["metrics"].items() if m.get("threshold") is not None} for c in data["cases"]}


def test_suite_rules_give_our_metrics_full_credit_and_leave_adks_metric_alone(tmp_path, capsys):
    criteria = "    criteria:\n      tool_trajectory_alignment_score: 1.0\n      tool_argument_match_score: {threshold: 1.0}\n"
    config = _project(tmp_path, criteria + f"    tool_args:\n      {RULES}\n")
    out = tmp_path / "results.json"
    assert main(["run", "--config", str(config), "--json", str(out)]) == 1  # ADK's metric still fails
    assert _scores(out) == {
        name: {"tool_trajectory_avg_score": 0.0, "tool_trajectory_alignment_score": 1.0, "tool_argument_match_score": 1.0}
        for name in ("thermostat", "light")
    }


def test_without_rules_the_alignment_gives_partial_credit(tmp_path, capsys):
    config = _project(tmp_path, "    criteria: {tool_trajectory_alignment_score: 0.4, tool_argument_match_score: 0.4}\n")
    out = tmp_path / "results.json"
    assert main(["run", "--config", str(config), "--json", str(out)]) == 1
    scores = _scores(out)
    assert scores["thermostat"]["tool_trajectory_alignment_score"] == 0.0  # its one argument differs
    assert scores["light"]["tool_trajectory_alignment_score"] == 0.5  # `on` matches, `room` does not
    assert scores["light"]["tool_argument_match_score"] == 0.5


def _recorded(tmp_path: Path, name: str, room: str) -> Path:
    """EVAL_SET as an agent's recorded output, with its own light room."""
    recorded = json.loads(json.dumps(EVAL_SET))
    recorded["eval_cases"][1]["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["room"] = room
    path = tmp_path / name
    path.write_text(json.dumps(recorded))
    return path


def test_the_pr_comment_shows_each_argument_and_its_rule(tmp_path, capsys):
    eval_set = _project(tmp_path, "").parent / "evals" / "home.evalset.json"
    criteria = tmp_path / "rules_config.json"
    rules = {"set_light": {"room": "text"}}
    criteria.write_text(json.dumps({"criteria": {"tool_argument_match_score": {"threshold": 1, "tool_args": rules}}}))
    baseline, passing, failing = tmp_path / "baseline.json", tmp_path / "pass.json", tmp_path / "fail.json"
    score = ["score", str(eval_set), "--eval-config", str(criteria), "--json"]
    assert main([*score, str(passing), "--actual", str(_recorded(tmp_path, "a.json", "kitchen"))]) == 0
    assert main(["accept", str(passing), "--baseline", str(baseline)]) == 0
    assert main([*score, str(failing), "--actual", str(_recorded(tmp_path, "b.json", "living room"))]) == 1
    capsys.readouterr()
    assert main(["compare", str(failing), "--baseline", str(baseline), "--md", "-"]) == 1
    comment = capsys.readouterr().out
    assert "Tool trajectory, aligned" in comment
    assert "! set_light  similarity 0.50" in comment
    assert '!     room: "Kitchen " -> "living room"   ✗ text' in comment
    assert "      on: true -> true   ✓ exact" in comment
    assert "Arguments matched per tool: `set_light` 1/2" in comment


@pytest.mark.parametrize(
    "suite_extra, where, message",
    [
        ("    tool_args: {set_light: {room: fuzzy}}\n", "$.suites[0].tool_args.set_light.room", "unknown rule 'fuzzy'"),
        ("    tool_args: {set_light: {room: {regex: '(['}}}\n", "$.suites[0].tool_args.set_light.room", "does not compile"),
        ("    tool_args: {set_light: {room.name: text}}\n", "$.suites[0].tool_args.set_light.room.name", "leads into nothing in every expected call of set_light"),
        ("    tool_args: {set_lite: {room: text}}\n", "$.suites[0].tool_args.set_lite", "no case expects a call of 'set_lite'"),
        ("    tool_args: {set_light: {room: text}}\n", "$.suites[0].tool_args", "no metric of this suite reads these rules"),
        (
            "    criteria: {tool_argument_match_score: {threshold: 1, tool_args: {set_light: {colour: exact}}}}\n",
            "$.suites[0].criteria.tool_argument_match_score.tool_args.set_light.colour",
            "leads into nothing",
        ),
        ("    criteria: {tool_argument_match_score: {threshold: 1, tool_arg: {}}}\n", "$.suites[0].criteria.tool_argument_match_score.tool_arg", "unknown key 'tool_arg'; tool_argument_match_score reads: threshold"),
    ],
)
def test_bad_rules_in_agenteval_yaml_are_exit_2_naming_the_file_and_path(tmp_path, capsys, suite_extra, where, message):
    config = _project(tmp_path, suite_extra)
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert f"{config.as_posix()} at {where}: " in err and message in err


def test_a_typo_in_our_metrics_criterion_is_exit_2_even_in_an_eval_config(tmp_path, capsys):
    eval_set = _project(tmp_path, "").parent / "evals" / "home.evalset.json"
    criteria = tmp_path / "typo_config.json"
    criteria.write_text(json.dumps({"criteria": {"tool_argument_match_score": {"threshold": 1, "tool_arg": {}}}}))
    assert main(["score", str(eval_set), "--actual", str(eval_set), "--eval-config", str(criteria)]) == 2
    assert "at $.criteria.tool_argument_match_score.tool_arg: unknown key 'tool_arg'" in capsys.readouterr().err


def test_bad_rules_in_an_eval_config_are_exit_2_for_score(tmp_path, capsys):
    config = _project(tmp_path, "")
    eval_set = config.parent / "evals" / "home.evalset.json"
    rules = {"set_thermostat": {"temperature": {"number": {"lenient": True}}}, "set_light": {"room.floor": "exact"}}
    criteria = tmp_path / "rules_config.json"
    criteria.write_text(json.dumps({"criteria": {"tool_trajectory_alignment_score": {"threshold": 1, "tool_args": rules}}}))
    assert main(["score", str(eval_set), "--actual", str(eval_set), "--eval-config", str(criteria)]) == 2
    err = capsys.readouterr().err
    assert f"{criteria.as_posix()} at $.criteria.tool_trajectory_alignment_score.tool_args.set_light.room.floor: 'room.floor' leads into nothing" in err


def test_rules_in_adks_own_metric_are_a_warning_not_a_score_change(tmp_path, capsys):
    """google-adk accepts the key and ignores it; so do we, and say where rules belong."""
    config = _project(tmp_path, "")
    eval_set = config.parent / "evals" / "home.evalset.json"
    criteria = tmp_path / "adk_config.json"
    criteria.write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "tool_args": {"set_light": {"room": "text"}}}}}))
    out = tmp_path / "out.json"
    fixed = json.loads(eval_set.read_text())
    fixed["eval_cases"][1]["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["room"] = "kitchen"
    actual = tmp_path / "actual.json"
    actual.write_text(json.dumps(fixed))
    assert main(["score", str(eval_set), "--actual", str(actual), "--eval-config", str(criteria), "--json", str(out)]) == 1
    assert _scores(out)["light"]["tool_trajectory_avg_score"] == 0.0
    assert "argument rules apply to tool_trajectory_alignment_score and tool_argument_match_score" in capsys.readouterr().err
