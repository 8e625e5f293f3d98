"""Eval configs as google-adk 2.13 reads them, with clear errors: each criterion read as its
metric's criterion type, ADK's defaults when there is no file, the suite's own criteria and
argument rules on top, and which config an eval set uses (discovery.py finds it).

Every problem names the file and the JSON path. Where ADK silently ignores something (an
unknown key on a criterion, an unknown top-level key) we return a warning.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import pydantic
from pydantic.alias_generators import to_snake

from ..core.fingerprint import metric_fingerprint
from ..core.metrics import REGISTRY, ConfiguredMetric, MetricSpec
from ..core.rule_check import expected_args_by_tool, rule_problems
from ..core.simulation import missing_placeholders
from ..errors import InputError, Problem
from ..schema import DEFAULT_EVAL_CONFIG, BaseCriterion, EvalConfig, SessionStateCriterion, ToolArgsCriterion
from ..schema.arg_rules import ToolArgs
from ..schema.eval_config import CustomMetricConfig, ManagedCriterion
from ..schema.eval_set import EvalCase
from ..schema.problems import problems_from
from .agents_cli_config import criteria_of, is_agents_cli_config
from .readers import parse_yaml, read_json, read_text

DEFAULT_CONFIG_NAME = "<default eval config>"  # how a problem names ADK's defaults, read from no file


@dataclass(frozen=True)
class LoadedEvalConfig:
    path: str | None  # None: ADK's defaults
    config: EvalConfig
    metrics: list[ConfiguredMetric]
    warnings: list[Problem] = field(default_factory=list)



def load_eval_config(path: str | Path | None) -> LoadedEvalConfig:
    """A config file (ADK's, or agents-cli's `eval_config.yaml`: agents_cli_config.py), or
    ADK's defaults when `path` is None."""
    if path is None:
        return _resolve(None, DEFAULT_EVAL_CONFIG, dict(DEFAULT_EVAL_CONFIG.criteria))
    name = Path(path).as_posix()
    data = parse_yaml(name, read_text(path)) if Path(path).suffix.lower() in (".yaml", ".yml") else read_json(path)
    if is_agents_cli_config(data):
        return _agents_cli_config(name, data)
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


def _agents_cli_config(name: str, data: dict[str, Any]) -> LoadedEvalConfig:
    """agents-cli's eval_config.yaml: `metrics_to_run`, its own metrics from `custom_metrics`."""
    entries = data.get("custom_metrics") or []
    own, problems = read_agents_cli_metrics(name, "$.custom_metrics", entries if isinstance(entries, list) else [], Path(name).parent)
    if problems:
        raise InputError(problems)
    return _resolve(name, EvalConfig(), criteria_of(name, data, own), own=own)


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


def _resolve(name: str | None, config: EvalConfig, raw_criteria: dict[str, Any], data: dict[str, Any] | None = None,
             own: dict[str, MetricSpec] | None = None) -> LoadedEvalConfig:
    """Read each criterion as its metric's criterion type, as ADK's evaluators do."""
    file = name or "<default eval config>"
    problems: list[Problem] = []
    warnings: list[Problem] = []
    for key in data or {}:
        if key not in EvalConfig.model_fields and to_snake(key) not in EvalConfig.model_fields:
            warnings.append(Problem(file, f"$.{key}", "unknown key; google-adk ignores it"))
    warnings.extend(_unread_metric_keys(file, (data or {}).get("custom_metrics", (data or {}).get("customMetrics"))))
    base_dir = Path(name).parent if name else Path.cwd()
    own = own if own is not None else read_custom_metrics(config.custom_metrics, base_dir)
    metrics = read_criteria(file, "$.criteria", raw_criteria, problems, warnings, own)
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
    file: str,
    at: str,
    raw_criteria: dict[str, Any],
    problems: list[Problem],
    warnings: list[Problem],
    custom_metrics: dict[str, MetricSpec] | None = None,
) -> list[ConfiguredMetric]:
    """Each `metric name: threshold or criterion` of a criteria mapping found in `file` at `at`;
    `custom_metrics` are the user's metrics the file declares (read_custom_metrics): a declared
    one is scored by the user's code, as ADK does, even where its name is also a built-in's."""
    metrics = []
    for metric_name, raw in raw_criteria.items():
        spec = (custom_metrics or {}).get(metric_name) or REGISTRY.get(metric_name)
        if spec is None:
            problems.append(Problem(file, f"{at}.{metric_name}", f"unknown metric {metric_name!r}; known metrics: "
                                    f"{', '.join(REGISTRY)}, or declare it under custom_metrics (docs/metrics.md)"))
            continue
        criterion = _read_criterion(file, f"{at}.{metric_name}", spec, raw, problems, warnings)
        if criterion is not None:
            metrics.append(ConfiguredMetric(spec, criterion, metric_fingerprint(metric_name, criterion)))
    return metrics


