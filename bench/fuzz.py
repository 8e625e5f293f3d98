"""Seeded fuzzing of the CLI on mutations of the example's files (issue 13: no input crashes it).

    python bench/fuzz.py [--iterations 2000] [--seed 0] [--timeout 20] [--in-process]

Each iteration mutates one of the example's files (an eval set, an eval config, the baseline,
a results file written by `agenteval score`, agenteval.yaml) and runs the commands that read
it. A crash is an exit code other than 0, 1 or 2, a traceback, a timeout, or an output file
that existed before and changed although the command failed. tests/test_fuzz.py runs a few
iterations of the same engine in-process.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "home_automation"
SENTINEL = "pre-existing output\n"

WEIRD: list[Any] = [
    None, True, False, 0, -1, 1.5, -1e308, 10**30, "", "x" * 10_000, "\ud800", "c\udfff", "../../etc",
    [], {}, [None], {"": None}, {"role": "user"}, "\u0000", "é", 2**63, -(2**63),
]


@dataclass
class Outcome:
    argv: list[str]
    code: int | None  # None: timed out
    stderr: str
    output_changed: bool = False

    @property
    def crashed(self) -> bool:
        return self.code not in (0, 1, 2) or "Traceback" in self.stderr or self.output_changed


# ---------------------------------------------------------------- mutations


def _nodes(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _nodes(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _nodes(v, (*path, i))
    return out


def _parent(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        data = data[key]
    return data


def mutate_data(data: Any, rng: random.Random) -> Any:
    """A structural change at a random place: a weird value, a deleted key, a duplicated
    list entry, a renamed key, a deep nest."""
    data = json.loads(json.dumps(data))
    paths = [p for p in _nodes(data) if p]
    if not paths:
        return rng.choice(WEIRD)
    path = rng.choice(paths)
    parent, key = _parent(data, path), path[-1]
    op = rng.randrange(6)
    if op == 0:
        parent[key] = rng.choice(WEIRD)
    elif op == 1 and isinstance(parent, dict):
        del parent[key]
    elif op == 2 and isinstance(parent, list):
        parent.insert(key, json.loads(json.dumps(parent[key])))
    elif op == 3 and isinstance(parent, dict):
        parent[rng.choice(["\ud800", "", "eval_id", "extra", str(key).upper()])] = parent.pop(key)
    elif op == 4:
        nest: Any = parent[key]
        for _ in range(rng.choice([3, 199, 201, 600])):
            nest = [nest]
        parent[key] = nest
    else:
        parent[key] = rng.choice([-1, 0, 10**30, 1e308, "NaN", 3.5])
    return data


def mutate_text(text: str, rng: random.Random) -> bytes:
    """A textual change: truncation, stray bytes, another encoding, a huge number, an escape."""
    op = rng.randrange(7)
    raw = text.encode("utf-8")
    at = rng.randrange(len(raw) + 1)
    if op == 0:
        return raw[:at]
    if op == 1:
        return raw[:at] + bytes([rng.randrange(256)]) + raw[at:]
    if op == 2:
        return text.encode(rng.choice(["utf-16", "latin-1"]), errors="replace")
    if op == 3:
        return text.replace(": 1", ": " + "9" * 5000, 1).encode()
    if op == 4:
        return text.replace('"', '"\\ud800', 1).encode()
    if op == 5:
        return b"[" * 5000 + b"]" * 5000
    return raw[:at] + raw[at:][::-1][: rng.randrange(50)] + raw[at:]


def mutate_yaml(text: str, rng: random.Random) -> bytes:
    op = rng.randrange(5)
    if op == 0:
        lines = ["x0: &x0 {a: 1}"] + [f"x{i}: &x{i} {{<<: [*x{i - 1}, *x{i - 1}]}}" for i in range(1, 42)]
        return ("\n".join(lines) + "\n" + text).encode()
    if op == 1:
        return text.replace('["evals/**/*.evalset.json"]', rng.choice(['"**"', '""', '"loops/**/*.json"', "[]", "{}", "1e999"])).encode()
    if op == 2:
        return (text + rng.choice(["    num_runs: 10000000000000000000000\n", "    concurrency: -1\n", "gate: {seed: 1e999}\n", "  - &a [*a]\n"])).encode()
    if op == 3:
        return text.replace("home", "h\\ud800").replace("name: h", 'name: "h').replace("\\ud800\n", '\\ud800"\n').encode()
    return mutate_text(text, rng)


def mutate_file(text: str, rng: random.Random, yaml_file: bool = False) -> bytes:
    if yaml_file:
        return mutate_yaml(text, rng)
    if rng.random() < 0.6:
        data = mutate_data(json.loads(text), rng)
        return json.dumps(data).encode()
    return mutate_text(text, rng)


# ---------------------------------------------------------------- the workspace and the commands


Runner = Callable[[list[str], Path], tuple[int | None, str]]


def in_process(argv: list[str], cwd: Path) -> tuple[int | None, str]:
    from agenteval_ci.cli import main

    err, out = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(argv)
    finally:
        os.chdir(here)
    return code, err.getvalue()


def subprocess_runner(timeout: float) -> Runner:
    def run(argv: list[str], cwd: Path) -> tuple[int | None, str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
        for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
            env.pop(key, None)
        try:
            done = subprocess.run([sys.executable, "-m", "agenteval_ci", *argv], cwd=cwd, env=env,
                                  capture_output=True, text=True, errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, "timed out"
        return done.returncode, done.stderr

    return run


def prepare(work: Path, run: Runner) -> None:
    """The seeds: the example's files and a results file written by `agenteval score`."""
    shutil.copytree(EXAMPLE / "evals", work / "evals")
    shutil.copy(EXAMPLE / ".agenteval" / "baseline.json", work / "baseline.json")
    shutil.copy(EXAMPLE / "agenteval.yaml", work / "agenteval.yaml")
    code, err = run(["score", "evals/basic/home.evalset.json", "--actual", "evals/basic/home.evalset.json",
                     "--no-judge-cache", "--json", "results.json"], work)
    assert code == 0, err
    (work / "loops").mkdir()
    os.symlink(".", work / "loops" / "a")


