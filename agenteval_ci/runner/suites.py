"""Running suites: every case x run of every suite at once, each suite under its own
concurrency bound, with a per-turn timeout; each case is scored as soon as its runs end.

An agent that raises or times out fails that run (and so its case) with the reason;
the other jobs go on. Results keep eval-set order whatever the completion order.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from ..agents import Agent, AgentExited, Conversation, contained, load_agent
from ..agents.logs import AgentLogs
from ..core.adaptive import FIRST_BASELINE_BUDGET, Rerun, RoundPlan, case_note, first_round_runs, plan_first_baseline, plan_round, within_limits
from ..core.fingerprint import case_fingerprint
from ..core.judging import Judge
from ..core.metrics import adk_mean
from ..core.metrics.efficiency import token_breakdown
from ..core.prices import priced
from ..core.results_record import with_judge_usage
from ..core.scoring import CaseToScore, score_case, with_more_runs
from ..core.shards import in_shard
from ..core.simulation import SimulatedUser, SimulationFailed
from ..errors import AgentUnusable, InputError, Problem
from ..files.baseline_answers import BaselineAnswers
from ..files.project import EvalSetToRun, Suite
from ..files.results_file import new_results
from ..judge import make_judge
from ..schema import (
    AdaptiveInfo,
    CaseResult,
    Content,
    EvalCase,
    Invocation,
    MetricResult,
    MetricRun,
    Results,
    RunRecord,
    RunStats,
    ShardInfo,
    Status,
    TokenCounts,
)
from ..schema.baseline import Baseline
from ..schema.eval_config import UserSimulatorConfig
from ..schema.project import AdaptiveRuns
from ..schema.results import case_key
from ..schema.settings import GateSettings, JudgeSettings
from .preflight import checked_cases
from .progress import Progress

T = TypeVar("T")


@dataclass(frozen=True)
class CaseJob:
    """A case to run, by its place in its eval set file: read when its runs start and let go when
    it is scored, so a big suite's cases are never all in memory."""

    suite: Suite
    eval_set: EvalSetToRun
    index: int
    eval_id: str

    def case(self) -> EvalCase:
        return self.eval_set.loaded.case_at(self.index)


def plan(suites: list[Suite], shard: ShardInfo | None = None) -> list[CaseJob]:
    """The cases to run, in suite, eval set and case order, kept to this shard: one pass over
    every case of every shard, which makes each of `run`'s checks (runner/preflight.py, what
    `validate` reports too) before any agent starts."""
    jobs: list[CaseJob] = []
    problems: list[Problem] = []
    for suite in suites:
        for eval_set, index, case in checked_cases(suite.eval_sets, problems):
            if in_shard(shard, eval_set.loaded.eval_set_id, case.eval_id):
                jobs.append(CaseJob(suite, eval_set, index, case.eval_id))
    if problems:
        raise InputError(problems)
    return jobs


# ---------------------------------------------------------------- one run of one case

# google-genai's words (current and older releases) when a client is made without a key.
_NO_KEY = re.compile(r"No API key was provided|Missing key inputs argument|api[_ ]key.{0,40}(not set|missing|required)", re.I)
NO_KEY_HINT = (
    "no model API key: the agent's model needs GOOGLE_API_KEY (or Vertex AI: GOOGLE_GENAI_USE_VERTEXAI, "
    "GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION) and none is set; a fork PR's workflow gets no secrets, "
    "see 'Fork PRs' in docs/action.md"
)


def _explained(exc: Exception) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return f"{NO_KEY_HINT} ({text})" if _NO_KEY.search(str(exc)) else text


def _tokens(run_invocations: list[Invocation]) -> TokenCounts:
    """Counted as token_usage_v1 counts them (input with tool-use prompts, output with thinking)."""
    breakdowns = [token_breakdown(inv) for inv in run_invocations]
    return TokenCounts(
        input=int(sum(b.input_tokens or 0 for b in breakdowns)),
        output=int(sum(b.output_tokens or 0 for b in breakdowns)),
    )


@dataclass
class ScriptedUser:
    """The user of a fixed conversation: the case's user turns, in order."""

    case: EvalCase

    async def next_turn(self, so_far: list[Invocation]) -> Content | None:
        turns = self.case.conversation or []
        return turns[len(so_far)].user_content if len(so_far) < len(turns) else None


