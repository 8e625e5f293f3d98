"""Budgets in the gate (docs/gate.md, "Budgets") and the agent's dollar cost, on results made by
the real pipeline: recorded agent turns carrying model usage, scored by `agenteval score`,
accepted and compared through the CLI."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from agenteval_ci.action.publish import check_title
from agenteval_ci.cli import main
from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.budgets import compare_budgets, t_cdf, t_quantile
from agenteval_ci.core.figures import run_figure
from agenteval_ci.core.gate import compare
from agenteval_ci.core.prices import BUILTIN_PRICES, UNREPORTED_MODEL, run_cost
from agenteval_ci.files.baseline_file import load_baseline
from agenteval_ci.files.results_file import read_results
from agenteval_ci.report import render_comment, render_html, render_junit, render_summary
from agenteval_ci.report.console import render_budgets
from agenteval_ci.schema import Invocation, Results
from agenteval_ci.schema.settings import GateSettings, ModelPrice

ONLY_RESPONSES = {"criteria": {"response_match_score": 0.5}}  # tool calls and tokens are free to change


def turn(user: str, reply: str, tokens_in: int, tokens_out: int, tools: int = 1, model: str | None = "gemini-2.5-flash") -> dict:
    """One recorded turn: `tools` model calls that call a tool, then one that replies; each model
    call reports its usage (and its model, unless None)."""
    def call(parts: list) -> dict:
        event = {"author": "agent", "content": {"role": "model", "parts": parts},
                 "usage_metadata": {"prompt_token_count": tokens_in, "candidates_token_count": tokens_out}}
        return {**event, "model_version": model} if model else event

    events = []
    for _ in range(tools):
        events.append(call([{"function_call": {"name": "lookup", "args": {"q": user}}}]))
        events.append({"author": "agent", "content": {"role": "user", "parts": [{"function_response": {"name": "lookup", "response": {"ok": True}}}]}})
    events.append(call([{"text": reply}]))
    return {"user_content": {"role": "user", "parts": [{"text": user}]},
            "final_response": {"role": "model", "parts": [{"text": reply}]},
            "intermediate_data": {"invocation_events": events}}


def write_set(path: Path, cases: dict[str, list[dict]]) -> Path:
    path.write_text(json.dumps({"eval_set_id": "shop", "eval_cases": [{"eval_id": k, "conversation": v} for k, v in cases.items()]}))
    return path


def expected(n: int) -> dict[str, list[dict]]:
    return {f"c{i}": [turn(f"question {i}", f"answer {i}", 0, 0)] for i in range(n)}


def scored(tmp_path: Path, name: str, runs: list[dict[str, list[dict]]], n: int, flags: tuple[str, ...] = ()) -> Results:
    folder = tmp_path / name
    folder.mkdir()
    evalset = write_set(folder / "shop.evalset.json", expected(n))
    (folder / "test_config.json").write_text(json.dumps(ONLY_RESPONSES))
    args = ["score", str(evalset), "--json", str(folder / "results.json"), *flags]
    for i, run in enumerate(runs):
        args += ["--actual", str(write_set(folder / f"run{i}.json", run))]
    assert main(args) == 0
    return read_results(folder / "results.json")


def runs_of(n: int, tokens: list[list[int]], tools: int = 1, model: str | None = "gemini-2.5-flash") -> list[dict[str, list[dict]]]:
    """tokens[r][i]: input tokens of case i in run r (output is a tenth of it)."""
    return [{f"c{i}": [turn(f"question {i}", f"answer {i}", t, t // 10, tools, model)] for i, t in enumerate(row)} for row in tokens]


def noisy_tokens(rng: random.Random, sizes: list[int], runs: int, scale: float = 1.0, spread: float = 0.25) -> list[list[int]]:
    return [[int(size * scale * math.exp(rng.gauss(0, spread))) for size in sizes] for _ in range(runs)]


BUDGETS = GateSettings(budgets={"token_usage_v1": "+10%", "tool_call_count_v1": "+0%", "cost_usd": "+5%"})


def baseline_of(results: Results, settings: GateSettings = BUDGETS):
    return baseline_from_results(results, figures=sorted({*settings.budget_keys(), "cost_usd"}))


# ---------------------------------------------------------------- the figures and their prices


def test_a_runs_cost_is_priced_call_by_call_and_an_unknown_model_is_never_free():
    calls = Invocation.model_validate(turn("q", "a", 1000, 100, tools=1))  # two calls of 1000 in / 100 out
    flash = BUILTIN_PRICES["gemini-2.5-flash"]
    assert run_cost([calls], {}).usd == pytest.approx(2 * (1000 * flash.input + 100 * flash.output) / 1e6)
    assert run_cost([calls], {"gemini-2.5-flash": ModelPrice(input=1, output=10)}).usd == pytest.approx(2 * 2000 / 1e6)
    # a long prompt pays gemini-2.5-pro's long-prompt prices
    long = Invocation.model_validate(turn("q", "a", 250_000, 1000, tools=0, model="gemini-2.5-pro-002"))
    assert run_cost([long], {}).usd == pytest.approx((250_000 * 2.50 + 1000 * 15.0) / 1e6)
    unknown = Invocation.model_validate(turn("q", "a", 1000, 100, model="my-tuned-model"))
    assert (run_cost([unknown], {}).usd, run_cost([unknown], {}).unpriced) == (None, ("my-tuned-model",))
    unnamed = Invocation.model_validate(turn("q", "a", 1000, 100, model=None))
    assert run_cost([unnamed], {}).unpriced == (UNREPORTED_MODEL,)
    assert run_cost([calls, unknown], {}).usd is None  # one unknown call makes the run's cost unknown, not smaller


def test_score_records_each_runs_cost_and_a_price_override_from_agenteval_yaml(tmp_path):
    results = scored(tmp_path, "flash", runs_of(2, [[1000, 2000]]), 2)
    costs = [c.runs[0].cost_usd for c in results.cases]
    flash = BUILTIN_PRICES["gemini-2.5-flash"]
    assert costs == pytest.approx([2 * (t * flash.input + t // 10 * flash.output) / 1e6 for t in (1000, 2000)])
    unknown = scored(tmp_path, "mine", runs_of(1, [[1000]], model="my-tuned-model"), 1)
    assert unknown.cases[0].runs[0].cost_usd is None and unknown.cases[0].runs[0].unpriced_models == ["my-tuned-model"]


def test_agenteval_yaml_prices_reach_the_agents_runs_and_the_judge(tmp_path):
    from agenteval_ci.files.project import load_project

    (tmp_path / "evals").mkdir()
    write_set(tmp_path / "evals" / "shop.evalset.json", expected(1))
    (tmp_path / "agenteval.yaml").write_text(
        "prices:\n  my-tuned-model: {input: 2, output: 20, long_prompt_input: 4, long_prompt_output: 40}\n"
        "gate:\n  budgets: {cost_usd: +5%}\n  suite_budgets: {default: {cost_usd: null, token_usage_v1: +10%}}\n"
        "suites:\n  - agent: agent.py:reply\n    eval_sets: evals/*.evalset.json\n")
    project = load_project(str(tmp_path / "agenteval.yaml"))
    assert project.suites[0].prices["my-tuned-model"].long_prompt_output == 40
    assert project.config.gate.budgets_for("default") == {"token_usage_v1": 0.1}


def empty_results(tmp_path: Path) -> Path:
    from agenteval_ci.core.results_record import results_of
    from agenteval_ci.files.results_file import dump_results

    (tmp_path / "r.json").write_bytes(dump_results(results_of([], created_at="2026-01-01T00:00:00+00:00", num_runs=1)))
    return tmp_path / "r.json"


@pytest.mark.parametrize("bad, words", [
    ("{token_usage_v1: 0.1}", "a percentage such as +10% (got 0.1)"),
    ("{token_usage_v1: -5%}", "a percentage such as +10%"),
    ("{tokens: +5%}", "Input should be 'token_usage_v1'"),
])
def test_a_bad_budget_names_the_file_and_key(tmp_path, capsys, bad, words):
    empty_results(tmp_path)
    (tmp_path / "agenteval.yaml").write_text(f"gate:\n  budgets: {bad}\nsuites: [{{agent: a.py:f, eval_sets: [x.json]}}]\n")
    assert main(["compare", str(tmp_path / "r.json"), "--config", str(tmp_path / "agenteval.yaml")]) == 2
    err = capsys.readouterr().err
    assert "agenteval.yaml" in err and "gate.budgets" in err and words in err


def test_suite_budgets_must_name_a_suite(tmp_path, capsys):
    empty_results(tmp_path)
    (tmp_path / "agenteval.yaml").write_text("gate:\n  suite_budgets: {nope: {cost_usd: +1%}}\nsuites: [{agent: a.py:f, eval_sets: [x.json]}]\n")
    assert main(["compare", str(tmp_path / "r.json"), "--config", str(tmp_path / "agenteval.yaml")]) == 2
    assert "gate.suite_budgets names no suite: nope" in capsys.readouterr().err


def test_t_distribution_matches_tables():
    assert t_quantile(0.975, 1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile(0.975, 10) == pytest.approx(2.228, abs=1e-3)
    assert t_quantile(0.95, 30) == pytest.approx(1.697, abs=1e-3)
    assert t_quantile(0.99, 1000) == pytest.approx(2.330, abs=1e-3)
    assert t_cdf(0.0, 7) == pytest.approx(0.5)


# ---------------------------------------------------------------- the gate


def test_a_deterministic_extra_tool_call_per_turn_breaches_on_one_run(tmp_path):
    sizes = [1000] * 6
    base = scored(tmp_path, "base", runs_of(6, [sizes] * 3), 6)  # three agreeing runs: deterministic
    more = runs_of(6, [sizes], tools=2)  # one more tool call (and model call) in every turn
    new = scored(tmp_path, "new", more, 6)
    comparison = compare(new, baseline_of(base), BUDGETS)
    tools = next(b for b in comparison.budgets if b.key == "tool_call_count_v1")
    assert (tools.verdict, tools.mode, tools.increase) == ("breached", "deterministic", 1.0)
    assert comparison.verdict == "failed" and comparison.exit_code == 1
    assert {c.outcome for c in comparison.cases} == {"over_budget"}
    assert any("over budget on tool_call_count_v1" in r for r in comparison.reasons)
    # one case alone rising is enough when nothing varies
    one = scored(tmp_path, "one", [{**runs_of(6, [sizes])[0], "c3": runs_of(6, [sizes], tools=2)[0]["c3"]}], 6)
    single = compare(one, baseline_of(base), BUDGETS)
    assert {c.eval_id for c in single.cases if c.outcome == "over_budget"} == {"c3"}


def test_noise_within_the_budget_passes_and_a_credible_rise_fails(tmp_path):
    rng = random.Random(7)
    sizes = [rng.randint(500, 5000) for _ in range(40)]
    base = scored(tmp_path, "base", runs_of(40, noisy_tokens(rng, sizes, 3)), 40)
    same = scored(tmp_path, "same", runs_of(40, noisy_tokens(rng, sizes, 1)), 40)
    settings = GateSettings(budgets={"token_usage_v1": "+10%"})
    within = compare(same, baseline_of(base, settings), settings)
    tokens = within.budgets[0]
    assert tokens.mode == "stochastic" and tokens.verdict == "within" and within.verdict == "passed"
    heavier = scored(tmp_path, "heavier", runs_of(40, noisy_tokens(rng, sizes, 1, scale=1.5)), 40)
    over = compare(heavier, baseline_of(base, settings), settings)
    assert over.budgets[0].verdict == "breached" and over.verdict == "failed"
    assert over.budgets[0].bound > 0 and over.budgets[0].increase > 0.1
    assert over.budgets[0].drivers and all(d.rise > 0.1 for d in over.budgets[0].drivers)
    # fail_on never reports the breach and passes; threshold ignores budgets
    assert compare(heavier, baseline_of(base, settings), settings.model_copy(update={"fail_on": "never"})).verdict == "passed"
    assert not compare(heavier, baseline_of(base, settings), settings.model_copy(update={"fail_on": "threshold"})).reasons


def test_a_rise_over_the_budget_that_noise_explains_is_not_a_breach(tmp_path):
    rng = random.Random(3)
    sizes = [1000, 1200, 900, 1500]
    base = scored(tmp_path, "base", runs_of(4, noisy_tokens(rng, sizes, 2, spread=0.5)), 4)
    new = scored(tmp_path, "new", runs_of(4, [[int(s * 1.2) for s in row] for row in noisy_tokens(rng, sizes, 1, spread=0.5)]), 4)
    settings = GateSettings(budgets={"token_usage_v1": "+10%"})
    comparison = compare(new, baseline_of(base, settings), settings)
    tokens = comparison.budgets[0]
    assert tokens.mode == "stochastic" and tokens.increase > 0.1  # over the budget by the estimate ...
    assert tokens.verdict == "within" and tokens.bound < 0 and "not beyond noise" in tokens.reason  # ... but not beyond noise
    assert "run(s) per case would settle it" in tokens.reason or "more runs now cannot settle it" in tokens.reason
    # ... and every renderer says it is unsure, and why
    assert "allowed +10%: within budget, unsure" in render_budgets(comparison) and "not beyond noise" in render_budgets(comparison)
    comment = render_comment(comparison, new)
    assert "🟡 within budget, unsure" in comment and "not beyond noise" in comment


def test_an_unpriced_model_now_is_lost_evidence_not_a_cheaper_run(tmp_path):
    base = scored(tmp_path, "base", runs_of(3, [[1000] * 3] * 2), 3)
    new = scored(tmp_path, "new", runs_of(3, [[1000] * 3], model="my-tuned-model"), 3)
    settings = GateSettings(budgets={"cost_usd": "+5%"})
    comparison = compare(new, baseline_of(base, settings), settings)
    assert comparison.verdict == "failed"
    assert any("lost the budgeted figure cost_usd" in r and "no price for my-tuned-model" in r for r in comparison.reasons)
    warned = compare(new, baseline_of(base, settings), settings.model_copy(update={"not_evaluated": "warn"}))
    assert warned.verdict == "passed" and any("my-tuned-model" in w for w in warned.warnings)
    assert comparison.costs[0].cost is None and "no price for my-tuned-model" in comparison.costs[0].unknown


def test_a_baseline_without_the_figures_says_so_and_does_not_fail(tmp_path):
    base = scored(tmp_path, "base", runs_of(2, [[1000, 1000]]), 2)
    new = scored(tmp_path, "new", runs_of(2, [[3000, 3000]]), 2)
    settings = GateSettings(budgets={"token_usage_v1": "+10%"})
    comparison = compare(new, baseline_from_results(base), settings)  # accepted before the budget was set
    assert comparison.budgets[0].verdict == "no baseline" and comparison.verdict == "passed"
    assert "accept a baseline made with this budget set" in comparison.budgets[0].reason


def test_suite_budgets_override_the_projects(tmp_path):
    base = scored(tmp_path, "base", runs_of(2, [[1000, 1000]] * 2), 2)
    new = scored(tmp_path, "new", runs_of(2, [[1000, 1000]], tools=3), 2)
    settings = GateSettings(budgets={"tool_call_count_v1": "+0%"}, suite_budgets={"default": {"tool_call_count_v1": None}})
    assert compare_budgets(new, baseline_of(base, GateSettings(budgets={"tool_call_count_v1": "+0%"})), settings) == ()
    generous = GateSettings(budgets={"tool_call_count_v1": "+0%"}, suite_budgets={"default": {"tool_call_count_v1": "+500%"}})
    assert compare(new, baseline_of(base, generous), generous).verdict == "passed"


def test_failed_runs_have_no_figures():
    from agenteval_ci.schema import RunRecord

    assert run_figure(RunRecord(error="boom", invocations=[Invocation.model_validate(turn("q", "a", 10, 1))]), "token_usage_v1") is None


# ---------------------------------------------------------------- every renderer, and the CLI


def test_a_breach_is_its_own_outcome_in_every_renderer(tmp_path):
    base = scored(tmp_path, "base", runs_of(3, [[1000] * 3] * 3), 3)
    new = scored(tmp_path, "new", runs_of(3, [[1000, 1000, 1000]], tools=2), 3)
    comparison = compare(new, baseline_of(base), BUDGETS)
    comment = render_comment(comparison, new)
    # one more tool call per turn is one more model call too: more tokens, more dollars
    assert "agenteval failed: over budget on `cost_usd`, `token_usage_v1`, `tool_call_count_v1`" in comment
    assert "| `tool_call_count_v1` (tool calls per turn, the cases summed) | 3.00 | 6.00 | +100.0% | +0% | 🔴 over budget |" in comment
    assert "**Over budget on `tool_call_count_v1`**" in comment and "- default/shop/c0: 1.00 → 2.00 (+100.0%)" in comment
    assert "Over budget (tokens, calls, latency or cost) (3)" in comment
    assert "agent cost per run | $0." in comment and "baseline → PR over 3 case(s)" in comment
    assert "Over budget on `tool_call_count_v1`" in render_summary(comparison, new)
    html = render_html(comparison, new)
    assert '<table id="budgets">' in html and "over budget" in html and 'data-outcome="over_budget"' in html
    junit = render_junit(new, comparison)
    assert junit.count("<failure") == 3 and "tool_call_count_v1 +100.0%" in junit
    terminal = render_budgets(comparison)
    assert "default tool_call_count_v1 (tool calls per turn, the cases summed): 3.00 → 6.00 (+100.0%), allowed +0%: over budget" in terminal
    assert "default/shop/c0: 1.00 → 2.00 (+100.0%)" in terminal


def test_accept_keeps_the_budgeted_figures_and_compare_fails_through_the_cli(tmp_path, capsys):
    scored(tmp_path, "base", runs_of(3, [[1000, 2000, 3000]] * 2), 3)
    scored(tmp_path, "new", runs_of(3, [[2000, 4000, 6000]]), 3)
    config = tmp_path / "agenteval.yaml"
    config.write_text("baseline: baseline.json\ngate:\n  budgets: {token_usage_v1: +10%}\nsuites: [{agent: a.py:f, eval_sets: [x.json]}]\n")
    base_file, new_file = tmp_path / "base" / "results.json", tmp_path / "new" / "results.json"
    assert main(["accept", str(base_file), "--config", str(config)]) == 0
    kept = json.loads((tmp_path / "baseline.json").read_text())["suites"]["default"]["shop"]["c0"]["figures"]
    assert kept["token_usage_v1"] == [2200.0, 2200.0] and len(kept["cost_usd"]) == 2
    md, js = tmp_path / "comment.md", tmp_path / "comparison.json"
    capsys.readouterr()
    assert main(["compare", str(new_file), "--config", str(config), "--md", str(md), "--json", str(js)]) == 1
    out = capsys.readouterr().out
    assert "over budget on token_usage_v1" in out and "budgets:" in out
    data = json.loads(js.read_text())
    assert data["budgets"][0]["verdict"] == "breached" and data["counts"]["over_budget"] == 3
    assert data["costs"][0]["change"] == pytest.approx(1.0)
    assert main(["compare", str(base_file), "--config", str(config)]) == 0


# ---------------------------------------------------------------- num_runs: auto


def _looked(results: Results, rounds: int) -> Results:
    from agenteval_ci.schema import AdaptiveInfo

    return results.model_copy(update={"adaptive": AdaptiveInfo(min_runs=1, max_runs=10, run_budget=3, rounds=rounds)})


def test_auto_asks_for_more_runs_while_a_budget_is_over_by_the_estimate_only(tmp_path):
    from agenteval_ci.core.adaptive import plan_round

    rng = random.Random(11)
    sizes = [rng.randint(500, 5000) for _ in range(8)]
    base = scored(tmp_path, "base", runs_of(8, noisy_tokens(rng, sizes, 3, spread=0.6)), 8)
    settings = GateSettings(budgets={"token_usage_v1": "+5%"})
    baseline = baseline_of(base, settings)
    unsure = _looked(scored(tmp_path, "unsure", runs_of(8, noisy_tokens(rng, sizes, 1, scale=1.15, spread=0.6)), 8), 1)
    summary = compare_budgets(unsure, baseline, settings, last_look=False)[0]
    assert summary.verdict == "unsure", summary
    plan = plan_round(unsure, baseline, settings)
    assert not plan.decided and {r.key for r in plan.reruns} == {c.key for c in unsure.cases}
    assert all("token_usage_v1: a rise over its budget (+5%) is not ruled out" in r.why for r in plan.reruns)
    # the last look decides: unsure is within the budget, and says why
    assert compare(unsure, baseline, settings).budgets[0].verdict == "within"
    # a breach decides the rounds at once
    heavy = _looked(scored(tmp_path, "heavy", runs_of(8, noisy_tokens(rng, sizes, 1, scale=3.0, spread=0.1)), 8), 1)
    assert plan_round(heavy, baseline, settings).decided.startswith("default: over budget on token_usage_v1")
    # the first round tests at half of alpha, fixed runs at all of it
    fixed = heavy.model_copy(update={"adaptive": None})
    assert compare_budgets(fixed, baseline, settings)[0].typical_bound > compare_budgets(heavy, baseline, settings)[0].typical_bound


NOISY_AGENT = '''
import random

EXTRA = {extra}  # the chance of a second lookup: the PR raises it


def reply(text, session):
    rng = random.Random(f"{{session.case_id}}:{{session.run_index}}")
    calls = 1 + (rng.random() < EXTRA)
    return {{"response": "ok", "steps": [{{"name": "lookup", "args": {{"q": text}}, "response": {{"ok": True}}}}] * calls}}
'''


def noisy_project(tmp_path: Path, cases: int, pr_extra: float) -> Path:
    """A project whose agent looks up twice in 30% of turns, with a first baseline accepted
    (`tool_call_count_v1: +5%`, num_runs: auto), then pointed at the PR's agent, which looks up
    twice in `pr_extra` of them. Returns agenteval.yaml."""
    turns = {f"c{i}": [{"user_content": {"role": "user", "parts": [{"text": f"q{i}"}]},
                        "final_response": {"role": "model", "parts": [{"text": "ok"}]}}] for i in range(cases)}
    (tmp_path / "evals").mkdir()
    write_set(tmp_path / "evals" / "shop.evalset.json", turns)
    (tmp_path / "evals" / "test_config.json").write_text(json.dumps(ONLY_RESPONSES))
    (tmp_path / "agent.py").write_text(NOISY_AGENT.format(extra=0.3))
    config = tmp_path / "agenteval.yaml"
    config.write_text("gate:\n  budgets: {tool_call_count_v1: +5%}\n"
                      "suites:\n  - agent: agent.py:reply\n    eval_sets: evals/*.evalset.json\n    num_runs: auto\n")
    assert main(["run", "--config", str(config), "--new-baseline", "-q"]) == 0
    assert main(["accept", "--config", str(config)]) == 0
    (tmp_path / "agent_pr.py").write_text(NOISY_AGENT.format(extra=pr_extra))
    config.write_text(config.read_text().replace("agent.py:reply", "agent_pr.py:reply"))  # a new module: this process imported agent.py
    return config


def test_num_runs_auto_stops_its_rounds_once_a_budget_is_breached(tmp_path, capsys):
    """A Python agent whose lookups per turn are noisy; `agenteval run` with num_runs: auto."""
    config = noisy_project(tmp_path, 12, pr_extra=1.0)  # every turn looks up twice now
    capsys.readouterr()
    assert main(["run", "--config", str(config), "-q"]) == 1
    results = read_results(tmp_path / ".agenteval" / "results.json")
    assert results.adaptive is not None and "over budget on tool_call_count_v1" in results.adaptive.stopped
    assert "over budget on tool_call_count_v1" in capsys.readouterr().out


def test_a_results_file_read_as_digests_gives_the_baseline_and_the_budgets_of_the_whole_cases(tmp_path):
    """compare, accept and the reports hold each case's digest: its judges, the digest of its
    recorded runs and its runs' budgeted figures must be the whole case's (issue 28b x 27 x 28a)."""
    from agenteval_ci.core.budgets import suite_costs
    from agenteval_ci.files.results_file import ResultsFile, write_results
    from agenteval_ci.schema.judge import JudgeFingerprint

    rng = random.Random(5)
    sizes = [200 + 40 * i for i in range(8)]
    whole = scored(tmp_path, "base", runs_of(8, noisy_tokens(rng, sizes, 3)), 8)
    judge = JudgeFingerprint(provider="gemini", model="gemini-2.5-flash", versions=["gemini-2.5-flash-001"], prompt="p1")
    whole = whole.model_copy(update={"cases": [
        case.model_copy(update={"metrics": {name: m.model_copy(update={"judge": judge}) for name, m in case.metrics.items()}})
        for case in whole.cases
    ]})
    path = tmp_path / "results.json.gz"
    write_results(whole, str(path))
    digests = ResultsFile(path).digest()
    settings = GateSettings(budgets={key: "+10%" for key in ("token_usage_v1", "input_tokens", "output_tokens", "inference_call_count_v1",
                                                              "tool_call_count_v1", "invocation_duration_v1", "cost_usd")})
    from_whole, from_digests = baseline_of(whole, settings), baseline_of(digests, settings)
    assert from_digests.suites == from_whole.suites and from_digests.judges == from_whole.judges
    assert from_whole.judges and all(case.outputs and case.figures for sets in from_whole.suites.values() for cases in sets.values() for case in cases.values())
    later = scored(tmp_path, "pr", runs_of(8, noisy_tokens(rng, sizes, 2, scale=1.3)), 8)
    write_results(later, str(tmp_path / "pr.json"))
    pr = ResultsFile(tmp_path / "pr.json").digest()
    assert compare_budgets(pr, from_whole, settings) == compare_budgets(later, from_whole, settings)
    assert suite_costs(pr, from_whole) == suite_costs(later, from_whole)
    assert compare(pr, from_whole, settings) == compare(later, from_whole, settings)


def test_num_runs_auto_runs_a_plausible_breach_again_up_to_the_second_look(tmp_path, capsys):
    """The PR's agent looks up twice a little more often: on one run per case the rise is over
    the budget by the estimate but not beyond noise, so every case whose lookups vary runs again
    until the second look (3 runs per case, num_runs: auto's default run_budget), which decides;
    a case whose lookups agree on every run (five in the baseline, one now) is not run again."""
    config = noisy_project(tmp_path, 16, pr_extra=0.6)
    capsys.readouterr()
    code = main(["run", "--config", str(config), "-q"])
    results = read_results(tmp_path / ".agenteval" / "results.json")
    runs = [len(c.runs) for c in results.cases]
    assert results.adaptive is not None and results.adaptive.rounds == 3, results.adaptive
    assert set(runs) == {1, 3} and sum(runs) <= 3 * len(runs)
    rerun = [c for c in results.cases if len(c.runs) > 1]
    assert rerun and all("tool_call_count_v1: a rise over its budget (+5%) is not ruled out" in (c.runs_note or "") for c in rerun)
    out = capsys.readouterr().out
    baseline = load_baseline(next(tmp_path.glob("**/baseline.json")), required=True)
    budget = compare_budgets(results, baseline, GateSettings(budgets={"tool_call_count_v1": "+5%"}))[0]
    # the agent is seeded per case and run: the second look (98.5%: half of the 3/5 of alpha spent) finds the breach
    assert code == 1 and budget.breached and "over budget on tool_call_count_v1" in out
    assert "98.5% bound" in budget.reason and budget.typical > 0.05


@pytest.mark.parametrize("priced_now", [0, 1])
def test_figures_every_case_lost_are_lost_never_no_baseline(tmp_path, priced_now):
    """The baseline priced every case; now every case (or all but one) runs on an unpriced model.
    Whatever the share, the budget says the figures were lost, never that the baseline lacks
    them, and never advises accepting an unpriced baseline; the headline names the budget."""
    base = scored(tmp_path, "base", runs_of(3, [[1000] * 3] * 3), 3)
    models = ["my-tuned-model"] * (3 - priced_now) + ["gemini-2.5-flash"] * priced_now
    runs = [{f"c{i}": [turn(f"question {i}", f"answer {i}", 1000, 100, 1, model)] for i, model in enumerate(models)}] * 3
    new = scored(tmp_path, "new", runs, 3)
    settings = GateSettings(budgets={"cost_usd": "+5%"})
    comparison = compare(new, baseline_of(base, settings), settings)
    [cost] = comparison.budgets
    assert comparison.verdict == "failed" and len(cost.lost) == 3 - priced_now
    assert cost.verdict == ("figures lost" if not priced_now else "within")
    everything = " ".join([cost.reason, render_budgets(comparison), render_comment(comparison, new)])
    assert "no baseline" not in everything and "accept a baseline" not in everything
    if not priced_now:
        assert "figures lost" in render_budgets(comparison) and "my-tuned-model" in cost.reason
        assert "0 regression(s)" not in render_comment(comparison, new)
        assert check_title(comparison).startswith("failed: ") and "cost_usd" in check_title(comparison)
