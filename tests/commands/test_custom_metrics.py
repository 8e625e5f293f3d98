"""The user's own metrics end to end through the CLI: every form scored, every fault of a
metric left NOT_EVALUATED with its reason while the run goes on, a program's regression caught
by the gate, and an edit of a metric never counted as the agent's regression."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.runner.test_suites import make_project

DATA = Path(__file__).resolve().parents[1] / "data" / "user_metrics"
REPLY = "The bedroom light is off."


def _case(eval_id: str, reply: str) -> dict:
    return {
        "eval_id": eval_id,
        "conversation": [
            {
                "user_content": {"parts": [{"text": "Turn off the bedroom light"}], "role": "user"},
                "final_response": {"parts": [{"text": reply}], "role": "model"},
            }
        ],
    }


def _project(tmp_path: Path, criteria: dict, custom: dict, replies: dict[str, str]) -> tuple[Path, Path]:
    """An eval set expecting REPLY for every case, its test_config.json, and recorded outputs."""
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": criteria, "custom_metrics": custom}))
    evalset = tmp_path / "home.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "home", "eval_cases": [_case(i, REPLY) for i in replies]}))
    actual = tmp_path / "actual.json"
    actual.write_text(json.dumps({"eval_set_id": "home", "eval_cases": [_case(i, r) for i, r in replies.items()]}))
    return evalset, actual


def _score(evalset: Path, actual: Path, out: Path) -> tuple[int, dict]:
    code = main(["score", str(evalset), "--actual", str(actual), "--json", str(out)])
    return code, json.loads(out.read_text())


INLINE = "def evaluate(instance):\n    return {'score': {score}, 'explanation': 'said so'}\n"

FAULTS = {
    "raises": ("def evaluate(instance):\n    raise ValueError('no luck')\n", "raised ValueError: no luck"),
    "hangs": ("import time\ndef evaluate(instance):\n    time.sleep(60)\n", "did not finish within 0.5s"),
    "not_a_number": ("def evaluate(instance):\n    return {'score': 'high'}\n", "the score is not a number: 'high'"),
    "nan": ("def evaluate(instance):\n    return float('nan')\n", "the score is not finite: nan"),
    "outside": ("def evaluate(instance):\n    return {'score': 7}\n", "the score 7 is outside the declared interval [0, 1]"),
    "no_score": ("def evaluate(instance):\n    return {'value': 1}\n", "the answer has no 'score'"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_faulty_metric_is_not_evaluated_with_its_reason_and_the_run_goes_on(tmp_path, capsys, fault):
    source, reason = FAULTS[fault]
    unit = {"metric_value_info": {"interval": {"min_value": 0, "max_value": 1}}}
    custom = {"bad": {"custom_function": source, "timeout_seconds": 0.5, "metric_info": unit}, "good": {"custom_function": INLINE.replace("{score}", "0.9")}}
    evalset, actual = _project(tmp_path, {"bad": 0.5, "good": 0.5}, custom, {"a": REPLY, "b": REPLY})
    code, results = _score(evalset, actual, tmp_path / "results.json")
    assert code == 0
    for case in results["cases"]:
        bad, good = case["metrics"]["bad"], case["metrics"]["good"]
        assert bad["status"] == "NOT_EVALUATED" and bad.get("score") is None and reason in bad["reason"]
        assert good["status"] == "PASSED" and good["score"] == 0.9


def test_a_program_printing_garbage_or_failing_is_not_evaluated(tmp_path, capsys):
    custom = {
        "garbage": {"command": ["node", "-e", "console.log('score: high')"]},
        "exits": {"command": ["node", "-e", "process.exit(3)"]},
        "sleeps": {"command": ["node", "-e", "setTimeout(() => {}, 60000)"], "timeout_seconds": 0.5},
    }
    evalset, actual = _project(tmp_path, {"garbage": 0.5, "exits": 0.5, "sleeps": 0.5}, custom, {"a": REPLY})
    _, results = _score(evalset, actual, tmp_path / "results.json")
    metrics = results["cases"][0]["metrics"]
    assert "the command's output is not JSON" in metrics["garbage"]["reason"]
    assert "exited with code 3" in metrics["exits"]["reason"]
    assert "did not finish within 0.5s and was stopped" in metrics["sleeps"]["reason"]
    assert {metrics[name]["status"] for name in custom} == {"NOT_EVALUATED"}


def test_adk_function_inline_source_and_file_score_through_score(tmp_path, capsys):
    shutil.copy(DATA / "adk_metrics.py", tmp_path / "adk_metrics.py")
    (tmp_path / "quality.py").write_text("async def evaluate(instance):\n    return {'score': len(instance['response']['parts'][0]['text']) / 100}\n")
    custom = {
        "overlap": {"code_config": {"name": "adk_metrics.reply_length"}},
        "inline": {"custom_function": INLINE.replace("{score}", "1.0")},
        "from_file": {"custom_function_file": "quality.py", "metric_info": {"metric_value_info": {"interval": {"min_value": 0, "max_value": 10}}}},
    }
    evalset, actual = _project(tmp_path, {"overlap": 0.2, "inline": 0.5, "from_file": 0.2}, custom, {"a": REPLY})
    code, results = _score(evalset, actual, tmp_path / "results.json")
    metrics = results["cases"][0]["metrics"]
    assert code == 0
    assert metrics["overlap"]["score"] == len(REPLY) / 100 and metrics["overlap"]["status"] == "PASSED"
    assert metrics["inline"]["runs"][0]["details"] == {"explanation": "said so"}
    assert metrics["from_file"]["score"] == len(REPLY) / 100


def test_a_node_metric_is_scored_gated_and_its_regression_caught(tmp_path, capsys):
    shutil.copy(DATA / "node" / "length.js", tmp_path / "length.js")
    custom = {"words": {"command": ["node", "length.js"]}}
    replies = {f"c{i}": REPLY for i in range(8)}
    evalset, actual = _project(tmp_path, {"words": 0.8}, custom, replies)
    baseline = tmp_path / "baseline.json"
    code, results = _score(evalset, actual, tmp_path / "good.json")
    assert code == 0 and {c["metrics"]["words"]["score"] for c in results["cases"]} == {1.0}
    assert "[metric words] scored c0: 5/5" in capsys.readouterr().err  # the program's stderr, passed on
    assert main(["accept", str(tmp_path / "good.json"), "--baseline", str(baseline)]) == 0
    actual.write_text(json.dumps({"eval_set_id": "home", "eval_cases": [_case(i, "Done.") for i in replies]}))
    code, results = _score(evalset, actual, tmp_path / "bad.json")
    assert code == 1 and {c["metrics"]["words"]["score"] for c in results["cases"]} == {0.0}
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "bad.json"), "--baseline", str(baseline)]) == 1
    assert "words" in capsys.readouterr().out


def _metric_project(tmp_path: Path) -> Path:
    """agent.py:echo (tests/runner/test_suites.py) on 6 two-turn cases, gated by a Node.js metric."""
    config = make_project(tmp_path, [f"c{i}" for i in range(6)])
    config.write_text(config.read_text().replace("evals/*.json", "evals/*.evalset.json"))
    shutil.copy(DATA / "node" / "length.js", tmp_path / "evals" / "length.js")
    test_config = {"criteria": {"words": 0.5}, "custom_metrics": {"words": {"command": ["node", "length.js"]}}}
    (tmp_path / "evals" / "test_config.json").write_text(json.dumps(test_config))
    assert main(["run", "--config", str(config), "-q"]) == 0
    assert main(["accept", "--config", str(config)]) == 0
    program = tmp_path / "evals" / "length.js"  # the PR makes the metric stricter
    program.write_text(program.read_text().replace("JSON.stringify({ score,", "JSON.stringify({ score: 0.6 * score,"))
    return config


def _pr_run(config: Path) -> tuple[int, dict, str]:
    comment = config.parent / "comment.md"
    code = main(["run", "--config", str(config), "-q", "--md", str(comment)])
    return code, json.loads((config.parent / ".agenteval" / "results.json").read_text()), comment.read_text()


def test_a_metric_edit_on_an_unchanged_agent_passes_with_the_attribution(tmp_path, capsys):
    code, results, comment = _pr_run(_metric_project(tmp_path))
    assert code == 0, comment
    assert {c["metrics"]["words"]["score"] for c in results["cases"]} == {0.6}
    assert {r["metric"] for r in results["rejudged"]} == {"words"} and len(results["rejudged"]) == 6
    note = next(line for line in comment.splitlines() if "`words`: the metric's code changed." in line)
    assert "6 case(s) re-scored with the edited metric" in note and "1.000 → 0.600 (-0.400)" in note
    assert "the apparent Δ -0.400, -0.400 is the metric edit's and +0.000 the agent's" in note


def test_a_metric_edit_and_an_agent_regression_still_fails(tmp_path, capsys):
    config = _metric_project(tmp_path)
    (tmp_path / "broken_agent.py").write_text("async def echo(text, session):\n    return {'response': 'Done.'}\n")
    config.write_text(config.read_text().replace("agent.py:echo", "broken_agent.py:echo"))
    code, results, comment = _pr_run(config)
    assert code == 1
    assert {c["metrics"]["words"]["score"] for c in results["cases"]} == {0.0}
    assert "`words`: the metric's code changed." in comment and "`words` | 0.600 | 0.000" in comment
    assert "0 of 4 expected words" in comment  # the metric's explanation of a failed case, in the comment
    capsys.readouterr()
    assert main(["run", "--config", str(config)]) == 1
    assert "0 of 4 expected words" in capsys.readouterr().out  # ... in the terminal table
    assert all("0 of 4 expected words" in c["metrics"]["words"]["reason"] for c in results["cases"])
    results_file = config.parent / ".agenteval" / "results.json"
    for form, path in (("junit", "report.xml"), ("summary", "summary.md")):
        assert main(["report", str(results_file), "--format", form, "-o", str(tmp_path / path), "--config", str(config)]) in (0, 1)
        assert "0 of 4 expected words" in (tmp_path / path).read_text(), form


SCAFFOLD_TURN_COUNT = """def evaluate(instance):
    turns = (instance.get("agent_data") or {}).get("turns", [])
    return {'score': len(turns)}