async def run_conversation(
    agent: Agent, case: EvalCase, run_index: int, turn_timeout: float, user: SimulatedUser | None = None, read_state: bool = False
) -> RunRecord:
    """Play the user's turns against one session: the case's fixed turns, or a simulated user's;
    then, when a metric reads it (`read_state`), the session state they left."""
    started = time.monotonic()
    invocations: list[Invocation] = []
    error = None
    state = None
    conversation: Conversation | None = None
    source = user or ScriptedUser(case)
    try:
        conversation = await contained(agent.start(case, run_index))
        while (user_content := await source.next_turn(invocations)) is not None:
            try:
                invocations.append(await asyncio.wait_for(contained(conversation.send(user_content)), turn_timeout))
            except asyncio.TimeoutError:
                error = f"turn {len(invocations) + 1}: timed out after {turn_timeout:g}s"
                break
        if error is None and read_state:
            state, error = await _final_state(conversation, turn_timeout)
    except AgentUnusable:  # the agent as configured does not exist: the command stops (exit 2)
        raise
    except SimulationFailed as exc:  # the simulated user, not the agent, failed: say so
        error = f"turn {len(invocations) + 1}: {exc}"
    except Exception as exc:  # the agent's own failure: this run fails, the others go on
        error = f"turn {len(invocations) + 1}: {_explained(exc)}"
    except (SystemExit, KeyboardInterrupt) as exc:  # user code may not end the process: the run fails
        error = f"turn {len(invocations) + 1}: {AgentExited.of(exc)}"
    finally:
        if conversation is not None:
            await conversation.close()
    return RunRecord(
        index=run_index,
        invocations=invocations,
        error=error,
        duration=round(time.monotonic() - started, 3),
        tokens=_tokens(invocations),
        unreported=(conversation.unreported() or None) if conversation is not None else None,
        final_session_state=state,
    )


async def _final_state(conversation: Conversation, timeout: float) -> tuple[dict[str, Any] | None, str | None]:
    """(the session state after the last turn, None) or (None, why reading it failed the run)."""
    what = "after the last turn, reading the session state"
    try:
        return await asyncio.wait_for(contained(conversation.final_state()), timeout), None
    except asyncio.TimeoutError:
        return None, f"{what}: timed out after {timeout:g}s"
    except Exception as exc:
        return None, f"{what}: {_explained(exc)}"


# ---------------------------------------------------------------- all cases


def simulator_config(job: CaseJob) -> UserSimulatorConfig:
    return job.eval_set.config.config.user_simulator_config or UserSimulatorConfig()


def _simulated_user(job: CaseJob, case: EvalCase, judge: Judge) -> SimulatedUser | None:
    scenario = case.conversation_scenario
    return SimulatedUser(scenario, simulator_config(job), judge) if scenario else None


def _reads_final_state(job: CaseJob) -> bool:
    """Whether a metric of the case reads the session state after the last turn: only then is it
    asked of the agent (one more request to a served agent, which may not answer it)."""
    return any(metric.spec.reads_final_state for metric in job.eval_set.config.metrics)


async def _run_case(agent: Agent, job: CaseJob, case: EvalCase, bound: asyncio.Semaphore, progress: Progress, judge: Judge, indexes: range) -> list[RunRecord]:
    """The runs `indexes` of one case; a later round continues the numbering, so each run is
    its own sample (the agent sees its run index; the judge draws afresh for a repeat)."""
    async def one(run_index: int) -> RunRecord:
        async with bound:
            user = _simulated_user(job, case, judge)
            return await run_conversation(agent, case, run_index, job.suite.turn_timeout_seconds, user, _reads_final_state(job))

    runs = list(await asyncio.gather(*(one(i) for i in indexes)))
    progress.case_done(failed=any(r.error for r in runs))
    return runs


def agent_metrics(runs: list[RunRecord]) -> dict[str, MetricResult]:
    """Vertex's agent metrics, as figures that never pass or fail: seconds per run, and 1 per failed run."""
    per_metric: dict[str, list[float | None]] = {
        "latency": [r.duration for r in runs],
        "failure": [1.0 if r.error else 0.0 for r in runs],
    }
    out = {}
    for name, values in per_metric.items():
        scored = [v for v in values if v is not None]
        out[name] = MetricResult(
            score=adk_mean(scored) if scored else None,
            status=Status.INFORMATIONAL if scored else Status.NOT_EVALUATED,
            runs=[MetricRun(score=v, status=Status.INFORMATIONAL) for v in values],
        )
    return out


