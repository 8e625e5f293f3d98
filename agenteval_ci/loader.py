"""Reading eval sets and eval configs from disk, as google-adk 2.13 does, with clear errors.

Every problem names the file and the JSON path. Where ADK silently ignores something
(an unknown key on a criterion, an unknown top-level key) we return a warning.
"""

from __future__ import annotations

import hashlib
import json
import types
import typing
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import pydantic
from pydantic import BaseModel
from pydantic.alias_generators import to_snake

from .errors import InputError, Problem
from .fingerprint import metric_fingerprint
from .metrics import REGISTRY, MetricSpec
from .readers import may_hold_lone_surrogate, parse_json, read_json, read_text  # noqa: F401 - re-exported
from .rule_check import expected_args_by_tool, rule_problems
from .schema import DEFAULT_EVAL_CONFIG, BaseCriterion, EvalConfig, EvalSet, Invocation, ToolArgsCriterion
from .schema.arg_rules import ToolArgs
from .schema.content import Content, FunctionCall, Part
from .schema.eval_set import ConversationScenarios, EvalCase, IntermediateData, SessionInput
from .simulation import missing_placeholders, resolve_persona

CONFIG_FILE_NAME = "test_config.json"


@dataclass(frozen=True)
class LoadedEvalSet:
    path: str
    eval_set: EvalSet
    legacy: bool = False  # a raw list of queries (old `.test.json` format)
    warnings: list[Problem] = field(default_factory=list)


@dataclass(frozen=True)
class ConfiguredMetric:
    """A metric as configured: its spec, its typed criterion and threshold."""

    spec: MetricSpec
    criterion: BaseCriterion
    fingerprint: str

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def threshold(self) -> float | None:
        return None if self.spec.informational else self.criterion.threshold


@dataclass(frozen=True)
class LoadedEvalConfig:
    path: str | None  # None: ADK's defaults
    config: EvalConfig
    metrics: list[ConfiguredMetric]
    warnings: list[Problem] = field(default_factory=list)


# ---------------------------------------------------------------- JSON and pydantic errors


# pydantic puts the name of the union branch it tried into `loc`; it is not a key in the file.
_UNION_BRANCHES = {"intermediate_data": {"data", "events"}, "user_persona": {"UserPersona", "str"}, "agent": {"name", "remote"}}


def json_path(loc: tuple[Any, ...], prefix: str = "$") -> str:
    out = prefix
    for i, key in enumerate(loc):
        if isinstance(key, int):
            out += f"[{key}]"
        elif i > 0 and key in _UNION_BRANCHES.get(str(loc[i - 1]), ()):
            continue
        else:
            out += f".{key}"
    return out


def _unwrap(annotation: Any) -> list[Any]:
    """The model classes an annotation may hold (through Optional, list, dict, Annotated)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType, list, tuple, dict):
        return [m for arg in typing.get_args(annotation) for m in _unwrap(arg)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return []


def _model_at(root: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model that owns the last key of `loc`, to list what was expected there."""
    current: type[BaseModel] | None = root
    for key in loc[:-1]:
        if current is None or not isinstance(key, str):
            continue
        if key not in current.model_fields:
            continue  # a union label or a dict key
        candidates = _unwrap(current.model_fields[key].annotation)
        if not candidates:
            return None
        # With a union of models, the error path continues through the one that was chosen.
        current = candidates[0] if len(candidates) == 1 else _pick(candidates, loc)
    return current


def _pick(candidates: list[type[BaseModel]], loc: tuple[Any, ...]) -> type[BaseModel]:
    labels = {"data": "IntermediateData", "events": "InvocationEvents"}
    for key in loc:
        name = labels.get(key, key)
        for c in candidates:
            if c.__name__ == name:
                return c
    return candidates[0]