def _unread_metric_keys(file: str, declared: Any) -> list[Problem]:
    """A key of a custom metric that no form reads (`timeout_second`): ignored, as google-adk
    ignores it, but said, since a misspelt timeout or interval would silently fall back."""
    known = set(CustomMetricConfig.model_fields)
    return [
        Problem(file, f"$.custom_metrics.{name}.{key}", f"unknown key; custom metrics read: {', '.join(sorted(known))}")
        for name, entry in (declared.items() if isinstance(declared, dict) else [])
        if isinstance(entry, dict)
        for key in entry
        if key not in known and to_snake(key) not in known
    ]


def read_custom_metrics(declared: dict[str, CustomMetricConfig] | None, base_dir: Path) -> dict[str, MetricSpec]:
    """A file's `custom_metrics` (already parsed into CustomMetricConfig) as registry rows, paths
    relative to `base_dir`. Nothing is imported or run here: each runs on first use. Other
    readers of metric declarations (agents-cli's eval_config.yaml) call this too."""
    if not declared:
        return {}
    from .user_metrics import own_metric_spec  # loaded only for a config that declares one: score's import time

    return {name: own_metric_spec(name, config, base_dir) for name, config in declared.items()}


def read_agents_cli_metrics(file: str, at: str, entries: list[Any], base_dir: Path) -> tuple[dict[str, MetricSpec], list[Problem]]:
    """agents-cli's eval_config.yaml `custom_metrics` (a list of `{name: ..., custom_function |
    custom_function_file | prompt_template | remote_custom_function}`) as registry rows, and the
    problems of the entries that cannot run here. An entry with none of those keys tunes the
    built-in metric it names, and is left to the caller (agents_cli_config.py)."""
    metrics: dict[str, MetricSpec] = {}
    problems: list[Problem] = []
    for index, entry in enumerate(entries):
        where = f"{at}[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            problems.append(Problem(file, where, "each custom metric is an object with a `name`"))
            continue
        body = {key: value for key, value in entry.items() if key != "name"}
        if not {"custom_function", "custom_function_file", "remote_custom_function", "prompt_template"} & set(body):
            continue
        try:
            config = CustomMetricConfig.model_validate(body)
        except pydantic.ValidationError as exc:
            problems.extend(problems_from(exc, file, CustomMetricConfig, prefix=where))
            continue
        metrics.update(read_custom_metrics({entry["name"]: config}, base_dir))
    return metrics, problems


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


def judged_by(config: LoadedEvalConfig, model: str) -> LoadedEvalConfig:
    """`config` with every judged criterion asking `model` (agenteval.yaml's `judge.model`, a
    `--judge-model` flag). The metrics' config fingerprints do not change: they leave the judge out.
    A managed metric keeps its judge: only the evaluation service scores it."""
    swapped = []
    for metric in config.metrics:
        options = getattr(metric.criterion, "judge_model_options", None)
        managed = isinstance(metric.criterion, ManagedCriterion)
        if metric.spec.judged and not managed and options is not None and options.judge_model != model:
            criterion = metric.criterion.model_copy(update={"judge_model_options": options.model_copy(update={"judge_model": model})})
            swapped.append(ConfiguredMetric(metric.spec, criterion, metric.fingerprint))
    return with_metrics(config, swapped) if swapped else config


def no_gated_metric(config: LoadedEvalConfig) -> list[Problem]:
    """A config that gates on nothing would pass whatever the agent does (a file without the
    `criteria` wrapper reads as no criteria at all): `run`, `score` and `validate` refuse it."""
    if any(not m.spec.informational for m in config.metrics):
        return []
    return [Problem(config.path or DEFAULT_CONFIG_NAME, "$.criteria",
                    'no gated metric: nothing could fail the gate; metrics go under `"criteria": {"metric_name": threshold}`')]


def config_rule_problems(config: LoadedEvalConfig, cases: Iterable[EvalCase]) -> list[Problem]:
    """The argument rules a config's own criteria give, checked against the cases' expected calls."""
    ruled = [m for m in config.metrics if isinstance(m.criterion, ToolArgsCriterion) and m.criterion.tool_args]
    if not ruled:
        return []
    expected = expected_args_by_tool(cases)
    file = config.path or DEFAULT_CONFIG_NAME
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
    if isinstance(criterion, (ToolArgsCriterion, SessionStateCriterion)) and criterion.model_extra:
        # Our own metric: google-adk never reads it, so an unknown key is a typo, not an ADK quirk.
        known = ", ".join(type(criterion).model_fields)
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
