"""Seeded fuzzing of the CLI: mutations of the example's files (issue 13), init layouts, convert,
judge cache entries as files and odd paths (issue 24). No input crashes it or hangs it.

    python bench/fuzz.py [--surface files|init|convert|cache|paths|all] [--iterations 2000] [--seed 0]
                         [--timeout 20] [--in-process]

Each iteration mutates one of the example's files (an eval set, an eval config, the baseline,
a results file written by `agenteval score`, agenteval.yaml) and runs the commands that read
it. A crash is an exit code other than 0, 1 or 2, a traceback, a timeout, or an output file
that existed before and changed although the command failed. The other surfaces build odd
inputs of their kind (see each fuzz_* function) and count, besides crashes and hangs, the
configs `init` or `convert` wrote that `validate` or `run` then refuse. tests/test_fuzz.py runs
a few iterations of each in-process.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
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


class _Hung(BaseException):
    """Raised by the alarm in a command that ran past its time (not an Exception: main() must not catch it)."""


def in_process(argv: list[str], cwd: Path, timeout: int = 60) -> tuple[int | None, str]:
    """main(argv) in this process; None for a command still running after `timeout` seconds
    (the alarm interrupts even a blocking open of a FIFO; main thread only)."""
    from agenteval_ci.cli import main

    err, out = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    armed = threading.current_thread() is threading.main_thread()
    if armed:
        previous = signal.signal(signal.SIGALRM, _raise_hung)
        signal.alarm(timeout)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code: int | None = main(argv)
    except _Hung:
        code = None
    except SystemExit as exc:  # argparse refusing the arguments: exit 2, as the real command
        code = exc.code if isinstance(exc.code, int) else 2
    finally:
        if armed:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        os.chdir(here)
    return code, err.getvalue()


def _raise_hung(signum: int, frame: Any) -> None:
    raise _Hung()


def subprocess_runner(timeout: float) -> Runner:
    def run(argv: list[str], cwd: Path) -> tuple[int | None, str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
        for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
            env.pop(key, None)
        try:
            # -P: the working folder is not put first on sys.path, as with the `agenteval` script (a
            # project folder named `google` would hide google-adk from `python -m`, not from the script).
            done = subprocess.run([sys.executable, "-P", "-m", "agenteval_ci", *argv], cwd=cwd, env=env,
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


# ---------------------------------------------------------------- surfaces beyond file mutations (issue 24)
#
# Each surface builds odd inputs of one kind at a seed, runs the commands that read them, and
# tallies inputs, crashes (exit other than 0/1/2, a traceback, an output changed by a failure),
# hangs (a command past its time) and unloadable configs (init or convert left an agenteval.yaml
# that `validate` or `run` refuses).


@dataclass
class Tally:
    surface: str
    inputs: int = 0
    crashes: list[Outcome] = field(default_factory=list)
    unloadable: list[Outcome] = field(default_factory=list)

    @property
    def hangs(self) -> int:
        return sum(c.code is None for c in self.crashes)

    def add(self, outcome: Outcome) -> Outcome:
        if outcome.crashed:
            self.crashes.append(outcome)
        return outcome

    def line(self) -> str:
        return (f"{self.surface}: inputs {self.inputs}, crashes {len(self.crashes) - self.hangs}, hangs {self.hangs}, "
                f"unloadable configs written {len(self.unloadable)}")


# Folder names that have broken a YAML writer, a glob, an import or a terminal.
ODD_NAMES = [
    "null", "123", "true", "a: b", "#x", "%x", "&x", "a.b", "a+b", "\U0001F916", "é", "x:y", "v[1]", "*", "-x", "~",
    "yes", "'q", '"q', " lead", "trail ", "a\tb", "l\u2028s", "\ufeffbom", "x" * 120, "x y", "calendar",
    "json", "1e3", "0x1F", "<<", "!tag", "@at", "`t", "{b}", "?q", "|", ">", "=", "\U0001F600\U0001F600", "a\\b",
    "a\nb", "\x85", "agent", "tests", "google", "[", "]", "**", "a?",
]
# Bytes that are not UTF-8: Python holds such a name with lone surrogates.
NOT_UTF8 = [os.fsdecode(b) for b in (b"\xff", b"caf\xe9", b"x\xed\xa0\x80", b"\xc3")]
_CODEPOINTS = [(0x20, 0x7E), (0xA0, 0x2FF), (0x370, 0x3FF), (0x4E00, 0x4E80), (0x1F300, 0x1F64F), (0x2000, 0x206F)]


def odd_name(rng: random.Random) -> str:
    """A folder name: a known troublemaker, random text, or (rarely) bytes that are not UTF-8."""
    roll = rng.random()
    if roll < 0.55:
        return rng.choice(ODD_NAMES)
    if roll < 0.6:
        return rng.choice(NOT_UTF8)
    lo, hi = rng.choice(_CODEPOINTS)
    name = "".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(1, 12))).replace("/", "_")
    return name if name not in (".", "..") else "dots"


OFFLINE_ADK_AGENT = '''
from google.adk.agents import BaseAgent
from google.adk.events import Event
from google.genai import types


class Echo(BaseAgent):
    """Answers every turn with "hello", no model: a real ADK agent that runs offline."""

    async def _run_async_impl(self, ctx):
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="model", parts=[types.Part(text="hello")]))


root_agent = Echo(name="echo")
'''
HELLO_TURN = {"user_content": {"role": "user", "parts": [{"text": "hi"}]}, "final_response": {"role": "model", "parts": [{"text": "hello"}]}}
LEGACY_ROWS = [{"query": "hi", "expected_tool_use": [], "reference": "hello"}]
INIT_ODDITIES = [  # at most one of a group: each group makes one path odd
    ["gitignore_bytes", "gitignore_crlf", "gitignore_dir", "fifo_gitignore"], ["github_file", "workflows_file", "workflow_dir"],
    ["fifo_yaml", "existing_yaml"], ["fifo_agent"], ["fifo_eval"], ["loop"], ["deep_test"], ["broken_eval"], ["dangling_eval"],
]
_REFUSED = {"github_file", "workflows_file", "workflow_dir", "gitignore_dir", "fifo_gitignore", "fifo_yaml", "deep_test", "broken_eval"}


@dataclass
class InitLayout:
    """A project for `init`: agent folders (possibly nested), eval files, configs, odd things."""

    agents: list[str]
    evals: list[tuple[str, str]]  # (folder, kind: evalset | legacy | old_format)
    config: str | None  # None, "test_config" (beside each eval set) or "starter" (tests/eval/eval_config.json)
    oddities: list[str]

    @property
    def representable(self) -> bool:
        """init must succeed: names it can write, one agent or every eval set in an agent's folder, nothing in the way."""
        names = [part for a in self.agents for part in a.split("/")] + [f for f, _ in self.evals]
        from agenteval_ci.files.readers import is_utf8

        utf8 = all(is_utf8(n) for n in names)
        visible = all(not part.startswith(".") for a in self.agents for part in a.split("/"))
        owned = len(self.agents) == 1 or all(any(f == a or f.startswith(a + "/") for a in self.agents) for f, _ in self.evals)
        return utf8 and visible and owned and bool(self.evals) and not _REFUSED & set(self.oddities)