def problems_from(exc: pydantic.ValidationError, file: str, root: type[BaseModel], prefix: str = "$") -> list[Problem]:
    problems = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        where = json_path(loc, prefix)
        if err["type"] == "extra_forbidden":
            owner = _model_at(root, loc)
            expected = ", ".join(owner.model_fields) if owner else "the documented keys"
            name = owner.__name__ if owner else "this object"
            message = f"unknown key {loc[-1]!r} in {name}; expected one of: {expected}"
        elif err["type"] == "missing":
            message = f"required key {loc[-1]!r} is missing"
        elif err["type"] == "value_error":  # our own validators already say what was expected
            message = err["msg"].removeprefix("Value error, ")
        else:
            got = err.get("input")
            shown = json.dumps(got)[:80] if isinstance(got, (str, int, float, bool, type(None))) else type(got).__name__
            message = f"{err['msg']} (got {shown})"
        problems.append(Problem(file, where, message))
    return problems


# ---------------------------------------------------------------- eval sets


def load_eval_set(path: str | Path) -> LoadedEvalSet:
    """An EvalSet file, or a legacy raw list of queries (one case per file, as ADK)."""
    name, text = Path(path).as_posix(), read_text(path)
    eval_set = valid_eval_set_json(text)
    if eval_set is not None:
        return LoadedEvalSet(name, eval_set, warnings=_eval_set_warnings(name, eval_set))
    return eval_set_from_data(name, parse_json(name, text))


def valid_eval_set_json(text: str) -> EvalSet | None:
    """Most files are valid EvalSets, and pydantic reads those straight from the text, a
    third faster than json.loads and then validating. Anything else (another of ADK's
    formats, or a mistake) is None and takes the path that tells them apart and says
    what is wrong where."""
    if not text.lstrip().startswith("{") or may_hold_lone_surrogate(text):
        return None  # a lone surrogate: the slow path says where
    try:
        return EvalSet.model_validate_json(text)
    except (ValueError, RecursionError):  # pydantic.ValidationError, or JSON pydantic will not read
        return None


def eval_set_from_data(name: str, data: Any) -> LoadedEvalSet:
    """Parsed JSON as an eval set, in whichever of ADK's formats it is."""
    if isinstance(data, list) and data and all(isinstance(row, dict) and "data" in row for row in data):
        return _load_old_eval_set(name, data)
    if isinstance(data, list):
        return _load_legacy(name, data)
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", f"expected an EvalSet object or a list of queries, got {type(data).__name__}"))
    if "scenarios" in data and "eval_cases" not in data:
        return _load_scenarios_file(name, data)
    try:
        eval_set = EvalSet.model_validate(data)
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, EvalSet)) from None
    return LoadedEvalSet(name, eval_set, warnings=_eval_set_warnings(name, eval_set))


def _eval_set_warnings(name: str, eval_set: EvalSet) -> list[Problem]:
    warnings = [Problem(name, f"$.{key}", "unknown key; google-adk ignores it") for key in eval_set.model_extra or {}]
    for i, case in enumerate(eval_set.eval_cases):
        for key in case.model_extra or {}:
            warnings.append(Problem(name, f"$.eval_cases[{i}].{key}", "unknown key on an eval case; google-adk ignores it"))
    seen: set[str] = set()
    for i, case in enumerate(eval_set.eval_cases):
        if case.eval_id in seen:
            warnings.append(Problem(name, f"$.eval_cases[{i}].eval_id", f"duplicate eval_id {case.eval_id!r}"))
        seen.add(case.eval_id)
    return warnings


def _load_scenarios_file(name: str, data: dict[str, Any]) -> LoadedEvalSet:
    """ADK's ConversationScenarios file (`adk eval_set add_eval_case --scenarios_file`): one
    scenario case per entry, named as ADK names it (first 8 hex digits of the SHA-256 of the
    scenario's JSON, keys sorted; a pre-built persona is hashed in our wording of it)."""
    try:
        scenarios = ConversationScenarios.model_validate(data).scenarios
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, ConversationScenarios)) from None
    cases = []
    for scenario in scenarios:
        dumped = scenario.model_copy(update={"user_persona": resolve_persona(scenario.user_persona)}).model_dump()
        eval_id = hashlib.sha256(json.dumps(dumped, sort_keys=True).encode("utf-8")).hexdigest()[:8]
        cases.append(EvalCase(eval_id=eval_id, conversation_scenario=scenario))
    eval_set = EvalSet(eval_set_id=name, name=name, eval_cases=cases)
    return LoadedEvalSet(name, eval_set, warnings=_eval_set_warnings(name, eval_set))


