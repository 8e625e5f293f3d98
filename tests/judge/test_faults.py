"""`agenteval run` against a faulty judge (the fake Gemini), as a user with a flaky provider sees it:
a sample is all or nothing, a fault a new draw can fix is drawn again, anything else leaves the
score NOT_EVALUATED with the reason and fails a first run's gate, and nothing but complete
verdicts is ever cached, so a fault-free run afterwards scores exactly as one without faults (issue 22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.fakes.gemini import TRANSIENT_FAULTS, FakeGemini, Fault
from tests.judge.judged_project import (
    JUDGED,
    NOT_REDRAWN,
    REPLY_FAULTS,
    cache_entries,
    faulty,
    judged_scores,
    verdicts,
    write_project,
)

# What the reason says for each kind of reply (of final_response_match_v2, the first metric of a case).
REASONS = {
    "unreadable label": "unreadable judge reply (\"verdict\" is 'maybe', not one of valid, true, invalid, false, almost, partially_valid, partially valid, partially)",
    "missing rubric": "unreadable judge reply (\"verdict\" is missing, not one of valid, true, invalid, false, almost, partially_valid, partially valid, partially)",
    "truncated": "the judge's reply was cut short (finish reason MAX_TOKENS)",
    "sorry": "unreadable judge reply (no JSON object): 'Sorry, I hit my output limit'",
    "malformed JSON": "unreadable judge reply (malformed JSON: ",
    "no candidates": "the judge returned no candidates",
    "safety block": "the judge's reply was blocked (finish reason SAFETY)",
    "blocked prompt": "the judge's prompt was blocked (block reason SAFETY)",
}
ENV_NAMES = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_CLOUD_PROJECT")


def run(fake: FakeGemini, config: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> tuple[int, dict]:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in fake.env().items():
        monkeypatch.setenv(name, value)
    out = config.parent / "r.json"
    code = main(["run", "--config", str(config), "--json", str(out), *extra])
    return code, json.loads(out.read_text())


@pytest.fixture(scope="module")
def fault_free(tmp_path_factory):
    """The scores and exit code of a run whose judge never fails."""
    config = write_project(tmp_path_factory.mktemp("fault_free"))
    with pytest.MonkeyPatch.context() as monkeypatch, FakeGemini(responder=verdicts) as fake:
        code, results = run(fake, config, monkeypatch)
    scores = judged_scores(results)
    assert {status for _, status, _ in scores.values()} == {"PASSED", "FAILED"}  # every judged score evaluated
    return code, scores, results["stats"]["judge_calls"]


def assert_heals(config: Path, monkeypatch, fault_free) -> None:
    """A fault-free run on the same cache judges what failed and scores as a run without
    faults; a third makes no judge call: every entry left is a complete verdict."""
    with FakeGemini(responder=verdicts) as fake:
        code, results = run(fake, config, monkeypatch)
        assert (code, judged_scores(results)) == fault_free[:2]
        again_code, again = run(fake, config, monkeypatch)
    assert again["stats"]["judge_calls"] == 0 and judged_scores(again) == fault_free[1]


@pytest.mark.parametrize("kind", REPLY_FAULTS)
def test_a_reply_the_metric_cannot_read_whole_is_never_a_score_nor_cached(tmp_path, monkeypatch, capsys, kind, fault_free):
    config = write_project(tmp_path, judge="max_retries: 2")
    with FakeGemini(responder=faulty((kind,), rate=1.0)) as fake:
        code, results = run(fake, config, monkeypatch, "--md", str(tmp_path / "comment.md"))
    out = capsys.readouterr().out
    metrics = [case["metrics"][name] for case in results["cases"] for name in JUDGED]
    assert {m["status"] for m in metrics} == {"NOT_EVALUATED"} and {m.get("score") for m in metrics} == {None}
    match = results["cases"][0]["metrics"]["final_response_match_v2"]["reason"]
    assert REASONS[kind] in match
    assert ("draws)" in match) == (kind not in NOT_REDRAWN)  # drawn again, unless a content filter stopped it
    # The first run with no baseline fails, with the reason, in the terminal and the comment.
    first = f"gated score(s) not evaluated, with no baseline score to stand in for them (first: default/lights/case0 final_response_match_v2: sample 1 of 3: {REASONS[kind]}"
    assert code == 1 and first in out and first in (tmp_path / "comment.md").read_text()
    assert cache_entries(tmp_path / ".agenteval" / "cache") == []
    assert_heals(config, monkeypatch, fault_free)


def test_the_rubric_metric_names_the_rubric_it_could_not_read(tmp_path, monkeypatch):
    config = write_project(tmp_path, judge="max_retries: 1", cases=1)
    with FakeGemini(responder=faulty(("missing rubric",), rate=1.0)) as fake:
        _, results = run(fake, config, monkeypatch)
    metrics = results["cases"][0]["metrics"]
    assert "unreadable judge reply (no verdict on rubric(s) 'confirms')" in metrics["rubric_based_final_response_quality_v1"]["reason"]
    assert "sentence split: sample 1 of 1: unreadable judge reply (no \"sentences\" list of str items)" in metrics["hallucinations_v1"]["reason"]


def test_replies_unusable_at_30_percent_are_drawn_again_and_change_no_score(tmp_path, monkeypatch, fault_free):
    config = write_project(tmp_path, judge="max_retries: 10")
    redrawn = tuple(k for k in REPLY_FAULTS if k not in NOT_REDRAWN)
    with FakeGemini(responder=faulty(redrawn, rate=0.3, seed=22)) as fake:
        code, results = run(fake, config, monkeypatch)
    assert (code, judged_scores(results)) == fault_free[:2]
    assert results["stats"]["judge_calls"] > fault_free[2]  # the unusable samples were asked again
    assert_heals(config, monkeypatch, fault_free)


def test_429_5xx_and_dropped_connections_at_30_percent_change_no_score(tmp_path, monkeypatch, fault_free):
    config = write_project(tmp_path, judge="max_retries: 10")
    with FakeGemini(responder=verdicts) as fake:
        fake.random_faults(0.3, TRANSIENT_FAULTS, seed=22)
        code, results = run(fake, config, monkeypatch)
    assert fake.faults_served > 0
    assert (code, judged_scores(results)) == fault_free[:2]
    assert results["stats"]["judge_calls"] == fault_free[2] + fake.faults_served


@pytest.mark.parametrize("fault, reason", [
    (Fault(429, "Resource has been exhausted (e.g. check quota).", retry_after=0.001), "HTTP 429: Resource has been exhausted"),
    (Fault(503, "The model is overloaded."), "HTTP 503: The model is overloaded."),
    (Fault(drop=True), "transport error "),  # httpx's RemoteProtocolError, or aiohttp's ServerDisconnectedError where it is installed
])
def test_a_provider_down_for_the_whole_run_fails_the_first_gate_and_caches_nothing(tmp_path, monkeypatch, capsys, fault_free, fault, reason):
    config = write_project(tmp_path, judge="max_retries: 1", cases=2)
    with FakeGemini(responder=lambda request: fault) as fake:
        code, results = run(fake, config, monkeypatch)
    out = capsys.readouterr().out
    assert code == 1 and "with no baseline score to stand in for them" in out and reason in out
    assert {c["metrics"]["tool_trajectory_avg_score"]["status"] for c in results["cases"]} == {"PASSED"}
    assert cache_entries(tmp_path / ".agenteval" / "cache") == []
    summary = tmp_path / "summary.md"
    assert main(["report", str(tmp_path / "r.json"), "--config", str(config), "--format", "summary", "-o", str(summary)]) == 0
    assert "with no baseline score to stand in for them" in summary.read_text() and reason in summary.read_text()


def test_adk_evals_form_is_no_pass_with_the_judge_down_either(tmp_path, monkeypatch, capsys):
    write_project(tmp_path, cases=2)  # adk eval's form reads no agenteval.yaml: the judge's default retries
    monkeypatch.chdir(tmp_path)
    with FakeGemini(responder=lambda request: Fault(503, "overloaded", retry_after=0.001)) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        code = main(["run", "agent.py:agent", "evals/lights.evalset.json", "--json", "r.json"])
    captured = capsys.readouterr()
    assert "Tests passed: 2" in captured.out  # adk eval's case rule: NOT_EVALUATED does not fail a case
    assert code == 1 and "agenteval: error: 6 gated score(s) not evaluated, and no evidence is not a pass (first: default/lights/case0 final_response_match_v2: sample 1 of 3: judge call failed: HTTP 503: overloaded)" in captured.err


def test_a_poisoned_cache_heals_on_the_next_run(tmp_path, monkeypatch, capsys, fault_free):
    """Entries an older release wrote from half-read replies: each is a miss with a warning,
    judged again and replaced."""
    config = write_project(tmp_path)
    with FakeGemini(responder=verdicts) as fake:
        run(fake, config, monkeypatch)
    entries = cache_entries(tmp_path / ".agenteval" / "cache")
    for path in entries:
        entry = json.loads(path.read_text())
        reply = json.loads(entry["text"])
        if "rubrics" in reply:
            reply["rubrics"] = reply["rubrics"][:1]  # one rubric lost
        elif "verdict" in reply:
            reply["verdict"] = "maybe"
        else:
            reply = "Sorry, I hit my output limit"
        path.write_text(json.dumps({**entry, "text": reply if isinstance(reply, str) else json.dumps(reply)}))
    capsys.readouterr()
    assert_heals(config, monkeypatch, fault_free)
    err = capsys.readouterr().err
    assert err.count("warning: ignoring a judge cache entry") == len(entries)
    assert "not a complete verdict (no verdict on rubric(s) 'concise')" in err


def test_init_writes_no_baseline_while_the_judge_is_down(tmp_path, monkeypatch, capsys):
    write_project(tmp_path, judge="max_retries: 0", cases=2)
    with FakeGemini(responder=lambda request: Fault(503, "overloaded")) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        assert main(["init", str(tmp_path)]) == 2  # no first baseline: never a pass
    out = capsys.readouterr().out
    assert "no baseline written" in out and "final_response_match_v2 not evaluated" in out
    assert "fix that, then: agenteval run --new-baseline && agenteval accept" in out
    assert not (tmp_path / ".agenteval" / "baseline.json").exists()
