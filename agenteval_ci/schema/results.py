"""The results file: the contract between run, score, compare, report, merge and accept.

One file holds every case of one invocation of `agenteval run`/`score` (all suites, or
one shard). It is self-contained: each case carries its eval case (the expected side)
and every run's actual invocations, so no later stage needs the eval set files or the
agent. Documented in docs/results-format.md; bump SCHEMA_VERSION on breaking changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Optional

from pydantic import Field, FiniteFloat

from ._base import StrictModel
from .eval_set import EvalCase, Invocation
from .judge import JudgeFingerprint
from .vocabulary import Status as Status  # re-exported: the schema names it here

SCHEMA_VERSION = 2  # 2: one case per line (files/results_file.py); version 1's single line still reads


class RubricVerdict(StrictModel):
    """ADK's RubricScore: one rubric's score (1.0 yes / 0.0 no / None not evaluated)."""

    rubric_id: str
    score: Optional[FiniteFloat] = None
    rationale: Optional[str] = None


class ArgumentCheck(StrictModel):
    """One top-level argument of an aligned call pair: what was expected, what came, which rule
    decided. `expected` / `actual` are left out (unset) when that side has no such argument."""

    path: str
    rule: str
    matched: bool
    expected: Any = None
    actual: Any = None
    note: str = ""  # why it failed, down to the nested path


class AlignedCall(StrictModel):
    """One line of a turn's alignment (`details.alignment` of our trajectory metrics): a pair of
    calls of one tool, or a call only one side has (the other index is None)."""

    tool: str
    expected_index: Optional[int] = None
    actual_index: Optional[int] = None
    similarity: Optional[float] = None  # pairs only: share of its arguments that matched
    arguments: list[ArgumentCheck] = Field(default_factory=list)


class InvocationScore(StrictModel):
    score: Optional[FiniteFloat] = None
    status: Status = Status.NOT_EVALUATED
    reason: Optional[str] = None
    rubric_scores: Optional[list[RubricVerdict]] = None
    details: Optional[dict[str, Any]] = None  # metric-specific figures (token breakdown, labels, ...)


class MetricRun(StrictModel):
    """One metric on one run of one case, as one ADK evaluator call reports it."""

    score: Optional[FiniteFloat] = None
    status: Status = Status.NOT_EVALUATED
    reason: Optional[str] = None
    per_invocation: list[InvocationScore] = Field(default_factory=list)
    rubric_scores: Optional[list[RubricVerdict]] = None  # per rubric over the run's invocations
    details: Optional[dict[str, Any]] = None  # metric-specific overall figures (e.g. token breakdown)
    # What the judge's prompt went without: "instructions" and "tool_declarations" (a turn has no
    # app_details), "tool_responses" (a tool call has no recorded response), "intermediate_texts"
    # (the agent could not report its texts between calls), "media" (the conversation has images or
    # files, which the judge's text prompt cannot show). None when nothing was missing.
    judged_without: Optional[list[str]] = None


class MetricResult(StrictModel):
    """One metric on one case over all runs: score is the mean of the runs' scores."""

    score: Optional[FiniteFloat] = None
    threshold: Optional[FiniteFloat] = None  # None for informational metrics
    status: Status = Status.NOT_EVALUATED
    reason: Optional[str] = None
    config_fingerprint: str = ""  # the criterion apart from its judge: core/fingerprint.py
    judged_without: Optional[list[str]] = None  # every run's `judged_without`, together
    judge: Optional[JudgeFingerprint] = None  # judged metrics: which judge gave the scores
    runs: list[MetricRun] = Field(default_factory=list)


class TokenCounts(StrictModel):
    input: int = 0
    output: int = 0


class RunRecord(StrictModel):
    """One run of the agent on one case: what it actually did."""

    index: int = 0
    invocations: list[Invocation] = Field(default_factory=list)
    error: Optional[str] = None  # the agent raised or timed out; the case fails
    duration: Optional[float] = None  # wall-clock seconds of the whole conversation
    tokens: Optional[TokenCounts] = None
    # What the judges read that the agent could not report: "intermediate_texts" for a Python
    # agent whose replies had tool calls but no `steps`. None when nothing is missing.
    unreported: Optional[list[str]] = None
    # The dollar cost of the agent's model calls in this run, from the price table (docs/config.md,
    # `prices`); None when some call could not be priced: `unpriced_models` names the models
    # without a known price ("<model not reported>" for a call whose model no event named).
    cost_usd: Optional[float] = None
    unpriced_models: Optional[list[str]] = None
    # The session's state after the last turn, as the agent reported it (docs/agents.md: which
    # kinds report it); None when the agent kind could not (session_state_match is then not evaluated).
    final_session_state: Optional[dict[str, Any]] = None


