"""Running the user's own metrics: the I/O half of core/metrics/user.py.

Each form becomes a `UserCode`: ADK's `code_config` (a function imported by its dotted path as
google-adk imports it, called with ADK's own types), agents-cli's `custom_function` /
`custom_function_file` (`evaluate(instance)`), and `command` (a program reading one case as JSON
on stdin, writing `{"score": ..., "explanation": ...}` on stdout).

Nothing runs at load time: a function is imported, a file compiled, on its first call, so a mode
that only reads stored scores (`publish`, `accept`) never executes workspace code. Every call runs
in a daemon worker thread (reused, _Workers) awaited with the metric's timeout: a function that
hangs is abandoned (its thread is left to finish, or to die with the process), a program that
hangs is killed, and the run goes on. At most `MAX_AT_ONCE` calls run at once.
"""

from __future__ import annotations

import ast
import concurrent.futures
import hashlib
import importlib
import inspect
import json
import math
import os
import queue
import shutil
import subprocess
import sys
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from ..core.metrics.base import MetricInput, MetricSpec
from ..core.metrics.user import Bounds, Reply, Unscored, UserCode, UserMetric, user_spec
from ..schema.eval_config import CustomMetricConfig

if TYPE_CHECKING:
    from ..core.metrics.llm_template import TemplateMetric

MAX_AT_ONCE = max(4, (os.cpu_count() or 1) * 2)  # user metrics running at once (threads or programs)
MAX_OUTPUT = 1 << 20  # bytes of a program's stdout read as its answer

# asyncio is imported where a metric runs: a deterministic `score` of built-in metrics never loads it
_limits: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def own_metric_spec(name: str, config: CustomMetricConfig, base_dir: Path) -> MetricSpec:
    """The registry row of a metric declared under `custom_metrics`: a judge from a template,
    or the user's code."""
    if config.prompt_template is not None:
        from ..core.metrics.llm_template import template_spec  # the judge's modules load only where a judge is asked

        return template_spec(template_metric(name, config))
    return user_spec(user_metric(name, config, base_dir))


def template_metric(name: str, config: CustomMetricConfig) -> TemplateMetric:
    from ..core.metrics.llm_template import Scale, TemplateMetric

    assert config.prompt_template is not None
    scale = Scale.of_labels(config.labels) if config.labels is not None else Scale.of_ratings(config.rating_scores or {})
    return TemplateMetric(name, config.prompt_template, scale, config.description)


def user_metric(name: str, config: CustomMetricConfig, base_dir: Path) -> UserMetric:
    """The metric `name` as configured under `custom_metrics`; paths are relative to `base_dir`
    (the file that declares it)."""
    interval = config.interval
    bounds = Bounds(interval.min_value, interval.max_value, interval.open_at_min, interval.open_at_max) if interval else Bounds(-math.inf, math.inf)
    runner = _RUNNERS[config.form](name, config, base_dir)
    description = config.description or (config.metric_info.description if config.metric_info else None) or ""
    return UserMetric(name, config.form, bounds, code_hash(config, base_dir), runner, description)


def code_hash(config: CustomMetricConfig, base_dir: Path) -> str:
    """What an edit of the metric changes: the inline source, the file's bytes, the command and its
    program's bytes, or the dotted path and its module's bytes (ADK's code_config)."""
    parts: list[bytes] = [config.form.encode(), repr(config.timeout_seconds).encode()]
    if config.custom_function is not None:
        parts.append(config.custom_function.encode())
    if config.custom_function_file is not None:
        parts.append(_bytes_of(base_dir / config.custom_function_file))
    if config.command is not None:
        parts.append(json.dumps(config.command).encode())
        parts.extend(_bytes_of(base_dir / arg) for arg in config.command if (base_dir / arg).is_file())
    if config.code_config is not None:
        parts.append(config.code_config.name.encode())
        module = find_module_file(config.code_config.name.rpartition(".")[0], base_dir)
        parts.append(_bytes_of(module) if module else b"")
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]