"""  # agents-cli 'create' scaffold's tests/eval/eval_config.yaml, metric agent_turn_count


def test_agents_cli_metrics_without_an_interval_take_any_finite_score(tmp_path, capsys):
    custom = {"agent_turn_count": {"custom_function": SCAFFOLD_TURN_COUNT},
              "five_point": {"custom_function": "def evaluate(instance):\n    return {'score': 4, 'explanation': 'good'}\n"}}
    evalset, actual = _project(tmp_path, {"agent_turn_count": 1.0, "five_point": 3.0}, custom, {"a": REPLY})
    code, results = _score(evalset, actual, tmp_path / "results.json")
    metrics = results["cases"][0]["metrics"]
    assert code == 0
    assert metrics["agent_turn_count"]["score"] == 1.0 and metrics["five_point"]["score"] == 4.0


def test_agenteval_yaml_declares_a_suites_own_metric(tmp_path, capsys):
    config = make_project(tmp_path, ["c1", "c2"])
    shutil.copy(DATA / "node" / "length.js", tmp_path / "length.js")
    (tmp_path / "check.py").write_text("def evaluate(instance):\n    return {'score': float(instance['response']['parts'][0]['text'].startswith('echo'))}\n")
    config.write_text(config.read_text() + "    criteria: {words: 0.8, echoes: 1.0}\n    custom_metrics:\n"
                      "      words: {command: [node, length.js]}\n      echoes: {custom_function_file: check.py}\n")
    assert main(["run", "--config", str(config), "-q", "--no-gate"]) == 0
    results = json.loads((tmp_path / ".agenteval" / "results.json").read_text())
    assert {(c["metrics"]["words"]["score"], c["metrics"]["echoes"]["score"]) for c in results["cases"]} == {(1.0, 1.0)}
    config.write_text(config.read_text().replace("check.py", "gone.py"))
    assert main(["validate", str(config)]) == 2
    assert "$.suites[0].custom_metrics.echoes.custom_function_file: no file" in capsys.readouterr().out


def test_agents_cli_eval_config_custom_metrics_are_read_as_user_metrics(tmp_path):
    """The scaffold's eval_config.yaml `custom_metrics` (agents-cli 'create'), as
    agents_cli_config.py hands them over: both code forms and a prompt_template with its scale
    read; a template without a scale and remote_custom_function refused with the reason; a
    built-in's tuning left alone."""
    from agenteval_ci.files.eval_configs import read_agents_cli_metrics

    (tmp_path / "response_quality.py").write_text("def evaluate(instance):\n    return {'score': 4}\n")
    entries = [
        {"name": "custom_response_quality", "custom_function_file": "response_quality.py"},
        {"name": "agent_turn_count", "custom_function": SCAFFOLD_TURN_COUNT},
        {"name": "judge", "prompt_template": "Rate {response}"},
        {"name": "remote", "remote_custom_function": "projects/p/locations/l/functions/f"},
        {"name": "rouge_1"},
        {"name": "rated", "prompt_template": "Rate {response}", "rating_scores": {"1": "bad", "5": "good"}},
    ]
    metrics, problems = read_agents_cli_metrics("eval_config.yaml", "$.custom_metrics", entries, tmp_path)
    assert set(metrics) == {"custom_response_quality", "agent_turn_count", "rated"}
    assert metrics["rated"].judged and not metrics["custom_response_quality"].judged
    assert [p.json_path for p in problems] == ["$.custom_metrics[2]", "$.custom_metrics[3]"]
    assert "needs the scale its answers map to" in problems[0].message
    assert "remote_custom_function is not run here" in problems[1].message


