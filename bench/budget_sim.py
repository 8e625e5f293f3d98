"""How often a budget catches a real rise, and how often it cries wolf (issue 28's "Show").

Simulated agents whose token use is noisy run a suite; the baseline and the results go through
the real code: each run is a RunRecord whose turn carries the model calls' usage (as an ADK agent
records it), the baseline is written by baseline_from_results with the budgeted figures, and the
verdict comes from gate.compare at the default settings (confidence 0.95) with
`gate.budgets: {token_usage_v1: BUDGET}`. With `--pr-runs auto` the pull request's runs are
chosen as `num_runs: auto` chooses them (its defaults: min_runs 1, max_runs 10, run_budget 3):
round by round by adaptive.plan_round within adaptive.within_limits, as the runner does. Only
the agent is simulated.

  python bench/budget_sim.py [--trials 400] [--cases 100] [--seed 1] [--budgets +5%,+0%]
                             [--noise ln25,ln40,retry,calls] [--baselines first,fixed1]
                             [--pr-runs 1|N|auto] [--jobs 2]

Each case has its own size (tokens per turn, log-normal across cases: some cases are 10x others).
Noise models, per run of a case:
  ln25   tokens x exp(N(0, 0.25)): about 25% run-to-run spread (ln30, ln40, ln50 likewise)
  retry  tokens x exp(N(0, 0.10)), and 1 run in 6 retries a model call: x1.8 (a skewed, bimodal spread)
  calls  1 + Poisson(2) model calls per turn, each about the case's size x exp(N(0, 0.1)) (discrete)
  drop   tokens x exp(N(0, 0.10)), and 1 run in 6 stops early: x0.3 (skewed the other way)
  runaway  tokens x exp(N(0, 0.10)), and 1 run in 20 loops: x5 (a rare, heavy tail)
  mixed  half the cases spend the same tokens every run, the other half ln40
  hetero each case its own spread, from 0 to 60% (ln0 .. ln60)
  few    a handful of tokens: Poisson(size / 300), often 0 (a small count: the offset for 0 at work)
Baselines: `first` (every case 5 times: what `agenteval init` / `run --new-baseline` makes) or
`fixedN` (N runs per case). The pull request runs every case once (num_runs: 1, the default),
N times, or `auto`: then each row shows both, the first round alone being num_runs: 1.

Rows: A/A (nothing changed: a breach is a false alarm), +10% tokens (every run 10% heavier:
a breach is caught), and a deterministic +1 tool call per turn (tool_call_count_v1: +0%, one
run, every case's tool calls fixed in the baseline) which must be caught on one run.
Rates come with 95% Wilson intervals. The anchor is the same suite compared with a budget of
+1000% (it never breaches): printed as the time ratio of a budget verdict to that anchor.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from agenteval_ci.core.adaptive import plan_round, within_limits
from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.files.results_file import new_results
from agenteval_ci.schema import AdaptiveInfo, CaseResult, EvalCase, Invocation, Results, RunRecord, Status, UsageMetadata
from agenteval_ci.schema.baseline import Baseline
from agenteval_ci.schema.content import Content, FunctionCall, Part
from agenteval_ci.schema.eval_set import InvocationEvent, InvocationEvents
from agenteval_ci.schema.project import AdaptiveRuns
from agenteval_ci.schema.settings import GateSettings

Noise = Callable[[random.Random, float], list[int]]  # (rng, case size) -> input tokens of each model call of one turn


def _ln(spread: float) -> Noise:
    return lambda rng, size: [int(size * math.exp(rng.gauss(0, spread)))]


def _retry(rng: random.Random, size: float) -> list[int]:
    base = size * math.exp(rng.gauss(0, 0.10))
    return [int(base), int(0.8 * base)] if rng.random() < 1 / 6 else [int(base)]


def _poisson(rng: random.Random, mean: float) -> int:
    k, p, limit = 0, 1.0, math.exp(-mean)
    while True:
        p *= rng.random()
        if p < limit:
            return k
        k += 1


def _calls(rng: random.Random, size: float) -> list[int]:
    return [int(size / 3 * math.exp(rng.gauss(0, 0.1))) for _ in range(1 + _poisson(rng, 2))]


def _drop(rng: random.Random, size: float) -> list[int]:
    base = size * math.exp(rng.gauss(0, 0.10))
    return [int(0.3 * base)] if rng.random() < 1 / 6 else [int(base)]


def _runaway(rng: random.Random, size: float) -> list[int]:
    base = size * math.exp(rng.gauss(0, 0.10))
    return [int(5 * base)] if rng.random() < 1 / 20 else [int(base)]


def _case_spread(size: float) -> float:
    """A spread of the case's own, from 0 to 0.6, fixed by its size (the same every run)."""
    return 0.6 * (size * 1000 % 1)


