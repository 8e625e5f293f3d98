"""A changed judge is not an agent regression (issue 27), through `agenteval run`/`accept`/`compare`
with the fake Gemini and the fake OpenAI server behind the production providers.

The baseline is judged by Gemini; the PR switches the judge to `openai/gpt-4o`, a stricter judge
(it calls even lights invalid where Gemini called lights divisible by 3 invalid). An unchanged
agent then passes, the comment naming the judge change and how much of the delta it explains; a
broken agent still fails; a baseline without recorded outputs reports judged deltas ungated.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini
from tests.fakes.openai import ChatRequest, FakeOpenAI, text_reply
from tests.judge.judged_project import AGENT, good_reply, verdicts, write_project
from tests.judge.test_openai_judge import JUDGE_VARIABLES

BROKEN_AGENT = AGENT.replace('"Light {light} is off."', '"Done."').replace('{"light": light}', '{"light": "all"}')


def strict_verdicts(request: ChatRequest) -> dict:
    reply = good_reply(request.prompt_text)
    if "verdict" in reply:  # final_response_match_v2: stricter than Gemini's
        light = int(request.prompt_text.split("Turn off light ")[1].split()[0])
        reply["verdict"] = "invalid" if light % 2 == 0 else "valid"
    return text_reply(json.dumps(reply), model="gpt-4o-2024-08-06", prompt_tokens=100, output_tokens=20)


def _env(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for name in JUDGE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def _use_judge(config: Path, model: str | None) -> None:
    """Edit the eval config's judge_model, as a PR that changes only the judge does."""
    test_config = config.parent / "evals" / "test_config.json"
    data = json.loads(test_config.read_text())
    for criterion in data["criteria"].values():
        if isinstance(criterion, dict):
            options = criterion.setdefault("judge_model_options", {})
            if model:
                options["judge_model"] = model
            else:
                options.pop("judge_model", None)
    test_config.write_text(json.dumps(data))


@pytest.fixture
def accepted(tmp_path, monkeypatch):
    """A project whose baseline was judged by Gemini and accepted (with its recorded outputs)."""
    config = write_project(tmp_path)
    with FakeGemini(responder=verdicts) as gemini:
        _env(monkeypatch, gemini.env())
        assert main(["run", "--config", str(config), "-q"]) == 1  # light 0 and 3: invalid (first run: thresholds)
        assert main(["accept", "--config", str(config), "--allow-failed"]) == 0
    return config


def _pr_run(config: Path, monkeypatch, fake: FakeOpenAI, agent: str = AGENT) -> tuple[int, dict, str]:
    if agent != AGENT:  # a module of another name: this process imported agent.py already
        (config.parent / "changed_agent.py").write_text(agent)
        config.write_text(config.read_text().replace("agent.py:agent", "changed_agent.py:agent"))
    _use_judge(config, "openai/gpt-4o")
    _env(monkeypatch, fake.env())
    comment = config.parent / "comment.md"
    code = main(["run", "--config", str(config), "-q", "--md", str(comment)])
    return code, json.loads((config.parent / ".agenteval" / "results.json").read_text()), comment.read_text()


def test_accept_keeps_the_judge_and_the_recorded_outputs(accepted):
    baseline = json.loads((accepted.parent / ".agenteval" / "baseline.json").read_text())
    judges = baseline["judges"]  # one per judged metric: each has its own prompts and sampling
    assert len(judges) == 3 and {(j["provider"], j["model"], tuple(j["versions"])) for j in judges.values()} == {
        ("gemini", "gemini-2.5-flash", ("fake-gemini",))}
    case = baseline["suites"]["default"]["lights"]["case1"]
    assert judges[case["metrics"]["final_response_match_v2"]["judge"]]["num_samples"] == 3
    assert "judge" not in case["metrics"]["tool_trajectory_avg_score"]  # not judged
    with gzip.open(accepted.parent / ".agenteval" / "baseline.outputs.jsonl.gz", "rt") as stream:
        header, *records = [json.loads(line) for line in stream]
    assert header == {"kind": "agenteval-baseline-outputs", "schema_version": 1}
    assert {r["digest"] for r in records} == {c["outputs"] for c in baseline["suites"]["default"]["lights"].values()}
    assert records[1]["runs"][0]["invocations"][0]["final_response"]["parts"][0]["text"] == "Light 1 is off."


