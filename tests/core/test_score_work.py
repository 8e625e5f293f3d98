"""What `score` works out once per case, and the same values and bytes as worked out before.

bench/score_vs_adk.py times `score`; these tests hold its shortcuts to the values the long way
gives (a run's figures, the recorded outputs' digest that committed baselines store, a suite's
cost) over generated cases of every shape, and count the work each shortcut saves (no timings).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from agenteval_ci.core import figures
from agenteval_ci.core.budgets import suite_costs
from agenteval_ci.core.digest import ResultsDigest, digest
from agenteval_ci.core.figures import FIGURE_KEYS, run_figure
from agenteval_ci.core.fingerprint import case_fingerprint
from agenteval_ci.core.judge_fingerprint import fingerprint
from agenteval_ci.core.metrics import ConfiguredMetric, efficiency
from agenteval_ci.core.metrics.efficiency import TokenBreakdown
from agenteval_ci.core.recorded_outputs import outputs_digest, recorded_runs
from agenteval_ci.files.eval_configs import load_eval_config
from agenteval_ci.schema import CaseResult, EvalSet, Results, RunRecord, Status
from tests.core.metrics.casegen import generate


def _runs(rng: random.Random, conversations: list[Any]) -> list[RunRecord]:
    """One to three runs of a case, of every shape a run takes: failed, without turns, timed,
    priced or with unpriced models, with what the agent could not report, with its session state."""
    runs = []
    for index in range(rng.choice([1, 1, 2, 3])):
        roll = rng.random()
        runs.append(RunRecord(
            index=index,
            invocations=[] if roll < 0.05 else rng.choice(conversations),
            error="the agent raised" if 0.05 <= roll < 0.12 else None,
            duration=rng.choice([None, round(rng.uniform(0.1, 9), 3)]),
            cost_usd=rng.choice([None, None, 0.0, round(rng.uniform(0, 0.02), 6)]),
            unpriced_models=rng.choice([None, None, ["<model not reported>"], ["gemini-x", "gpt-y"]]),
            unreported=rng.choice([None, ["intermediate_texts"]]),
            final_session_state=rng.choice([None, {}, {"cart": ["a", 1, 2.5], "ünï": None}]),
        ))
    return runs


def _cases(count: int, seed: int = 11) -> list[CaseResult]:
    rng = random.Random(seed)
    expected, actual = generate(seed=seed, num_cases=count)
    conversations = [c.conversation for c in EvalSet.model_validate(actual).eval_cases]
    cases = []
    for i, case in enumerate(EvalSet.model_validate(expected).eval_cases):
        runs = _runs(rng, conversations)
        cases.append(CaseResult(
            suite=rng.choice(["a", "b", "c"]), eval_set_id="generated", eval_id=case.eval_id, fingerprint=f"{i:016x}",
            status=Status.PASSED, runs=runs, eval_case=case, planned_runs=rng.choice([None, None, 0, 1, 2, 5]),
        ))
    return cases


CASES = _cases(300)


def test_a_runs_figures_are_each_figure_run_figure_gives():
    runs = [run for case in CASES for run in case.runs]
    assert any(run_figure(r, "token_usage_v1") is not None for r in runs)  # the generated runs report usage
    for run in runs:
        assert figures.run_figures(run) == tuple(run_figure(run, key) for key in FIGURE_KEYS)


def test_a_digest_works_out_each_turns_token_counts_once(monkeypatch):
    """Three token figures (total, input, output) share each turn's breakdown."""
    counted = []
    breakdown = figures.token_breakdown
    monkeypatch.setattr(figures, "token_breakdown", lambda invocation: counted.append(invocation) or breakdown(invocation))
    case = next(c for c in CASES if all(not r.error and r.invocations for r in c.runs))
    digest(case)
    assert len(counted) == sum(len(r.invocations) for r in case.runs)


