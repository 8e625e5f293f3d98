"""A case's digest: what the gate, the baseline and the reports' summaries read of a scored
case, without its evidence (the eval case, what the agent did, the per-turn scores and the
informational figures). Kept for every case of a suite at once, so it is small: about a tenth
of a kilobyte per metric, where a whole CaseResult in memory takes tens of kilobytes.

The protocols say what those readers need, so they take a whole CaseResult (tests, a run in
memory) or a digest alike; `digest` makes one from the other. What the gate, the judge-change
rule and the budgets read of a case's runs is computed when the digest is made: the digest of
its recorded runs (`outputs`, core/recorded_outputs.py) and each run's budgeted figures
(core/budgets/), so a digest carries the figures, never the turns. Pure, no I/O.
"""

from __future__ import annotations

import marshal
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from ..schema import AdaptiveInfo, CaseResult, Results, RunRecord, RunStats, ShardInfo, Status
from ..schema.judge import JudgeFingerprint
from ..schema.results import CaseNaming, RejudgedBaseline
from .figures import FIGURE_KEYS, run_figures
from .recorded_outputs import outputs_digest


class RubricScore(Protocol):
    @property
    def rubric_id(self) -> str: ...
    @property
    def score(self) -> float | None: ...


class ScoredRun(Protocol):
    """One metric on one run: a MetricRun, or its digest."""

    @property
    def score(self) -> float | None: ...
    @property
    def status(self) -> Status: ...
    @property
    def rubric_scores(self) -> Sequence[RubricScore] | None: ...


class ScoredMetric(Protocol):
    """One metric over a case's runs: a MetricResult, or its digest."""

    @property
    def score(self) -> float | None: ...
    @property
    def threshold(self) -> float | None: ...
    @property
    def status(self) -> Status: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def config_fingerprint(self) -> str: ...
    @property
    def judged_without(self) -> Sequence[str] | None: ...
    @property
    def judge(self) -> JudgeFingerprint | None: ...
    @property
    def runs(self) -> Sequence[ScoredRun]: ...


class AgentRun(Protocol):
    """One run of the agent: a RunRecord, or its digest."""

    @property
    def error(self) -> str | None: ...
    @property
    def duration(self) -> float | None: ...
    @property
    def cost_usd(self) -> float | None: ...
    @property
    def unpriced_models(self) -> Sequence[str] | None: ...


class CaseFields(Protocol):
    """What a digest is made of: a CaseResult, or what a reader took of its line."""

    @property
    def suite(self) -> str: ...
    @property
    def eval_set_id(self) -> str: ...
    @property
    def eval_set_file(self) -> str | None: ...
    @property
    def eval_id(self) -> str: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def status(self) -> Status: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def runs_note(self) -> str | None: ...
    @property
    def metrics(self) -> Mapping[str, ScoredMetric]: ...
    @property
    def runs(self) -> Sequence[AgentRun]: ...
    @property
    def planned_runs(self) -> int | None: ...


class RecordedFields(CaseFields, Protocol):
    """A case with its runs whole (a CaseResult, or a reader's summary of its line): what a
    digest is computed from."""

    @property
    def runs(self) -> Sequence[RunRecord]: ...


class ScoredCase(CaseFields, Protocol):
    """A scored case: a CaseResult, or its digest."""

    @property
    def key(self) -> str: ...
    @property
    def run_errors(self) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class RubricDigest:
    rubric_id: str
    score: float | None


@dataclass(frozen=True, slots=True)
class RunScoreDigest:
    score: float | None
    status: Status
    rubric_scores: tuple[RubricDigest, ...] | None = None


@dataclass(frozen=True, slots=True)
class MetricDigest:
    score: float | None
    threshold: float | None
    status: Status
    reason: str | None
    config_fingerprint: str
    judged_without: tuple[str, ...] | None
    runs: tuple[RunScoreDigest, ...]
    judge: JudgeFingerprint | None = None  # judged metrics: which judge gave the scores (one shared record per judge)


@dataclass(frozen=True, slots=True)
class RunDigest:
    error: str | None = None
    duration: float | None = None
    cost_usd: float | None = None
    unpriced_models: tuple[str, ...] | None = None
    # each budgeted figure of the run, in FIGURE_KEYS' order (core/figures.py run_figure of the
    # whole run); None when the run has none of them
    figures: tuple[float | None, ...] | None = None

    def figure(self, key: str) -> float | None:
        return None if self.figures is None else self.figures[FIGURE_KEYS.index(key)]


_CLEAN_RUN = RunDigest()  # a run without an error, a duration or a figure: one shared record


