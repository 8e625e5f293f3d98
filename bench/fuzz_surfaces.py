"""Seeded fuzzing of two surfaces (issue 24): argument rules, and a Python callable's replies.

    python bench/fuzz_surfaces.py [--surface rules|replies|all] [--inputs 2000] [--seed 0] [--hang-seconds 10]

rules: random rule sets (valid and not: huge counts, catastrophic and invalid regexes, bad
  options) over random arguments (10**400, NaN, infinities, -0.0, bools, surrogates, numeric
  strings, nested and duplicated lists) go through the criterion's validation, the rule check
  `validate` runs, both rule metrics, and every so often `agenteval score` on files.
replies: random replies (every accepted shape, with object(), bytes, sets, loops, 5,000-deep
  nests, tuple keys, 5,000-digit ints, NaN, values whose __str__ raises, lone surrogates, str and
  int subclasses) go through the real adapter, the results file model, the judge prompts and a
  cache-key hash, and every so often a whole `agenteval run` plus every report format.

A crash is an exception that is not the documented outcome (a ValidationError for a bad rule,
an AgentReplyError for a bad reply), a score outside [0, 1], a CLI exit code outside 0-2 or a
traceback. A hang is an input that took longer than --hang-seconds (a SIGALRM watchdog also
stops it). tests/test_fuzz_surfaces.py runs a few hundred inputs of each at fixed seeds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import enum
import hashlib
import json
import os
import random
import signal
import sys
import tempfile
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import pydantic  # noqa: E402
from fuzz import in_process  # noqa: E402  (bench/fuzz.py: one CLI command in this process)

from agenteval_ci.agents.python_callable import AgentReplyError, AgentSession, CallableConversation, DaemonThreads  # noqa: E402
from agenteval_ci.core.metrics import REGISTRY, MetricInput  # noqa: E402
from agenteval_ci.core.metrics.llm_hallucinations import steps_of  # noqa: E402
from agenteval_ci.core.metrics.llm_judge import dialogue, render_prompt, tool_steps  # noqa: E402
from agenteval_ci.core.rule_check import rule_problems  # noqa: E402
from agenteval_ci.schema import Content, EvalCase, FunctionCall, Invocation, MetricRun, ToolArgsCriterion  # noqa: E402
from agenteval_ci.schema.eval_set import IntermediateData  # noqa: E402


@dataclass
class Tally:
    surface: str
    inputs: int = 0
    crashes: list[str] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)
    slowest: float = 0.0

    def line(self) -> str:
        return (f"{self.surface}: inputs {self.inputs}, crashes {len(self.crashes)}, hangs {len(self.hangs)}, "
                f"slowest input {self.slowest:.2f} s")


class _Hang(BaseException):
    """Raised by the watchdog; a BaseException so no `except Exception` in the code under test eats it."""


@contextlib.contextmanager
def watchdog(seconds: float):
    """Stop the input after `seconds` (main thread only; elsewhere the elapsed time still counts)."""
    armed = hasattr(signal, "setitimer") and _main_thread()
    if armed:
        def stop(*_: Any) -> None:
            raise _Hang()

        previous = signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _check(tally: Tally, label: str, work: Callable[[], None], hang_seconds: float) -> None:
    tally.inputs += 1
    started = time.perf_counter()
    try:
        with watchdog(hang_seconds * 2):
            work()
    except _Hang:
        tally.hangs.append(f"{label}: stopped after {hang_seconds * 2:g} s")
        return
    except Exception as exc:  # noqa: BLE001 - anything escaping is a crash
        tally.crashes.append(f"{label}: {type(exc).__name__}: {str(exc)[:300]}")
    took = time.perf_counter() - started
    tally.slowest = max(tally.slowest, took)
    if took > hang_seconds:
        tally.hangs.append(f"{label}: took {took:.1f} s")


# ---------------------------------------------------------------- argument rules

SCALARS: list[Any] = [
    None, True, False, 0, 1, -1, 19, 21, 21.0, 1.0, 1.3, 0.1, 0.5, -0.0, 10**400, -(10**400), 10**400 + 1,
    2**53 + 1, float(2**53), 1e308, float("inf"), float("-inf"), float("nan"), "19", " 19 ", "1e400", "1e99999",
    "1_000", "nineteen", "", "Kitchen ", "kitchen", "ﬁle", "ＦＵＬＬ", "a" * 40 + "!", "a" * 40, "x\ud800", "\udfff",
    "2025-06-17", "x" * 3000,
]
KEYS = ["a", "b", "legs", "from", "0", "*", " ", "x\ud800", "tags", "n"]
PATTERNS: list[Any] = [
    r"2025-06-\d\d", r"(a|a)*", r"(a+)+$", r"(a|aa)+$", r"(.*a){20}", "(", "a{99999999999999999999}", "(a{1000}){1000}",
    "x" * 2000, r"(?P<n>a)(?P=n)", r"\d+", ".*", r"\p{L}", "(" * 150 + ")" * 150, "a{4294967295}", 5, None, "(?i)kitchen",
]
OPTIONS: list[Any] = [0, 0.5, 1, 1e-9, 1e308, -1, 10**400, float("nan"), float("inf"), "0.5", "1e999", True, None, [1]]


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth >= 4 or roll < 0.55:
        return rng.choice(SCALARS)
    if roll < 0.8:
        items = [_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
        if items and rng.random() < 0.4:
            items.append(rng.choice(items))  # a duplicate
        return items
    return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _mutated(rng: random.Random, value: Any, depth: int = 0) -> Any:
    roll = rng.random()
    if roll < 0.15 or depth > 5:
        return _value(rng, depth)
    if isinstance(value, list):
        items = [_mutated(rng, v, depth + 1) if rng.random() < 0.3 else v for v in value]
        rng.shuffle(items)
        if rng.random() < 0.3:
            items.append(_value(rng, depth + 1))
        if items and rng.random() < 0.2:
            items.pop(rng.randrange(len(items)))
        return items
    if isinstance(value, dict):
        out = {k: (_mutated(rng, v, depth + 1) if rng.random() < 0.3 else v) for k, v in value.items() if rng.random() > 0.1}
        if rng.random() < 0.2:
            out[rng.choice(KEYS)] = _value(rng, depth + 1)
        return out
    if isinstance(value, int) and not isinstance(value, bool) and rng.random() < 0.5:
        return value + rng.choice([0, 1, -1])
    if isinstance(value, float) and rng.random() < 0.5:
        return value + rng.choice([0.0, 0.5, 1e-3])
    return value


def _paths(value: Any, prefix: str = "") -> list[str]:
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{prefix}.{key}" if prefix else key
            out += [here, *_paths(item, here)]
    elif isinstance(value, list):
        for index, item in enumerate(value):
            for step in (f"[{index}]", "[*]"):
                out += [prefix + step, *_paths(item, prefix + step)]
    return out


GOOD_PATTERNS = [r"2025-06-\d\d", r"(a|a)*", r"(a+)+$", r"(a|aa)+$", r"(.*a){20}", r"(?P<n>a)(?P=n)", r"\d+", ".*", "(?i)kitchen", "[0-9]+(\\.[0-9]+)?"]
GOOD_OPTIONS = [0, 0.5, 1, 1e-9, 1e308, "0.5"]


def _rule(rng: random.Random) -> Any:
    """Mostly a valid rule (so the metrics run), sometimes one that must be refused."""
    if rng.random() < 0.1:
        return rng.choice([
            "fuzzy", 5, None, {"number": {"tolerance": 1}}, {"number": "x"}, {"regex": rng.choice(PATTERNS)},
            {"regex": "a", "text": {}}, {"number": {"abs": rng.choice(OPTIONS)}}, {"number": {"rel": rng.choice(OPTIONS)}},
        ])
    return rng.choice([
        "exact", "ignore", "present", "subset", "superset", "subset", "superset", "text", "number",
        {"number": {"abs": rng.choice(GOOD_OPTIONS)}}, {"number": {"rel": rng.choice(GOOD_OPTIONS), "lenient": rng.random() < 0.5}},
        {"number": {"lenient": True, "abs": 1}}, {"text": {"ignore_case": False}},
        {"text": {"ignore_whitespace": False, "ignore_case": rng.random() < 0.5}}, {"regex": rng.choice(GOOD_PATTERNS)},
    ])


def _tool_rules(rng: random.Random, calls: list[dict[str, Any]]) -> dict[str, Any]:
    paths = sorted({p for c in calls for p in _paths(c["args"])}) or ["a"]
    bogus = ["$", "$.a", "a..b", "x[", "[*]", "a[99999999999999999999]", "legs[*].from", "n"]
    rules = {}
    for _ in range(rng.randint(0, 5)):
        path = rng.choice(paths) if rng.random() < 0.93 else rng.choice(bogus)
        rules[path] = rng.choice(["subset", "superset", "exact", "ignore"]) if path == "$" and rng.random() < 0.8 else _rule(rng)
    return rules


def _calls(rng: random.Random) -> list[dict[str, Any]]:
    return [{"name": rng.choice(["t", "u"]), "args": {rng.choice(KEYS): _value(rng) for _ in range(rng.randint(0, 4))}}
            for _ in range(rng.randint(0, 4))]


def _turn(calls: list[dict[str, Any]]) -> Invocation:
    uses = [FunctionCall(name=c["name"], args=c["args"]) for c in calls]
    return Invocation(user_content=Content.from_text("q"), intermediate_data=IntermediateData(tool_uses=uses))


def as_a_file_holds(value: Any) -> Any:
    """`value` as it reads back from a JSON file: no lone surrogate survives (the loader
    refuses them; a Python agent's are repaired), so none reaches a metric."""
    text = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return json.loads(text)


def rules_input(rng: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    expected = _calls(rng)
    actual = [{"name": c["name"] if rng.random() < 0.9 else "t", "args": _args(_mutated(rng, c["args"]))} for c in expected]
    rng.shuffle(actual) if rng.random() < 0.2 else None
    actual += _calls(rng) if rng.random() < 0.3 else []
    tool_args = {tool: _tool_rules(rng, [c for c in expected if c["name"] == tool] or expected) for tool in rng.sample(["t", "u", "*"], rng.randint(0, 3))}
    for rules in tool_args.values():  # give backtracking patterns the values that make them backtrack
        for path, rule in rules.items():
            if isinstance(rule, dict) and "regex" in rule and path.isidentifier() and rng.random() < 0.5:
                for call in actual:
                    call["args"][path] = "a" * rng.randint(24, 40) + rng.choice(["!", "", "b"])
    criterion = {"threshold": rng.choice([0.5, 1.0]), "tool_args": tool_args}
    if rng.random() < 0.3:
        criterion["penalize_extra_calls"] = rng.random() < 0.5
    return criterion, expected, actual


def _args(value: Any) -> Any:
    return value if isinstance(value, dict) else {"a": value}  # a call's args are an object


def _score_rules(criterion: dict[str, Any], expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> None:
    for name in ("tool_trajectory_alignment_score", "tool_argument_match_score"):
        try:
            parsed = ToolArgsCriterion.model_validate({k: v for k, v in criterion.items() if name == "tool_trajectory_alignment_score" or k != "penalize_extra_calls"})
        except pydantic.ValidationError:
            return  # a bad rule is refused: the documented outcome (exit 2 through the CLI)
        grouped: dict[str, list[dict[str, Any]]] = {}
        for call in expected:
            grouped.setdefault(call["name"], []).append(call["args"])
        rule_problems("f.json", "$.criteria", parsed.tool_args, grouped)
        case = EvalCase(eval_id="c", conversation=[_turn(expected)])
        run = REGISTRY[name].evaluate(MetricInput(parsed, [_turn(actual)], case.conversation, case))
        assert isinstance(run, MetricRun) and (run.score is None or 0.0 <= run.score <= 1.0), f"{name} scored {run.score}"
        run.model_dump_json()  # what the results file writes


def _score_rules_cli(work: Path, index: int, criterion: dict[str, Any], expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> None:
    """The same input through `agenteval score` on files: exit 0, 1 or 2, never a traceback."""
    def eval_set(calls: list[dict[str, Any]]) -> str:
        turn = {"user_content": {"parts": [{"text": "q"}]}, "intermediate_data": {"tool_uses": calls}}
        return json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [turn]}]})

    paths = {name: work / f"{name}{index}.json" for name in ("expected", "actual", "config")}
    paths["expected"].write_text(eval_set(expected), encoding="utf-8", errors="surrogatepass")
    paths["actual"].write_text(eval_set(actual), encoding="utf-8", errors="surrogatepass")
    paths["config"].write_text(json.dumps({"criteria": {"tool_argument_match_score": criterion}}), encoding="utf-8", errors="surrogatepass")
    code, err = in_process(["score", str(paths["expected"]), "--actual", str(paths["actual"]), "--eval-config", str(paths["config"]), "--no-judge-cache"], work)
    assert code in (0, 1, 2) and "Traceback" not in err, f"exit {code}: {err[-500:]}"


