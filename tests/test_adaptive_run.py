"""`num_runs: auto` end to end through the CLI, with a Python-callable agent whose flakiness
is scripted per case and run index (script.json), so every outcome here is deterministic."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main

AGENT = '''
import json, pathlib

SCRIPT = pathlib.Path(__file__).with_name("script.json")

def agent(text, session):
    """The right tool, unless script.json lists this run index (or "all") for this case."""
    fails = json.loads(SCRIPT.read_text()).get(session.case_id, [])
    tool = "wrong" if session.run_index in fails or "all" in fails else "lookup"
    return {"response": "ok", "tool_calls": [{"name": tool, "args": {"q": text}}]}
'''
CASES = [f"c{i}" for i in range(10)]


def project(tmp_path: Path, runs: str, script: dict, extra: str = "", cases: int = len(CASES)) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "script.json").write_text(json.dumps(script))
    evals = tmp_path / "evals"
    evals.mkdir(exist_ok=True)
    turn = lambda i: {"user_content": {"parts": [{"text": f"hi {i}"}]}, "intermediate_data": {"tool_uses": [{"name": "lookup", "args": {"q": f"hi {i}"}}]}}  # noqa: E731
    eval_cases = [{"eval_id": f"c{i}", "conversation": [turn(f"c{i}")]} for i in range(cases)]
    (evals / "a.evalset.json").write_text(json.dumps({"eval_set_id": "s", "eval_cases": eval_cases}))
    (evals / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    config = tmp_path / "agenteval.yaml"
    config.write_text(f"suites:\n  - agent: agent.py:agent\n    eval_sets: evals/*.evalset.json\n    num_runs: {runs}\n{extra}")
    return config


def accept_baseline(tmp_path: Path, runs: int, script: dict, cases: int = len(CASES)) -> dict:
    """A fixed-run baseline, accepted through the CLI."""
    config = project(tmp_path, str(runs), script, cases=cases)
    main(["run", "--config", str(config), "--json", str(tmp_path / "base.json"), "--no-gate"])
    assert main(["accept", str(tmp_path / "base.json"), "--config", str(config), "--allow-failed"]) == 0
    return json.loads((tmp_path / ".agenteval" / "baseline.json").read_text())


def runs_of(path: Path) -> dict[str, int]:
    return {c["eval_id"]: len(c["runs"]) for c in json.loads(path.read_text())["cases"]}


def test_only_the_unsure_case_runs_again_and_the_report_says_why(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    baseline = accept_baseline(tmp_path, 3, {"c1": [1]})  # c1 flaky: the suite is not deterministic
    histories = {c: baseline["suites"]["default"]["s"][c]["metrics"]["tool_trajectory_avg_score"]["history"] for c in ("c0", "c1")}
    assert histories == {"c0": "PPP", "c1": "PFP"}
    config = project(tmp_path, "auto", {"c3": [0]})  # c3 fails its first run only: noise, not a regression
    capsys.readouterr()
    code = main(["run", "--config", str(config), "--json", str(tmp_path / "new.json"), "--md", str(tmp_path / "comment.md")])
    out = capsys.readouterr()
    assert code == 0, out.out
    runs = runs_of(tmp_path / "new.json")
    assert runs["c3"] > 1 and all(n == 1 for c, n in runs.items() if c != "c3")
    results = json.loads((tmp_path / "new.json").read_text())
    c3 = next(c for c in results["cases"] if c["eval_id"] == "c3")
    assert [r["index"] for r in c3["runs"]] == list(range(runs["c3"]))  # each re-run is a new sample
    assert c3["runs_note"].startswith(f"{runs['c3']} runs: re-run as tool_trajectory_avg_score: failed against its history (history passed 3/3, now 0/1; chance it dropped")
    assert c3["runs_note"].endswith("then settled") and c3["planned_runs"] == 1
    assert results["adaptive"]["runs"] == 9 + runs["c3"] and results["adaptive"]["stopped"].startswith("settled")
    comment = (tmp_path / "comment.md").read_text()
    assert "Runs per case (num_runs: auto): 1 case(s) run again" in comment and "- `default / s / c3`: " in comment  # named as every report names it
    assert f"runs: {c3['runs_note']}" in out.out and "round 2: running 1 case(s) again" in out.err


def test_a_regression_is_decided_without_more_runs_and_fails(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 3, {"c1": [1]})
    config = project(tmp_path, "auto", {"c3": ["all"], "c4": ["all"], "c5": ["all"]})
    assert main(["run", "--config", str(config), "--json", str(tmp_path / "new.json")]) == 1
    out = capsys.readouterr().out
    assert "tool_trajectory_avg_score: regressed (sequential evidence" in out
    assert "the gate decided" in json.loads((tmp_path / "new.json").read_text())["adaptive"]["stopped"]


def test_a_deterministic_suite_costs_one_run_per_case_and_a_confirmed_break_still_fails(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 2, {})  # every case agrees with itself: no noise anywhere
    config = project(tmp_path, "auto", {})
    assert main(["run", "--config", str(config), "--json", str(tmp_path / "same.json")]) == 0
    assert set(runs_of(tmp_path / "same.json").values()) == {1}
    config = project(tmp_path, "auto", {"c7": ["all"]})
    assert main(["run", "--config", str(config), "--json", str(tmp_path / "broken.json")]) == 1
    runs = runs_of(tmp_path / "broken.json")
    assert 1 < runs["c7"] < 10 and all(n == 1 for c, n in runs.items() if c != "c7")  # confirmed, then failed
    c7 = next(c for c in json.loads((tmp_path / "broken.json").read_text())["cases"] if c["eval_id"] == "c7")
    assert "failed against its history (history passed 2/2, now 0/1" in c7["runs_note"] and "then the gate decided" in c7["runs_note"]


def test_a_flaky_cases_flip_is_confirmed_as_noise_not_failed_as_a_break(tmp_path, monkeypatch):
    """One passing baseline run per case, one case flaky: its two failing runs in the pull
    request made the old rule fail the gate ("deterministic"); re-runs show it passes too."""
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 1, {})
    config = project(tmp_path, "auto", {"c4": [0, 1]})  # fails twice, then passes
    assert main(["run", "--config", str(config), "--json", str(tmp_path / "new.json")]) == 0
    assert runs_of(tmp_path / "new.json")["c4"] > 2


def test_a_flip_against_a_single_baseline_run_is_run_again_to_tell_noise_from_a_break(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 1, {})
    config = project(tmp_path, "auto", {"c2": [0]})  # fails once, then passes: noise
    main(["run", "--config", str(config), "--json", str(tmp_path / "new.json")])
    assert runs_of(tmp_path / "new.json")["c2"] >= 2


def test_unsure_at_the_end_and_leaning_toward_a_drop_fails_saying_what_would_settle_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 3, {"c1": [1]})
    config = project(tmp_path, "auto", {"c3": ["all"]}, extra="    max_runs: 3\n")  # too few runs to be sure
    assert main(["run", "--config", str(config), "--json", str(tmp_path / "new.json"), "--md", str(tmp_path / "comment.md")]) == 1
    out = capsys.readouterr().out
    assert "still unsure when the runs ended, and the evidence leans toward a drop" in out
    assert "most of all default/s/c3 (history passed 3/3, now 0/3; chance it dropped " in out
    assert "more failing run(s) would make the gate sure of a drop" in out
    assert "it reached max_runs (raise max_runs or run_budget)" in out
    assert "still unsure when the runs ended" in (tmp_path / "comment.md").read_text()
    c3 = next(c for c in json.loads((tmp_path / "new.json").read_text())["cases"] if c["eval_id"] == "c3")
    assert c3["runs_note"].startswith("3 runs: re-run as tool_trajectory_avg_score: failed against its history")
    assert "; still wanted at max_runs (3), as tool_trajectory_avg_score: failed against its history (history passed 3/3, now 0/3; chance it dropped" in c3["runs_note"]


def test_out_of_budget_and_unsure_but_not_leaning_passes_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 3, {"c1": [1]})
    config = project(tmp_path, "auto", {"c3": [0]}, extra="    run_budget: 1\n")  # no room for a second run
    main(["run", "--config", str(config), "--json", str(tmp_path / "new.json")])
    c3 = next(c for c in json.loads((tmp_path / "new.json").read_text())["cases"] if c["eval_id"] == "c3")
    assert c3["runs_note"].startswith("1 run: unsure as tool_trajectory_avg_score: failed against its history")
    assert "still wanted when the run budget ran out, as tool_trajectory_avg_score: failed against its history" in c3["runs_note"]


def test_accept_keeps_each_cases_counts_from_an_adaptive_run(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 3, {"c1": [1]})
    config = project(tmp_path, "auto", {"c3": [0]})
    main(["run", "--config", str(config), "--json", str(tmp_path / "new.json")])
    runs = runs_of(tmp_path / "new.json")
    assert main(["accept", str(tmp_path / "new.json"), "--config", str(config), "--allow-failed"]) == 0
    baseline = json.loads((tmp_path / ".agenteval" / "baseline.json").read_text())
    c3 = baseline["suites"]["default"]["s"]["c3"]["metrics"]["tool_trajectory_avg_score"]
    assert c3["history"] == "PPP F+" + "P" * (runs["c3"] - 1)  # every run counts in the history ...
    assert (c3["run_statuses"], c3["score"]) == (["FAILED"], 0.0)  # ... the rate only the planned ones


def test_each_shard_adapts_its_own_cases_and_the_merge_adds_up(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 3, {"c1": [1]})
    config = project(tmp_path, "auto", {"c3": [0]})
    shards = []
    for i in (1, 2):
        path = tmp_path / f"shard{i}.json"
        main(["run", "--config", str(config), "--shard", f"{i}/2", "--json", str(path), "--no-gate"])
        shards.append(path)
    with_c3 = next(p for p in shards if "c3" in runs_of(p))
    assert runs_of(with_c3)["c3"] > 1
    assert all(n == 1 for p in shards for c, n in runs_of(p).items() if c != "c3")
    assert main(["merge", *map(str, shards), "--json", str(tmp_path / "merged.json")]) == 0
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert merged["adaptive"]["runs"] == sum(json.loads(p.read_text())["adaptive"]["runs"] for p in shards) == 9 + runs_of(with_c3)["c3"]
    assert main(["compare", str(tmp_path / "merged.json"), "--config", str(config)]) == 0


def test_bad_adaptive_settings_are_usage_errors_naming_the_file_and_key(tmp_path, capsys):
    for runs, extra, words in [
        ("3", "    max_runs: 5\n", "max_runs: only with `num_runs: auto`"),
        ("auto", "    min_runs: 5\n    max_runs: 2\n", "min_runs (5) is above max_runs (2)"),
        ("auto", "    run_budget: 20\n", "run_budget (20 runs per case) must lie between"),
        ("sometimes", "", "$.suites[0].num_runs"),
        ("0", "", "from 1 to 100"),
    ]:
        config = project(tmp_path, runs, {}, extra)
        assert main(["run", "--config", str(config)]) == 2
        err = capsys.readouterr().err
        assert "agenteval.yaml" in err and "$.suites[0]" in err and words in err, err


JUDGED_AGENT = '''
import json, pathlib

def agent(text, session):
    replies = json.loads(pathlib.Path(__file__).with_name("replies.json").read_text())
    return {"response": replies[session.case_id]}
'''


def test_a_rerun_is_a_new_judge_sample_never_the_cached_verdict_of_an_earlier_run(tmp_path, monkeypatch):
    """The same output judged again in a later round is a repeat: a fresh request to the
    judge, not the cache entry of the case's first run."""
    from tests.fakes.gemini import FakeGemini
    from tests.judge.helpers import json_reply

    seen: dict[str, int] = {}
    verdicts = {"WOBBLY": ["valid", "invalid", "valid"], "AFTER": ["invalid"]}  # then "valid"

    def responder(request):
        token = next((t for t in ("WOBBLY", "AFTER") if t in request.prompt_text), "")
        nth = seen[token] = seen.get(token, 0) + 1
        script = verdicts.get(token, [])
        return json_reply({"reasoning": "r", "verdict": script[nth - 1] if nth <= len(script) else "valid"})

    monkeypatch.setenv("CI", "true")
    (tmp_path / "agent.py").write_text(JUDGED_AGENT)
    evals = tmp_path / "evals"
    evals.mkdir()
    ids = ["steady", "wobbly", "flip"]
    turn = {"user_content": {"parts": [{"text": "hi"}]}, "final_response": {"parts": [{"text": "expected"}]}}
    (evals / "a.evalset.json").write_text(json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": i, "conversation": [turn]} for i in ids]}))
    criterion = {"threshold": 0.5, "judge_model_options": {"num_samples": 1}}
    (evals / "test_config.json").write_text(json.dumps({"criteria": {"final_response_match_v2": criterion}}))
    config = tmp_path / "agenteval.yaml"
    replies = tmp_path / "replies.json"
    with FakeGemini(responder=responder) as fake:
        for key, value in fake.env().items():
            monkeypatch.setenv(key, value)
        replies.write_text(json.dumps({"steady": "STEADY", "wobbly": "WOBBLY", "flip": "BEFORE"}))
        config.write_text("suites:\n  - agent: agent.py:agent\n    eval_sets: evals/*.evalset.json\n    num_runs: 3\n")
        main(["run", "--config", str(config), "--json", str(tmp_path / "base.json"), "--no-gate"])
        assert main(["accept", str(tmp_path / "base.json"), "--config", str(config), "--allow-failed"]) == 0
        replies.write_text(json.dumps({"steady": "STEADY", "wobbly": "WOBBLY", "flip": "AFTER"}))
        config.write_text("suites:\n  - agent: agent.py:agent\n    eval_sets: evals/*.evalset.json\n    num_runs: auto\n")
        code = main(["run", "--config", str(config), "--json", str(tmp_path / "new.json")])
    flip = next(c for c in json.loads((tmp_path / "new.json").read_text())["cases"] if c["eval_id"] == "flip")
    statuses = [r["status"] for r in flip["metrics"]["final_response_match_v2"]["runs"]]
    assert len(statuses) >= 2 and statuses[0] == "FAILED" and set(statuses[1:]) == {"PASSED"}
    assert seen["AFTER"] == len(statuses)  # every run of the same output reached the judge
    assert code == 0


def test_bad_gate_settings_for_adaptive_runs_name_the_key(tmp_path, capsys):
    config = project(tmp_path, "auto", {})
    config.write_text(config.read_text() + "gate:\n  power: 1.5\n  case_drop: 0\n")
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "$.gate.power" in err and "$.gate.case_drop" in err


def test_a_first_baseline_runs_every_case_five_times_and_the_disagreeing_ones_more(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    config = project(tmp_path, "1", {"c2": [1, 3, 6]})  # c2 flaky; the suite's own num_runs is 1
    assert main(["run", "--config", str(config), "--new-baseline", "--num-runs", "3"]) == 2
    assert "--new-baseline chooses how often each case runs" in capsys.readouterr().err
    assert main(["run", "--config", str(config), "--new-baseline", "--json", str(tmp_path / "first.json")]) == 1  # c2 below threshold
    runs = runs_of(tmp_path / "first.json")
    assert runs["c2"] == 10 and all(n == 5 for c, n in runs.items() if c != "c2")
    results = json.loads((tmp_path / "first.json").read_text())
    c2 = next(c for c in results["cases"] if c["eval_id"] == "c2")
    assert c2["planned_runs"] == 5 and "its runs disagree" in c2["runs_note"]
    assert main(["accept", str(tmp_path / "first.json"), "--config", str(config), "--allow-failed"]) == 0
    baseline = json.loads((tmp_path / ".agenteval" / "baseline.json").read_text())
    metric = lambda c: baseline["suites"]["default"]["s"][c]["metrics"]["tool_trajectory_avg_score"]  # noqa: E731
    assert metric("c0")["history"] == "PPPPP" and metric("c2")["history"] == "PFPFP+PFPPP"
    assert metric("c2")["run_statuses"] == ["PASSED", "FAILED", "PASSED", "FAILED", "PASSED"]  # the planned runs


def test_a_case_failing_every_run_fails_the_gate_even_against_a_one_run_baseline(tmp_path, monkeypatch, capsys):
    """The issue's case: 100 cases, one passing baseline run each; now one case fails all its
    runs while five fail once, then pass."""
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 1, {}, cases=100)
    assert "too few to tell flaky cases from deterministic ones" in capsys.readouterr().out
    config = project(tmp_path, "auto", {"c7": ["all"], **{f"c{i}": [0] for i in range(10, 15)}}, cases=100)
    assert main(["run", "--config", str(config), "--json", str(tmp_path / "new.json")]) == 1
    assert main(["compare", str(tmp_path / "new.json"), "--config", str(config)]) == 1


def test_accepted_pull_requests_add_to_the_history_and_keep_rates_unbiased(tmp_path, monkeypatch):
    """run; accept; run; accept: every case fails its first run and passes its re-runs; the
    baseline's rate stays the first runs' (0 of 1), its history keeps every run."""
    monkeypatch.setenv("CI", "true")
    accept_baseline(tmp_path, 3, {"c1": [1]})
    for n in (1, 2):
        config = project(tmp_path, "auto", {"c4": [0]})
        main(["run", "--config", str(config), "--json", str(tmp_path / f"pr{n}.json"), "--no-gate"])
        assert main(["accept", str(tmp_path / f"pr{n}.json"), "--config", str(config), "--allow-failed"]) == 0
    baseline = json.loads((tmp_path / ".agenteval" / "baseline.json").read_text())
    c4 = baseline["suites"]["default"]["s"]["c4"]["metrics"]["tool_trajectory_avg_score"]
    c0 = baseline["suites"]["default"]["s"]["c0"]["metrics"]["tool_trajectory_avg_score"]
    assert c4["score"] == 0.0 and c4["history"].startswith("PPP F+P") and c4["history"].count("F+") == 2
    assert c0["history"] == "PPP P P"


def test_in_a_flaky_suite_a_first_baseline_runs_agreeing_cases_more_to_tell_flaky_from_deterministic(tmp_path, monkeypatch):
    """Three cases of ten fail one run in five: five agreeing runs of another case are then
    still likely luck, so it runs again (within the budget of 8 runs per case)."""
    monkeypatch.setenv("CI", "true")
    config = project(tmp_path, "auto", {"c1": [3], "c2": [3], "c3": [3]})
    main(["run", "--config", str(config), "--json", str(tmp_path / "first.json")])  # no baseline yet: a first baseline
    runs = runs_of(tmp_path / "first.json")
    flaky = [runs[c] for c in ("c1", "c2", "c3")]
    agreeing = [n for c, n in runs.items() if c not in ("c1", "c2", "c3")]
    assert min(flaky) >= max(agreeing) and min(agreeing) > 5 and sum(runs.values()) == 80  # the budget spent
    c0 = next(c for c in json.loads((tmp_path / "first.json").read_text())["cases"] if c["eval_id"] == "c0")
    assert "its runs agree (5/5 passed), but in this suite that is still" in c0["runs_note"]
