"""How often the gate is right on simulated stochastic agents (issues 3, 17 and 23's "Show").

Each case passes the gated metric in each run with its own probability; a run scores 1.0 (pass)
or 0.0 (fail) against threshold 1.0, like a tool trajectory. Baselines and results go through
the real code: the runs of `num_runs: auto` are chosen round by round by adaptive.plan_round
(plan_first_baseline for a first baseline) within adaptive.within_limits, baselines are written by
baseline_from_results (histories and all), verdicts come from gate.compare with the default
settings; only the agent is simulated. `--through-cli` drives the same trials through the real
CLI instead (`agenteval init` / `run` / `accept` on a project with a stochastic Python agent),
to show the in-process figures are what a user gets.

  python bench/gate_accuracy.py [--trials 200] [--seed 1] [--shapes mixed,det95] [--paths first,fixed3,chain3]
                                [--effects 0.15:0.35,flip] [--cases 100] [--jobs 2] [--why] [--through-cli]
  python bench/gate_accuracy.py --reference [--shapes ...] [--effects 0.15:0.35] [--reference-trials 1000]

A suite shape is a name below or a description: comma-separated parts `W@P`, a share W of the
cases with pass probability P, where P is a number, U(a,b) (uniform) or B(a,b) (beta); or `N#P`,
exactly N cases. Baseline paths: `first` (what `agenteval init` makes, as `run --new-baseline`
then `accept`: the user's default), `fixedN` (`run --num-runs N` then `accept`), `chainK` (a first
baseline, then K pull requests with nothing changed, each run with num_runs: auto and accepted).
Effects: `S:D` (a share S of the cases lose D of their pass probability) or `flip` (one case that
always passed always fails). Every row also measures A/A (nothing changed: the gate should pass);
a row's cells share each trial's suite and baseline, each pull request with its own runs. Rates
come with 95% Wilson intervals; runs/case is the mean over the pull request's results. `--why`
prints under each row why the rounds ended in the trials the gate got wrong (the gate decided,
settled, out of budget, or every wanted case at max_runs), their runs per case and the median
evidence at the end: where the power goes.

`--reference` measures no gate: it prints the power of a fixed-sample 5% test that knows what the
gate has to learn (the shape's true spread of pass rates, the effect), with the budget's runs per
case and H baseline runs of each case: where that is under a target, no rule reaches the target
with runs spread evenly (an adaptive rule can do somewhat better by choosing where to look).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import re
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

from agenteval_ci.core.adaptive import FIRST_BASELINE_BUDGET, first_round_runs, plan_first_baseline, plan_round, within_limits
from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.files.results_file import new_results
from agenteval_ci.schema import AdaptiveInfo, CaseResult, EvalCase, MetricResult, MetricRun, Results, RunRecord, Status
from agenteval_ci.schema.baseline import Baseline
from agenteval_ci.schema.project import AdaptiveRuns
from agenteval_ci.schema.settings import GateSettings

METRIC = "tool_trajectory_avg_score"
AUTO = AdaptiveRuns()  # the defaults: min_runs 1, max_runs 10, run_budget 3
SHAPES = {
    "mixed": "0.6@1,0.1@0,0.3@U(0.2,0.95)",  # most cases deterministic, a third flaky anywhere
    "half": "1@0.5",  # every case a coin toss
    "det95": "0.95@1,0.05@0.5",  # the common real shape: deterministic but for a few flaky cases
    "typical": "0.667@U(0.95,1),0.333@U(0.4,0.95)",  # issue 17's: two thirds almost always pass
    "hard": "1@U(0.4,1)",  # every case flaky somewhere
    "beta": "1@B(2,0.5)",  # a continuum, most cases near 1
    "neardet": "0.9@1,0.1@0.9",  # deterministic but for a few cases that fail one run in ten
    "oneflaky": "1#0.5,99#1",  # one coin-toss case among deterministic ones
    "det": "0.8@1,0.2@0",  # every case deterministic (the flip effect)
}
DEFAULT_SHAPES = "mixed,half,det95,typical,hard,beta,neardet,oneflaky,det"
DEFAULT_EFFECTS = "0.15:0.35,0.2:0.4,0.1:0.25,flip"


# ---------------------------------------------------------------- suites


@dataclass(frozen=True)
class Part:
    weight: float  # a share of the cases, or an exact count
    exact: bool
    draw: str  # a number, U(a,b) or B(a,b)

    def probability(self, rng: random.Random) -> float:
        kind, args = self.draw[0], [float(a) for a in re.findall(r"[-\d.]+", self.draw)]
        if kind == "U":
            return rng.uniform(*args)
        if kind == "B":
            return rng.betavariate(*args)
        return args[0]


def parse_shape(text: str) -> list[Part]:
    spec = SHAPES.get(text, text)
    parts = []
    for item in re.split(r",(?![^(]*\))", spec):
        match = re.fullmatch(r"\s*([\d.]+)\s*([@#])\s*([\d.]+|[UB]\(\s*[\d.]+\s*,\s*[\d.]+\s*\))\s*", item)
        if not match:
            raise SystemExit(f"bad suite shape {text!r}: {item!r} is not W@P or N#P (P a number, U(a,b) or B(a,b))")
        parts.append(Part(float(match[1]), match[2] == "#", match[3].replace(" ", "")))
    return parts


def probabilities(parts: list[Part], cases: int, rng: random.Random) -> list[float]:
    """Pass probabilities of a suite: exact parts first, the shares drawn case by case."""
    out = [p.probability(rng) for p in parts if p.exact for _ in range(int(p.weight))]
    shares = [p for p in parts if not p.exact]
    while len(out) < cases and shares:
        pick, total = rng.random() * sum(p.weight for p in shares), 0.0
        for part in shares:
            total += part.weight
            if pick <= total:
                out.append(part.probability(rng))
                break
    rng.shuffle(out)
    return [min(1.0, max(0.0, p)) for p in out[:cases]]


def apply_effect(effect: str, rates: list[float], rng: random.Random) -> list[float]:
    """The pass probabilities in the pull request."""
    now = list(rates)
    if effect == "flip":
        always = [i for i, p in enumerate(rates) if p == 1.0]
        now[rng.choice(always)] = 0.0
    elif effect != "aa":
        share, drop = (float(x) for x in effect.split(":"))
        for i in rng.sample(range(len(rates)), round(share * len(rates))):
            now[i] = max(0.0, now[i] - drop)
    return now


# ---------------------------------------------------------------- a reference for power


def spread(parts: list[Part]) -> list[tuple[float, float]]:
    """The shape's true spread of pass rates as (rate, weight) points: fixed rates as they are,
    U(a,b) and B(a,b) on 200 midpoints (exact counts weigh as shares of the default suite)."""
    total = sum(p.weight for p in parts)
    points: list[tuple[float, float]] = []
    for part in parts:
        kind, args = part.draw[0], [float(a) for a in re.findall(r"[-\d.]+", part.draw)]
        if kind in "UB":
            xs = [(i + 0.5) / 200 for i in range(200)]
            xs = [args[0] + (args[1] - args[0]) * x for x in xs] if kind == "U" else xs
            dens = [1.0] * 200 if kind == "U" else [x ** (args[0] - 1) * (1 - x) ** (args[1] - 1) for x in xs]
            points += [(x, part.weight / total * d / sum(dens)) for x, d in zip(xs, dens)]
        else:
            points.append((min(1.0, max(0.0, args[0])), part.weight / total))
    return points


def _likelihood(rate: float, passes: int, runs: int) -> float:
    return rate**passes * (1 - rate) ** (runs - passes)


def _case_log_ratio(points: list[tuple[float, float]], history: tuple[int, int], now: tuple[int, int], share: float, drop: float) -> float:
    """log P(now | a share of the cases lost `drop`) / P(now | unchanged), for a case known by its history."""
    weights = [w * _likelihood(r, *history) for r, w in points]
    unchanged = sum(w * _likelihood(r, *now) for w, (r, _) in zip(weights, points))
    dropped = sum(w * _likelihood(max(0.0, r - drop), *now) for w, (r, _) in zip(weights, points))
    return math.log(1 - share + share * dropped / unchanged) if unchanged > 0 else math.inf


def reference_power(parts: list[Part], effect: str, cases: int, history: int, runs: int, trials: int, rng: random.Random) -> float:
    """The power of a fixed-sample 5% test that knows what the gate has to learn (the shape's true
    spread of pass rates and the effect), each case known by `history` baseline runs and run `runs`
    times now: the likelihood ratio of the effect against nothing changed, its 5% bar taken from
    the same simulation with nothing changed. No peeking, no budget to share out: a reference for
    what `runs` runs per case spread evenly can show, not a bound on an adaptive rule."""
    points = spread(parts)
    share, drop = (float(x) for x in effect.split(":"))
    ratios: dict[tuple[int, int], float] = {}
    stats: dict[str, list[float]] = {"aa": [], effect: []}
    for _ in range(trials):
        rates = probabilities(parts, cases, rng)
        seen = [sum(rng.random() < p for _ in range(history)) for p in rates]
        for name, values in stats.items():
            now = [sum(rng.random() < p for _ in range(runs)) for p in apply_effect(name, rates, rng)]
            for key in zip(seen, now):
                if key not in ratios:
                    ratios[key] = _case_log_ratio(points, (key[0], history), (key[1], runs), share, drop)
            values.append(sum(ratios[key] for key in zip(seen, now)))
    bar = sorted(stats["aa"])[int(0.95 * trials)]
    return sum(v > bar for v in stats[effect]) / trials


# ---------------------------------------------------------------- in process


def _eval_case(i: int) -> EvalCase:
    turn = {"user_content": {"role": "user", "parts": [{"text": f"task {i}"}]}}
    return EvalCase.model_validate({"eval_id": f"case-{i:03d}", "conversation": [turn]})


def _case(i: int, runs: list[float], planned: int | None, eval_case: EvalCase) -> CaseResult:
    score = sum(runs) / len(runs)
    status = Status.PASSED if score >= 1.0 else Status.FAILED
    metric = MetricResult(
        score=score, threshold=1.0, status=status, config_fingerprint="cfg",
        runs=[MetricRun(score=s, status=Status.PASSED if s >= 1.0 else Status.FAILED) for s in runs],
    )
    return CaseResult(eval_set_id="sim", eval_id=eval_case.eval_id, fingerprint="fp", status=status, metrics={METRIC: metric},
                      runs=[RunRecord(index=k) for k in range(len(runs))], eval_case=eval_case, planned_runs=planned)


@dataclass
class Simulator:
    """One suite's agent: each run of case i passes with probability rates[i]."""

    rng: random.Random
    eval_cases: list[EvalCase]
    serial: int = 0  # tells results apart (accept replaces a batch from the same results)
    stopped: str = ""  # why the last adaptive run's rounds ended: decided, settled, budget or max_runs
    built: dict[tuple[int, tuple[float, ...], int | None], CaseResult] = field(default_factory=dict)

    def draw(self, p: float) -> float:
        return 1.0 if self.rng.random() < p else 0.0

    def case(self, i: int, runs: list[float], planned: int | None) -> CaseResult:
        """A case's result, built once per set of runs: a round re-runs few cases, and the
        others' records are the same (immutable) objects as the round before."""
        key = (i, tuple(runs), planned)
        if key not in self.built:
            self.built[key] = _case(i, runs, planned, self.eval_cases[i])
        return self.built[key]

    def results(self, outcomes: list[list[float]], planned: int | None, adaptive: AdaptiveInfo | None = None) -> Results:
        self.serial += 1
        cases = [self.case(i, runs, planned) for i, runs in enumerate(outcomes)]
        results = new_results(cases, num_runs=max(map(len, outcomes)), adaptive=adaptive)
        return results.model_copy(update={"commit": f"sim-{self.serial}"})

    def fixed(self, rates: list[float], runs: int) -> Results:
        return self.results([[self.draw(p) for _ in range(runs)] for p in rates], None)

    def adaptive(self, rates: list[float], baseline: Baseline | None) -> Results:
        """What `agenteval run` does with num_runs: auto: a first baseline without `baseline`
        (every case FIRST_BASELINE_RUNS times, the disagreeing ones more), else min_runs, then
        the rounds plan_round asks for, within the budget."""
        first = first_round_runs(AUTO) if baseline is None else AUTO.min_runs
        budget = FIRST_BASELINE_BUDGET if baseline is None else AUTO.run_budget
        outcomes = [[self.draw(p) for _ in range(first)] for p in rates]
        room = {"default": int(budget * len(rates)) - first * len(rates)}
        index = {f"default/sim/{c.eval_id}": i for i, c in enumerate(self.eval_cases)}
        info = AdaptiveInfo(min_runs=first, max_runs=AUTO.max_runs, run_budget=budget)
        while True:
            results = self.results(outcomes, first, info)
            plan = plan_first_baseline(results) if baseline is None else plan_round(results, baseline, GateSettings())
            chosen, left = within_limits(plan.reruns, {c.key: c for c in results.cases}, {"default": AUTO}, room)
            if plan.decided or not chosen:
                self.stopped = "decided" if plan.decided else "budget" if left else "max_runs" if plan.reruns else "settled"
                return results
            for rerun in chosen:
                outcomes[index[rerun.key]].append(self.draw(rates[index[rerun.key]]))