@pytest.mark.skipif(shutil.which("agents-cli") is None, reason="agents-cli (pip install google-agents-cli) is not installed")
def test_the_agents_cli_scaffolds_own_metrics_run_with_the_judge_answered_by_a_fake(tmp_path, monkeypatch):
    """`agents-cli create my-agent -y` (offline), its tests/eval/eval_config.yaml read as is: the
    local LLM judge (response_quality.py, google-genai) scored against the loopback Gemini, and
    the inline turn counter."""
    import subprocess

    import yaml

    from agenteval_ci.core.metrics import MetricInput
    from agenteval_ci.files.eval_configs import read_agents_cli_metrics
    from agenteval_ci.schema import BaseCriterion, EvalCase
    from tests.fakes.gemini import FakeGemini
    from tests.judge.helpers import json_reply

    subprocess.run(["agents-cli", "create", "my-agent", "-y"], cwd=tmp_path, check=True, capture_output=True, timeout=120)
    folder = tmp_path / "my-agent" / "tests" / "eval"
    entries = yaml.safe_load((folder / "eval_config.yaml").read_text())["custom_metrics"]
    metrics, problems = read_agents_cli_metrics("eval_config.yaml", "$.custom_metrics", entries, folder)
    assert problems == [] and set(metrics) == {"custom_response_quality", "agent_turn_count"}
    case = EvalCase.model_validate(_case("capital", "Paris is the capital of France."))
    inp = MetricInput(BaseCriterion(threshold=3.0), case.conversation, case.conversation, case)
    with FakeGemini(responder=lambda request: json_reply({"score": 4, "explanation": "accurate and clear"})) as gemini:
        for name, value in gemini.env().items():
            monkeypatch.setenv(name, value)
        quality = asyncio.run(metrics["custom_response_quality"].evaluate(inp))
        prompt = json.dumps(gemini.requests[0].body)
    assert (quality.score, quality.status.value, quality.details) == (4.0, "PASSED", {"explanation": "accurate and clear"})
    assert "Paris is the capital of France." in prompt and "Turn off the bedroom light" in prompt
    turns = asyncio.run(metrics["agent_turn_count"].evaluate(inp))
    assert turns.score == 1.0


