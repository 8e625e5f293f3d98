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
                                [--effects 0.15:0.35,flip] [--cases 100] [--through-cli]

A suite shape is a name below or a description: comma-separated parts `W@P`, a share W of the
cases with pass probability P, where P is a number, U(a,b) (uniform) or B(a,b) (beta); or `N#P`,
exactly N cases. Baseline paths: `first` (what `agenteval init` makes, as `run --new-baseline`
then `accept`: the user's default), `fixedN` (`run --num-runs N` then `accept`), `chainK` (a first
baseline, then K pull requests with nothing changed, each run with num_runs: auto and accepted).
Effects: `S:D` (a share S of the cases lose D of their pass probability) or `flip` (one case that
always passed always fails). Every row also measures A/A (nothing changed: the gate should pass).
Rates come with 95% Wilson intervals; runs/case is the mean over the pull request's results.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

from agenteval_ci.core.adaptive import FIRST_BASELINE_BUDGET, first_round_runs, plan_first_baseline, plan_round, within_limits
from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.files.results import new_results
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

    def draw(self, p: float) -> float:
        return 1.0 if self.rng.random() < p else 0.0

    def results(self, outcomes: list[list[float]], planned: int | None, adaptive: AdaptiveInfo | None = None) -> Results:
        self.serial += 1
        cases = [_case(i, runs, planned, self.eval_cases[i]) for i, runs in enumerate(outcomes)]
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
            chosen, _ = within_limits(plan.reruns, {c.key: c for c in results.cases}, {"default": AUTO}, room)
            if plan.decided or not chosen:
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


def in_process_trial(parts: list[Part], path: str, effect: str, cases: int, rng: random.Random, seed: int) -> tuple[bool, float]:
    """(the gate failed, runs per case of the pull request)."""
    sim = Simulator(rng, [_eval_case(i) for i in range(cases)])
    rates = probabilities(parts, cases, rng)
    baseline = make_baseline(sim, path, rates)
    results = sim.adaptive(apply_effect(effect, rates, rng), baseline)
    failed = compare(results, baseline, GateSettings(seed=seed)).verdict == "failed"
    return failed, sum(len(c.runs) for c in results.cases) / cases


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

    def pull_request(self, rates: list[float], seed: str) -> tuple[bool, float]:
        self.agent(rates, seed)
        out = self.root / "pr.json"
        code = self.cli("run", "--config", str(self.root / "agenteval.yaml"), "--json", str(out), "-q")
        results = json.loads(out.read_text())
        return code == 1, sum(len(c["runs"]) for c in results["cases"]) / self.cases


def cli_trial(project: Project, parts: list[Part], path: str, effect: str, rng: random.Random, seed: int) -> tuple[bool, float]:
    rates = probabilities(parts, project.cases, rng)
    project.baseline(path, rates, f"{seed}:base")
    return project.pull_request(apply_effect(effect, rates, rng), f"{seed}:pr")


# ---------------------------------------------------------------- tallies


@dataclass
class Tally:
    failed: int = 0
    trials: int = 0
    runs: float = 0.0

    def add(self, outcome: tuple[bool, float]) -> None:
        self.failed += outcome[0]
        self.runs += outcome[1]
        self.trials += 1

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


def measure(shape: str, path: str, effect: str, args: argparse.Namespace, project: Project | None = None) -> Tally:
    rng = random.Random(f"{args.seed}:{shape}:{path}:{effect}")
    parts = parse_shape(shape)
    tally = Tally()
    for trial in range(args.cli_trials if project else args.trials):
        if project:
            tally.add(cli_trial(project, parts, path, effect, rng, trial))
        else:
            tally.add(in_process_trial(parts, path, effect, args.cases, rng, trial))
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--shapes", default=DEFAULT_SHAPES, help=f"comma-separated names ({', '.join(SHAPES)}); descriptions separated by ';'")
    parser.add_argument("--paths", default="first,fixed3,chain3", help="baseline paths: first, fixedN, chainK")
    parser.add_argument("--effects", default=DEFAULT_EFFECTS, help="S:D (a share S of the cases lose D), and flip (on the det shape)")
    parser.add_argument("--through-cli", action="store_true", help="drive the trials through the real CLI (slower: see --cli-trials)")
    parser.add_argument("--cli-trials", type=int, default=40)
    args = parser.parse_args()
    shapes = args.shapes.split(";") if ";" in args.shapes else args.shapes.split(",")
    drops = [e for e in args.effects.split(",") if e != "flip"]
    flip = "flip" in args.effects.split(",")
    d = GateSettings()
    print(f"{args.cases} cases, {args.cli_trials if args.through_cli else args.trials} trials each{' through the CLI' if args.through_cli else ''}; "
          f"default settings (confidence {d.confidence}, power {d.power}, case_drop {d.case_drop}; min_runs {AUTO.min_runs}, "
          f"max_runs {AUTO.max_runs}, run_budget {AUTO.run_budget})")
    print("each cell: the rate the gate failed [95% interval], runs per case; A/A should be <= 5%, power high, flip 100%")
    print(f"{'shape':<9} {'path':<7} {'A/A':<26}" + "".join(f" {'power ' + e:<26}" for e in drops))
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        project = Project.create(Path(tmp), args.cases) if args.through_cli else None
        os.environ.setdefault("CI", "true")  # no progress bars from the CLI
        for shape in (s for s in shapes if s != "det"):
            for path in args.paths.split(","):
                row = [measure(shape, path, effect, args, project) for effect in ("aa", *drops)]
                print(f"{shape:<9} {path:<7} " + " ".join(f"{str(cell):<26}" for cell in row), flush=True)
        for path in args.paths.split(",") if flip else []:
            print(f"det       {path:<7} one case that always passed fails: caught {measure('det', path, 'flip', args, project)}", flush=True)
    print(f"({time.perf_counter() - start:.0f}s)")


if __name__ == "__main__":
    main()
