"""`agenteval validate PATH...`: check eval sets, configs and agenteval.yaml; a pre-commit hook.

Folders are searched recursively for agenteval.yaml, *.test.json, *.evalset.json,
test_config.json, eval_config.json and *.session.json, and for the other formats we read
(Gemini-platform datasets in *.json, Vertex rows in *.jsonl / *.csv), told by what they hold. A file is told apart by what it holds:
an object with a config's keys (`criteria`, ...) is an eval config whatever its name; a
.yaml/.yml file is a project file. What `run` would reject without running the agent is
reported: a project's suites are resolved as `run` resolves them (globs, eval sets, configs,
argument rules against the expected tools, thresholds) and each suite's agent must exist (for
an agent served over HTTP: its config, agents.remote_agent_problems); an
eval config's argument rules are checked against the eval sets that use it. Everything `run`
refuses before it starts an agent (runner/preflight.py: a config with no gated metric, a persona
without `{{ persona }}`, ...) is reported from the same checks: for a project's suites, and for
an eval set or config outside a project as adk eval's form of `run` would use it. The project
file governing a file named (the nearest agenteval.yaml above it) is checked too, so an edit to
an eval set that breaks a rule in agenteval.yaml fails the hook. Exit 0 when everything is
valid, 2 when a file has a problem (bad input, as `run` exits on it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import EXIT_PASSED, EXIT_USAGE, AgentevalError, InputError, Problem, UsageError
from ..files.agents_cli_config import FILE_NAMES as AGENTS_CLI_CONFIG_NAMES
from ..files.agents_cli_config import is_agents_cli_config
from ..files.discovery import CONFIG_NAMES, adk_eval_config, discover_eval_config, find_project_file, looks_like_eval_config
from ..files.eval_configs import config_rule_problems, load_eval_config
from ..files.eval_sets import LoadedEvalSet, eval_set_from_data, load_eval_set, parse_json_or_say_what
from ..files.formats import TEXT_SUFFIXES, holds_a_dataset
from ..files.project import EvalSetToRun
from ..files.readers import parse_yaml, printable, read_text
from ..runner.preflight import config_problems, refusals, suites_problems
from ..schema.project import DEFAULT_PROJECT_FILE
from ._common import Done, Verbosity, applies_verbosity, files_in, print_warnings, say
from .convert import read_session

_EVAL_SET_PATTERNS = ("*.test.json", "*.evalset.json")
# agents-cli's eval_config.yaml is searched for too, and told from a project file by its keys (check_file)
_PATTERNS = (DEFAULT_PROJECT_FILE, *_EVAL_SET_PATTERNS, *CONFIG_NAMES, *AGENTS_CLI_CONFIG_NAMES, "*.session.json")
_PROJECT_SUFFIXES = (".yaml", ".yml")
_NOT_OURS = {"node_modules", "site-packages", "venv", "__pycache__"}
_DATASET_PATTERNS = ("*.json", *(f"*{suffix}" for suffix in TEXT_SUFFIXES))


@dataclass(frozen=True)
class ValidateSettings:
    paths: tuple[str, ...]  # files or folders
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)  # what a served agent's ${VAR}s and `start` need
    verbosity: Verbosity = Verbosity()  # -q, --log-level


def check_file(path: Path, environ: Mapping[str, str] | None = None) -> str:
    """A one-line description of a valid file; raises AgentevalError for an invalid one."""
    if path.name.endswith(_PROJECT_SUFFIXES):
        if is_agents_cli_config(parse_yaml(path.as_posix(), read_text(path))):  # agents-cli's eval_config.yaml
            return _check_eval_config(path)
        return _check_project(path, environ or {})
    if path.name.endswith(".session.json"):
        return _check_session(path)
    loaded = load_eval_set(path) if path.suffix.lower() in TEXT_SUFFIXES else None  # rows, not JSON
    if loaded is None:
        data = parse_json_or_say_what(path.as_posix(), read_text(path))
        if path.name.endswith("config.json") or looks_like_eval_config(data):
            return _check_eval_config(path)
        loaded = eval_set_from_data(path.as_posix(), data)
    print_warnings(loaded.warnings)
    if find_project_file(path.parent) is None:  # run in adk eval's form; else its project is checked, with its suite's config
        refused, _ = refusals([EvalSetToRun(loaded, load_eval_config(adk_eval_config([path])))])
        if refused:
            raise InputError(refused)
    kind = "legacy test file" if loaded.legacy else "eval set"
    return f"{kind}, {len(loaded.eval_set.eval_cases)} case(s)"


def _check_project(path: Path, environ: Mapping[str, str]) -> str:
    """agenteval.yaml resolved as `run` resolves it, what `run` refuses before it starts the
    agents, and every suite's agent found (not run): a folder, file or module for an agent we
    import; for one served over HTTP, its config."""
    from ..agents import remote_agent_problems
    from ..files.project import load_project

    project = load_project(path)
    eval_sets = [s for suite in project.suites for s in suite.eval_sets]
    refused, cases = refusals(eval_sets)  # every case read and checked, its warnings found
    print_warnings(dict.fromkeys(w for suite in project.suites for w in suite.warnings))
    problems = []
    for i, suite in enumerate(project.suites):
        at = f"$.suites[{i}].agent"
        if suite.agent.served is not None:
            suite_cases = [case for eval_set in suite.eval_sets for case in eval_set.cases()]
            found, warnings = remote_agent_problems(suite.agent.served, suite.base_dir, suite_cases, environ)
            problems += [Problem(project.path, at, problem) for problem in found]
            print_warnings(Problem(project.path, at, warning) for warning in warnings)
            continue
        try:
            problem = suite.agent.problem()
        except (OSError, ValueError) as exc:
            problem = f"cannot look for it: {exc}"
        if problem:
            problems.append(Problem(project.path, at, problem))
    problems += suites_problems(project.suites, project.settings.baseline_target(None), environ, project.path)
    if problems or refused:
        raise InputError([*problems, *refused])
    return f"project, {len(project.suites)} suite(s), {len(eval_sets)} eval set file(s), {cases} case(s)"


def _check_eval_config(path: Path) -> str:
    """The config, and its argument rules against the expected calls of the eval sets that use
    it; outside a project, also what `run` in adk eval's form refuses it for, alone and with each
    of those eval sets (in a project, its suites may add criteria: the project is checked)."""
    config = load_eval_config(path)
    print_warnings(config.warnings)
    users = eval_sets_using(path)
    problems = config_rule_problems(config, (case for s in users for case in s.eval_set.eval_cases))
    if find_project_file(path.parent) is None:
        problems += refusals([EvalSetToRun(user, config) for user in users])[0] if users else config_problems(config)
    if problems:
        raise InputError(problems)
    used_by = f", used by {len(users)} eval set file(s)" if users else ""
    return f"eval config, {len(config.config.criteria)} criteria{used_by}"


def eval_sets_using(config: Path) -> list[LoadedEvalSet]:
    """The eval sets that take this config when run: beside it, or below it for the starter
    pack's eval_config.json (as `run` finds a config for an eval set)."""
    top = config.parent
    candidates = sorted({f for pattern in _EVAL_SET_PATTERNS for f in top.rglob(pattern) if f.is_file()})
    resolved = config.resolve()
    return [load_eval_set(f) for f in candidates if (found := discover_eval_config(f, top)) and found.resolve() == resolved]