@dataclass(frozen=True, slots=True)
class CaseDigest(CaseNaming):
    suite: str
    eval_set_id: str
    eval_set_file: str | None
    eval_id: str
    fingerprint: str
    status: Status
    reason: str | None
    runs_note: str | None
    metrics: Mapping[str, MetricDigest]
    runs: tuple[RunDigest, ...]
    planned_runs: int | None = None
    outputs: str | None = None  # the digest of its recorded (planned) runs: core/recorded_outputs.py


def case_outputs(case: ScoredCase) -> str | None:
    """The digest of a case's recorded runs, a whole case's or as its digest carries it."""
    if isinstance(case, CaseDigest):
        return case.outputs
    return outputs_digest(cast(CaseResult, case))  # a ScoredCase is a CaseResult or a CaseDigest


_JUDGES: dict[str, JudgeFingerprint] = {}  # each judge's fingerprint held once, however many scores name it


def _judge(judge: JudgeFingerprint | None) -> JudgeFingerprint | None:
    if judge is None:
        return None
    key = judge.model_dump_json()
    found = _JUDGES.get(key)
    if found is None:
        found = judge
        if len(_JUDGES) < 1000:
            _JUDGES[key] = judge
    return found


def _run_digest(run: RunRecord) -> RunDigest:
    values = run_figures(run)
    figures = values if any(v is not None for v in values) else None
    unpriced = None if run.unpriced_models is None else tuple(sys.intern(m) for m in run.unpriced_models)
    if run.error is None and run.duration is None and run.cost_usd is None and unpriced is None and figures is None:
        return _CLEAN_RUN
    return RunDigest(_shared(run.error), run.duration, run.cost_usd, unpriced, figures)


def _shared(text: str | None) -> str | None:
    """Text that repeats over the cases (names, fingerprints of a config, reasons) held once."""
    return None if text is None else sys.intern(text)


def metric_digest(metric: ScoredMetric) -> MetricDigest:
    runs = tuple(
        RunScoreDigest(
            run.score,
            run.status,
            None if run.rubric_scores is None else tuple(RubricDigest(sys.intern(v.rubric_id), v.score) for v in run.rubric_scores),
        )
        for run in metric.runs
    )
    return MetricDigest(
        score=metric.score,
        threshold=metric.threshold,
        status=metric.status,
        reason=_shared(metric.reason),
        config_fingerprint=sys.intern(metric.config_fingerprint),
        judged_without=None if metric.judged_without is None else tuple(sys.intern(w) for w in metric.judged_without),
        runs=runs,
        judge=_judge(metric.judge),
    )


def digest(whole: RecordedFields | ScoredCase) -> CaseDigest:
    """The case without its evidence. Informational figures are left out: nothing that reads a
    digest weighs them (the gate and the baseline skip them, the table shows them with --detailed,
    which reads whole cases). What is read of the runs' turns (the recorded outputs' digest, the
    budgeted figures) is computed here. A digest is its own digest."""
    if isinstance(whole, CaseDigest):
        return whole
    case = cast(RecordedFields, whole)  # a CaseResult, or a reader's summary of its line
    return CaseDigest(
        suite=sys.intern(case.suite),
        eval_set_id=sys.intern(case.eval_set_id),
        eval_set_file=_shared(case.eval_set_file),
        eval_id=case.eval_id,
        fingerprint=case.fingerprint,
        status=case.status,
        reason=_shared(case.reason),
        runs_note=case.runs_note,
        metrics={sys.intern(name): metric_digest(m) for name, m in case.metrics.items() if m.status != Status.INFORMATIONAL},
        runs=tuple(_run_digest(r) for r in case.runs),
        planned_runs=case.planned_runs,
        outputs=outputs_digest(case),
    )


# ---------------------------------------------------------------- packed: a digest as bytes

# A big suite's digests are kept as bytes (files/spill.py keeps them on disk) and unpacked as
# each is read: marshal of plain tuples is compact and quick to load, and the round trip is
# exact (the same floats, strings, order and shared records), so `repr(digest)`, which
# core/baseline.py's results_id hashes, is the same either way.
_STATUSES = {s.value: s for s in Status}
# Version 0 marks no string as interned: a later version would intern, on loading, every string
# that happened to be interned when packed (ids and hashes, for pydantic interns what it parses),
# one more permanent string per case. Its floats are written to 17 digits: still exact.
_MARSHAL_VERSION = 0