def fuzz_rules(inputs: int, seed: int, hang_seconds: float, work: Path, cli_every: int = 20) -> Tally:
    rng = random.Random(seed)
    tally = Tally("rules")
    for index in range(inputs):
        raw = rules_input(rng)
        criterion, expected, actual = as_a_file_holds(raw)
        _check(tally, f"rules seed {seed} input {index}", lambda: _score_rules(criterion, expected, actual), hang_seconds)
        if cli_every and index % cli_every == 0:
            on_file = raw if rng.random() < 0.2 else (criterion, expected, actual)  # raw: lone surrogates, refused (exit 2)
            _check(tally, f"rules seed {seed} input {index} (score)", lambda: _score_rules_cli(work, index, *on_file), hang_seconds)
    return tally


# ---------------------------------------------------------------- a callable's replies


class Boom:
    def __str__(self) -> str:
        raise RuntimeError("no str")

    __repr__ = __str__


class Level(enum.IntEnum):
    HIGH = 3


class Tag(str):
    def __str__(self) -> str:
        raise RuntimeError("a str subclass whose __str__ raises")


class Sneaky(dict):
    def items(self):  # type: ignore[override]
        raise RuntimeError("items() overridden")


def _weird(rng: random.Random) -> Any:
    looped: list[Any] = []
    looped.append(looped)
    deep: Any = []
    for _ in range(rng.choice([99, 100, 101, 5000])):
        deep = [deep]
    return rng.choice([
        object(), b"raw", {1, 2}, looped, deep, {("a", 1): 2}, {1: "int key"}, 10**5000, -(10**4299), float("nan"),
        float("inf"), Boom(), Tag("tag\ud800"), Level.HIGH, "lone \ud800", "\udfff\ud83d\ude00", "pair \ud83d\ude00",
        (1, "tuple"), Sneaky(a=1), 1e308, -0.0, "x" * rng.choice([10, 100_000]), [None] * rng.choice([3, 100_001]),
        type("Lying", (), {"__class__": property(lambda self: str)})(),
    ])