def _datasets_in(paths: tuple[str, ...], named: set[Path]) -> list[Path]:
    """Under the folders named: files of the other formats we read (Gemini-platform datasets,
    Vertex rows), which no file name tells apart, found by what they hold."""
    folders = tuple(p for p in paths if Path(p).is_dir())
    candidates = files_in(folders, _DATASET_PATTERNS) if folders else []
    return [f for f in candidates if f not in named and not _installed(f) and holds_a_dataset(f)]


def _installed(path: Path) -> bool:
    """In a hidden folder (.venv, .git) or one of installed packages: not the project's own data."""
    return any(part.startswith(".") and part not in (".", "..") or part in _NOT_OURS for part in path.parts[:-1])


def _check_session(path: Path) -> str:
    """An initial session for legacy files, checked as `convert` reads it."""
    read_session(path)
    return "session"


def _with_governing_projects(files: list[Path]) -> list[tuple[Path, str]]:
    """The files, then each project file above them not named already (with why it is checked)."""
    checked = [(f, "") for f in files]
    seen = {f.resolve() for f in files}
    for path in files:
        if path.name.endswith(_PROJECT_SUFFIXES):
            continue
        project = find_project_file(path.parent)
        if project is not None and project.resolve() not in seen:
            seen.add(project.resolve())
            checked.append((project, f" (the project of {printable(path)})"))
    return checked


@applies_verbosity
def validate(settings: ValidateSettings) -> Done:
    named = files_in(settings.paths, _PATTERNS)
    named += _datasets_in(settings.paths, set(named))
    if not named:
        raise UsageError("no agenteval.yaml, eval sets or configs found in " + ", ".join(settings.paths))
    checked = _with_governing_projects(named)
    invalid = 0
    for path, why in checked:
        shown = printable(path.as_posix())
        try:
            say(f"ok      {shown}{why} ({check_file(path, settings.environ)})")
        except AgentevalError as exc:
            invalid += 1
            print(f"INVALID {shown}{why}\n" + "\n".join(f"  {line}" for line in str(exc).splitlines()))
    print(f"\n{len(checked)} file(s) checked, {invalid} invalid")
    return Done(EXIT_USAGE if invalid else EXIT_PASSED)
