"""`agenteval convert`: legacy .test.json files become EvalSets google-adk reads as it read
the legacy file, and that score the same."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agenteval_ci.cli import main

ROOT = Path(__file__).resolve().parents[2]
LEGACY = ROOT / "tests" / "data" / "legacy"
AGENT = f"{ROOT / 'examples' / 'home_automation' / 'agent.py'}:handle"


@pytest.fixture
def legacy(tmp_path) -> Path:
    folder = tmp_path / "eval"
    shutil.copytree(LEGACY, folder)
    return folder


def _without_ids(eval_set: dict) -> dict:
    """ADK's conversion gives random ids and timestamps; the content is what scores."""
    for case in eval_set["eval_cases"]:
        case.pop("eval_id")
        case.pop("creation_timestamp")
        for turn in case["conversation"]:
            turn.pop("invocation_id")
            turn.pop("creation_timestamp")
    return eval_set["eval_cases"]


def test_the_converted_file_is_what_google_adk_reads_from_the_legacy_file(legacy, capsys):
    adk = pytest.importorskip("google.adk.evaluation.agent_evaluator", reason="google-adk (test extra) is not installed")
    from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

    assert main(["convert", str(legacy)]) == 0
    out = capsys.readouterr().out
    assert f"wrote   {(legacy / 'home.evalset.json').as_posix()} (1 case(s) from {(legacy / 'home.test.json').as_posix()} with the session of" in out

    ours = AdkEvalSet.model_validate_json((legacy / "home.evalset.json").read_text())
    session = json.loads((legacy / "initial.session.json").read_text())
    theirs = adk.AgentEvaluator._get_eval_set_from_old_format(
        str(legacy / "home.test.json"), adk.AgentEvaluator.find_config_for_test_file(str(legacy / "home.test.json")), session
    )
    assert (ours.eval_set_id, ours.eval_cases[0].eval_id) == ("home", "home")
    assert [t.invocation_id for t in ours.eval_cases[0].conversation] == ["home-turn-1", "home-turn-2", "home-turn-3"]
    assert ours.eval_cases[0].session_input.state == {"thermostat": 18}
    assert _without_ids(ours.model_dump(mode="json")) == _without_ids(theirs.model_dump(mode="json"))

    old = AdkEvalSet.model_validate_json((legacy / "old_format.evalset.json").read_text())
    assert [c.eval_id for c in old.eval_cases] == ["lights_then_heat"]
    assert old.eval_cases[0].session_input.user_id == "old_user"  # the case's own session wins


def _scores(results_file: Path) -> list[dict[str, float]]:
    """The configured (thresholded) metrics; timings differ run to run."""
    cases = json.loads(results_file.read_text())["cases"]
    return [{name: m["score"] for name, m in c["metrics"].items() if m.get("threshold") is not None} for c in cases]


def test_the_converted_file_scores_as_the_legacy_file(legacy, tmp_path):
    assert main(["convert", str(legacy / "home.test.json")]) == 0
    (legacy / "initial.session.json").unlink()  # `run` gives a legacy file no session; compare like with like
    before, after = tmp_path / "legacy.json", tmp_path / "converted.json"
    assert main(["run", AGENT, str(legacy / "home.test.json"), "--json", str(before)]) == 0
    assert main(["run", AGENT, str(legacy / "home.evalset.json"), "--json", str(after)]) == 0
    assert _scores(before) == _scores(after)
    # Every turn's tool call matches; the references are paraphrases, the last one empty.
    assert _scores(before) == [{"tool_trajectory_avg_score": 1.0, "response_match_score": pytest.approx(0.608, abs=0.001)}]