def test_a_pr_that_changes_only_the_judge_passes_and_says_so(accepted, monkeypatch):
    with FakeOpenAI(responder=strict_verdicts) as fake:
        code, results, comment = _pr_run(accepted, monkeypatch, fake)
    assert code == 0, comment
    rejudged = results["rejudged"]
    assert {r["metric"] for r in rejudged} == {"final_response_match_v2", "rubric_based_final_response_quality_v1", "hallucinations_v1"}
    assert len(rejudged) == 18  # 6 cases x 3 judged metrics, on the baseline's recorded outputs
    assert "The judge changed since the baseline" in comment
    note = next(line for line in comment.splitlines() if "`final_response_match_v2`: judge" in line)
    assert "gemini-2.5-flash (fake-gemini) → openai/gpt-4o (gpt-4o-2024-08-06)" in note
    # Gemini: 4 of 6 valid (0 and 3 invalid); the strict judge: 3 of 6 (0, 2, 4 invalid). The judge alone explains it all.
    assert "0.667 → 0.500 (-0.167)" in note and "the apparent Δ -0.167, -0.167 is the judge's and +0.000 the agent's" in note
    assert "not gated" not in comment
    assert any("(re-judging the baseline)" in name for name in results["stats"]["judge_by_metric"])
    # compare reads the re-judged scores from the results file: no judge needed; the comparison JSON says it all
    out = accepted.parent / "comparison.json"
    assert main(["compare", "--config", str(accepted), "--json", str(out)]) == 0
    [match] = [c for c in json.loads(out.read_text())["judge_changes"] if c["metric"] == "final_response_match_v2"]
    assert (match["before"]["provider"], match["after"]["model"], len(match["rejudged"]), match["not_rejudged"]) == ("gemini", "openai/gpt-4o", 6, [])
    assert (match["baseline_mean"], match["rejudged_mean"], match["candidate_mean"]) == pytest.approx((4 / 6, 0.5, 0.5))


def test_re_judging_again_costs_no_judge_call(accepted, monkeypatch):
    with FakeOpenAI(responder=strict_verdicts) as fake:
        _pr_run(accepted, monkeypatch, fake)
        calls = len(fake.requests)
        code, results, _ = _pr_run(accepted, monkeypatch, fake)
    assert code == 0 and len(fake.requests) == calls  # the cache answers both the run and the re-judging
    assert results["stats"]["judge_calls"] == 0


def test_a_pr_that_changes_the_judge_and_breaks_the_agent_fails_on_the_agent(accepted, monkeypatch):
    with FakeOpenAI(responder=strict_verdicts) as fake:
        code, results, comment = _pr_run(accepted, monkeypatch, fake, agent=BROKEN_AGENT)
    assert code == 1
    assert "tool_trajectory_avg_score: regressed" in comment
    assert "The judge changed since the baseline" in comment


def test_a_baseline_without_recorded_outputs_reports_judged_deltas_ungated_and_accept_records_the_new_judge(accepted, monkeypatch, capsys):
    (accepted.parent / ".agenteval" / "baseline.outputs.jsonl.gz").unlink()
    with FakeOpenAI(responder=strict_verdicts) as fake:
        code, results, comment = _pr_run(accepted, monkeypatch, fake)
        assert not results.get("rejudged")
        # cases 0, 2 and 4 fail final_response_match_v2 by the strict judge's verdict: thresholds still apply
        assert code == 1 and "3 case(s) below" not in comment and "could not be re-judged" in comment and "not gated" in comment
        assert "> [!WARNING]\n> **The judge changed since the baseline.**" in comment
        assert "newly" not in comment.split("The judge changed")[0]  # no case is called a regression of the agent
        capsys.readouterr()
        assert main(["accept", "--config", str(accepted), "--allow-failed"]) == 0
        baseline = json.loads((accepted.parent / ".agenteval" / "baseline.json").read_text())
        assert {j["model"] for j in baseline["judges"].values()} == {"openai/gpt-4o"}
        assert main(["compare", "--config", str(accepted)]) == 0
    assert "judge changed" not in capsys.readouterr().out


RAISING_AGENT = 'def agent(text, session):\n    raise RuntimeError("rejudge must not run the agent")\n'


def test_rejudge_of_the_stored_baseline_runs_no_agent_and_needs_no_judge_call(accepted, monkeypatch, capsys):
    (accepted.parent / "agent.py").write_text(RAISING_AGENT)  # would fail every run if it were called
    with FakeGemini(responder=verdicts) as gemini:
        _env(monkeypatch, gemini.env())
        code = main(["rejudge", str(accepted.parent / ".agenteval" / "baseline.json"), "--config", str(accepted)])
    assert code == 0 and gemini.requests == []  # the same criteria and judge: every verdict from the cache
    results = json.loads((accepted.parent / ".agenteval" / "rejudged.json").read_text())
    assert len(results["cases"]) == 6 and results["stats"]["agent_turns"] == 0 and results["stats"]["judge_cache_hits"] > 0
    assert all(not run.get("error") for case in results["cases"] for run in case["runs"])
    assert "0 agent calls" in capsys.readouterr().err


