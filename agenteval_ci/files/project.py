"""Loading agenteval.yaml and resolving each suite to its eval set files and eval configs.

Paths in the file are relative to the file's folder, so `agenteval run --config
sub/agenteval.yaml` works from anywhere.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import pydantic

from ..core.metrics import ConfiguredMetric
from ..core.rule_check import expected_args_by_tool, rule_problems
from ..core.selection import pattern_matches
from ..errors import InputError, Problem, UsageError
from ..schema import EvalCase, ToolArgsCriterion
from ..schema.problems import problems_from
from ..schema.project import DEFAULT_BASELINE, AdaptiveRuns, ProjectConfig, SuiteConfig
from ..schema.settings import GateSettings, ModelPrice
from .agent_spec import AgentSpec
from .discovery import discover_eval_config, find_project_file, project_root
from .eval_configs import LoadedEvalConfig, config_rule_problems, judged_by, load_eval_config, read_criteria, read_custom_metrics, with_metrics, with_tool_args
from .eval_sets import BUILTIN_EXPECTED, EvalSetFile, open_eval_set
from .readers import is_utf8, parse_yaml, printable, read_text, regular_or_kind
from .user_metrics import static_problems


@dataclass(frozen=True)
class EvalSetToRun:
    """One eval set file, the cases of it to run (all when None), and the criteria it uses."""

    loaded: EvalSetFile  # a big EvalSet file is read case by case, never held whole
    config: LoadedEvalConfig
    case_ids: tuple[str, ...] | None = None

    def cases(self) -> Iterator[EvalCase]:
        """The selected cases, in file order."""
        return (case for _, case in self.numbered_cases())

    def numbered_cases(self) -> Iterator[tuple[int, EvalCase]]:
        """The selected cases with their place in the file (`loaded.case_at` reads one again)."""
        wanted = None if self.case_ids is None else set(self.case_ids)
        return ((i, c) for i, c in enumerate(self.loaded.cases()) if wanted is None or c.eval_id in wanted)


@dataclass(frozen=True)
class Suite:
    name: str
    agent: AgentSpec  # `agent:`, parsed once
    base_dir: Path  # where relative agent paths and module imports start
    eval_sets: list[EvalSetToRun]
    num_runs: int = 1  # with `adaptive`, the first round's runs per case
    concurrency: int = 8
    turn_timeout_seconds: float = 300.0
    source: str = ""  # where `agent` was given, e.g. "agenteval.yaml at $.suites[0].agent"
    adaptive: AdaptiveRuns | None = None  # `num_runs: auto`
    prices: Mapping[str, ModelPrice] = field(default_factory=dict)  # agenteval.yaml's `prices:`, over the built-in table
    count_builtin_tools: bool = False  # `builtin_tools: count`

    @property
    def warnings(self) -> list[Problem]:
        """Of its eval sets and their configs, each once (eval sets may share a config); an expected
        built-in call is no mistake where the suite counts built-in tools."""
        found = dict.fromkeys(w for s in self.eval_sets for w in (*s.loaded.warnings, *s.config.warnings))
        return [w for w in found if not (self.count_builtin_tools and w.message.startswith(BUILTIN_EXPECTED))]


@dataclass(frozen=True)
class Project:
    path: str
    config: ProjectConfig
    suites: list[Suite]
    warnings: list[Problem] = field(default_factory=list)

    @property
    def settings(self) -> ProjectSettings:
        return ProjectSettings(Path(self.path).parent / self.config.baseline, self.config.gate, self.config.baseline_named)


@dataclass(frozen=True)
class ProjectSettings:
    """What the commands that read results take from agenteval.yaml."""

    baseline: Path  # under the yaml's folder
    gate: GateSettings
    baseline_named: bool  # agenteval.yaml names it: a missing file is an error, not a first run

    def baseline_target(self, given: str | None) -> BaselineTarget:
        """The baseline a command compares with or writes: `--baseline` (or the action's) if
        given, else agenteval.yaml's, else the default."""
        return BaselineTarget(Path(given), True) if given else BaselineTarget(self.baseline, self.baseline_named)


@dataclass(frozen=True)
class BaselineTarget:
    path: Path
    required: bool  # named by a flag or agenteval.yaml: a missing file is an error, not a first run


def project_settings(config: str | Path | None) -> ProjectSettings:
    """Baseline path and gate settings of the project file (given, or the nearest above the
    working folder), or the defaults under the project root: one baseline per project, from
    whichever subfolder a command runs."""
    path = config or find_project_file()
    if path is None:
        return ProjectSettings(project_root() / DEFAULT_BASELINE, GateSettings(), False)
    project = read_project_config(path)
    return ProjectSettings(Path(path).parent / project.baseline, project.gate, project.baseline_named)


def read_project_config(path: str | Path) -> ProjectConfig:
    name = Path(path).as_posix()
    if not Path(path).exists() and not Path(path).is_symlink():
        raise InputError(Problem(name, "$", "file not found (create one with `agenteval init`, see docs/config.md)"))
    return validated_config(name, parse_yaml(name, read_text(path)), Path(path).parent)


def validated_config(name: str, data: object, base_dir: Path) -> ProjectConfig:
    """Parsed agenteval.yaml as a config whose baseline path can be used."""
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", "expected a mapping with `suites:` (see docs/config.md)"))
    try:
        config = ProjectConfig.model_validate(data)
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, ProjectConfig)) from None
    _check_baseline_path(name, base_dir / config.baseline)
    return config