def make_baseline(sim: Simulator, path: str, rates: list[float]) -> Baseline:
    if path.startswith("fixed"):
        return baseline_from_results(sim.fixed(rates, int(path[5:])))
    baseline = baseline_from_results(sim.adaptive(rates, None))
    for _ in range(int(path[5:]) if path.startswith("chain") else 0):
        baseline = baseline_from_results(sim.adaptive(rates, baseline), baseline)
    return baseline


@dataclass(frozen=True)
class Outcome:
    failed: bool
    runs: float  # per case, of the pull request
    stopped: str = ""  # why its rounds ended (in process only)
    evidence: float | None = None  # the sequential evidence at the end


def in_process_trial(parts: list[Part], path: str, effects: tuple[str, ...], cases: int, rng: random.Random) -> list[Outcome]:
    """Per effect, the pull request's outcome. The effects' pull requests start from the same
    suite and baseline (paired), each with its own draws."""
    sim = Simulator(rng, [_eval_case(i) for i in range(cases)])
    rates = probabilities(parts, cases, rng)
    baseline = make_baseline(sim, path, rates)
    outcomes = []
    for effect in effects:
        results = sim.adaptive(apply_effect(effect, rates, rng), baseline)
        comparison = compare(results, baseline, GateSettings())
        evidence = next((m.evidence for m in comparison.metrics if m.evidence is not None), None)
        outcomes.append(Outcome(comparison.verdict == "failed", sum(len(c.runs) for c in results.cases) / cases, sim.stopped, evidence))
    return outcomes


