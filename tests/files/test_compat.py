"""Every eval set and config of the compatibility corpus (../shared/compat) loads, validates
and scores, and google-adk 2.13 reads each eval set into the same cases and tool calls."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.files.eval_sets import load_eval_set

EVAL_SET_PATTERNS = ("*.test.json", "*.evalset.json")


def eval_set_files(compat_dir: Path) -> list[Path]:
    return sorted(f for pattern in EVAL_SET_PATTERNS for f in compat_dir.rglob(pattern))


def test_agenteval_validate_accepts_the_whole_corpus(compat_dir, capsys):
    assert main(["validate", str(compat_dir)]) == 0
    out = capsys.readouterr().out
    summary = re.search(r"(\d+) file\(s\) checked, 0 invalid", out)
    assert summary and "INVALID" not in out
    assert int(summary.group(1)) >= len(eval_set_files(compat_dir)) + len(list(compat_dir.rglob("test_config.json")))


def test_every_eval_set_scores_perfectly_against_itself(compat_dir, tmp_path):
    files = eval_set_files(compat_dir)
    assert len(files) >= 20
    for index, path in enumerate(files):
        out = tmp_path / f"results-{index}.json"
        code = main(["score", str(path), "--actual", str(path), "--json", str(out)])
        assert code in (0, 1), path
        cases = json.loads(out.read_text())["cases"]
        for case in cases:
            metrics = case["metrics"]
            trajectory = metrics.get("tool_trajectory_avg_score")
            if trajectory:
                assert trajectory["score"] == 1.0, path
            for run in metrics.get("response_match_score", {}).get("runs", []):
                for turn, expected in zip(run["per_invocation"], case["eval_case"]["conversation"]):
                    has_reference = any(p.get("text") for p in (expected.get("final_response") or {}).get("parts") or [])
                    # ADK's rule: an empty reference against an empty response scores 0.0
                    assert turn["score"] == (1.0 if has_reference else 0.0), path
            assert "tool_call_count_v1" in metrics  # informational metrics are always reported
        # Only an empty reference (ROUGE 0.0 against itself) may fail a self-score.
        failed = {name for c in cases if c["status"] == "FAILED" for name, m in c["metrics"].items() if m["status"] == "FAILED"}
        assert failed <= {"response_match_score"}, path
        assert (code == 1) == bool(failed), path


def _adk_read(path: Path):
    """The eval set as ADK reads it: `adk eval`'s reader, else AgentEvaluator's (legacy lists)."""
    from google.adk.evaluation.agent_evaluator import AgentEvaluator
    from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file

    try:
        return load_eval_set_from_file(str(path), "compat")
    except Exception:  # a raw list of queries: only AgentEvaluator reads those
        config = AgentEvaluator.find_config_for_test_file(str(path))
        return AgentEvaluator._load_eval_set_from_file(str(path), config, {})


def _shape(conversations) -> list[list[list[tuple]]]:
    return [[[(c.name, c.args) for c in turn] for turn in conversation] for conversation in conversations]


def test_adk_reads_the_same_cases_and_tool_calls(compat_dir):
    pytest.importorskip("google.adk", reason="google-adk (test extra) is not installed")
    from google.adk.evaluation.eval_case import get_all_tool_calls

    logging.getLogger("google_adk").setLevel(logging.ERROR)
    for path in eval_set_files(compat_dir):
        adk = _adk_read(path)
        ours = load_eval_set(path).eval_set
        assert len(ours.eval_cases) == len(adk.eval_cases), path
        adk_calls = [[get_all_tool_calls(i.intermediate_data) for i in c.conversation or []] for c in adk.eval_cases]
        our_calls = [[i.tool_calls for i in c.conversation or []] for c in ours.eval_cases]
        assert _shape(our_calls) == _shape(adk_calls), path
        adk_texts = [[i.user_content.parts[0].text for i in c.conversation or []] for c in adk.eval_cases]
        our_texts = [[i.user_content.parts[0].text for i in c.conversation or []] for c in ours.eval_cases]
        assert our_texts == adk_texts, path