def _bytes_of(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def project_roots(base_dir: Path) -> list[Path]:
    """The declaring file's folder and its parents up to the working directory (the project)."""
    roots, cwd, folder = [], Path.cwd().resolve(), base_dir.resolve()
    while True:
        roots.append(folder)
        if folder == cwd or folder.parent == folder:
            return roots
        folder = folder.parent


def search_roots(base_dir: Path) -> list[Path]:
    """Where a dotted path is looked for: the project's folders, then Python's own path (the
    agent's parent is on it)."""
    return [*project_roots(base_dir), *(Path(p) for p in sys.path if p)]


def find_module_file(module: str, base_dir: Path) -> Optional[Path]:
    """The source file of `module` under the search roots, found without importing anything."""
    parts = module.split(".")
    for root in search_roots(base_dir):
        for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
            if candidate.is_file():
                return candidate
    return None


# -- the forms ---------------------------------------------------------------------------------


def _adk_function(name: str, config: CustomMetricConfig, base_dir: Path) -> UserCode:
    """ADK's code_config: fn(eval_metric, actual, expected, scenario) -> EvaluationResult, sync or
    async, imported on first use as google-adk's _get_metric_function imports it."""
    assert config.code_config is not None
    path = config.code_config.name
    loaded = _Lazy(lambda: _import_function(path, base_dir))

    def call(inp: MetricInput) -> Union[Reply, Unscored]:
        function = loaded.get()
        from . import user_metrics_adk  # google-adk's types, only when an ADK metric runs

        args = user_metrics_adk.adk_arguments(name, inp)
        return user_metrics_adk.reply_of(_awaited(function(*args)))

    return _timed(name, call, config.timeout_seconds)


def _import_function(path: str, base_dir: Path) -> Callable[..., Any]:
    module_name, _, function_name = path.rpartition(".")
    if not module_name:
        raise ImportError(f"{path!r} is not a dotted path module.function")
    for root in reversed(project_roots(base_dir)):  # nearest first on the path, as find_module_file looks
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
    function = getattr(importlib.import_module(module_name), function_name, None)
    if not callable(function):
        raise ImportError(f"{path!r} does not name a callable")
    return function  # type: ignore[no-any-return]


def _inline_function(name: str, config: CustomMetricConfig, base_dir: Path) -> UserCode:
    assert config.custom_function is not None
    source = config.custom_function
    return _evaluate_instance(name, config, _Lazy(lambda: _compiled_evaluate(source, f"<custom_function {name}>")))


def _file_function(name: str, config: CustomMetricConfig, base_dir: Path) -> UserCode:
    assert config.custom_function_file is not None
    path = base_dir / config.custom_function_file
    return _evaluate_instance(name, config, _Lazy(lambda: _compiled_evaluate(path.read_text(encoding="utf-8"), str(path))))


def _compiled_evaluate(source: str, filename: str) -> Callable[..., Any]:
    namespace: dict[str, Any] = {"__name__": f"agenteval_user_metric_{abs(hash(filename))}", "__file__": filename}
    exec(compile(source, filename, "exec"), namespace)  # the PR's own code, run where its agent runs
    evaluate = namespace.get("evaluate")
    if not callable(evaluate):
        raise ImportError(f"{filename} defines no function evaluate(instance)")
    return evaluate  # type: ignore[no-any-return]


def _evaluate_instance(name: str, config: CustomMetricConfig, loaded: _Lazy) -> UserCode:
    """agents-cli's form: evaluate(instance) -> {"score": ..., "explanation": ...} or a number."""

    def call(inp: MetricInput) -> Union[Reply, Unscored]:
        result = _awaited(loaded.get()(agents_cli_instance(inp)))
        return reply_of_mapping(result)

    return _timed(name, call, config.timeout_seconds)


def _command(name: str, config: CustomMetricConfig, base_dir: Path) -> UserCode:
    """A program in any language: one case as JSON on stdin, the answer as JSON on stdout, its
    stderr passed on to ours, killed at the timeout."""
    assert config.command is not None
    argv, timeout = list(config.command), config.timeout_seconds

    def call(inp: MetricInput) -> Union[Reply, Unscored]:
        payload = json.dumps(case_instance(inp), ensure_ascii=False)
        try:
            done = subprocess.run(argv, input=payload.encode(), capture_output=True, cwd=base_dir, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return Unscored(f"the command did not finish within {timeout:g}s and was stopped")
        except OSError as exc:
            return Unscored(f"the command could not start: {exc}")
        _pass_on_stderr(name, done.stderr)
        if done.returncode != 0:
            return Unscored(f"the command exited with code {done.returncode}")
        try:
            answer = json.loads(done.stdout[:MAX_OUTPUT])
        except ValueError:
            return Unscored(f"the command's output is not JSON: {done.stdout[:80]!r}")
        return reply_of_mapping(answer)

    return _timed(name, call, timeout + 5)  # the program's own timeout stops it first


def _pass_on_stderr(name: str, stderr: bytes) -> None:
    for line in stderr.decode("utf-8", "replace").splitlines():
        sys.stderr.write(f"[metric {name}] {line}\n")


_RUNNERS: dict[str, Callable[[str, CustomMetricConfig, Path], UserCode]] = {
    "code_config": _adk_function,
    "custom_function": _inline_function,
    "custom_function_file": _file_function,
    "command": _command,
}


# -- what the forms share ----------------------------------------------------------------------


def case_instance(inp: MetricInput) -> dict[str, Any]:
    """One run of a case as agents-cli's `instance` (and a program's stdin): the last turn's
    prompt, response and reference, and the whole conversation with its tool calls."""
    actual, expected = inp.actual, inp.expected or []
    last_expected = expected[-1] if len(expected) == len(actual) and expected else None
    turns = _turns(inp)
    return {
        "prompt": _text(actual[-1].user_content) if actual else "",
        "response": _text(actual[-1].final_response) if actual else "",
        "reference": _text(last_expected.final_response) if last_expected else None,
        "threshold": inp.criterion.threshold,
        "eval_id": inp.case.eval_id,
        "turns": turns,
        "agent_data": {"turns": turns},  # agents-cli's scaffold counts agent_data["turns"]
    }


def agents_cli_instance(inp: MetricInput) -> dict[str, Any]:
    """One run of a case as google-agents-cli 1.11 hands `instance` to evaluate() (read off a
    real `agents-cli eval grade`, tests/data/agents_cli_grade/): the last turn's prompt and
    response as Content dicts, the reference under `response`, the case id, and `agent_data`:
    the agents (from the turns' app details) and each turn's agent events."""
    actual, expected = inp.actual, inp.expected or []
    last = actual[-1] if actual else None
    reference = expected[-1].final_response if expected and len(expected) == len(actual) else None
    return {
        "prompt": _content(last.user_content) if last else None,
        "reference": {"response": _content(reference)} if reference is not None else None,
        "eval_case_id": inp.case.eval_id,
        "agent_data": {"agents": _agents(actual), "turns": [_agent_turn(i, turn) for i, turn in enumerate(actual)]},
        "response": _content(last.final_response) if last else None,
    }


def _content(content: Any) -> Any:
    return None if content is None else content.model_dump(mode="json", exclude_none=True)


def _agents(turns: list[Any]) -> dict[str, Any]:
    details = next((t.app_details for t in reversed(turns) if t.app_details is not None), None)
    return {} if details is None else {
        name: {"agent_id": name, "instruction": agent.instructions, "tools": agent.tool_declarations}
        for name, agent in details.agent_details.items()
    }


def _agent_turn(index: int, turn: Any) -> dict[str, Any]:
    """The agent's events of one turn: its intermediate steps, then the final response."""
    events = [{"author": event.author, "content": _content(event.content)} for event in _intermediate_events(turn)]
    if turn.final_response is not None:
        agents = list(turn.app_details.agent_details) if turn.app_details is not None else []
        author = events[-1]["author"] if events else agents[0] if agents else "model"  # the root agent answers
        events.append({"author": author, "content": _content(turn.final_response)})
    return {"turn_index": index, "turn_id": f"turn_{index}", "events": events}


def _intermediate_events(turn: Any) -> list[Any]:
    from ..schema import InvocationEvents

    data = turn.intermediate_data
    return list(data.invocation_events) if isinstance(data, InvocationEvents) else []


def _turns(inp: MetricInput) -> list[dict[str, Any]]:
    actual, expected = inp.actual, inp.expected or []
    return [
        {
            "prompt": _text(turn.user_content),
            "response": _text(turn.final_response),
            "reference": _text(expected[i].final_response) if len(expected) == len(actual) else None,
            "tool_calls": [{"name": c.name, "args": c.args} for c in turn.tool_calls],
        }
        for i, turn in enumerate(actual)
    ]


def _text(content: Any) -> str:
    parts = getattr(content, "parts", None) or []
    return "\n".join(p.text for p in parts if getattr(p, "text", None))


def reply_of_mapping(result: Any) -> Union[Reply, Unscored]:
    """A bare number, or {"score": ..., "explanation": ..., "per_turn": [...]}."""
    if isinstance(result, dict):
        if "score" not in result:
            return Unscored(f"the answer has no 'score': {repr(result)[:80]}")
        return Reply(result["score"], result.get("per_turn"), result.get("explanation"))
    return Reply(result)


class _Lazy:
    """A value made on first use (under a lock: calls run in several threads)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make, self._lock, self._value = make, threading.Lock(), None

    def get(self) -> Any:
        with self._lock:
            if self._value is None:
                self._value = self._make()
            return self._value


def _awaited(result: Any) -> Any:
    """An async metric's result: awaited on this worker thread's own loop."""
    if not inspect.isawaitable(result):
        return result
    import asyncio

    return asyncio.run(result)  # type: ignore[arg-type]


class _Workers:
    """Daemon threads that run metric calls, reused: starting a thread per call cost more than a
    trivial metric. A worker whose call hangs past its timeout is abandoned to it, and the next
    call starts a new worker, so a hung function holds one thread, never the pool."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[concurrent.futures.Future[Any], Callable[[MetricInput], Any], MetricInput]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # workers done with their last job, waiting for the next

    def submit(self, call: Callable[[MetricInput], Any], inp: MetricInput) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:
            spawn = self._idle == 0
            self._idle -= not spawn
        if spawn:
            threading.Thread(target=self._work, name="agenteval user metric", daemon=True).start()
        self._jobs.put((future, call, inp))
        return future

    def _work(self) -> None:
        while True:
            future, call, inp = self._jobs.get()
            _fill(future, call, inp)
            with self._lock:
                self._idle += 1


_WORKERS = _Workers()


def _timed(name: str, call: Callable[[MetricInput], Union[Reply, Unscored]], timeout: float) -> UserCode:
    async def run(inp: MetricInput) -> Union[Reply, Unscored]:
        import asyncio

        async with _limit():
            future = _WORKERS.submit(call, inp)
            try:
                return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
            except asyncio.TimeoutError:
                return Unscored(f"did not finish within {timeout:g}s; left running in its thread, the run goes on")
            except Exception as exc:  # the user's code: anything it raises is a reason, not a crash
                return Unscored(f"raised {type(exc).__name__}: {str(exc)[:200]}")

    return run


def _fill(future: concurrent.futures.Future[Any], call: Callable[[MetricInput], Any], inp: MetricInput) -> None:
    if not future.set_running_or_notify_cancel():  # given up on before a worker took it
        return
    try:
        result = call(inp)
    except BaseException as exc:  # noqa: B036 - SystemExit in a user's metric is its failure, not ours
        future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(f"{type(exc).__name__}: {exc}"))
        return
    future.set_result(result)


def _limit() -> Any:
    """The bound of this event loop (each `asyncio.run` of the scoring has its own)."""
    import asyncio

    loop = asyncio.get_running_loop()
    if loop not in _limits:
        _limits[loop] = asyncio.Semaphore(MAX_AT_ONCE)
    return _limits[loop]


# -- what validate checks, without running the user's code -------------------------------------


def static_problems(config: CustomMetricConfig, base_dir: Path) -> list[tuple[str, str]]:
    """(JSON path under the metric, message) for what would stop the metric from running: the
    module, file or program missing, the function not defined. Sources are parsed, never run."""
    if config.code_config is not None:
        module, _, function = config.code_config.name.rpartition(".")
        found = find_module_file(module, base_dir) if module else None
        if found is None:
            where = ", ".join(str(r) for r in search_roots(base_dir)[:3])
            return [("code_config.name", f"no module {module or config.code_config.name!r} found under {where} (nor on the Python path)")]
        return _defines(found.read_text(encoding="utf-8", errors="replace"), str(found), function, "code_config.name")
    if config.custom_function is not None:
        return _defines(config.custom_function, "custom_function", "evaluate", "custom_function")
    if config.custom_function_file is not None:
        path = base_dir / config.custom_function_file
        if not path.is_file():
            return [("custom_function_file", f"no file {path}")]
        return _defines(path.read_text(encoding="utf-8", errors="replace"), str(path), "evaluate", "custom_function_file")
    if config.prompt_template is not None:
        return []  # its fields and scale are checked when the config is read
    assert config.command is not None
    program = config.command[0]
    if shutil.which(program) is None and not (base_dir / program).is_file():
        return [("command[0]", f"program {program!r} is not installed here (not on PATH nor beside the config)")]
    return []


def _defines(source: str, filename: str, function: str, at: str) -> list[tuple[str, str]]:
    """Whether `source` defines `function` at module level (a def, an async def, or a name bound
    to something): read with ast, nothing executed."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        return [(at, f"{filename} does not parse: {exc.msg} (line {exc.lineno})")]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == function:
            return []
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == function for t in targets):
            return []
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == function for a in node.names):
            return []
    return [(at, f"{filename} defines no function {function!r}")]