# ---------------------------------------------------------------- through the CLI

AGENT = '''
import json, pathlib, random

HERE = pathlib.Path(__file__).parent

def agent(text, session):
    """Calls the expected tool with the case's pass probability; draws differ per run and per command."""
    state = json.loads((HERE / "agent_state.json").read_text())
    draw = random.Random(f"{state['seed']}:{session.case_id}:{session.run_index}").random()
    tool = "lookup" if draw < state["rates"][session.case_id] else "wrong"
    return {"response": "ok", "tool_calls": [{"name": tool, "args": {"q": text}}]}
'''


@dataclass
class Project:
    """A temporary project with `cases` cases and a stochastic Python agent, driven by the CLI."""

    root: Path
    cases: int
    calls: int = field(default=0)

    @classmethod
    def create(cls, root: Path, cases: int) -> Project:
        (root / "agent.py").write_text(AGENT)
        evals = root / "evals"
        evals.mkdir()
        turn = lambda i: {"user_content": {"parts": [{"text": f"task {i}"}]}, "intermediate_data": {"tool_uses": [{"name": "lookup", "args": {"q": f"task {i}"}}]}}  # noqa: E731
        eval_cases = [{"eval_id": f"case-{i:03d}", "conversation": [turn(i)]} for i in range(cases)]
        (evals / "sim.evalset.json").write_text(json.dumps({"eval_set_id": "sim", "eval_cases": eval_cases}))
        (evals / "test_config.json").write_text(json.dumps({"criteria": {METRIC: 1.0}}))
        (root / "agenteval.yaml").write_text("suites:\n  - agent: agent.py:agent\n    eval_sets: evals/*.evalset.json\n    num_runs: auto\n    concurrency: 32\n")
        return cls(root, cases)

    def agent(self, rates: list[float], seed: str) -> None:
        self.calls += 1
        state = {"seed": f"{seed}:{self.calls}", "rates": {f"case-{i:03d}": p for i, p in enumerate(rates)}}
        (self.root / "agent_state.json").write_text(json.dumps(state))

    def cli(self, *args: str) -> int:
        from agenteval_ci.cli import main

        with redirect_stdout(StringIO()), redirect_stderr(StringIO()):
            return main(list(args))

    def baseline(self, path: str, rates: list[float], seed: str) -> None:
        (self.root / ".agenteval" / "baseline.json").unlink(missing_ok=True)
        config = str(self.root / "agenteval.yaml")
        self.agent(rates, seed)
        if path.startswith("fixed"):
            self.cli("run", "--config", config, "--num-runs", path[5:], "--no-gate", "-q")
            self.cli("accept", "--config", config, "--allow-failed")
            return
        self.cli("init", str(self.root))  # keeps agenteval.yaml; its first run makes the baseline
        for _ in range(int(path[5:]) if path.startswith("chain") else 0):
            self.agent(rates, seed)
            self.cli("run", "--config", config, "--no-gate", "-q")
            self.cli("accept", "--config", config, "--allow-failed")

    def pull_request(self, rates: list[float], seed: str) -> Outcome:
        self.agent(rates, seed)
        out = self.root / "pr.json"
        code = self.cli("run", "--config", str(self.root / "agenteval.yaml"), "--json", str(out), "-q")
        results = json.loads(out.read_text())
        return Outcome(code == 1, sum(len(c["runs"]) for c in results["cases"]) / self.cases)