def init_layout(rng: random.Random) -> InitLayout:
    agents: list[str] = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        parent = rng.choice([None, None, "agents", *agents])
        name = odd_name(rng)
        path = f"{parent}/{name}" if parent else name
        if path not in agents and len(path.encode("utf-8", "surrogateescape")) < 200:
            agents.append(path)
    evals = []
    for agent in agents:
        for _ in range(rng.choice([0, 1, 1, 1, 2])):
            folder = rng.choice([agent, f"{agent}/eval", "tests/eval/evalsets"])
            evals.append((folder, rng.choice(["evalset", "evalset", "legacy", "old_format"])))
    config = rng.choice([None, None, "test_config", "starter"])
    oddities = [rng.choice(group) for group in rng.sample(INIT_ODDITIES, rng.choice([0, 0, 1, 2]))]
    return InitLayout(agents or ["shop"], evals, config, oddities)


def write_layout(root: Path, layout: InitLayout) -> None:
    """The layout on disk: real ADK agent packages (offline), eval sets with unique ids."""
    root.mkdir(parents=True)
    for agent in layout.agents:
        folder = root / agent
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").write_text("from . import agent\n")
        (folder / "agent.py").write_text(OFFLINE_ADK_AGENT)
    for n, (folder, kind) in enumerate(layout.evals):
        (root / folder).mkdir(parents=True, exist_ok=True)
        if kind == "evalset":
            data: Any = {"eval_set_id": f"set{n}", "eval_cases": [{"eval_id": "c", "conversation": [HELLO_TURN]}]}
        else:
            data = LEGACY_ROWS if kind == "legacy" else [{"name": f"case{n}", "data": LEGACY_ROWS, "initial_session": {}}]
        (root / folder / f"e{n}.{'evalset' if kind == 'evalset' else 'test'}.json").write_text(json.dumps(data))
        if layout.config == "test_config":
            (root / folder / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.5}}))
    if layout.config == "starter":
        (root / "tests" / "eval").mkdir(parents=True, exist_ok=True)
        (root / "tests" / "eval" / "eval_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.5}}))
    for oddity in layout.oddities:
        _make_oddity(root, layout, oddity)


def _make_oddity(root: Path, layout: InitLayout, oddity: str) -> None:
    first = root / layout.agents[0]
    workflows = root / ".github" / "workflows"
    if oddity == "gitignore_bytes":
        (root / ".gitignore").write_bytes(b"caf\xe9\n*.pyc")
    elif oddity == "gitignore_crlf":
        (root / ".gitignore").write_bytes(b"a\r\nb\r\n")
    elif oddity == "github_file":
        (root / ".github").write_text("x")
    elif oddity == "workflows_file":
        (root / ".github").mkdir()
        workflows.write_text("x")
    elif oddity == "workflow_dir":
        (workflows / "agenteval.yml").mkdir(parents=True)
    elif oddity == "gitignore_dir":
        (root / ".gitignore").mkdir()
    elif oddity == "fifo_gitignore":
        os.mkfifo(root / ".gitignore")
    elif oddity == "fifo_yaml":
        os.mkfifo(root / "agenteval.yaml")
    elif oddity == "fifo_agent":
        (root / "fifo_pkg").mkdir()
        (root / "fifo_pkg" / "__init__.py").write_text("")
        os.mkfifo(root / "fifo_pkg" / "agent.py")
    elif oddity == "fifo_eval":
        os.mkfifo(first / "f.evalset.json")
    elif oddity == "loop":
        os.symlink(".", first / "loop")
        os.symlink("l2", first / "l1")
        os.symlink("l1", first / "l2")
    elif oddity == "deep_test":
        (first / "deep.test.json").write_text("[" * 5000 + "]" * 5000)
    elif oddity == "existing_yaml":
        (root / "agenteval.yaml").write_text("suites: []\n")
    elif oddity == "broken_eval":
        (first / "broken.evalset.json").write_text('{"eval_set_id": ')
    elif oddity == "dangling_eval":
        os.symlink("nowhere.json", first / "dangling.evalset.json")


def _bytes_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if stat.S_ISREG(os.lstat(path).st_mode) else None
    except OSError:
        return None


def check_init(root: Path, layout: InitLayout, run: Runner, tally: Tally) -> None:
    """init --no-run, then what it wrote through validate and run; a refusal changes nothing."""
    config, ignore = root / "agenteval.yaml", root / ".gitignore"
    before, ignored = _bytes_or_none(config), _bytes_or_none(ignore)
    code, err = run(["init", "--no-run", str(root)], root.parent)
    outcome = tally.add(Outcome(["init", "--no-run", root.name], code, err,
                                output_changed=code not in (0, None) and _bytes_or_none(config) != before))
    if ignored is not None and not (_bytes_or_none(ignore) or b"").startswith(ignored):
        tally.crashes.append(Outcome(outcome.argv, code, ".gitignore was rewritten, not appended to"))
    if code == 2 and layout.representable and "existing_yaml" not in layout.oddities:
        tally.crashes.append(Outcome(outcome.argv, code, "init refused a layout it can write:\n" + err))
    if code != 0 or _bytes_or_none(config) is None:
        return
    for argv, accepted in ((["validate", str(config)], (0,)), (["run", "--config", str(config), "-q"], (0, 1))):
        got, err = _run_and_tally(run, argv, root, tally)
        if got in (1, 2) and got not in accepted and "existing_yaml" not in layout.oddities:
            tally.unloadable.append(Outcome(argv, got, f"init wrote an agenteval.yaml this command refuses:\n{err}"))


def fuzz_init(work: Path, iterations: int, seed: int, run: Runner) -> Tally:
    _bounded(work)
    rng, tally = random.Random(seed), Tally("init")
    for i in range(iterations):
        layout = init_layout(rng)
        root = work / f"init{i}"
        write_layout(root, layout)
        tally.inputs += 1
        with _modules_dropped_after(root):
            check_init(root, layout, run, tally)
    return tally


@contextlib.contextmanager
def _modules_dropped_after(root: Path):
    """User packages a run imported from `root` are forgotten (in-process runs): a folder
    called `yaml` must not stay the yaml the next command imports."""
    before = set(sys.modules)
    try:
        yield
    finally:
        top = str(root.resolve())
        for name in set(sys.modules) - before:
            if str(getattr(sys.modules[name], "__file__", "") or "").startswith(top):
                del sys.modules[name]


def _bounded(work: Path) -> None:
    """The work folder is a repository root: no command's upward search for agenteval.yaml
    (nor what it then writes) leaves it."""
    (work / ".git").mkdir(parents=True, exist_ok=True)


# ---------------------------------------------------------------- convert


_SESSIONS: list[Any] = [None, {}, {"app_name": "home", "user_id": "u", "state": {"x": 1}}, True, [], "x", 7, {"state": 1},
                        {"app_name": 5}, {"user_id": None}]
_GLOBS = ['"eval/*.test.json"', '["eval/*.test.json"]', '["eval/*.evalset.json", "eval/*.test.json"]', '"eval/*.*.json"',
          '["eval/**/*.test.json"]', "[&g eval/*.test.json]", "'eval/*.test.json'  # legacy", '["eval/home*.test.json", "eval/o*.test.json"]']


def convert_case(work: Path, rng: random.Random) -> tuple[Path, list[str], bool]:
    """A folder of legacy files (some odd), maybe a project with a baseline; (root, argv, project)."""
    root = work
    legacy = root / "eval"
    legacy.mkdir(parents=True)
    (root / ".git").mkdir()  # the repository root: convert's search for agenteval.yaml stops here
    home = json.loads((ROOT / "tests" / "data" / "legacy" / "home.test.json").read_text())
    old = json.loads((ROOT / "tests" / "data" / "legacy" / "old_format.test.json").read_text())
    old[0]["initial_session"] = rng.choice(_SESSIONS[:3] if rng.random() < 0.85 else _SESSIONS)
    files = {"home.test.json": home, "old_format.test.json": old}
    for name, data in files.items():
        raw = json.dumps(data)
        (legacy / name).write_bytes(mutate_file(raw, rng) if rng.random() < 0.1 else raw.encode())
    (legacy / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}}))
    session = rng.choice(["none"] * 5 + ["ok", "weird", "fifo", "folder"])
    session_path = legacy / "initial.session.json"
    if session == "ok":
        session_path.write_text(json.dumps(_SESSIONS[2]))
    elif session == "weird":
        session_path.write_text(json.dumps(rng.choice(_SESSIONS[3:])))
    elif session == "fifo":
        os.mkfifo(session_path)
    elif session == "folder":
        session_path.mkdir()
    target = legacy / "home.evalset.json"
    existing = rng.choice(["none"] * 6 + ["bytes", "folder", "fifo", "loop", "other"])
    if existing == "bytes":
        target.write_bytes(b"caf\xe9")
    elif existing == "folder":
        target.mkdir()
    elif existing == "fifo":
        os.mkfifo(target)
    elif existing == "loop":
        os.symlink("home.evalset.json", target)
    elif existing == "other":
        target.write_text("{}")
    project = rng.random() < 0.7
    if project:
        agent = ROOT / "examples" / "home_automation" / "agent.py"
        (root / "agenteval.yaml").write_text(f"# a project\nsuites:\n  - name: home\n    agent: {agent}:handle\n"
                                             f"    eval_sets: {rng.choice(_GLOBS)}\n")
    argv = ["convert", rng.choice(["eval", "eval/home.test.json", "eval/old_format.test.json"]),
            *(["--force"] if rng.random() < 0.3 else []),
            *(["--initial-session", str(session_path)] if session != "none" and rng.random() < 0.3 else [])]
    return root, argv, project


