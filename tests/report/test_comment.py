"""The PR comment and the job summary: golden files, size limits, escaping.

The golden scenario is scored for real: `agenteval score` with a rubric metric judged by
the loopback fake Gemini server. Regenerate goldens with AGENTEVAL_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.report import comment_marker, render_comment, render_summary
from agenteval_ci.schema.settings import GateSettings
from tests.fakes.gemini import FakeGemini
from tests.judge.helpers import json_reply
from tests.report.scored import EXPECTED, Turn, lights, score, weather

GOLDEN = Path(__file__).parent / "golden"
RUBRICS = [
    {"rubric_id": "confirms", "rubric_content": {"text_property": "The reply confirms what was done."}},
    {"rubric_id": "polite", "rubric_content": {"text_property": "The reply is polite."}},
]
CONFIG = {
    "criteria": {
        "tool_trajectory_avg_score": 1.0,
        "response_match_score": 0.8,
        "rubric_based_final_response_quality_v1": {"threshold": 0.8, "rubrics": RUBRICS, "judge_model_options": {"num_samples": 1}},
    }
}


def judge(request):
    """Says the reply does not confirm the action when it talks about a lamp being turned on."""
    confirms = "lamp" not in request.prompt_text
    why = "It states the action taken." if confirms else "It says the lamp was turned on, the user asked for off."
    return json_reply({"rubrics": [
        {"id": "confirms", "rationale": why, "verdict": "yes" if confirms else "no"},
        {"id": "polite", "rationale": "Courteous.", "verdict": "yes"},
    ]})


def golden_scenario(tmp_path, monkeypatch):
    """A regression (with a trajectory, response and judge diff), a changed test, a new and a removed case."""
    base, new = golden_results(tmp_path, monkeypatch)
    return new, compare(new, baseline_from_results(base), GateSettings())


def golden_results(tmp_path, monkeypatch):
    """The golden scenario's baseline results and the PR's."""
    with FakeGemini(responder=judge) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        flags = ["--no-judge-cache"]
        base = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "base.json", config=CONFIG, flags=flags)
        expected = {"lights": EXPECTED["lights"], "weather": weather(city="Rome", reply="It is sunny in Rome."),
                    "alarm": [Turn("Wake me at 7", "Alarm set for 7:00.", [("alarm", {"at": "07:00"})])]}
        broken = lights(on=True, reply="I turned the lamp on.", extra=[("notify", {"msg": "done"})])
        actual = {**expected, "lights": broken, "weather": weather()}
        new = score(tmp_path, expected, [actual, actual], "new.json", config=CONFIG, flags=flags)
    # wall-clock figures vary run to run; everything else is deterministic
    new = new.model_copy(update={"stats": new.stats.model_copy(update={"duration_seconds": 12.5})})
    return base, new


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("AGENTEVAL_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"{name} changed; rerun with AGENTEVAL_UPDATE_GOLDEN=1 if intended"


def test_comment_and_summary_match_the_golden_files(tmp_path, monkeypatch):
    results, comparison = golden_scenario(tmp_path, monkeypatch)
    assert comparison.verdict == "failed"
    assert {c.eval_id: c.outcome for c in comparison.cases} == {"lights": "regressed", "weather": "incomparable", "alarm": "new", "music": "removed"}
    comment = render_comment(comparison, results)
    check_golden("comment.md", comment)
    check_golden("summary.md", render_summary(comparison, results))
    assert comment.startswith(comment_marker("default") + "\n> [!CAUTION]\n")
    assert "| `confirms` | 100% | 0% | 1 |" in comment  # per-rubric breakdown, baseline vs PR
    assert "It says the lamp was turned on" in comment  # the judge's rationale
    assert "! set_device(" in comment and "+ notify(" in comment
    assert "Incomparable: the test changed, the baseline needs accepting (1)" in comment


def _many_regressions(results, copies: int):
    """`copies` clones of each scored case under new ids: a big suite without scoring it again."""
    cases = [c.model_copy(update={"eval_id": f"{c.eval_id}-{i:04d}"}) for i in range(copies) for c in results.cases]
    return results.model_copy(update={"cases": cases})


def test_5000_case_suite_with_many_regressions_fits_in_a_comment(tmp_path):
    good = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "good.json")
    long_reply = "I turned the lamp on. " * 40
    bad_runs = [{**EXPECTED, "lights": lights(on=True, reply=long_reply), "weather": weather(city="Rome")}] * 2
    bad = score(tmp_path, EXPECTED, bad_runs, "bad.json")
    base, new = _many_regressions(good, 1667), _many_regressions(bad, 1667)
    comparison = compare(new, baseline_from_results(base), GateSettings())
    assert len(new.cases) == 5001 and comparison.regressions == 3334
    comment = render_comment(comparison, new)
    assert len(comment) <= 65536
    shown = comment.count("#### `")
    assert 0 < shown < 3334
    assert f"_{comparison.regressions - shown} more in the full report" in comment
    assert render_comment(comparison, new) == comment  # deterministic
    summary = render_summary(comparison, new)
    assert len(summary.encode()) < 1024 * 1024 and summary.count("#### `") > shown


def test_agent_text_cannot_break_out_of_its_code_block(tmp_path):
    base = score(tmp_path, EXPECTED, [EXPECTED], "base.json")
    sneaky = "````\n</details><img src=x onerror=alert(1)>\n````"
    new = score(tmp_path, EXPECTED, [{**EXPECTED, "lights": lights(on=True, reply=sneaky)}], "new.json")
    comment = render_comment(compare(new, baseline_from_results(base), GateSettings()), new)
    fence = "`````diff"
    assert fence in comment
    block = comment.split(fence, 2)[2] if comment.count(fence) > 1 else comment.split(fence, 1)[1]
    assert "<img" in block.split("\n`````\n")[0]  # the HTML stays inside the fenced block


def test_no_baseline_comment_says_how_to_create_one(tmp_path):
    results = score(tmp_path, EXPECTED, [EXPECTED], "r.json")
    comment = render_comment(compare(results, None, GateSettings()), results, suite="smoke", baseline_path="evals/base.json")
    assert comment.startswith("<!-- agenteval-ci:suite=smoke -->\n> [!NOTE]\n")
    assert "agenteval accept results.json --baseline evals/base.json" in comment


@pytest.mark.parametrize("limit", [2000, 5000])
def test_tiny_limits_still_hold(tmp_path, limit):
    base = score(tmp_path, EXPECTED, [EXPECTED], "base.json")
    new = score(tmp_path, EXPECTED, [{**EXPECTED, "lights": lights(on=True), "music": lights()}], "new.json")
    comment = render_comment(compare(new, baseline_from_results(base), GateSettings()), new, max_chars=limit)
    assert len(comment) <= limit
