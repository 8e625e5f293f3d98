"""`adk eval`'s own command line, the command name swapped: every flag google-adk's `adk eval`
accepts is accepted by `agenteval run`, with its meaning, or refused naming what to do instead."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from google.adk.cli.cli_tools_click import cli_eval
from google.adk.features import FeatureName, _feature_registry, is_feature_enabled

from agenteval_ci.cli import main
from agenteval_ci.cli.arguments import build_parser

with warnings.catch_warnings():  # google-adk warns once about each non-stable feature it is asked about
    warnings.simplefilter("ignore")
    FEATURE = next(f for f in FeatureName if not is_feature_enabled(f))  # off unless switched on

AGENT = f'''
from google.adk.features import FeatureName, is_feature_enabled

def reply(text, session):
    return {{"response": "on" if is_feature_enabled(FeatureName.{FEATURE.name}) else "off"}}
'''


@pytest.fixture(autouse=True)
def _own_feature_overrides(monkeypatch):
    """google-adk keeps overrides for the process: each test starts from none and leaves none."""
    monkeypatch.setattr(_feature_registry, "_FEATURE_OVERRIDES", {})


def _adk_eval_options() -> list[str]:
    """Every option of the released `adk eval` (its click command), but --help."""
    return [opt for param in cli_eval.params for opt in param.opts if opt.startswith("--") and opt != "--help"]


def _value_for(option: str) -> list[str]:
    param = next(p for p in cli_eval.params if option in p.opts)
    if getattr(param, "is_flag", False):
        return []
    choices = getattr(param.type, "choices", None)
    return [str(choices[0]) if choices else "x"]


def test_adk_evals_options_are_all_known():
    assert {"--log_level", "--eval_storage_uri", "--enable_features", "--disable_features"} <= set(_adk_eval_options())


@pytest.mark.parametrize("option", _adk_eval_options())
def test_every_flag_of_adk_eval_is_a_flag_of_run(option):
    argv = ["run", "agent", "set.evalset.json", option, *_value_for(option)]
    build_parser(argv).parse_args(argv)  # argparse exits 2 on a flag it does not know


def test_log_level_is_adks_spelling_of_ours():
    argv = ["run", "agent", "--log_level", "debug"]
    assert build_parser(argv).parse_args(argv).log_level == "DEBUG"


def _project(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "agent.py").write_text(AGENT)
    case = {"eval_id": "c1", "conversation": [{"user_content": {"parts": [{"text": "hi"}]}, "final_response": {"parts": [{"text": "on"}]}}]}
    eval_set = tmp_path / "a.evalset.json"
    eval_set.write_text(json.dumps({"eval_set_id": "a", "eval_cases": [case]}))
    return f"{tmp_path / 'agent.py'}:reply", str(eval_set)


def _replies(results: Path) -> list[str]:
    cases = json.loads(results.read_text())["cases"]
    return [inv["final_response"]["parts"][0]["text"] for case in cases for run in case["runs"] for inv in run["invocations"]]


def test_features_are_switched_for_the_agent_as_adk_eval_switches_them(tmp_path, capsys):
    agent, eval_set = _project(tmp_path)
    out = tmp_path / "r.json"
    assert main(["run", agent, eval_set, "--enable_features", f"{FEATURE.value},NOT_A_FEATURE", "--json", str(out)]) == 0
    assert _replies(out) == ["on"]
    assert "unknown google-adk feature name(s) 'NOT_A_FEATURE'" in capsys.readouterr().err
    # a disable after an enable of the same name wins, as in adk eval
    argv = ["run", agent, eval_set, "--enable_features", FEATURE.value, "--disable_features", FEATURE.value, "--json", str(out)]
    assert main(argv) == 1
    assert _replies(out) == ["off"]


@pytest.mark.parametrize("uri", ["gs://evals-bucket", "s3://evals-bucket"])
def test_eval_storage_uri_is_refused_naming_the_flag_and_what_to_do(tmp_path, capsys, uri):
    agent, eval_set = _project(tmp_path)
    assert main(["run", agent, eval_set, "--eval_storage_uri", uri]) == 2
    err = capsys.readouterr().err
    assert f"--eval_storage_uri '{uri}'" in err
    assert ("copy the eval sets to local files" in err) if uri.startswith("gs://") else ("only gs://<bucket>" in err)