def _with_agent_metrics(result: CaseResult) -> CaseResult:
    return result.model_copy(update={"metrics": {**result.metrics, **agent_metrics(result.runs)}})


@dataclass
class AgentTally:
    """What the agent did over the whole run, counted a case at a time."""

    turns: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    most_runs: int = 0

    def add(self, case: CaseResult) -> None:
        self.most_runs = max(self.most_runs, len(case.runs))
        for run in case.runs:
            self.turns += len(run.invocations)
            self.tokens_in += run.tokens.input if run.tokens else 0
            self.tokens_out += run.tokens.output if run.tokens else 0

    def stats(self, seconds: float) -> RunStats:
        return RunStats(duration_seconds=round(seconds, 3), agent_turns=self.turns, agent_tokens=TokenCounts(input=self.tokens_in, output=self.tokens_out))


Runner = Callable[[CaseJob, range], Awaitable[CaseResult]]


def case_runner(agents: dict[str, Agent], judge: Judge, progress: Progress, jobs: list[CaseJob], answers: BaselineAnswers | None = None) -> Runner:
    """Runs and scores some runs of a case, without the agent metrics (added once at the end).
    Each case is scored as soon as its runs end, so judge calls overlap other cases' agent
    turns; the agent bound covers only the agent, the judge keeps its own."""
    bounds = {job.suite.name: asyncio.Semaphore(job.suite.concurrency) for job in jobs}

    async def run_and_score(job: CaseJob, indexes: range) -> CaseResult:
        case = job.case()
        runs = await _run_case(agents[job.suite.name], job, case, bounds[job.suite.name], progress, judge, indexes)
        runs = [priced(run, job.suite.prices) for run in runs]
        return await score_case(_to_score(job, case, runs, answers), judge).result()

    return run_and_score


def _to_score(job: CaseJob, case: EvalCase, runs: list[RunRecord], answers: BaselineAnswers | None = None) -> CaseToScore:
    eval_set = job.eval_set
    item = CaseToScore(case, runs, eval_set.config.metrics, eval_set.loaded.eval_set_id, eval_set.loaded.path, job.suite.name,
                       count_builtin_tools=job.suite.count_builtin_tools)
    if answers is None or not any(m.spec.head_to_head for m in eval_set.config.metrics):
        return item
    recorded, why = answers.of(job.suite.name, item.eval_set_id, case.eval_id, case_fingerprint(case))
    return replace(item, baseline_runs=recorded, baseline_missing=why)


def job_key(job: CaseJob) -> str:
    return case_key(job.suite.name, job.eval_set.loaded.eval_set_id, job.eval_id)


Emit = Callable[[CaseResult], None]


async def run_jobs(jobs: list[CaseJob], agents: dict[str, Agent], judge: Judge, progress: Progress, emit: Emit, adapt: Adapt | None = None,
                   answers: BaselineAnswers | None = None) -> AdaptiveInfo | None:
    """Every case `num_runs` times, each handed to `emit` in order as it is scored; with `adapt`,
    rounds of re-runs of the unsure cases first (those rounds weigh every case at once)."""
    run = case_runner(agents, judge, progress, jobs, answers)
    if adapt is None:
        await _in_order(jobs, run, emit, window=max(MIN_WINDOW, WINDOW_PER_WORKER * sum({j.suite.name: j.suite.concurrency for j in jobs}.values())))
        return None
    first = await asyncio.gather(*(run(job, range(job.suite.num_runs)) for job in jobs))
    cases = {job_key(job): case for job, case in zip(jobs, first)}
    info = await adapt.rounds(jobs, cases, run, progress)
    for job in jobs:
        emit(_with_agent_metrics(cases.pop(job_key(job))))
    return info


MIN_WINDOW = 64
WINDOW_PER_WORKER = 4  # cases started ahead of the oldest unfinished one, per agent worker


async def _in_order(jobs: list[CaseJob], run: Runner, emit: Emit, window: int) -> None:
    """Cases started in order, at most `window` ahead of the oldest one not yet emitted: the
    workers stay busy past a slow case, and no more than `window` finished cases wait for it."""
    pending: deque[asyncio.Task[CaseResult]] = deque()
    try:
        for job in jobs:
            pending.append(asyncio.ensure_future(run(job, range(job.suite.num_runs))))
            while pending and (pending[0].done() or len(pending) >= window):
                emit(_with_agent_metrics(await pending.popleft()))
        while pending:
            emit(_with_agent_metrics(await pending.popleft()))
    finally:
        for task in pending:
            task.cancel()