_LEGACY_KEYS = {"query", "expected_tool_use", "reference", "expected_intermediate_agent_responses"}


_OLD_CASE_KEYS = {"name", "data", "initial_session"}


def _load_old_eval_set(name: str, entries: list[dict[str, Any]]) -> LoadedEvalSet:
    """`adk eval`'s older eval set format: a list of {name, data: [queries], initial_session}."""
    problems: list[Problem] = []
    warnings: list[Problem] = []
    cases = []
    for i, entry in enumerate(entries):
        warnings += [
            Problem(name, f"$[{i}].{key}", "unknown key in an eval case of the old format; google-adk ignores it")
            for key in entry
            if key not in _OLD_CASE_KEYS
        ]
        if not isinstance(entry.get("name"), str) or not isinstance(entry.get("data"), list):
            problems.append(Problem(name, f"$[{i}]", "an old-format eval case needs `name` (a string) and `data` (a list of queries)"))
            continue
        invocations = _legacy_invocations(name, entry["data"], f"$[{i}].data", problems, warnings)
        try:
            session_input = session_from(name, f"$[{i}].initial_session", entry.get("initial_session"))
        except InputError as exc:
            problems += exc.problems
            continue
        cases.append(EvalCase(eval_id=entry["name"], conversation=invocations, session_input=session_input))
    if problems:
        raise InputError(problems)
    return LoadedEvalSet(name, EvalSet(eval_set_id=name, name=name, eval_cases=cases), legacy=True, warnings=warnings)


def session_from(file: str, at: str, data: Any) -> SessionInput | None:
    """An ADK session (`app_name`, `user_id`, `state`) as a case's session_input, read as
    AgentEvaluator reads its initial session: missing names are empty; nothing (null, `{}`)
    is no session; anything else that is not such an object is a problem at `at`."""
    if data is None or data == {}:
        return None
    if not isinstance(data, dict):
        raise InputError(Problem(file, at, f"a session must be an object with app_name, user_id and state, got {json.dumps(data)[:40]}"))
    problems = [Problem(file, f"{at}.{key}", "must be a string") for key in ("app_name", "user_id") if not isinstance(data.get(key, ""), str)]
    if not isinstance(data.get("state", {}), dict):
        problems.append(Problem(file, f"{at}.state", "must be an object"))
    if problems:
        raise InputError(problems)
    return SessionInput(app_name=data.get("app_name", ""), user_id=data.get("user_id", ""), state=data.get("state", {}))


def _load_legacy(name: str, rows: list[Any]) -> LoadedEvalSet:
    problems: list[Problem] = []
    warnings: list[Problem] = []
    invocations = _legacy_invocations(name, rows, "$", problems, warnings)
    if problems:
        raise InputError(problems)
    case = EvalCase(eval_id=name, conversation=invocations)
    # ADK gives a legacy file a random eval_set_id; a stable one keeps baselines comparable.
    return LoadedEvalSet(name, EvalSet(eval_set_id=name, name=name, eval_cases=[case]), legacy=True, warnings=warnings)


def _legacy_invocations(
    name: str, rows: list[Any], prefix: str, problems: list[Problem], warnings: list[Problem]
) -> list[Invocation]:
    invocations: list[Invocation] = []
    for i, row in enumerate(rows):
        at = f"{prefix}[{i}]"
        if not isinstance(row, dict):
            problems.append(Problem(name, at, f"each entry of a legacy test file must be an object, got {type(row).__name__}"))
            continue
        warnings += [
            Problem(name, f"{at}.{key}", "unknown key in a legacy query; google-adk ignores it")
            for key in row
            if key not in _LEGACY_KEYS
        ]
        try:
            invocations.append(_legacy_invocation(row))
        except (KeyError, TypeError, ValueError, pydantic.ValidationError) as exc:
            problems.append(Problem(name, at, _legacy_problem(exc)))
    return invocations