def test_rejudge_rescores_stored_outputs_with_the_edited_metric_and_no_agent(tmp_path, capsys):
    config = _metric_project(tmp_path)  # accepted, then the metric made stricter
    (tmp_path / "agent.py").write_text("raise SystemExit('rejudge must not run the agent')\n")
    out = tmp_path / "rejudged.json"
    code = main(["rejudge", str(tmp_path / ".agenteval" / "results.json"), "--config", str(config), "--json", str(out)])
    results = json.loads(out.read_text())
    assert code == 0
    assert {c["metrics"]["words"]["score"] for c in results["cases"]} == {0.6}


def test_hung_functions_hold_their_threads_not_the_pool(tmp_path, capsys):
    """More hanging calls than run at once: each is abandoned at its timeout and a fresh worker
    takes the next call, so every case still gets every metric's answer."""
    hang = "import threading\ndef evaluate(instance):\n    threading.Event().wait()\n"
    custom = {"hangs": {"custom_function": hang, "timeout_seconds": 0.2}, "good": {"custom_function": INLINE.replace("{score}", "0.9")}}
    cases = {f"c{i}": REPLY for i in range(12)}
    evalset, actual = _project(tmp_path, {"hangs": 0.5, "good": 0.5}, custom, cases)
    _, results = _score(evalset, actual, tmp_path / "results.json")
    assert [c["metrics"]["good"]["score"] for c in results["cases"]] == [0.9] * 12
    assert all("did not finish within 0.2s" in c["metrics"]["hangs"]["reason"] for c in results["cases"])


