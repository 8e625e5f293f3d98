"""Eval sets and configs read the way google-adk 2.13 reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.errors import InputError
from agenteval_ci.files.discovery import adk_eval_config
from agenteval_ci.files.eval_configs import load_eval_config
from agenteval_ci.files.eval_sets import load_eval_set
from agenteval_ci.schema import IntermediateData, InvocationEvents, MatchType


def _write(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_camel_case_keys_and_both_intermediate_shapes(tmp_path):
    data = {
        "eval_set_id": "s",
        "eval_cases": [
            {
                "evalId": "camel",
                "conversation": [
                    {
                        "userContent": {"parts": [{"text": "hi"}]},
                        "finalResponse": {"parts": [{"text": "a"}, {"text": "b"}]},
                        "intermediateData": {"toolUses": [{"name": "t", "args": {"x": 1}}]},
                    },
                    {
                        "user_content": {"parts": [{"text": "again"}]},
                        "intermediate_data": {
                            "invocation_events": [
                                {"author": "root", "content": {"parts": [{"functionCall": {"name": "u", "id": "1"}}]}},
                                {"author": "sub", "content": {"parts": [{"function_call": {"name": "v", "args": {}}}]}},
                            ]
                        },
                    },
                ],
                "sessionInput": {"appName": "app", "userId": "me", "state": {"k": 1}},
            }
        ],
    }
    case = load_eval_set(_write(tmp_path / "x.evalset.json", data)).eval_set.eval_cases[0]
    first, second = case.conversation
    assert isinstance(first.intermediate_data, IntermediateData) and first.final_response.text == "a\nb"
    assert isinstance(second.intermediate_data, InvocationEvents)
    assert [(c.name, c.args) for c in second.tool_calls] == [("u", None), ("v", {})]  # None and {} stay apart
    assert case.session_input.app_name == "app"


def test_legacy_list_is_one_case_per_file(tmp_path):
    rows = [
        {"query": "turn on", "expected_tool_use": [{"tool_name": "set", "tool_input": {"on": True}}], "reference": "on"},
        {"query": "thanks", "expected_tool_use": [], "reference": "welcome"},
    ]
    loaded = load_eval_set(_write(tmp_path / "old.test.json", rows))
    assert loaded.legacy and len(loaded.eval_set.eval_cases) == 1
    turns = loaded.eval_set.eval_cases[0].conversation
    assert [t.user_content.text for t in turns] == ["turn on", "thanks"]
    assert [(c.name, c.args) for c in turns[0].tool_calls] == [("set", {"on": True})]


def test_legacy_row_without_query_names_its_index(tmp_path):
    with pytest.raises(InputError) as caught:
        load_eval_set(_write(tmp_path / "old.test.json", [{"query": "a"}, {"reference": "b"}]))
    assert "old.test.json at $[1]" in str(caught.value) and "'query'" in str(caught.value)


def test_config_discovery_and_defaults(tmp_path):
    eval_set = _write(tmp_path / "x.test.json", [])
    assert adk_eval_config([eval_set]) is None
    defaults = {m.name: m.threshold for m in load_eval_config(None).metrics if not m.spec.informational}
    assert defaults == {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}
    config = _write(tmp_path / "test_config.json", {"criteria": {"tool_trajectory_avg_score": {"threshold": 0.5, "matchType": "in-order"}}})
    assert adk_eval_config([eval_set]) == config
    metric = next(m for m in load_eval_config(config).metrics if m.name == "tool_trajectory_avg_score")
    assert metric.criterion.match_type == MatchType.IN_ORDER and metric.threshold == 0.5


@pytest.mark.parametrize("value, expected", [("any order", MatchType.ANY_ORDER), (2, MatchType.ANY_ORDER), ("Exact", MatchType.EXACT)])
def test_match_type_coercion_as_adk(tmp_path, value, expected):
    config = _write(tmp_path / "c.json", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": value}}})
    metric = next(m for m in load_eval_config(config).metrics if m.name == "tool_trajectory_avg_score")
    assert metric.criterion.match_type == expected


def test_every_metric_google_adk_accepts_is_scored(tmp_path):
    """Every PrebuiltMetrics name of google-adk 2.13 is in the registry, none of them pending."""
    prebuilt = pytest.importorskip("google.adk.evaluation.eval_metrics").PrebuiltMetrics
    from agenteval_ci.core.metrics.registry import REGISTRY

    assert {m.value for m in prebuilt} <= set(REGISTRY)
    config = _write(tmp_path / "c.json", {"criteria": {"response_evaluation_score": 3.5, "response_match_score": 0.5}})
    [coherence] = [m for m in load_eval_config(config).metrics if m.name == "response_evaluation_score"]
    assert coherence.spec.judged and coherence.criterion.judge_model_options.num_samples == 1