def _token_breakdown_the_long_way(invocation: Any) -> TokenBreakdown:
    """As token_breakdown was first written: int sums, then a second breakdown of their floats."""
    def add(total: Any, count: Any) -> Any:
        return total if count is None else (total or 0) + count

    def either(a: Any, b: Any) -> Any:
        return None if a is None and b is None else (a or 0) + (b or 0)

    t = TokenBreakdown()
    for u in invocation.usage:
        t.input_tokens = add(t.input_tokens, either(u.prompt_token_count, u.tool_use_prompt_token_count))
        t.prompt_tokens = add(t.prompt_tokens, u.prompt_token_count)
        t.cached_tokens = add(t.cached_tokens, u.cached_content_token_count)
        t.tool_use_tokens = add(t.tool_use_tokens, u.tool_use_prompt_token_count)
        t.output_tokens = add(t.output_tokens, either(u.candidates_token_count, u.thoughts_token_count))
        t.candidates_tokens = add(t.candidates_tokens, u.candidates_token_count)
        t.reasoning_tokens = add(t.reasoning_tokens, u.thoughts_token_count)
    if t.input_tokens is not None or t.output_tokens is not None:
        t.total_tokens = (t.input_tokens or 0) + (t.output_tokens or 0)
    return TokenBreakdown(**{k: None if v is None else float(v) for k, v in vars(t).items()})


def test_a_turns_token_breakdown_is_the_long_ways_and_made_once(monkeypatch):
    """The same counts, all floats (the JSON reads `12.0` as ADK's does), from one breakdown per turn."""
    turns = [i for case in CASES for run in case.runs for i in run.invocations]
    assert any(i.usage for i in turns) and any(not i.usage for i in turns)
    for turn in turns:
        found, expected = efficiency.token_breakdown(turn), _token_breakdown_the_long_way(turn)
        assert vars(found) == vars(expected)
        assert [type(v) for v in vars(found).values()] == [type(v) for v in vars(expected).values()]
    made = []
    monkeypatch.setattr(efficiency, "TokenBreakdown", lambda *a, **k: made.append(1) or TokenBreakdown(*a, **k))
    efficiency.token_breakdown(turns[0])
    assert len(made) == 1


def _digest_of_copies(case: CaseResult) -> str:
    """The recorded outputs' digest as it was first defined: of each recorded copy of a run."""
    found = hashlib.sha256(case.fingerprint.encode())
    for run in recorded_runs(case):
        found.update(run.__pydantic_serializer__.to_json(run, exclude_none=True))
    return found.hexdigest()[:16]


def test_the_recorded_outputs_digest_is_the_digest_of_the_recorded_copies():
    for case in CASES:
        assert outputs_digest(case) == _digest_of_copies(case)


def _hash_of(values: list[str]) -> str:
    return hashlib.sha256(" ".join(values).encode()).hexdigest()[:16]


def test_the_digests_and_fingerprints_are_the_ones_baselines_store():
    """Committed baselines name their recorded outputs by this digest and their cases by this
    fingerprint: pinned (as the code before this shortcut gave them), so no change to how either
    is worked out can change them."""
    assert [outputs_digest(case) for case in CASES[:3]] == ["159ca97ff2a1f51c", "665e994827f6b031", "d0830ddd66cb9d11"]
    assert _hash_of([outputs_digest(case) for case in CASES]) == "3c3b2ced0b79739c"
    assert _hash_of([case_fingerprint(case.eval_case) for case in CASES]) == "a41a17a1ab332535"


def test_the_recorded_outputs_digest_copies_no_run(monkeypatch):
    made = []
    monkeypatch.setattr(RunRecord, "__init__", lambda self, **fields: made.append(fields))
    outputs_digest(CASES[0])
    assert made == []


class _Counted(Sequence[Any]):
    """A results file's cases read from disk as they are asked for: counts the passes over them."""

    def __init__(self, cases: list[Any]) -> None:
        self.cases, self.passes = cases, 0

    def __iter__(self) -> Iterator[Any]:
        self.passes += 1
        return iter(self.cases)

    def __len__(self) -> int:
        return len(self.cases)

    def __getitem__(self, index: Any) -> Any:
        return self.cases[index]