def test_rejudge_tries_another_judge_on_stored_results(accepted, monkeypatch, capsys):
    results_file = str(accepted.parent / ".agenteval" / "results.json")
    with FakeOpenAI(responder=strict_verdicts) as fake:
        _env(monkeypatch, fake.env())
        code = main(["rejudge", results_file, "--config", str(accepted), "--judge-model", "openai/gpt-4o", "--md", str(accepted.parent / "c.md")])
    out = capsys.readouterr().out
    assert code == 0, out  # the stricter judge's verdicts, compared like with like: no regression
    assert "judge changed since the baseline" in out and "gemini-2.5-flash (fake-gemini) → openai/gpt-4o" in out
    rejudged = json.loads((accepted.parent / ".agenteval" / "rejudged.json").read_text())
    assert rejudged["cases"][2]["metrics"]["final_response_match_v2"]["status"] == "FAILED"  # light 2: invalid to the strict judge


def test_judge_agreement_on_a_recorded_set(accepted, monkeypatch, capsys, tmp_path):
    with FakeGemini(responder=verdicts) as gemini, FakeOpenAI(responder=strict_verdicts) as fake:
        _env(monkeypatch, {**gemini.env(), **fake.env()})
        code = main(["judge-agreement", str(accepted.parent / ".agenteval" / "baseline.json"), "--config", str(accepted),
                     "--judge", "openai/gpt-4o", "--html", str(tmp_path / "agreement.html"), "--json", str(tmp_path / "a.json")])
    out = capsys.readouterr().out
    assert code == 0 and gemini.requests == []  # the configured judge's verdicts came from the cache
    row = next(line for line in out.splitlines() if line.startswith("final_response_match_v2"))
    # Gemini: 0 and 3 invalid; the strict judge: 0, 2 and 4. They agree on 0, 1 and 5: 50%, and kappa 0.
    assert row.split()[2:8] == ["6", "50%", "0.00", "67%", "50%", "3"]
    assert "default/lights/case2 run 1 turn 1: 1st yes, 2nd no" in out
    report = json.loads((tmp_path / "a.json").read_text())
    rubric_rows = [r for r in report["rows"] if r["metric"] == "rubric_based_final_response_quality_v1"]
    assert {r["rubric"] for r in rubric_rows} == {"confirms", "concise"} and all(r["agreement"] == 1.0 for r in rubric_rows)
    html = (tmp_path / "agreement.html").read_text()
    assert '<table id="agreement">' in html and "case2" in html


def test_a_baseline_from_before_fingerprints_is_taken_as_judged_by_the_default_judge(accepted, monkeypatch):
    """Written by an older release: no judges, no outputs. Its config fingerprints match only
    because the judge options were the defaults, so a PR to another judge is a judge change."""
    path = accepted.parent / ".agenteval" / "baseline.json"
    data = json.loads(path.read_text())
    del data["judges"]
    for case in data["suites"]["default"]["lights"].values():
        del case["outputs"]
        for metric in case["metrics"].values():
            metric.pop("judge", None)
    path.write_text(json.dumps(data))
    _use_judge(accepted, None)  # the test config names num_samples 3: not the defaults, so compare the default judge
    test_config = accepted.parent / "evals" / "test_config.json"
    config = json.loads(test_config.read_text())
    for criterion in config["criteria"].values():
        if isinstance(criterion, dict):
            criterion.pop("judge_model_options", None)
    test_config.write_text(json.dumps(config))
    with FakeOpenAI(responder=strict_verdicts) as fake:
        _, _, comment = _pr_run(accepted, monkeypatch, fake)
    assert "`final_response_match_v2`: judge gemini-2.5-flash → openai/gpt-4o (gpt-4o-2024-08-06)" in comment
    assert "could not be re-judged" in comment


def test_shards_keep_their_re_judged_baseline_through_merge(accepted, monkeypatch):
    with FakeOpenAI(responder=strict_verdicts) as fake:
        _use_judge(accepted, "openai/gpt-4o")
        _env(monkeypatch, fake.env())
        shards = [str(accepted.parent / f"shard{i}.json") for i in (1, 2)]
        for i, out in enumerate(shards, start=1):
            main(["run", "--config", str(accepted), "-q", "--no-gate", "--shard", f"{i}/2", "--json", out])
    merged = accepted.parent / "merged.json"
    assert main(["merge", *shards, "--json", str(merged)]) == 0
    assert len(json.loads(merged.read_text())["rejudged"]) == 18
    assert main(["compare", str(merged), "--config", str(accepted)]) == 0