def _json_like(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if roll < 0.12:
        return _weird(rng)
    if depth >= 3 or roll < 0.6:
        return rng.choice(SCALARS[:30])
    if roll < 0.8:
        return [_json_like(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(KEYS): _json_like(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _call(rng: random.Random) -> dict[str, Any]:
    call: dict[str, Any] = {"name": rng.choice(["get_temp", "set\ud800", "", _json_like(rng)]) if rng.random() < 0.2 else "get_temp",
                            "args": {rng.choice(KEYS): _json_like(rng) for _ in range(rng.randint(0, 3))}}
    if rng.random() < 0.6:
        call["response"] = _json_like(rng)
    if rng.random() < 0.05:
        call["extra"] = 1
    return call


def reply_input(rng: random.Random) -> Any:
    text = rng.choice(["It is 21 degrees.", "21\ud800 degrees", "", "x" * 1000, "\udfff"])
    app = {"agent_details": {rng.choice(["home", "h\ud800"]): {"name": "home", "instructions": rng.choice(["Only lights.", "x\ud800"]),
                                                               "tool_declarations": [_json_like(rng) for _ in range(rng.randint(0, 2))]}}}
    shape = rng.randrange(8)
    if shape == 0:
        return text
    if shape == 1:
        return {"response": text, "tool_calls": [_call(rng) for _ in range(rng.randint(0, 3))], **({"app_details": app} if rng.random() < 0.5 else {})}
    if shape == 2:
        steps = [_call(rng) if rng.random() < 0.5 else {"text": rng.choice(["Let me check.", "\ud800", ""])} for _ in range(rng.randint(0, 4))]
        return {"response": text, "steps": steps, **({"app_details": app} if rng.random() < 0.5 else {})}
    if shape == 3:
        return {"response": text, "predicted_trajectory": [{"tool_name": "get_temp", "tool_input": {"q": _json_like(rng)}}]}
    if shape == 4:
        return _weird(rng)
    if shape == 5:
        return rng.choice([None, 5, [text], (text,), {"answer": text}, {"response": text, "tool_calls": [], "steps": []}])
    if shape == 6:
        return {"response": _json_like(rng), "tool_calls": _json_like(rng)}
    return {"response": text, "app_details": _json_like(rng) if rng.random() < 0.5 else app}


def _through_the_adapter(value: Any) -> None:
    """The real adapter's send(), then every sink a reply reaches."""
    session = AgentSession(case_id="c", run_index=0)
    conversation = CallableConversation(lambda text, session: value, session, DaemonThreads(1))
    try:
        invocation = asyncio.run(conversation.send(Content.from_text("How warm is it?")))
    except AgentReplyError as exc:
        assert "invalid reply" in str(exc), str(exc)
        str(exc).encode("utf-8")  # the run's error goes into the results file
        return
    text = invocation.model_dump_json()
    assert Invocation.model_validate_json(text) == invocation
    prompts = [render_prompt("label_sentences", context=step.context, sentences=step.response) for step in steps_of(invocation, True)]
    for prompt in [*prompts, dialogue([invocation]), tool_steps(invocation)]:
        hashlib.sha256(prompt.encode("utf-8")).hexdigest()  # a judge cache key over the prompt


AGENT = "import agenteval_fuzz_replies\n\ndef handle(text, session):\n    return agenteval_fuzz_replies.REPLIES[session.case_id]\n"


def _run_whole(work: Path, index: int, replies: dict[str, Any]) -> None:
    """`agenteval run` over one case per reply (the real loader and run loop), then every report."""
    sys.modules["agenteval_fuzz_replies"] = types.SimpleNamespace(REPLIES=replies)  # type: ignore[assignment]
    folder = work / f"run{index}"
    folder.mkdir()
    (folder / "agent.py").write_text(AGENT)
    cases = [{"eval_id": key, "conversation": [{"user_content": {"parts": [{"text": "How warm is it?"}]}}]} for key in replies]
    (folder / "e.evalset.json").write_text(json.dumps({"eval_set_id": "e", "eval_cases": cases}))
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.0}}))
    code, err = in_process(["run", "agent.py:handle", "e.evalset.json", "--json", "r.json", "-q"], folder)
    assert code in (0, 1) and "Traceback" not in err, f"run exit {code}: {err[-800:]}"
    for form in ("md", "summary", "html", "junit"):
        code, err = in_process(["report", "r.json", "--format", form, "-o", f"r.{form}"], folder)
        assert code == 0 and "Traceback" not in err, f"report {form} exit {code}: {err[-500:]}"