async def closing_agents(agents: Iterable[Agent], work: Awaitable[T]) -> T:
    """`work`, then each agent's loop-bound resources released in that same loop, however it ended."""
    try:
        return await work
    finally:
        for agent in agents:
            await agent.aclose()


@dataclass
class Adapt:
    """`num_runs: auto`: rounds of re-runs of the cases the gate is unsure about, until it is
    sure, every unsure case has max_runs, or the suite's run budget is spent. With no baseline to
    compare with (or `--new-baseline`) the rounds gather a first baseline instead: the cases whose
    runs disagree run again, to learn their pass rates (docs/baseline.md)."""

    baseline: Baseline | None
    gate: GateSettings
    first_baseline: bool = False

    def plan(self, results: Results) -> RoundPlan:
        return plan_first_baseline(results, self.gate.power) if self.first_baseline else plan_round(results, self.baseline, self.gate)

    def budget(self, limits: AdaptiveRuns) -> float:
        return FIRST_BASELINE_BUDGET if self.first_baseline else limits.run_budget

    async def rounds(self, jobs: list[CaseJob], cases: dict[str, CaseResult], run: Runner, progress: Progress) -> AdaptiveInfo:
        by_key = {job_key(j): j for j in jobs if j.suite.adaptive}
        limits = {j.suite.name: j.suite.adaptive for j in by_key.values() if j.suite.adaptive is not None}
        room = {name: int(self.budget(plan) * sum(j.suite.name == name for j in by_key.values())) for name, plan in limits.items()}
        for key, job in by_key.items():
            room[job.suite.name] -= len(cases[key].runs)
            cases[key] = cases[key].model_copy(update={"planned_runs": len(cases[key].runs)})  # the rest are chosen by outcome
        first_why: dict[str, str] = {}
        rounds, stopped = 1, ""
        left: list[Rerun] = []
        first = next(iter(limits.values()), AdaptiveRuns())
        planned = min((j.suite.num_runs for j in by_key.values()), default=first.min_runs)
        while True:
            # the limits say when the budgets are tested (core/budgets/verdict.py, Looks)
            looked = AdaptiveInfo(min_runs=planned, max_runs=first.max_runs, run_budget=self.budget(first), rounds=rounds)
            plan = self.plan(new_results(list(cases.values()), num_runs=1, adaptive=looked))
            chosen, left = within_limits(tuple(r for r in plan.reruns if r.key in by_key), cases, limits, room)
            stopped = self._stopped(plan, chosen, left)
            if plan.decided or not chosen:
                break
            rounds += 1
            what = "for the first baseline, whose runs disagree" if self.first_baseline else "that the gate is unsure about"
            progress.another_round(len(chosen), f"round {rounds}: running {len(chosen)} case(s) again {what}")
            for rerun in chosen:
                first_why.setdefault(rerun.key, rerun.why)
            more = await asyncio.gather(*(run(by_key[r.key], range(len(cases[r.key].runs), len(cases[r.key].runs) + 1)) for r in chosen))
            for rerun, new in zip(chosen, more):
                cases[rerun.key] = with_more_runs(cases[rerun.key], new, by_key[rerun.key].eval_set.config.metrics)
        self._note(cases, by_key, first_why, plan, {r.key: r.why for r in left}, limits)
        spent = sum(len(cases[k].runs) for k in by_key)
        return AdaptiveInfo(min_runs=planned, max_runs=first.max_runs, run_budget=self.budget(first), runs=spent, rounds=rounds, stopped=stopped)

    def _note(
        self, cases: dict[str, CaseResult], by_key: dict[str, CaseJob], first_why: dict[str, str], plan: RoundPlan, out_of_budget: dict[str, str], limits: dict[str, AdaptiveRuns]
    ) -> None:
        still = {r.key: r.why for r in plan.reruns}  # each with the evidence as the rounds ended
        compared = {c.key for c in cases.values() if self.baseline and self.baseline.case(c.suite, c.eval_set_id, c.eval_id)}
        for key in by_key:
            case = cases[key]
            if plan.decided:
                end = f"then the gate decided: {plan.decided}"
            elif key in out_of_budget:
                end = f"still wanted when the run budget ran out, as {still[key]}"
            elif key in still:
                end = f"still wanted at max_runs ({limits[case.suite].max_runs}), as {still[key]}"
            else:
                end = "then settled"
            why = first_why.get(key) or out_of_budget.get(key)
            if self.first_baseline:
                end = "until max_runs" if len(case.runs) >= limits[case.suite].max_runs else "until the first baseline's budget ran out" if key in still else "then settled"
            note = case_note(case, why, end, key in compared, key in first_why)
            if self.first_baseline and not why:
                note = f"{len(case.runs)} run(s): a first baseline runs every case {case.planned_runs} times; its runs agree"
            cases[key] = case.model_copy(update={"runs_note": note})

    def _stopped(self, plan: RoundPlan, chosen: list[Rerun], left: list[Rerun]) -> str:
        if self.first_baseline:
            what = "first baseline: every case ran the first round"
            if left and not chosen:
                return f"{what}; the budget ran out with {len(left)} case(s) whose runs disagree below max_runs"
            return f"{what}; every case whose runs disagree reached max_runs" if plan.reruns and not chosen else f"{what}; no case's runs disagree"
        if plan.decided:
            return f"the gate decided: {plan.decided}"
        if left and not chosen:
            return f"the run budget ran out with {len(left)} case(s) still wanted"
        if plan.reruns and not chosen:
            return "every case still wanted reached max_runs"
        return "settled: no case left that a run could change the verdict on"