def test_the_recorded_outputs_are_the_planned_runs_and_a_re_judged_history_is_those_runs(accepted, monkeypatch):
    """The baseline's scores come from a case's planned runs (re-runs chosen by outcome would bias
    them), so its recorded outputs are those runs; re-judged, they are the case's whole history."""
    from agenteval_ci.core.judge_change import judged_alike
    from agenteval_ci.core.recorded_outputs import outputs_digest, recorded_runs
    from agenteval_ci.files.baseline_file import load_baseline
    from agenteval_ci.files.results_file import read_results

    case = read_results(accepted.parent / ".agenteval" / "results.json").cases[1]
    rerun = case.runs[0].model_copy(update={"index": 1})
    with_rerun = case.model_copy(update={"runs": [*case.runs, rerun], "planned_runs": 1})
    assert len(recorded_runs(with_rerun)) == 1 and outputs_digest(with_rerun) == outputs_digest(case)
    with FakeOpenAI(responder=strict_verdicts) as fake:
        _pr_run(accepted, monkeypatch, fake)
    baseline = load_baseline(accepted.parent / ".agenteval" / "baseline.json")
    adjusted, _ = judged_alike(read_results(accepted.parent / ".agenteval" / "results.json"), baseline)
    before = baseline.case("default", "lights", "case2").metrics["final_response_match_v2"]
    after = adjusted.case("default", "lights", "case2").metrics["final_response_match_v2"]
    assert (before.history, after.history) == ("P", "F")  # Gemini called light 2 valid; the strict judge, invalid
    assert after.judge != before.judge and after.status.value == "FAILED"


def test_rejudge_and_judge_agreement_quiet(accepted, monkeypatch, capsys, tmp_path):
    """-q on the two commands: rejudge keeps its verdict and drops its cost line; judge-agreement keeps its table."""
    with FakeGemini(responder=verdicts) as gemini, FakeOpenAI(responder=strict_verdicts) as fake:
        _env(monkeypatch, {**gemini.env(), **fake.env()})
        baseline = str(accepted.parent / ".agenteval" / "baseline.json")
        assert main(["rejudge", baseline, "--config", str(accepted), "-q"]) == 0
        quiet = capsys.readouterr()
        assert "gate passed" in quiet.out and "0 agent calls" not in quiet.err
        assert main(["judge-agreement", baseline, "--config", str(accepted), "--judge", "openai/gpt-4o", "-q",
                     "--html", str(tmp_path / "a.html")]) == 0
        quiet = capsys.readouterr()
    assert quiet.out.count("final_response_match_v2") >= 1 and "the report is in" not in quiet.err


def _outcomes(config: Path) -> dict[str, str]:
    out = config.parent / "comparison.json"
    main(["compare", "--config", str(config), "-q", "--json", str(out)])
    return {case["eval_id"]: case["outcome"] for case in json.loads(out.read_text())["cases"]}


def test_a_judge_change_alone_relabels_no_case(accepted, monkeypatch):
    """Gemini called lights 0 and 3 invalid, the strict judge 0, 2 and 4: on the same outputs.
    The case outcomes follow the re-judged stand-ins the gate compares with, so cases 2 and 4
    are not newly failing nor case 3 fixed; the comment and report say the same."""
    with FakeOpenAI(responder=strict_verdicts) as fake:
        code, results, comment = _pr_run(accepted, monkeypatch, fake)
    assert code == 0, comment
    assert {r["eval_id"]: r["status"] for r in results["cases"]}["case2"] == "FAILED"  # the strict judge's verdict
    assert set(_outcomes(accepted).values()) == {"unchanged"}
    assert "NEWLY FAILING" not in comment.upper().replace("_", " ") and "FIXED" not in comment.upper()
    report = accepted.parent / "report.json"
    assert main(["report", str(accepted.parent / ".agenteval" / "results.json"), "--config", str(accepted),
                 "--format", "json", "-o", str(report)]) == 0
    assert {case["outcome"] for case in json.loads(report.read_text())["cases"]} == {"unchanged"}


def test_a_lenient_judge_marks_no_case_fixed(accepted, monkeypatch):
    def lenient(request: ChatRequest) -> dict:
        reply = good_reply(request.prompt_text)
        if "verdict" in reply:
            reply["verdict"] = "valid"
        return text_reply(json.dumps(reply), model="gpt-4o-2024-08-06")

    with FakeOpenAI(responder=lenient) as fake:
        code, _, comment = _pr_run(accepted, monkeypatch, fake)
    assert code == 0, comment
    assert set(_outcomes(accepted).values()) == {"unchanged"}


def test_a_judge_change_beside_a_broken_agent_labels_only_the_agents_cases(accepted, monkeypatch):
    with FakeOpenAI(responder=strict_verdicts) as fake:
        code, _, comment = _pr_run(accepted, monkeypatch, fake, agent=BROKEN_AGENT)
    assert code == 1
    outcomes = _outcomes(accepted)
    assert "unchanged" not in outcomes.values() and set(outcomes.values()) <= {"regressed", "newly_failing", "worsened"}