def test_init_on_an_adk_project_with_custom_metrics_writes_a_config_that_runs_them(tmp_path):
    """The newcomer sample of test_init.py, its eval config given an ADK code_config metric and
    an inline one: init accepts a baseline scored by both, and run gates on them."""
    import os
    import subprocess
    import sys

    from tests.commands.test_init import ROOT, SAMPLE, shop_model
    from tests.fakes.gemini import FakeGemini

    project = tmp_path / "garden-shop"
    shutil.copytree(SAMPLE, project)
    (project / ".git").mkdir()
    (project / "shop_metrics.py").write_text(
        "from google.adk.evaluation.evaluator import EvaluationResult, PerInvocationResult\n"
        "def answered(eval_metric, actual, expected, scenario):\n"
        "    per = [PerInvocationResult(actual_invocation=a, score=float(bool(a.final_response))) for a in actual]\n"
        "    return EvaluationResult(overall_score=sum(p.score for p in per) / len(per), per_invocation_results=per)\n")
    config = project / "tests" / "eval" / "eval_config.json"
    data = json.loads(config.read_text())
    data["criteria"].update({"answered": 1.0, "polite": 0.5})
    data["custom_metrics"] = {"answered": {"code_config": {"name": "shop_metrics.answered"}},
                              "polite": {"custom_function": "def evaluate(instance):\n    return 1.0 if instance['response'] else 0.0\n"}}
    config.write_text(json.dumps(data))
    with FakeGemini(responder=shop_model) as gemini:
        env = {k: v for k, v in os.environ.items() if k != "GOOGLE_GENAI_USE_VERTEXAI"}
        env.update(gemini.env(), PYTHONPATH=str(ROOT), NO_COLOR="1", PIP_NO_INDEX="1")
        init = subprocess.run([sys.executable, "-m", "agenteval_ci", "init"], cwd=project, env=env, capture_output=True, text=True, timeout=600)
        assert init.returncode == 0, init.stdout + init.stderr
        baseline = json.loads((project / ".agenteval" / "baseline.json").read_text())
        metrics = {name for sets in baseline["suites"].values() for cases in sets.values() for case in cases.values() for name in case["metrics"]}
        assert {"answered", "polite"} <= metrics
        run = subprocess.run([sys.executable, "-m", "agenteval_ci", "run"], cwd=project, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0 and "gate passed" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize(("candidate", "code"), [("4.8", 0), ("4.0", 1)], ids=["within-tolerance", "beyond-tolerance"])
def test_the_gates_tolerance_is_a_share_of_the_declared_interval(tmp_path, capsys, candidate, code):
    """A 0-to-10 metric: the default tolerance (0.05) is 0.5 of its points, so a 0.2 drop on
    every case is noise-free but small, and a 1.0 drop is a regression."""
    reads = "def evaluate(instance):\n    return float(instance['response']['parts'][0]['text'].split()[-1])\n"
    custom = {"points": {"custom_function": reads, "metric_info": {"metric_value_info": {"interval": {"min_value": 0, "max_value": 10}}}}}
    replies = {f"c{i}": "points 5.0" for i in range(6)}
    evalset, actual = _project(tmp_path, {"points": 3.0}, custom, replies)
    baseline = tmp_path / "baseline.json"
    _score(evalset, actual, tmp_path / "before.json")
    assert main(["accept", str(tmp_path / "before.json"), "--baseline", str(baseline)]) == 0
    actual.write_text(json.dumps({"eval_set_id": "home", "eval_cases": [_case(i, f"points {candidate}") for i in replies]}))
    _score(evalset, actual, tmp_path / "after.json")
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "after.json"), "--baseline", str(baseline)]) == code