def cli_trial(project: Project, parts: list[Part], path: str, effects: tuple[str, ...], rng: random.Random, seed: int) -> list[Outcome]:
    rates = probabilities(parts, project.cases, rng)
    project.baseline(path, rates, f"{seed}:base")
    return [project.pull_request(apply_effect(effect, rates, rng), f"{seed}:pr:{effect}") for effect in effects]


# ---------------------------------------------------------------- tallies


@dataclass
class Tally:
    wanted: bool  # the verdict the gate should reach: failed (an effect) or passed (A/A)
    failed: int = 0
    trials: int = 0
    runs: float = 0.0
    wrong: list[Outcome] = field(default_factory=list)  # the trials it got wrong, for --why

    def add(self, outcome: Outcome) -> None:
        self.failed += outcome.failed
        self.runs += outcome.runs
        self.trials += 1
        if outcome.failed != self.wanted:
            self.wrong.append(outcome)

    def why(self) -> str:
        """Why the rounds of the trials it got wrong ended, and their evidence then (median)."""
        if not self.wrong:
            return "none wrong"
        stops = Counter(o.stopped or "?" for o in self.wrong)
        runs = sum(o.runs for o in self.wrong) / len(self.wrong)
        evidence = sorted(o.evidence for o in self.wrong if o.evidence is not None)
        middle = f", evidence {evidence[len(evidence) // 2]:.3g}" if evidence else ""
        return f"{len(self.wrong)} wrong: " + " ".join(f"{k} {n}" for k, n in stops.most_common()) + f"; {runs:.2f} runs/case{middle}"

    @property
    def rate(self) -> float:
        return self.failed / self.trials

    def interval(self) -> tuple[float, float]:
        """Wilson's 95% interval for the failure rate."""
        n, p, z = self.trials, self.rate, 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def __str__(self) -> str:
        low, high = self.interval()
        return f"{self.rate:6.1%} [{low:5.1%},{high:6.1%}] {self.runs / self.trials:4.2f}"