def _check_baseline_path(file: str, baseline: Path) -> None:
    """The baseline may be missing (a first run), but nothing else may stand where it goes."""
    kind = regular_or_kind(baseline)
    if kind:
        raise InputError(Problem(file, "$.baseline", f"{baseline.as_posix()}: {kind}; name the baseline's JSON file"))


def load_project(path: str | Path, only_suites: list[str] | None = None) -> Project:
    return resolve_project(Path(path).as_posix(), read_project_config(path), Path(path).parent, only_suites)


def resolve_project(name: str, config: ProjectConfig, base_dir: Path, only_suites: list[str] | None = None) -> Project:
    """Each suite's eval sets and configs, read and checked: what `run` would reject, raised here."""
    known = [s.name for s in config.suites]
    unknown = [s for s in only_suites or [] if s not in known]
    if unknown:
        raise InputError(Problem(name, "$.suites", f"no suite named {', '.join(unknown)}; suites are: {', '.join(known)}"))
    suites = []
    for i, suite in enumerate(config.suites):
        if only_suites and suite.name not in only_suites:
            continue
        resolved = _resolve_suite(name, f"$.suites[{i}]", suite, base_dir)
        suites.append(replace(with_judge_model(resolved, config.judge.model), prices=config.prices))
    warnings = list(dict.fromkeys(w for s in suites for w in s.warnings))
    return Project(name, config, suites, warnings)


def with_judge_model(suite: Suite, model: str | None) -> Suite:
    """agenteval.yaml's `judge.model` over every judged criterion's judge_model (None: as they are)."""
    if model is None:
        return suite
    eval_sets = [EvalSetToRun(s.loaded, judged_by(s.config, model), s.case_ids) for s in suite.eval_sets]
    return replace(suite, eval_sets=eval_sets)


def _resolve_suite(file: str, at: str, suite: SuiteConfig, base_dir: Path) -> Suite:
    shared_config = None
    if suite.eval_config:
        shared_config = load_eval_config(_existing(file, f"{at}.eval_config", base_dir / suite.eval_config))
    eval_sets = []
    configs: dict[Path | None, LoadedEvalConfig] = {}  # test_config.json beside several eval sets: read once
    for j, pattern in enumerate(suite.eval_sets):
        matches = eval_set_files(file, f"{at}.eval_sets[{j}]", base_dir, pattern)
        if not matches:
            raise InputError(Problem(file, f"{at}.eval_sets[{j}]", f"{pattern!r} matches no file under {base_dir.as_posix() or '.'}"))
        for match in matches:
            config = shared_config or _config_beside(match, base_dir, configs)
            eval_sets.append(EvalSetToRun(open_eval_set(match), config))
    eval_sets = _with_suite_options(file, at, suite, eval_sets)
    return Suite(
        name=suite.name,
        agent=AgentSpec.parse(suite.agent, base_dir),
        base_dir=base_dir,
        eval_sets=eval_sets,
        num_runs=suite.adaptive.min_runs if suite.num_runs == "auto" else suite.num_runs,
        adaptive=suite.adaptive if suite.num_runs == "auto" else None,
        concurrency=suite.concurrency,
        turn_timeout_seconds=suite.turn_timeout_seconds,
        source=f"{file} at {at}.agent",
        count_builtin_tools=suite.builtin_tools == "count",
    )