def first_baseline_suite(suite: Suite) -> Suite:
    """The suite as a first baseline runs it: every case FIRST_BASELINE_RUNS times, then rounds."""
    limits = suite.adaptive or AdaptiveRuns()
    return replace(suite, num_runs=first_round_runs(limits), adaptive=limits)


def _load_agents(suites: list[Suite], logs: AgentLogs | None) -> dict[str, Agent]:
    """Each suite's agent, by suite name, loaded between the two halves of taming its logging."""
    if logs:
        logs.begin()  # before a started agent server appends its output
    agents = {s.name: load_agent(s.agent, workers=s.concurrency, where=s.source, turn_timeout=s.turn_timeout_seconds) for s in suites}
    if logs:
        logs.apply()
    return agents


def run_suites(
    suites: list[Suite],
    judge_settings: JudgeSettings | None = None,
    shard: ShardInfo | None = None,
    progress: Progress | None = None,
    logs: AgentLogs | None = None,
    quiet: bool = False,
    baseline: Baseline | None = None,
    gate: GateSettings | None = None,
    environ: Mapping[str, str] | None = None,
    progress_bar: bool = False,
    new_baseline: bool = False,
    emit: Emit | None = None,
    answers: BaselineAnswers | None = None,
) -> Results:
    """Load each suite's agent, run and score every case of this shard, return the results.
    `logs` tames the agent's own logging once its modules are imported (they configure it).
    Suites with `num_runs: auto` then re-run the cases the gate is unsure about against `baseline`;
    with no baseline, or `new_baseline` (every suite then), they gather a first baseline.
    `environ` holds the judge's endpoint and credentials (read before the agents are imported).
    With `emit`, each case goes there in order as it is scored, and the results returned hold
    none: a big suite streams to its results file."""
    started = time.monotonic()
    first_baseline = new_baseline or baseline is None
    if first_baseline:
        suites = [first_baseline_suite(s) if s.adaptive or new_baseline else s for s in suites]
    jobs = plan(suites, shard)
    collected: list[CaseResult] = []
    tally = AgentTally()

    def take(case: CaseResult) -> None:
        tally.add(case)
        (emit or collected.append)(case)

    progress = progress or Progress(len(jobs), quiet=quiet, bar=progress_bar)
    # The judge: one for the whole run, so all judged metrics share its bound and cache. Made
    # before the agents are imported: what they set in os.environ is theirs, not the judge's.
    judge = make_judge(judge_settings or JudgeSettings(), environ or {})
    agents = _load_agents([s for s in suites if any(j.suite is s for j in jobs)], logs)
    try:
        adapt = Adapt(None if new_baseline else baseline, gate or GateSettings(), first_baseline) if any(j.suite.adaptive for j in jobs) else None
        adaptive = asyncio.run(closing_agents(agents.values(), run_jobs(jobs, agents, judge, progress, take, adapt, answers)))
    finally:
        for agent in agents.values():
            agent.close()
        if logs:
            logs.restore()
    progress.finish()
    return new_results(
        collected,
        num_runs=(tally.most_runs or 1) if adaptive else max((s.num_runs for s in suites), default=1),
        suites=[s.name for s in suites],
        stats=with_judge_usage(tally.stats(time.monotonic() - started), judge.usage()),
        shard=shard,
        adaptive=adaptive,
    )