def fuzz_replies(inputs: int, seed: int, hang_seconds: float, work: Path, run_every: int = 50) -> Tally:
    rng = random.Random(seed)
    tally = Tally("replies")
    batch: dict[str, Any] = {}
    for index in range(inputs):
        value = reply_input(rng)
        batch[f"c{index}"] = value
        _check(tally, f"replies seed {seed} input {index}", lambda: _through_the_adapter(value), hang_seconds)
        if run_every and len(batch) == run_every:
            replies, batch = batch, {}
            _check(tally, f"replies seed {seed} inputs up to {index} (agenteval run)", lambda: _run_whole(work, index, replies), hang_seconds * 5)
    return tally


# ---------------------------------------------------------------- the command line


SURFACES = {"rules": fuzz_rules, "replies": fuzz_replies}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--surface", choices=[*SURFACES, "all"], default="all")
    parser.add_argument("--inputs", type=int, default=1000, help="inputs per surface")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang-seconds", type=float, default=10.0)
    args = parser.parse_args()
    os.environ["GOOGLE_GEMINI_BASE_URL"] = "http://127.0.0.1:9"
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
        os.environ.pop(key, None)
    failed = False
    with tempfile.TemporaryDirectory(prefix="agenteval-fuzz-surfaces-") as tmp:
        for name in SURFACES if args.surface == "all" else [args.surface]:
            started = time.perf_counter()
            tally = SURFACES[name](args.inputs, args.seed, args.hang_seconds, Path(tmp))
            print(f"{tally.line()} ({time.perf_counter() - started:.1f} s, seed {args.seed})")
            for problem in (tally.crashes + tally.hangs)[:20]:
                print(f"  {problem}")
            failed |= bool(tally.crashes or tally.hangs)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