def pack(case: CaseDigest) -> bytes:
    metrics = tuple(
        (name, m.score, m.threshold, m.status.value, m.reason, m.config_fingerprint, m.judged_without,
         tuple((r.score, r.status.value, None if r.rubric_scores is None else tuple((v.rubric_id, v.score) for v in r.rubric_scores))
               for r in m.runs),
         None if m.judge is None else m.judge.model_dump_json())
        for name, m in case.metrics.items()
    )
    runs = tuple(None if r is _CLEAN_RUN else (r.error, r.duration, r.cost_usd, r.unpriced_models, r.figures) for r in case.runs)
    return marshal.dumps((case.suite, case.eval_set_id, case.eval_set_file, case.eval_id, case.fingerprint, case.status.value,
                          case.reason, case.runs_note, metrics, runs, case.planned_runs, case.outputs), _MARSHAL_VERSION)


def unpack(data: bytes) -> CaseDigest:
    suite, eval_set_id, eval_set_file, eval_id, fingerprint, status, reason, runs_note, metrics, runs, planned, outputs = marshal.loads(data)
    return CaseDigest(
        suite=sys.intern(suite),
        eval_set_id=sys.intern(eval_set_id),
        eval_set_file=_shared(eval_set_file),
        eval_id=eval_id,
        fingerprint=fingerprint,
        status=_STATUSES[status],
        reason=_shared(reason),
        runs_note=runs_note,
        metrics={sys.intern(m[0]): _unpack_metric(m) for m in metrics},
        runs=tuple(_CLEAN_RUN if r is None else _unpack_run(r) for r in runs),
        planned_runs=planned,
        outputs=outputs,
    )


def _unpack_metric(packed: tuple[Any, ...]) -> MetricDigest:
    _, score, threshold, status, reason, config, without, runs, judge = packed
    return MetricDigest(
        score=score,
        threshold=threshold,
        status=_STATUSES[status],
        reason=_shared(reason),
        config_fingerprint=sys.intern(config),
        judged_without=None if without is None else tuple(sys.intern(w) for w in without),
        runs=tuple(RunScoreDigest(s, _STATUSES[st], None if rubrics is None else tuple(RubricDigest(sys.intern(i), v) for i, v in rubrics))
                   for s, st, rubrics in runs),
        judge=None if judge is None else _judge_of_json(judge),
    )


def _unpack_run(packed: tuple[Any, ...]) -> RunDigest:
    error, duration, cost, unpriced, figures = packed
    return RunDigest(_shared(error), duration, cost, None if unpriced is None else tuple(sys.intern(m) for m in unpriced), figures)


def _judge_of_json(text: str) -> JudgeFingerprint | None:
    return _JUDGES.get(text) or _judge(JudgeFingerprint.model_validate_json(text))


class ScoredResults(Protocol):
    """A results record as the gate, accept and the reports read it: a Results in memory, or
    a ResultsDigest of a file."""

    @property
    def cases(self) -> Sequence[ScoredCase]: ...
    @property
    def suites(self) -> list[str]: ...
    @property
    def case_filter(self) -> list[str] | None: ...
    @property
    def shard(self) -> ShardInfo | None: ...
    @property
    def adaptive(self) -> AdaptiveInfo | None: ...
    @property
    def num_runs(self) -> int: ...
    @property
    def created_at(self) -> str: ...
    @property
    def commit(self) -> str | None: ...
    @property
    def stats(self) -> RunStats: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def rejudged(self) -> list[RejudgedBaseline] | None: ...

    def fetch(self, keys: Iterable[str]) -> Mapping[str, CaseResult]:
        """These cases whole (for the diffs a report shows), keys not found left out."""
        ...


Fetch = Callable[[Iterable[str]], Mapping[str, CaseResult]]


@dataclass(frozen=True)
class ResultsDigest:
    """A results file's other fields and its cases' digests; `fetch` reads chosen cases whole again."""

    header: Results  # its cases list is empty
    cases: Sequence[CaseDigest]  # a list, or files/spill.py's digests kept on disk
    fetch: Fetch

    @property
    def suites(self) -> list[str]:
        return self.header.suites

    @property
    def case_filter(self) -> list[str] | None:
        return self.header.case_filter

    @property
    def shard(self) -> ShardInfo | None:
        return self.header.shard

    @property
    def adaptive(self) -> AdaptiveInfo | None:
        return self.header.adaptive

    @property
    def num_runs(self) -> int:
        return self.header.num_runs

    @property
    def created_at(self) -> str:
        return self.header.created_at

    @property
    def commit(self) -> str | None:
        return self.header.commit

    @property
    def stats(self) -> RunStats:
        return self.header.stats

    @property
    def warnings(self) -> list[str]:
        return self.header.warnings

    @property
    def rejudged(self) -> list[RejudgedBaseline] | None:
        return self.header.rejudged

    @property
    def passed(self) -> bool:
        return not any(c.status == Status.FAILED for c in self.cases)