def _mixed(rng: random.Random, size: float) -> list[int]:
    return [int(size * math.exp(rng.gauss(0, 0.40)))] if int(size) % 2 else [int(size)]


def _hetero(rng: random.Random, size: float) -> list[int]:
    return [int(size * math.exp(rng.gauss(0, _case_spread(size))))]


def _few(rng: random.Random, size: float) -> list[int]:
    return [_poisson(rng, size / 300)]


NOISE: dict[str, Noise] = {
    "ln25": _ln(0.25), "ln30": _ln(0.30), "ln40": _ln(0.40), "ln50": _ln(0.50), "retry": _retry, "calls": _calls, "drop": _drop,
    "runaway": _runaway, "mixed": _mixed, "hetero": _hetero, "few": _few,
}


# ---------------------------------------------------------------- runs as the real records


USER = Content.model_construct(role="user", parts=[])
_CALLING: dict[int, Content] = {}  # records are never changed: one content per number of tool calls


def _calling(tools: int) -> Content:
    if tools not in _CALLING:
        call = Part.model_construct(function_call=FunctionCall.model_construct(name="lookup", args={}))
        _CALLING[tools] = Content.model_construct(role="model", parts=[call] * tools)
    return _CALLING[tools]


def _turn(calls: list[int], tools: int) -> Invocation:
    """One turn: `calls` model calls (input tokens each; output a tenth), the first making `tools` tool calls."""
    events = [
        InvocationEvent.model_construct(
            author="agent", model_version="gemini-2.5-flash", content=_calling(tools if i == 0 else 0),
            usage_metadata=UsageMetadata.model_construct(prompt_token_count=tokens, candidates_token_count=tokens // 10),
        )
        for i, tokens in enumerate(calls)
    ]
    return Invocation.model_construct(user_content=USER, final_response=None,
                                      intermediate_data=InvocationEvents.model_construct(invocation_events=events),
                                      duration=None, model_duration=None, tool_duration=None)


CASE = EvalCase.model_construct(eval_id="x", conversation=[])


def _results(sizes: list[float], tools: list[int], runs: int, noise: Noise, rng: random.Random, scale: float = 1.0, more_tools: int = 0) -> Results:
    cases = []
    for i, (size, tool_calls) in enumerate(zip(sizes, tools)):
        records = [RunRecord.model_construct(index=r, invocations=[_turn(noise(rng, size * scale), tool_calls + more_tools)], error=None,
                                             duration=None, tokens=None, unreported=None, cost_usd=None, unpriced_models=None)
                   for r in range(runs)]
        cases.append(CaseResult.model_construct(suite="default", eval_set_id="sim", eval_set_file=None, eval_id=f"c{i}", fingerprint="f",
                                                status=Status.PASSED, reason=None, metrics={}, runs=records, eval_case=CASE,
                                                runs_note=None, planned_runs=None))
    return new_results(cases, num_runs=runs)


# ---------------------------------------------------------------- trials


def wilson(hits: int, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    z, p = 1.96, hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _rate(hits: int, n: int) -> str:
    lo, hi = wilson(hits, n)
    return f"{hits / n:6.1%} [{lo:.1%}, {hi:.1%}]"


AUTO = AdaptiveRuns()  # num_runs: auto's defaults


@dataclass(frozen=True)
class Outcome:
    once: bool  # breached on one run of every case (num_runs: 1)
    auto: bool  # breached when the runs went on as num_runs: auto has them (= once without --pr-runs auto)
    runs: float  # runs per case the pull request spent


def _more_runs(result: CaseResult, record: RunRecord) -> CaseResult:
    return result.model_copy(update={"runs": [*result.runs, record.model_copy(update={"index": len(result.runs)})]})


def _auto(pr: Results, baseline: Baseline, settings: GateSettings, noise: Noise, rng: random.Random, draw: Callable[[int, int], Results]) -> Results:
    """The rounds the runner plays (runner/suites.py, Adapt.rounds) with a simulated agent."""
    cases = {c.key: c for c in pr.cases}
    index = {c.key: i for i, c in enumerate(pr.cases)}
    room = {"default": int(AUTO.run_budget * len(cases)) - len(cases)}
    rounds = 1
    while True:
        info = AdaptiveInfo(min_runs=AUTO.min_runs, max_runs=AUTO.max_runs, run_budget=AUTO.run_budget, rounds=rounds)
        results = new_results(list(cases.values()), num_runs=1, adaptive=info)
        plan = plan_round(results, baseline, settings)
        chosen, _ = within_limits(plan.reruns, cases, {"default": AUTO}, room)
        if plan.decided or not chosen:
            return results
        rounds += 1
        for rerun in chosen:
            cases[rerun.key] = _more_runs(cases[rerun.key], draw(index[rerun.key], 1).cases[0].runs[0])


def trial(rng: random.Random, cases: int, noise: Noise, baseline_runs: int, settings: GateSettings, effect: str, pr_runs: int | str = 1) -> Outcome:
    sizes = [1000 * math.exp(rng.gauss(0, 1.0)) for _ in range(cases)]
    tools = [rng.randint(0, 3) for _ in range(cases)]
    keys = sorted({*settings.budget_keys(), "cost_usd"})
    baseline = baseline_from_results(_results(sizes, tools, baseline_runs, noise, rng), figures=keys)
    scale, more = (1.10, 0) if effect == "+10%" else (1.0, 1 if effect == "tool" else 0)

    def draw(case: int, runs: int) -> Results:
        return _results(sizes[case:case + 1], tools[case:case + 1], runs, noise, rng, scale, more)

    pr = _results(sizes, tools, 1 if pr_runs == "auto" else int(pr_runs), noise, rng, scale, more)
    once = any(b.breached for b in compare(pr, baseline, settings).budgets)
    if pr_runs != "auto":
        return Outcome(once, once, len(pr.cases[0].runs))
    ended = _auto(pr, baseline, settings, noise, rng, draw)
    return Outcome(once, any(b.breached for b in compare(ended, baseline, settings).budgets), sum(len(c.runs) for c in ended.cases) / cases)


def row(job: tuple[str, str, str, argparse.Namespace]) -> str:
    budget, name, path, args = job
    tokens = GateSettings(budgets={"token_usage_v1": budget})
    tool_settings = GateSettings(budgets={"tool_call_count_v1": "+0%"})
    runs = 5 if path == "first" else int(path.removeprefix("fixed"))
    rng = random.Random(f"{args.seed}:{budget}:{name}:{path}")
    pr_runs = args.pr_runs if args.pr_runs == "auto" else int(args.pr_runs)
    aa = [trial(rng, args.cases, NOISE[name], runs, tokens, "none", pr_runs) for _ in range(args.trials)]
    hit = [trial(rng, args.cases, NOISE[name], runs, tokens, "+10%", pr_runs) for _ in range(args.trials)]
    tools = max(1, args.trials // 10)
    tool = sum(trial(rng, args.cases, NOISE[name], runs, tool_settings, "tool").once for _ in range(tools))
    line = f"{budget:>7} {name:>6} {path:>8}  {_rate(sum(o.once for o in aa), args.trials):>24}  {_rate(sum(o.once for o in hit), args.trials):>24}"
    if pr_runs == "auto":
        line += (f"  {_rate(sum(o.auto for o in aa), args.trials):>24} {sum(o.runs for o in aa) / args.trials:5.2f}"
                 f"  {_rate(sum(o.auto for o in hit), args.trials):>24} {sum(o.runs for o in hit) / args.trials:5.2f}")
    return line + f"  {_rate(tool, tools):>24}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budgets", default="+5%,+0%")
    parser.add_argument("--noise", default="ln25,ln40,retry,calls")
    parser.add_argument("--baselines", default="first,fixed1")
    parser.add_argument("--pr-runs", default="1", help="runs of every case in the pull request: a number (num_runs) or auto")
    parser.add_argument("--jobs", type=int, default=1, help="rows measured at once, one process each")
    args = parser.parse_args()
    runs = "as num_runs: auto has them, and once" if args.pr_runs == "auto" else f"{args.pr_runs} time(s)"
    print(f"{args.cases} cases, {args.trials} trials per row; the pull request runs every case {runs}; confidence 0.95")
    header = f"{'budget':>7} {'noise':>6} {'baseline':>8}  {'A/A false alarms':>24}  {'+10% tokens caught':>24}"
    if args.pr_runs == "auto":
        header += f"  {'A/A, auto':>24} {'runs':>5}  {'+10%, auto':>24} {'runs':>5}"
    print(header + f"  {'+1 tool call/turn caught':>24}")
    started = time.perf_counter()
    jobs = [(b, n, p, args) for b in args.budgets.split(",") for n in args.noise.split(",") for p in args.baselines.split(",")]
    with multiprocessing.Pool(args.jobs) as pool:
        for line in pool.imap(row, jobs):
            print(line, flush=True)
    elapsed = time.perf_counter() - started
    rng = random.Random(args.seed)
    anchor_settings = GateSettings(budgets={"token_usage_v1": "+1000%"})
    t0 = time.perf_counter()
    for _ in range(20):
        trial(rng, args.cases, NOISE["ln25"], 5, anchor_settings, "none")
    anchor = (time.perf_counter() - t0) / 20
    t0 = time.perf_counter()
    for _ in range(20):
        trial(rng, args.cases, NOISE["ln25"], 5, GateSettings(budgets={"token_usage_v1": "+5%"}), "+10%")
    timed = (time.perf_counter() - t0) / 20
    print(f"\n{elapsed:.0f}s in all; a trial (baseline, PR, verdict) takes {timed / anchor:.2f}x the anchor (the same trial, never breaching)")


if __name__ == "__main__":
    main()