def fuzz_convert(work: Path, iterations: int, seed: int, run: Runner) -> Tally:
    """convert on odd legacy files and targets; with a project that was green, run stays green
    (when no session changed what the cases expect) and agenteval.yaml still loads."""
    _bounded(work)
    rng, tally = random.Random(seed), Tally("convert")
    for i in range(iterations):
        root, argv, project = convert_case(work / f"convert{i}", rng)
        tally.inputs += 1
        valid = project and _checked(run, ["validate", "agenteval.yaml"], root, tally) == 0
        green = valid and _checked(run, ["run", "-q"], root, tally) == 0 and _checked(run, ["accept"], root, tally) == 0
        config_before = _bytes_or_none(root / "agenteval.yaml")
        code = _checked(run, argv, root, tally)
        if not project or code is None:
            continue
        if _bytes_or_none(root / "agenteval.yaml") != config_before:
            after = _checked(run, ["validate", "agenteval.yaml"], root, tally)
            if valid and after != 0:
                tally.unloadable.append(Outcome(argv, after, "convert turned an agenteval.yaml validate accepted into one it refuses"))
        session_free = not os.path.lexists(root / "eval" / "initial.session.json") and "--initial-session" not in argv
        if green and code == 0 and session_free:
            after = _checked(run, ["run", "-q"], root, tally)
            if after not in (0, None):
                tally.unloadable.append(Outcome(argv, after, "run after a clean convert of a green project is not green"))
    return tally