def test_converting_again_is_a_no_op_and_a_changed_target_needs_force(legacy, capsys):
    target = legacy / "home.evalset.json"
    assert main(["convert", str(legacy)]) == 0
    assert main(["convert", str(legacy)]) == 0
    assert f"unchanged {target.as_posix()}" in capsys.readouterr().out
    target.write_text("{}")
    assert main(["convert", str(legacy / "home.test.json")]) == 2
    assert "exists and differs from the conversion" in capsys.readouterr().out
    assert target.read_text() == "{}"
    assert main(["convert", str(legacy / "home.test.json"), "--force"]) == 0
    assert json.loads(target.read_text())["eval_set_id"] == "home"


def test_an_eval_set_is_skipped_and_a_bad_session_is_named(legacy, tmp_path, capsys):
    assert main(["convert", str(legacy / "home.test.json")]) == 0
    evalset_named_test = legacy / "already.test.json"
    shutil.copy(legacy / "home.evalset.json", evalset_named_test)
    capsys.readouterr()
    assert main(["convert", str(evalset_named_test)]) == 0
    assert f"skipped {evalset_named_test.as_posix()}: already an EvalSet" in capsys.readouterr().out
    bad = tmp_path / "bad.session.json"
    bad.write_text(json.dumps({"state": []}))
    assert main(["convert", str(legacy / "home.test.json"), "--initial-session", str(bad), "--force"]) == 2
    assert f"{bad.as_posix()} at $.state: must be an object" in capsys.readouterr().out
    assert main(["convert", str(tmp_path / "nope")]) == 2


def test_every_legacy_file_of_the_compat_corpus_converts_and_loads_in_google_adk(compat_dir, tmp_path):
    from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

    copy = tmp_path / "compat"
    shutil.copytree(compat_dir, copy)
    assert main(["convert", str(copy)]) == 0
    written = sorted(copy.rglob("*.evalset.json"))
    converted = [p for p in written if p.with_name(p.name.replace(".evalset.json", ".test.json")).is_file()]
    assert len(converted) >= 8
    for path in converted:
        assert AdkEvalSet.model_validate_json(path.read_text()).eval_cases


# ---------------------------------------------------------------- the project follows (issue 24)

PROJECT = f"""# the home agent's gate
baseline: .agenteval/baseline.json
suites:
  - name: home
    agent: {AGENT}   # offline
    eval_sets: [{{globs}}]   # legacy files
"""


def _legacy_project(tmp_path: Path, globs: str, session: bool = False) -> Path:
    shutil.copytree(LEGACY, tmp_path / "eval")
    if not session:
        (tmp_path / "eval" / "initial.session.json").unlink()
    (tmp_path / "agenteval.yaml").write_text(PROJECT.replace("{globs}", globs))
    (tmp_path / ".git").mkdir()
    return tmp_path / "agenteval.yaml"


def _baseline_keys(project: Path) -> dict[str, list[str]]:
    suites = json.loads((project / ".agenteval" / "baseline.json").read_text())["suites"]
    return {f"{s}/{e}": sorted(cases) for s, sets in suites.items() for e, cases in sets.items()}


def test_after_convert_run_is_green_without_a_hand_edit(tmp_path, monkeypatch, capsys):
    config = _legacy_project(tmp_path, '"eval/*.test.json"')
    monkeypatch.chdir(tmp_path)
    assert main(["run", "-q"]) == 0 and main(["accept"]) == 0
    assert _baseline_keys(tmp_path) == {"home/eval/home.test.json": ["eval/home.test.json"],
                                        "home/eval/old_format.test.json": ["lights_then_heat"]}
    capsys.readouterr()
    assert main(["convert", "eval"]) == 0
    out = capsys.readouterr().out
    assert "updated agenteval.yaml at $.suites[0].eval_sets[0]: 'eval/*.test.json' -> 'eval/*.evalset.json'" in out
    assert "updated .agenteval/baseline.json: 2 case(s) carried to their new ids" in out
    assert "delete them when you are ready: git rm eval/home.test.json eval/old_format.test.json" in out
    # Edited in place: comments and layout stay, only the glob changed.
    assert config.read_text() == PROJECT.replace("{globs}", '"eval/*.evalset.json"')
    assert _baseline_keys(tmp_path) == {"home/home": ["home"], "home/old_format": ["lights_then_heat"]}
    assert main(["run"]) == 0
    assert "cases: 2 unchanged" in capsys.readouterr().out
    for legacy in (tmp_path / "eval").glob("*.test.json"):  # the advice, followed
        legacy.unlink()
    assert main(["run"]) == 0 and main(["convert", "eval"]) == 2  # nothing left to convert
    assert "no *.test.json files in eval" in capsys.readouterr().err


