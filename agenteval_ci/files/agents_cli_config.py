"""agents-cli's eval config (`tests/eval/eval_config.yaml`, or its JSON form) as criteria.

google-agents-cli 1.11 reads two keys (eval/eval_utils.py, `load_eval_config`): `metrics_to_run`,
the metrics to score, and `custom_metrics`, a list of metric definitions a name may select. A
name runs the `custom_metrics` entry of that name when there is one, else the built-in metric of
that name. We read the built-in ones: the managed metrics (`general_quality`, in any case, or
with a version pinned: `general_quality_v1`) and the metrics of our registry (ADK's). agents-cli
gives them no threshold: each is gated against the baseline, with a threshold of 0 until
agenteval.yaml's suite `criteria` gives one. Every problem names the file and the JSON path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pydantic

from ..core.metrics import REGISTRY
from ..core.metrics.managed_specs import MANAGED_SPECS
from ..errors import InputError, Problem
from ..schema.eval_config import MANAGED_PREFIX

FILE_NAMES = ("eval_config.yaml", "eval_config.yml")  # what `agents-cli create` names it (its JSON form: eval_config.json)
DEFAULT_THRESHOLD = 0.0  # agents-cli has none: the baseline is the gate
_VERSIONED = re.compile(r"(?P<base>.+)_v(?P<version>\d+)")
# A custom_metrics entry with one of these defines a metric of its own (agents-cli's rule).
OWN_BODY = ("prompt_template", "custom_function", "custom_function_file", "remote_custom_function")


def is_agents_cli_config(data: Any) -> bool:
    """agents-cli's shape: `metrics_to_run`, or `custom_metrics` as a list (ADK's is a mapping)."""
    return isinstance(data, dict) and "criteria" not in data and (
        "metrics_to_run" in data or isinstance(data.get("custom_metrics"), list))


def criteria_of(file: str, data: dict[str, Any], own: Mapping[str, Any] = {}) -> dict[str, Any]:
    """Each metric of `metrics_to_run` as the criteria mapping of an ADK eval config; `own`: the
    names `custom_metrics` defines a metric of its own for (code or a prompt template), which
    run as the user's metrics (eval_configs.read_agents_cli_metrics)."""
    problems: list[Problem] = []
    entries = data.get("custom_metrics", [])
    custom = _custom_names(file, entries, problems)
    names = data.get("metrics_to_run", [])
    if not isinstance(names, list):
        problems.append(Problem(file, "$.metrics_to_run", "must be a list of metric names"))
        names = []
    criteria: dict[str, Any] = {}
    for index, name in enumerate(names):
        at = f"$.metrics_to_run[{index}]"
        if not isinstance(name, str) or not name.strip():
            problems.append(Problem(file, at, f"must be a metric name, got {name!r}"))
        elif name in own:
            criteria.setdefault(name, _own_criterion(next(e for e in entries if isinstance(e, dict) and e.get("name") == name)))
        elif name in custom:
            problems.append(Problem(file, at, f"custom metric {name!r} (declared at {custom[name]}) only sets a built-in "
                                              "metric's parameters, which are not sent yet; name the metric itself"))
        else:
            found = _built_in(name.strip())
            if found is None:
                problems.append(Problem(file, at, _unknown(name)))
            elif not REGISTRY[found[0]].informational:  # those are reported for every eval anyway
                problems.extend(_unreadable(file, at, *found))
                criteria.setdefault(*found)  # a name listed twice runs once
    if problems:
        raise InputError(problems)
    return criteria


def _own_criterion(entry: dict[str, Any]) -> Any:
    """A user's metric gates on the baseline (agents-cli gives no threshold); a prompt
    template's judge model and samples as agents-cli's LLMMetric names them."""
    options = {key: entry[theirs] for key, theirs in (("judge_model", "judge_model"), ("num_samples", "judge_model_sampling_count"))
               if entry.get(theirs) is not None}
    return {"threshold": DEFAULT_THRESHOLD, "judge_model_options": options} if options and "prompt_template" in entry else DEFAULT_THRESHOLD


def _custom_names(file: str, entries: Any, problems: list[Problem]) -> dict[str, str]:
    """The names `custom_metrics` declares -> where; a managed metric's parameters (an entry
    with no body of its own) are refused, as we cannot send them yet."""
    if not isinstance(entries, list):
        problems.append(Problem(file, "$.custom_metrics", "must be a list of metric objects (agents-cli's form)"))
        return {}
    names = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            problems.append(Problem(file, f"$.custom_metrics[{index}]", "must be an object with a `name`"))
        elif isinstance(entry.get("name"), str):
            names[entry["name"]] = f"$.custom_metrics[{index}]"
    return names


def _built_in(name: str) -> tuple[str, Any] | None:
    """(metric, criterion) of a built-in name: a managed metric first (agents-cli sends any name
    it does not define to the service), then a metric of our registry."""
    lowered = name.lower()
    if lowered in MANAGED_SPECS:
        return lowered, DEFAULT_THRESHOLD
    versioned = _VERSIONED.fullmatch(lowered)
    if versioned and versioned["base"] in MANAGED_SPECS:
        return versioned["base"], {"threshold": DEFAULT_THRESHOLD, "judge_model_options": {"judge_model": f"{MANAGED_PREFIX}/{lowered}"}}
    if name in REGISTRY:
        return name, DEFAULT_THRESHOLD
    return None


def _unreadable(file: str, at: str, name: str, criterion: Any) -> list[Problem]:
    """A metric that needs settings a bare name cannot give (rubrics, a tool name)."""
    raw = criterion if isinstance(criterion, dict) else {"threshold": criterion}
    try:
        REGISTRY[name].criterion_type.model_validate(raw)
    except pydantic.ValidationError as error:
        missing = ", ".join(str(e["loc"][-1]) for e in error.errors() if e["loc"])
        return [Problem(file, at, f"{name} needs settings a name in metrics_to_run cannot give ({missing or error.errors()[0]['msg']}); "
                                  "give its criterion in agenteval.yaml's suite `criteria` instead")]
    return []


def _unknown(name: str) -> str:
    return (f"unknown metric {name!r}: not a custom_metrics entry, a managed metric ({', '.join(MANAGED_SPECS)}) "
            f"or a metric of agenteval's (docs/metrics.md)")