def _suite_costs_the_long_way(cases: list[CaseResult]) -> dict[str, tuple[float | None, str]]:
    """Per suite with a run that reported its usage: the cost of a run of it (the sum of each case's
    mean cost per run with turns; cases with a failed run left out), or None and how many cases had
    none, the first named."""
    found = {}
    for suite in sorted({c.suite for c in cases}):
        mine = [c for c in cases if c.suite == suite]
        if not any(r.cost_usd is not None or r.unpriced_models for c in mine for r in c.runs):
            continue
        costs = [[r.cost_usd for r in c.runs if r.cost_usd is not None and r.invocations] for c in mine if not c.run_errors]
        missing = [c for c, known in zip([c for c in mine if not c.run_errors], costs) if not known]
        cost = None if missing or not costs else sum(sum(known) / len(known) for known in costs)
        found[suite] = (cost, f"{len(missing)} case(s) without a cost (first: {missing[0].key}: cost_usd unknown" if missing else "")
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_suite_costs_read_the_cases_once_and_cost_each_suite_as_before(seed):
    rng = random.Random(seed)
    cases = [digest(c) for c in rng.sample(CASES, 120)]
    if seed == 3:  # a suite whose agent reported no usage at all: no cost line for it
        cases = [c for c in cases if c.suite != "c" or not any(r.cost_usd is not None or r.unpriced_models for r in c.runs)]
    counted = _Counted(cases)
    costs = suite_costs(ResultsDigest(Results(tool_version="0", created_at="now"), counted, lambda keys: {}), None)
    assert counted.passes == 1
    whole = {c.key: c for c in CASES}
    expected = _suite_costs_the_long_way([whole[c.key] for c in cases])
    assert [c.suite for c in costs] == list(expected)
    for cost in costs:
        assert cost.cost == pytest.approx(expected[cost.suite][0])
        assert cost.unknown.startswith(expected[cost.suite][1])


def test_a_metric_no_judge_scores_has_no_judge_fingerprint_and_its_criterion_is_not_read(tmp_path):
    config = tmp_path / "test_config.json"
    config.write_text('{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}')
    metrics = load_eval_config(str(config)).metrics
    assert metrics and all(not m.spec.judged for m in metrics)

    class Unreadable:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the criterion's {name} was read")

    for metric in metrics:
        unread = ConfiguredMetric(**{**vars(metric), "criterion": Unreadable()})
        assert fingerprint(unread, None) is None


# agenteval.yaml's models, and those of the eval set formats that are not ADK's: built when such a file is read.
_MODELS_A_SCORE_NEEDS_NOT = ("agenteval_ci.schema.project", "agenteval_ci.schema.gemini_dataset", "agenteval_ci.schema.vertex_rows")
_SCORE_THEN_LIST_MODULES = f"""
import sys
from agenteval_ci.cli import main
sys.argv = ["agenteval", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("loaded:", " ".join(sorted(m for m in ("yaml", "dotenv", *{_MODELS_A_SCORE_NEEDS_NOT!r}) if m in sys.modules)), file=sys.stderr)
"""


def _modules_a_score_loads(tmp_path: Any) -> str:
    """Which of PyYAML, python-dotenv and the models it needs not a score of ADK's JSON files loaded."""
    import json
    import subprocess
    import sys

    expected, actual = generate(seed=5, num_cases=3)
    (tmp_path / "s.evalset.json").write_text(json.dumps(expected))
    (tmp_path / "actual.json").write_text(json.dumps(actual))
    proc = subprocess.run(
        [sys.executable, "-c", _SCORE_THEN_LIST_MODULES, "score", "s.evalset.json", "--actual", "actual.json", "--json", "out.json"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )
    assert (tmp_path / "out.json").is_file()  # the score ran to its end
    return proc.stderr.splitlines()[-1]


def test_a_score_of_json_files_loads_neither_yaml_nor_dotenv(tmp_path):
    """PyYAML and python-dotenv serve a YAML file and a .env: a score of JSON files without a
    .env reads neither, so neither costs its start anything (issue 37.7)."""
    loaded = _modules_a_score_loads(tmp_path).split()
    assert "yaml" not in loaded and "dotenv" not in loaded


def test_a_score_of_adk_files_builds_no_project_or_other_format_models(tmp_path):
    """A score reads no agenteval.yaml: the CLI, the readers and the reports take the default paths
    from schema/paths.py, so agenteval.yaml's models (schema/project.py) are not built; nor are a
    Gemini dataset's or Vertex rows' models for ADK's own files (~9 ms together; issue 37.7)."""
    assert _modules_a_score_loads(tmp_path) == "loaded: "