def measure(shape: str, path: str, effects: tuple[str, ...], args: argparse.Namespace, project: Project | None = None) -> list[Tally]:
    """One row: a tally per effect, over trials that share their suite and baseline."""
    rng = random.Random(f"{args.seed}:{shape}:{path}")
    parts = parse_shape(shape)
    tallies = [Tally(effect != "aa") for effect in effects]
    for trial in range(args.cli_trials if project else args.trials):
        outcomes = cli_trial(project, parts, path, effects, rng, trial) if project else in_process_trial(parts, path, effects, args.cases, rng)
        for tally, outcome in zip(tallies, outcomes):
            tally.add(outcome)
    return tallies


def _row(job: tuple[str, str, tuple[str, ...], argparse.Namespace]) -> list[Tally]:
    return measure(*job)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--shapes", default=DEFAULT_SHAPES, help=f"comma-separated names ({', '.join(SHAPES)}); descriptions separated by ';'")
    parser.add_argument("--paths", default="first,fixed3,chain3", help="baseline paths: first, fixedN, chainK")
    parser.add_argument("--effects", default=DEFAULT_EFFECTS, help="S:D (a share S of the cases lose D), and flip (on the det shape)")
    parser.add_argument("--jobs", type=int, default=1, help="rows measured in parallel processes (in process only)")
    parser.add_argument("--through-cli", action="store_true", help="drive the trials through the real CLI (slower: see --cli-trials)")
    parser.add_argument("--cli-trials", type=int, default=40)
    parser.add_argument("--why", action="store_true", help="under each row, why the rounds ended in the trials the gate got wrong (in process)")
    parser.add_argument("--reference", action="store_true", help="print instead what a fixed-sample test that knows the true spread can show")
    parser.add_argument("--reference-trials", type=int, default=1000)
    args = parser.parse_args()
    shapes = args.shapes.split(";") if ";" in args.shapes else args.shapes.split(",")
    paths = args.paths.split(",")
    drops = tuple(e for e in args.effects.split(",") if e != "flip")
    flip = "flip" in args.effects.split(",")
    if args.reference:
        return print_reference(shapes, drops, args)
    d = GateSettings()
    print(f"{args.cases} cases, {args.cli_trials if args.through_cli else args.trials} trials each{' through the CLI' if args.through_cli else ''}; "
          f"default settings (confidence {d.confidence}, power {d.power}, case_drop {d.case_drop}; min_runs {AUTO.min_runs}, "
          f"max_runs {AUTO.max_runs}, run_budget {AUTO.run_budget}); a row's cells share each trial's suite and baseline")
    print("each cell: the rate the gate failed [95% interval], runs per case; A/A should be <= 5%, power high, flip 100%")
    print(f"{'shape':<9} {'path':<7} {'A/A':<26}" + "".join(f" {'power ' + e:<26}" for e in drops), flush=True)
    rows = [(shape, path, ("aa", *drops)) for shape in shapes if shape != "det" for path in paths]
    rows += [("det", path, ("flip",)) for path in (paths if flip else [])]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        if args.through_cli:
            os.environ.setdefault("CI", "true")  # no progress bars from the CLI
            project = Project.create(Path(tmp), args.cases)
            tallies = (measure(shape, path, effects, args, project) for shape, path, effects in rows)
            _print(rows, tallies)
        else:
            with multiprocessing.Pool(args.jobs) as pool:
                _print(rows, pool.imap(_row, [(*row, args) for row in rows]), args.why)
    print(f"({time.perf_counter() - start:.0f}s)")