def case_key(suite: str, eval_set_id: str, eval_id: str) -> str:
    """A case's name everywhere (reports, `accept --case`, `-k`): `suite/eval_set_id/eval_id`."""
    return f"{suite}/{eval_set_id}/{eval_id}"


class CaseNaming:
    """A case's name and its failed runs, from its fields (a CaseResult, or a digest of one)."""

    __slots__ = ()
    suite: str
    eval_set_id: str
    eval_id: str
    runs: Sequence[Any]

    @property
    def key(self) -> str:
        return case_key(self.suite, self.eval_set_id, self.eval_id)

    @property
    def run_errors(self) -> list[str]:
        """Why each failed run failed (the agent raised, timed out, had no key, ...)."""
        return [r.error for r in self.runs if r.error]


class CaseResult(CaseNaming, StrictModel):
    suite: str = "default"
    eval_set_id: str
    eval_set_file: Optional[str] = None  # repo-relative, for annotations
    eval_id: str
    fingerprint: str  # of the expected content; see fingerprint.case_fingerprint
    status: Status
    reason: Optional[str] = None
    metrics: dict[str, MetricResult] = Field(default_factory=dict)
    runs: list[RunRecord] = Field(default_factory=list)
    eval_case: EvalCase
    runs_note: Optional[str] = None  # `num_runs: auto`: why this case got the runs it got
    # `num_runs: auto`: the first round's runs, planned before any outcome was seen; the runs after
    # them were chosen by the outcome (accept keeps them apart: docs/baseline.md). None: all planned.
    planned_runs: Optional[int] = Field(default=None, ge=0)


MAX_SHARDS = 1000  # `--shard I/N`: N at most this


class ShardInfo(StrictModel):
    index: int = Field(ge=1, le=MAX_SHARDS)  # 1-based
    count: int = Field(ge=1, le=MAX_SHARDS)


class JudgeUsage(StrictModel):
    """One judged metric's share of the judge's work in a run."""

    calls: int = 0  # HTTP attempts that reached the model (retries included)
    cache_hits: int = 0
    cache_misses: int = 0
    failures: int = 0  # samples left without a reply after all retries
    tokens: TokenCounts = Field(default_factory=TokenCounts)
    estimated_cost_usd: Optional[float] = None  # None when a model has no known price


class RunStats(StrictModel):
    duration_seconds: float = 0.0
    agent_turns: int = 0
    agent_tokens: TokenCounts = Field(default_factory=TokenCounts)
    judge_calls: int = 0
    judge_cache_hits: int = 0
    judge_cache_misses: int = 0
    judge_tokens: TokenCounts = Field(default_factory=TokenCounts)
    estimated_cost_usd: Optional[float] = None
    judge_by_metric: dict[str, JudgeUsage] = Field(default_factory=dict)


class AdaptiveInfo(StrictModel):
    """How a `num_runs: auto` run spent its runs (per shard; merged files add up)."""

    min_runs: int = Field(ge=1)
    max_runs: int = Field(ge=1)
    run_budget: float = Field(ge=1)  # mean runs per case allowed
    runs: int = 0  # runs spent
    rounds: int = 0
    stopped: str = ""  # why the rounds ended, in words


class RejudgedBaseline(StrictModel):
    """A baseline metric judged again, on the baseline's recorded outputs, by this run's judge:
    what the gate compares this run with when the judge changed (docs/judge.md, "A changed judge").
    `outputs` and `was` say exactly which baseline entry it stands in for."""

    suite: str
    eval_set_id: str
    eval_id: str
    metric: str
    outputs: str  # the baseline's digest of the recorded runs (BaselineCase.outputs)
    was: str  # the id of the baseline's judge fingerprint for this metric
    result: MetricResult  # runs without their per-turn details


class Results(StrictModel):
    schema_version: int = SCHEMA_VERSION
    tool_version: str
    created_at: str  # ISO 8601, UTC
    num_runs: int = 1
    suites: list[str] = Field(default_factory=lambda: ["default"])
    shard: Optional[ShardInfo] = None
    case_filter: Optional[list[str]] = None  # `run -k` patterns: a partial run (accept keeps the other cases)
    commit: Optional[str] = None
    stats: RunStats = Field(default_factory=RunStats)
    adaptive: Optional[AdaptiveInfo] = None  # set by `num_runs: auto`
    warnings: list[str] = Field(default_factory=list)
    cases: list[CaseResult] = Field(default_factory=list)
    rejudged: Optional[list[RejudgedBaseline]] = None  # the baseline re-judged where this run's judge differs

    @property
    def passed(self) -> bool:
        return not any(c.status == Status.FAILED for c in self.cases)

    def fetch(self, keys: Iterable[str]) -> dict[str, CaseResult]:
        """These cases (keys not found left out): what a report reads whole, as of a file's digest."""
        wanted = set(keys)
        return {c.key: c for c in self.cases if c.key in wanted}