SEEDS = {  # seed file -> commands reading a mutated copy F (B: a baseline copy, O: an output path)
    "evals/basic/home.evalset.json": [
        ["validate", "F"],
        ["score", "F", "--actual", "evals/basic/home.evalset.json", "--no-judge-cache", "--json", "O"],
        ["score", "evals/basic/home.evalset.json", "--actual", "F", "--no-judge-cache"],
    ],
    "evals/in_order/test_config.json": [
        ["validate", "F"],
        ["score", "evals/in_order/relative.evalset.json", "--actual", "evals/in_order/relative.evalset.json",
         "--eval-config", "F", "--no-judge-cache"],
    ],
    "results.json": [
        ["compare", "F", "--baseline", "baseline.json", "--md", "O", "--json", "O"],
        ["report", "F", "--baseline", "baseline.json", "--format", "md", "-o", "O"],
        ["report", "F", "--baseline", "baseline.json", "--format", "junit", "-o", "O"],
        ["report", "F", "--baseline", "baseline.json", "--format", "html", "-o", "O"],
        ["merge", "F", "--json", "O"],
        ["accept", "F", "--baseline", "B"],
        ["score", "evals/basic/home.evalset.json", "--actual", "F", "--no-judge-cache"],
    ],
    "baseline.json": [
        ["compare", "results.json", "--baseline", "F", "--json", "O"],
        ["accept", "results.json", "--baseline", "F"],
        ["report", "results.json", "--baseline", "F", "--format", "summary", "-o", "O"],
    ],
    "agenteval.yaml": [
        ["compare", "results.json", "--config", "F", "--md", "O"],
        ["accept", "results.json", "--config", "F", "--baseline", "B"],
    ],
}


def one_iteration(work: Path, rng: random.Random, run: Runner, index: int) -> list[Outcome]:
    seed = rng.choice(sorted(SEEDS))
    text = (work / seed).read_text(encoding="utf-8")
    yaml_file = seed.endswith(".yaml")
    suffix = Path(seed).name if seed != "results.json" else "results.json"
    mutated = work / Path(seed).parent / f"fuzz{index}.{suffix}"
    if yaml_file:
        mutated = work / f"fuzz{index}.agenteval.yaml"
    data = mutate_file(text, rng, yaml_file)
    outcomes = []
    for template in SEEDS[seed]:
        mutated.write_bytes(data)
        out, base = work / f"out{index}.json", work / f"base{index}.json"
        out.write_text(SENTINEL)
        shutil.copy(work / "baseline.json", base)
        before = {p: p.read_bytes() for p in (mutated, base)}
        argv = [{"F": str(mutated.relative_to(work)), "O": out.name, "B": base.name}.get(a, a) for a in template]
        code, err = run(argv, work)
        changed = code not in (0, 1) and (out.read_text() != SENTINEL if out.is_file() else True)
        changed = changed or (code not in (0, 1) and any(p.read_bytes() != b for p, b in before.items() if p.is_file()))
        outcomes.append(Outcome(argv, code, err, output_changed=changed))
        for p in (out, base):
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink(missing_ok=True)
    mutated.unlink(missing_ok=True)
    return outcomes


def fuzz(work: Path, iterations: int, seed: int, run: Runner) -> tuple[int, list[Outcome]]:
    """(commands run, crashes)."""
    prepare(work, run)
    rng = random.Random(seed)
    ran, crashes = 0, []
    for i in range(iterations):
        outcomes = one_iteration(work, rng, run, i)
        ran += len(outcomes)
        crashes += [o for o in outcomes if o.crashed]
    return ran, crashes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per command (subprocess mode)")
    parser.add_argument("--in-process", action="store_true", help="call cli.main directly: faster, no timeout")
    parser.add_argument("--work", help="work folder (default: a temp folder, removed)")
    args = parser.parse_args()
    import tempfile

    os.environ.pop("GOOGLE_API_KEY", None)
    os.environ.pop("GEMINI_API_KEY", None)
    os.environ["GOOGLE_GEMINI_BASE_URL"] = "http://127.0.0.1:9"
    run = in_process if args.in_process else subprocess_runner(args.timeout)
    with tempfile.TemporaryDirectory(prefix="agenteval-fuzz-") as tmp:
        work = Path(args.work or tmp)
        work.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        ran, crashes = fuzz(work, args.iterations, args.seed, run)
        took = time.perf_counter() - started
    print(f"inputs tried: {args.iterations}, commands run: {ran}, crashes: {len(crashes)} ({took:.1f} s, seed {args.seed})")
    for c in crashes[:20]:
        last = c.stderr.strip().splitlines()[-3:] if c.stderr.strip() else []
        why = "timed out" if c.code is None else ("changed an output" if c.output_changed else f"exit {c.code}")
        print(f"CRASH ({why}): agenteval {' '.join(c.argv)}\n    " + "\n    ".join(last))
    return 1 if crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