def _checked(run: Runner, argv: list[str], cwd: Path, tally: Tally) -> int | None:
    return _run_and_tally(run, argv, cwd, tally)[0]


def _run_and_tally(run: Runner, argv: list[str], cwd: Path, tally: Tally) -> tuple[int | None, str]:
    code, err = run(argv, cwd)
    tally.add(Outcome(argv, code, err))
    return code, err


# ---------------------------------------------------------------- judge cache entries as files


def fuzz_cache(work: Path, iterations: int, seed: int, run: Runner) -> Tally:
    """The example with some of its committed judge cache entries replaced by things that are
    not entries (a FIFO, a folder, a loop, a socket, garbage): run ends, no crash."""
    _bounded(work)
    rng, tally = random.Random(seed), Tally("judge cache entries")
    for i in range(iterations):
        root = work / f"cache{i}"
        shutil.copytree(EXAMPLE, root, symlinks=True)
        entries = sorted((root / ".agenteval" / "cache").rglob("*.json"))
        for entry in rng.sample(entries, rng.randint(1, min(4, len(entries)))):
            _odd_entry(entry, rng)
        tally.inputs += 1
        code, err = run(["run", "-q", "--json", "r.json"], root)
        tally.add(Outcome(["run (cache)", str(i)], code, err))
    return tally