def _with_suite_options(file: str, at: str, suite: SuiteConfig, eval_sets: list[EvalSetToRun]) -> list[EvalSetToRun]:
    """The suite's own criteria and argument rules on top of each eval set's config, every
    argument rule checked against the expected calls it applies to."""
    problems: list[Problem] = []
    warnings: list[Problem] = []
    user_metrics = read_custom_metrics(suite.custom_metrics, Path(file).parent)
    extra: list[ConfiguredMetric] = read_criteria(file, f"{at}.criteria", suite.criteria, problems, warnings, user_metrics)
    problems.extend(Problem(file, f"{at}.custom_metrics.{name}.{where}", message)
                    for name in suite.criteria if name in suite.custom_metrics
                    for where, message in static_problems(suite.custom_metrics[name], Path(file).parent))
    problems.extend(warnings)  # our own file: a key no metric reads is a mistake, not a google-adk quirk
    if suite.tool_args or extra:
        expected = expected_args_by_tool(case for s in eval_sets for case in s.cases())
        problems.extend(rule_problems(file, f"{at}.tool_args", suite.tool_args, expected))
        for metric in extra:
            rules = metric.criterion.tool_args if isinstance(metric.criterion, ToolArgsCriterion) else {}
            problems.extend(rule_problems(file, f"{at}.criteria.{metric.name}.tool_args", rules, expected))
    by_config: dict[int, list[EvalSetToRun]] = {}
    for s in eval_sets:
        by_config.setdefault(id(s.config), []).append(s)
    for group in by_config.values():
        problems.extend(config_rule_problems(group[0].config, (case for s in group for case in s.cases())))
    resolved = [
        EvalSetToRun(s.loaded, with_tool_args(with_metrics(s.config, extra), suite.tool_args), s.case_ids)
        for s in eval_sets
    ]
    if suite.tool_args and not any(isinstance(m.criterion, ToolArgsCriterion) for s in resolved for m in s.config.metrics):
        problems.append(Problem(file, f"{at}.tool_args", "no metric of this suite reads these rules; add "
                                "tool_trajectory_alignment_score or tool_argument_match_score under `criteria`"))
    if problems:
        raise InputError(list(dict.fromkeys(problems)))
    return resolved


MAX_GLOB_MATCHES = 100_000


def eval_set_files(file: str, at: str, base_dir: Path, pattern: str) -> list[str]:
    """Regular files matching the glob, sorted, each once. As glob.glob: `*` skips dot files;
    unlike it, `**` does not descend into symlinked folders (a link to `.` would loop)."""
    if not pattern.strip():
        raise InputError(Problem(file, at, "an empty glob; name eval set files like evals/**/*.evalset.json"))
    full = Path(pattern) if Path(pattern).is_absolute() else base_dir / pattern
    anchor = Path(full.anchor) if full.is_absolute() else Path()
    relative = full.relative_to(anchor) if full.is_absolute() else full
    if not relative.parts:  # `/`, `.`: pathlib cannot glob for a folder itself
        raise InputError(Problem(file, at, f"{pattern!r} names a folder; name eval set files like evals/**/*.evalset.json"))
    hidden_ok = any(part.startswith(".") and part not in (".", "..") for part in Path(pattern).parts)
    fixed = next((i for i, part in enumerate(full.parts) if glob.has_magic(part)), len(full.parts))
    found: dict[Path, str] = {}
    try:
        for match in anchor.glob(relative.as_posix()):
            if not hidden_ok and any(p.startswith(".") and p not in (".", "..") for p in match.parts[fixed:]):
                continue
            if match.is_file():
                found.setdefault(match.resolve(), _utf8_name(file, at, str(match)))
            if len(found) > MAX_GLOB_MATCHES:
                raise InputError(Problem(file, at, f"{pattern!r} matches more than {MAX_GLOB_MATCHES:,} files"))
        below = len(full.parts) - fixed - 1  # folder levels the glob lists under its fixed part
        unreadable = _unreadable_folder(Path(*full.parts[:fixed]), None if "**" in full.parts else below, hidden_ok)
    except (OSError, ValueError, IndexError, NotImplementedError) as exc:
        raise InputError(Problem(file, at, f"cannot expand the glob {pattern!r}: {exc}")) from None
    if unreadable:  # pathlib's glob passes it by in silence: its eval sets would drop out of the gate
        raise InputError(Problem(file, at, f"cannot list the folder {unreadable.as_posix()} (permission denied), which {pattern!r} searches"))
    return sorted(found.values())