def test_a_misspelt_key_of_a_custom_metric_is_a_warning(tmp_path, capsys):
    custom = {"good": {"custom_function": INLINE.replace("{score}", "0.9"), "timeout_second": 5, "metricInfo": {}}}
    evalset, actual = _project(tmp_path, {"good": 0.5}, custom, {"a": REPLY})
    code, _ = _score(evalset, actual, tmp_path / "results.json")
    err = capsys.readouterr().err
    assert code == 0
    assert "test_config.json at $.custom_metrics.good.timeout_second: unknown key; custom metrics read:" in err
    assert "metricInfo" not in err  # ADK's camelCase spelling is read


def test_a_late_answer_after_the_timeout_is_dropped_quietly(monkeypatch):
    """A function that finishes after its timeout: its answer is not wanted any more, and its
    worker goes back to work without an exception in its thread."""
    import threading
    import time

    from agenteval_ci.core.metrics import MetricInput
    from agenteval_ci.files.eval_configs import read_custom_metrics
    from agenteval_ci.schema import BaseCriterion, EvalCase
    from agenteval_ci.schema.eval_config import CustomMetricConfig

    raised: list[object] = []
    monkeypatch.setattr(threading, "excepthook", raised.append)
    late = "import time\ndef evaluate(instance):\n    time.sleep(0.4)\n    return 1.0\n"
    config = CustomMetricConfig.model_validate({"custom_function": late, "timeout_seconds": 0.1})
    spec = read_custom_metrics({"late": config}, Path.cwd())["late"]
    case = EvalCase.model_validate(_case("a", REPLY))
    inp = MetricInput(BaseCriterion(threshold=0.5), case.conversation, case.conversation, case)
    first = asyncio.run(spec.evaluate(inp))
    time.sleep(0.6)  # the abandoned call finishes meanwhile
    assert "did not finish within 0.1s" in first.reason and raised == []