_SOCKETS: list[socket.socket] = []  # kept open: the files stay sockets while the commands run


def bind_socket(path: Path) -> None:
    """A Unix socket file at `path`, bound from its folder (a socket's path is limited to 108 bytes)."""
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        server = socket.socket(socket.AF_UNIX)
        server.bind(path.name)
        _SOCKETS.append(server)
    finally:
        os.chdir(here)


def _odd_entry(entry: Path, rng: random.Random) -> None:
    entry.unlink()
    kind = rng.choice(["fifo", "folder", "loop", "dangling", "socket", "empty", "bytes", "truncated", "deep", "sparse", "array"])
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "folder":
        entry.mkdir()
    elif kind == "loop":
        os.symlink(entry.name, entry)
    elif kind == "dangling":
        os.symlink("nowhere.json", entry)
    elif kind == "socket":
        bind_socket(entry)
    elif kind == "sparse":
        with open(entry, "wb") as f:
            f.truncate(300 * 1024 * 1024)
    else:
        entry.write_bytes({"empty": b"", "bytes": b"\xff\xfe{", "truncated": b'{"text": "x', "deep": b"[" * 5000,
                           "array": b"[]"}.get(kind, b"{}"))


# ---------------------------------------------------------------- paths


def _path_shapes(work: Path) -> dict[str, str]:
    """Paths that are not what a command expects, made once in the work folder."""
    (work / "pdir").mkdir()
    (work / "pfile").write_text("x")
    os.mkfifo(work / "pfifo")
    os.symlink("ploop", work / "ploop")
    os.symlink("nowhere", work / "pdangling")
    bind_socket(work / "psock")
    shapes = {
        "empty": "", "dot": ".", "slashes": ".//", "dash": "-", "tilde": "~", "long_name": "n" * 300,
        "long_path": "a/" * 2100 + "b", "folder": "pdir", "fifo": "pfifo", "loop": "ploop", "dangling": "pdangling",
        "socket": "psock", "file_parent": "pfile/x.json", "up": "..", "glob": "evals/**", "star": "*",
        "control": "c\x01d.json", "unicode": "\U0001F916 \u2028.json",
    }
    # Never a path outside the work folder: a command told to write to /dev/zero would replace it
    # (as root) if it were broken. A device of our own stands in, where we may make one.
    try:
        os.mknod(work / "pdev", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        shapes["device"] = "pdev"
    except OSError:
        pass
    return shapes


PATH_COMMANDS = [
    ["run", "--config", "P"], ["run", "--json", "P", "-q"], ["compare", "P"], ["compare", "results.json", "--baseline", "P"],
    ["compare", "results.json", "--md", "P"], ["accept", "results.json", "--baseline", "P"], ["report", "P", "--format", "md"],
    ["report", "results.json", "--format", "html", "-o", "P"], ["score", "P", "--actual", "P", "--no-judge-cache"],
    ["validate", "P"], ["convert", "P"], ["init", "P", "--no-run"], ["merge", "P", "--json", "out.json"],
]
PATH_KEYS = ["baseline", "eval_sets", "eval_config", "agent", "cache_dir"]


def _config_with(key: str, value: str) -> str:
    quoted = json.dumps(value)
    suite = {"agent": "agent.py:handle", "eval_sets": '["evals/**/*.evalset.json"]'}
    top = ""
    if key == "baseline":
        top = f"baseline: {quoted}\n"
    elif key == "cache_dir":
        top = f"judge: {{cache_dir: {quoted}}}\n"
    elif key == "eval_sets":
        suite["eval_sets"] = f"[{quoted}]"
    else:
        suite[key] = quoted
    return top + "suites:\n  - " + "\n    ".join(f"{k}: {v}" for k, v in suite.items()) + "\n"


def fuzz_paths(work: Path, iterations: int, seed: int, run: Runner) -> Tally:
    """Odd paths as command arguments and as agenteval.yaml's path keys: exit 0/1/2, never a
    traceback or a hang, and an output that existed is left alone when the command fails."""
    _bounded(work)
    rng, tally = random.Random(seed), Tally("paths")
    root = work / "paths"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    shapes = _path_shapes(root)
    code, err = run(["score", "evals/basic/home.evalset.json", "--actual", "evals/basic/home.evalset.json",
                     "--no-judge-cache", "--json", "results.json"], root)
    assert code == 0, err
    for _ in range(iterations):
        shape = rng.choice(sorted(shapes))
        tally.inputs += 1
        if rng.random() < 0.4:
            key = rng.choice(PATH_KEYS)
            (root / "odd.yaml").write_text(_config_with(key, shapes[shape]))
            argv = [rng.choice(["run", "compare", "accept", "validate"]), *(["--config"] if rng.random() < 0.75 else []), "odd.yaml"]
            argv = argv if argv[0] != "compare" else ["compare", "results.json", "--config", "odd.yaml"]
        else:
            argv = [shapes[shape] if a == "P" else a for a in rng.choice(PATH_COMMANDS)]
        sentinel = root / "results.json"
        before = sentinel.read_bytes()
        code, err = run(argv, root)
        changed = code not in (0, 1) and sentinel.read_bytes() != before and "accept" not in argv
        tally.add(Outcome([*argv[:1], shape, *argv[1:]], code, err, output_changed=changed))
        if code in (0, 1) and argv[0] == "accept":
            shutil.copy(EXAMPLE / ".agenteval" / "baseline.json", root / ".agenteval" / "baseline.json")
    return tally


SURFACES: dict[str, Callable[[Path, int, int, Runner], Tally]] = {
    "init": fuzz_init, "convert": fuzz_convert, "cache": fuzz_cache, "paths": fuzz_paths,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--surface", choices=["files", *SURFACES, "all"], default="files",
                        help="files: mutations of the example's files; init, convert, cache, paths: issue 24's surfaces")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per command (subprocess mode)")
    parser.add_argument("--in-process", action="store_true", help="call cli.main directly: faster; a hang is an alarm after 60 s")
    parser.add_argument("--work", help="work folder (default: a temp folder, removed)")
    args = parser.parse_args()
    import tempfile

    os.environ.pop("GOOGLE_API_KEY", None)
    os.environ.pop("GEMINI_API_KEY", None)
    os.environ["GOOGLE_GEMINI_BASE_URL"] = "http://127.0.0.1:9"
    run = in_process if args.in_process else subprocess_runner(args.timeout)
    surfaces = ["files", *SURFACES] if args.surface == "all" else [args.surface]
    failed = False
    with tempfile.TemporaryDirectory(prefix="agenteval-fuzz-") as tmp:
        for surface in surfaces:
            work = Path(args.work or tmp) / surface
            work.mkdir(parents=True, exist_ok=True)
            started = time.perf_counter()
            if surface == "files":
                ran, crashes = fuzz(work, args.iterations, args.seed, run)
                tally = Tally("files", args.iterations, crashes)
                print(f"files: commands run {ran}, ", end="")
            else:
                tally = SURFACES[surface](work, args.iterations, args.seed, run)
            print(f"{tally.line()} ({time.perf_counter() - started:.1f} s, seed {args.seed})", flush=True)
            for c in [*tally.crashes, *tally.unloadable][:20]:
                last = c.stderr.strip().splitlines()[-3:] if c.stderr.strip() else []
                why = "timed out" if c.code is None else ("changed an output" if c.output_changed else f"exit {c.code}")
                print(f"  FAIL ({why}): agenteval {' '.join(map(repr, c.argv))}\n      " + "\n      ".join(last))
            failed = failed or bool(tally.crashes or tally.unloadable)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