def test_a_glob_that_cannot_be_renamed_gets_the_exact_edit_and_run_stays_green(tmp_path, monkeypatch, capsys):
    config = _legacy_project(tmp_path, '"eval/*.evalset.json", "eval/*.test.json"')
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "examples" / "home_automation" / "evals" / "basic" / "home.evalset.json", tmp_path / "eval" / "basic.evalset.json")
    assert main(["run", "-q"]) == 0 and main(["accept"]) == 0
    before = config.read_text()
    capsys.readouterr()
    assert main(["convert", "eval"]) == 0
    out = capsys.readouterr().out
    assert "agenteval.yaml at $.suites[0].eval_sets: remove 'eval/*.test.json' (the other globs match the new files)" in out
    assert config.read_text() == before
    assert "home/home" in _baseline_keys(tmp_path) and "home/eval/home.test.json" in _baseline_keys(tmp_path)
    assert main(["run"]) == 0  # both the legacy and the new files run, each against its own entry
    config.write_text(before.replace(', "eval/*.test.json"', ""))  # the edit, made by hand
    assert main(["run"]) == 0
    assert "removed" in capsys.readouterr().out  # the legacy entries, shown once they no longer run


def test_a_session_added_by_conversion_is_said_with_the_accept_to_run(tmp_path, monkeypatch, capsys):
    _legacy_project(tmp_path, '"eval/*.test.json"', session=True)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "-q"]) == 0 and main(["accept"]) == 0
    capsys.readouterr()
    assert main(["convert", "eval"]) == 0
    out = capsys.readouterr().out
    assert "1 case(s) expect something new after the conversion (an initial session)" in out
    assert "agenteval run && agenteval accept --case home/home/home" in out
    assert main(["run"]) == 0 and main(["accept", "--case", "home/home/home"]) == 0
    assert main(["run"]) == 0
    assert "cases: 2 unchanged" in capsys.readouterr().out


def test_odd_targets_and_sources_are_exit_2_naming_the_file(legacy, capsys):
    target = legacy / "home.evalset.json"
    target.write_bytes(b"caf\xe9")  # not UTF-8: compared as bytes, replaced with --force
    assert main(["convert", str(legacy / "home.test.json")]) == 2
    assert "exists and differs from the conversion" in capsys.readouterr().out
    assert main(["convert", str(legacy / "home.test.json"), "--force"]) == 0
    assert json.loads(target.read_text())["eval_set_id"] == "home"
    target.unlink()
    os.mkfifo(target)
    assert main(["convert", str(legacy / "home.test.json"), "--force"]) == 2
    assert f"{target.as_posix()}: is a FIFO (named pipe), not a file" in capsys.readouterr().out
    target.unlink()
    old = json.loads((legacy / "old_format.test.json").read_text())
    old[0]["initial_session"] = True
    (legacy / "old_format.test.json").write_text(json.dumps(old))
    assert main(["convert", str(legacy / "old_format.test.json")]) == 2
    assert "old_format.test.json at $[0].initial_session: a session must be an object" in capsys.readouterr().out
    shutil.copy(legacy / "home.test.json", legacy / "ho-me.test.json")
    shutil.copy(legacy / "home.test.json", legacy / "ho_me.test.json")
    assert main(["convert", str(legacy / "ho-me.test.json"), str(legacy / "ho_me.test.json")]) == 2
    assert "both convert to" in capsys.readouterr().out