def _legacy_problem(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"required key {exc.args[0]!r} is missing (legacy queries have query, expected_tool_use [tool_name, tool_input], reference)"
    return f"not a valid legacy query: {exc}"


def _legacy_invocation(row: dict[str, Any]) -> Invocation:
    tool_uses = [FunctionCall(name=t["tool_name"], args=t["tool_input"]) for t in row.get("expected_tool_use", [])]
    responses = [
        (r["author"], [Part(text=r["text"])]) for r in row.get("expected_intermediate_agent_responses", [])
    ]
    if not isinstance(row["query"], str):
        raise ValueError("`query` must be a string")
    return Invocation(
        invocation_id=str(uuid.uuid4()),
        user_content=Content.from_text(row["query"], "user"),
        final_response=Content.from_text(row.get("reference", ""), "model"),
        intermediate_data=IntermediateData(tool_uses=tool_uses, intermediate_responses=responses),
    )


# ---------------------------------------------------------------- eval configs


def find_eval_config(eval_set_path: str | Path) -> Path | None:
    """ADK's discovery: test_config.json in the eval set file's folder."""
    candidate = Path(eval_set_path).parent / CONFIG_FILE_NAME
    return candidate if candidate.is_file() else None


def load_eval_config(path: str | Path | None) -> LoadedEvalConfig:
    """A config file, or ADK's defaults when `path` is None."""
    if path is None:
        return _resolve(None, DEFAULT_EVAL_CONFIG, dict(DEFAULT_EVAL_CONFIG.criteria))
    name = Path(path).as_posix()
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", f"an eval config must be an object with `criteria`, got {type(data).__name__}"))
    raw_criteria = data.get("criteria", {}) if isinstance(data.get("criteria", {}), dict) else None
    if raw_criteria is None:
        raise InputError(Problem(name, "$.criteria", "must be an object mapping metric names to a threshold or a criterion"))
    rest = {k: v for k, v in data.items() if k != "criteria"}
    try:
        config = EvalConfig.model_validate(rest)
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, EvalConfig)) from None
    _check_custom_instructions(name, config)
    return _resolve(name, config, raw_criteria, data)


def _check_custom_instructions(name: str, config: EvalConfig) -> None:
    custom = config.user_simulator_config.custom_instructions if config.user_simulator_config else None
    missing = missing_placeholders(custom) if custom is not None else []
    if missing:
        raise InputError(
            Problem(
                name,
                "$.user_simulator_config.custom_instructions",
                "must be a jinja template using {{ stop_signal }}, {{ conversation_plan }} and {{ conversation_history }} "
                f"(and {{{{ persona }}}} for scenarios with a persona); missing: {', '.join(missing)}",
            )
        )


def _resolve(name: str | None, config: EvalConfig, raw_criteria: dict[str, Any], data: dict[str, Any] | None = None) -> LoadedEvalConfig:
    """Read each criterion as its metric's criterion type, as ADK's evaluators do."""
    file = name or "<default eval config>"
    problems: list[Problem] = []
    warnings: list[Problem] = []
    for key in data or {}:
        if key not in EvalConfig.model_fields and to_snake(key) not in EvalConfig.model_fields:
            warnings.append(Problem(file, f"$.{key}", "unknown key; google-adk ignores it"))
    metrics = read_criteria(file, "$.criteria", raw_criteria, problems, warnings)
    if problems:
        raise InputError(problems)
    criteria: dict[str, float | BaseCriterion] = {m.name: m.criterion for m in metrics}
    named = {m.name for m in metrics}
    for spec in REGISTRY.values():
        if spec.informational and spec.name not in named:
            criterion = spec.criterion_type(threshold=0.0)
            metrics.append(ConfiguredMetric(spec, criterion, metric_fingerprint(spec.name, criterion)))
    return LoadedEvalConfig(name, config.model_copy(update={"criteria": criteria}), metrics, warnings)