def _utf8_name(file: str, at: str, path: str) -> str:
    """A path we can show and record: bytes that are not UTF-8 arrive as lone surrogates."""
    if not is_utf8(path):
        raise InputError(Problem(file, at, f"{printable(path)}: the file name is not valid UTF-8; rename it"))
    return path


def _unreadable_folder(top: Path, depth: int | None, hidden_ok: bool) -> Path | None:
    """The first folder a glob from `top` has to list (down to `depth` levels; None: all) but may not."""
    if top.is_dir() and not os.access(top, os.R_OK | os.X_OK):
        return top
    for folder, dirs, _ in os.walk(top):  # symlinked folders are not entered, as our `**` does not
        level = len(Path(folder).relative_to(top).parts)
        dirs[:] = [d for d in dirs if hidden_ok or not d.startswith(".")] if depth is None or level < depth else []
        denied = next((d for d in dirs if not os.access(os.path.join(folder, d), os.R_OK | os.X_OK)), None)
        if denied:
            return Path(folder, denied)
    return None


def _config_beside(eval_set: str, base_dir: Path, loaded: dict[Path | None, LoadedEvalConfig]) -> LoadedEvalConfig:
    """test_config.json or eval_config.json beside the file, else eval_config.json above it
    within the project (see discover_eval_config), else ADK's defaults; each read once."""
    found = discover_eval_config(eval_set, base_dir)
    if found not in loaded:
        loaded[found] = load_eval_config(found)
    return loaded[found]


def _existing(file: str, at: str, path: Path) -> Path:
    kind = regular_or_kind(path)
    if kind or not os.path.exists(path):
        raise InputError(Problem(file, at, f"{path.as_posix()}: {kind or 'no such file'}"))
    return path


def select_cases(suites: list[Suite], patterns: list[str]) -> list[Suite]:
    """The suites kept to the cases `-k/--case` matches (suites left with none are dropped).
    A pattern that matches no case is an error: a typo must not pass as an empty, green run."""
    kept, matched = [], set()
    for suite in suites:
        eval_sets = []
        for eval_set in suite.eval_sets:
            set_id = eval_set.loaded.eval_set_id
            ids = []
            for case in eval_set.cases():
                hits = {p for p in patterns if pattern_matches(p, suite.name, set_id, case.eval_id)}
                matched |= hits
                if hits:
                    ids.append(case.eval_id)
            if ids:
                eval_sets.append(replace(eval_set, case_ids=tuple(ids)))
        if eval_sets:
            kept.append(replace(suite, eval_sets=eval_sets))
    unmatched = [p for p in patterns if p not in matched]
    if unmatched:
        total = sum(1 for suite in suites for s in suite.eval_sets for _ in s.cases())
        raise UsageError(
            f"-k/--case {', '.join(map(repr, unmatched))} matches none of the {total} case(s) "
            "(a substring or glob of eval_id, eval_set_id/eval_id or suite/eval_set_id/eval_id)"
        )
    return kept