HISTORIES = (3, 5, 10, 30)


def print_reference(shapes: list[str], drops: tuple[str, ...], args: argparse.Namespace) -> None:
    runs = int(AUTO.run_budget)
    print(f"{args.cases} cases, {args.reference_trials} trials each: the power of a fixed-sample 5% test that knows the true spread of pass rates "
          f"and the effect, {runs} runs per case now, each case known by H baseline runs")
    print(f"{'shape':<9} {'effect':<10}" + "".join(f" {'H=' + str(h):<6}" for h in HISTORIES))
    for shape in (s for s in shapes if s != "det"):
        for effect in drops:
            rng = random.Random(f"{args.seed}:{shape}:{effect}:reference")
            powers = [reference_power(parse_shape(shape), effect, args.cases, h, runs, args.reference_trials, rng) for h in HISTORIES]
            print(f"{shape:<9} {effect:<10}" + "".join(f" {p:<6.1%}" for p in powers), flush=True)


def _print(rows: list[tuple[str, str, tuple[str, ...]]], tallies: Iterable[list[Tally]], why: bool = False) -> None:
    for (shape, path, effects), row in zip(rows, tallies):
        if effects == ("flip",):
            print(f"{shape:<9} {path:<7} one case that always passed fails: caught {row[0]}", flush=True)
        else:
            print(f"{shape:<9} {path:<7} " + " ".join(f"{str(cell):<26}" for cell in row), flush=True)
        for effect, cell in zip(effects, row) if why else ():
            print(f"{'':<17} {effect}: {cell.why()}", flush=True)


if __name__ == "__main__":
    main()