def read_criteria(
    file: str, at: str, raw_criteria: dict[str, Any], problems: list[Problem], warnings: list[Problem]
) -> list[ConfiguredMetric]:
    """Each `metric name: threshold or criterion` of a criteria mapping found in `file` at `at`."""
    metrics = []
    for metric_name, raw in raw_criteria.items():
        spec = REGISTRY.get(metric_name)
        if spec is None:
            problems.append(Problem(file, f"{at}.{metric_name}", f"unknown metric {metric_name!r}; known metrics: {', '.join(REGISTRY)}"))
            continue
        criterion = _read_criterion(file, f"{at}.{metric_name}", spec, raw, problems, warnings)
        if criterion is not None:
            metrics.append(ConfiguredMetric(spec, criterion, metric_fingerprint(metric_name, criterion)))
    return metrics


def with_metrics(config: LoadedEvalConfig, extra: list[ConfiguredMetric]) -> LoadedEvalConfig:
    """`config` with `extra` metrics: one of the same name replaces the config's in its place."""
    replacing = {m.name: m for m in extra}
    metrics = [replacing.pop(m.name, m) for m in config.metrics] + list(replacing.values())
    criteria = {**config.config.criteria, **{m.name: m.criterion for m in extra}}
    return LoadedEvalConfig(config.path, config.config.model_copy(update={"criteria": criteria}), metrics, config.warnings)


def with_tool_args(config: LoadedEvalConfig, tool_args: ToolArgs) -> LoadedEvalConfig:
    """Rules given for a whole suite under each rule-reading metric's own (its own win, tool by tool)."""
    merged = []
    for metric in config.metrics:
        if isinstance(metric.criterion, ToolArgsCriterion) and tool_args:
            criterion = metric.criterion.model_copy(update={"tool_args": {**tool_args, **metric.criterion.tool_args}})
            merged.append(ConfiguredMetric(metric.spec, criterion, metric_fingerprint(metric.name, criterion)))
    return with_metrics(config, merged) if merged else config


def config_rule_problems(config: LoadedEvalConfig, cases: Iterable[EvalCase]) -> list[Problem]:
    """The argument rules a config's own criteria give, checked against the cases' expected calls."""
    ruled = [m for m in config.metrics if isinstance(m.criterion, ToolArgsCriterion) and m.criterion.tool_args]
    if not ruled:
        return []
    expected = expected_args_by_tool(cases)
    file = config.path or "<default eval config>"
    return [
        problem
        for m in ruled
        for problem in rule_problems(file, f"$.criteria.{m.name}.tool_args", m.criterion.tool_args, expected)  # type: ignore[attr-defined]
    ]


def _read_criterion(
    file: str, at: str, spec: MetricSpec, raw: Any, problems: list[Problem], warnings: list[Problem]
) -> BaseCriterion | None:
    if isinstance(raw, bool) or not isinstance(raw, (int, float, dict)):
        problems.append(Problem(file, at, f"expected a threshold number or a criterion object, got {json.dumps(raw)[:60]}"))
        return None
    if spec.informational:
        problems.append(Problem(file, at, f"{spec.name} is informational (reported for every eval); it takes no threshold"))
        return None
    if not isinstance(raw, dict):
        raw = {"threshold": float(raw)}
    try:
        criterion = spec.criterion_type.model_validate(raw)
    except pydantic.ValidationError as exc:
        problems.extend(problems_from(exc, file, spec.criterion_type, prefix=at))
        return None
    if isinstance(criterion, ToolArgsCriterion) and criterion.model_extra:
        # Our own metric: google-adk never reads it, so an unknown key is a typo, not an ADK quirk.
        known = ", ".join(ToolArgsCriterion.model_fields)
        problems.extend(Problem(file, f"{at}.{key}", f"unknown key {key!r}; {spec.name} reads: {known}") for key in criterion.model_extra)
        return None
    for key in criterion.model_extra or {}:
        hint = ""
        if key in ("judge_model", "judgeModel", "num_samples", "numSamples"):
            hint = f"; it belongs under judge_model_options (`{at}.judge_model_options.{to_snake(key)}`)"
        if key in ("tool_args", "toolArgs"):
            hint = "; argument rules apply to tool_trajectory_alignment_score and tool_argument_match_score (docs/metrics.md)"
        warnings.append(Problem(file, f"{at}.{key}", f"{spec.name} does not read this key; google-adk ignores it{hint}"))
    return criterion
