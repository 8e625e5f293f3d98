"""agenteval.yaml: suites (agent, eval sets, run settings) and project-wide settings.

Every key has a default except a suite's `agent` and `eval_sets`, so the smallest useful
file is three lines (see docs/config.md).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from ._base import StrictModel
from .arg_rules import ToolArgs, check_tool_args
from .eval_config import CustomMetricConfig
from .paths import DEFAULT_BASELINE as DEFAULT_BASELINE
from .paths import DEFAULT_PROJECT_FILE as DEFAULT_PROJECT_FILE
from .paths import DEFAULT_RESULTS as DEFAULT_RESULTS
from .paths import MAX_NUM_RUNS as MAX_NUM_RUNS
from .remote_agent import RemoteAgentConfig
from .settings import GateSettings, JudgeSettings, ModelPrice

MAX_CONCURRENCY = 1000


@dataclass(frozen=True)
class AdaptiveRuns:
    """`num_runs: auto`: runs per case between min_runs and max_runs, at most run_budget on average."""

    min_runs: int = 1
    max_runs: int = 10
    run_budget: float = 3.0  # mean runs per case; each shard spends its own share


def _agent_form(value: Any) -> str:
    return "name" if isinstance(value, str) else "remote"


# pydantic names the branch ("name" or "remote") in an error's location; the loader leaves it out.
AgentSpec = Annotated[
    Union[Annotated[str, Field(min_length=1), Tag("name")], Annotated[RemoteAgentConfig, Tag("remote")]],
    Discriminator(_agent_form),
]


class SuiteConfig(StrictModel):
    """One agent and the eval sets it runs against."""

    name: str = "default"
    # An ADK agent folder or module (root_agent / get_agent_async / app), a Python callable as
    # `package.module:function` or `path/to/file.py:function`, or a mapping: an agent served over HTTP.
    agent: AgentSpec
    eval_sets: list[str] = Field(min_length=1)  # globs, relative to agenteval.yaml's folder
    eval_config: Optional[str] = None  # else test_config.json beside each eval set, else ADK's defaults
    # An int: every case runs that often. `auto`: every case runs `min_runs` times, then only
    # the cases the gate is unsure about run again, in rounds (docs/gate.md, "Adaptive runs").
    num_runs: Union[int, Literal["auto"]] = Field(default=1)
    # auto only (their defaults: AdaptiveRuns)
    min_runs: Optional[int] = Field(default=None, ge=1, le=MAX_NUM_RUNS)
    max_runs: Optional[int] = Field(default=None, ge=1, le=MAX_NUM_RUNS)  # per case
    run_budget: Optional[float] = Field(default=None, ge=1, le=MAX_NUM_RUNS)  # mean runs per case
    concurrency: int = Field(default=8, ge=1, le=MAX_CONCURRENCY)  # case x run jobs in flight at once
    turn_timeout_seconds: float = Field(default=300.0, gt=0)
    # Metrics added to every eval set's eval config (replacing one of the same name), so that
    # options google-adk would not understand stay out of test_config.json (docs/metrics.md).
    criteria: dict[str, Any] = Field(default_factory=dict)
    # The suite's own metrics (docs/metrics.md, "Your own metrics"), named under `criteria`;
    # paths are relative to agenteval.yaml.
    custom_metrics: dict[str, CustomMetricConfig] = Field(default_factory=dict)
    # Tool-argument rules for the suite's tool_trajectory_alignment_score / tool_argument_match_score.
    tool_args: ToolArgs = Field(default_factory=dict)
    # `count`: the built-in tools the model ran (google_search, code execution, ...) count as tool
    # calls of every metric, named as ADK names the tool, with no arguments; `ignore`: ADK's scores.
    builtin_tools: Literal["ignore", "count"] = "ignore"

    @field_validator("tool_args")
    @classmethod
    def _paths_parse(cls, value: ToolArgs) -> ToolArgs:
        return check_tool_args(value)

    @field_validator("eval_config")
    @classmethod
    def _eval_config_is_a_file_path(cls, value: Optional[str]) -> Optional[str]:
        return value if value is None else check_file_path(value)

    @field_validator("num_runs")
    @classmethod
    def _runs_in_range(cls, value: Union[int, str]) -> Union[int, str]:
        if isinstance(value, int) and not 1 <= value <= MAX_NUM_RUNS:
            raise ValueError(f"must be `auto` or a whole number from 1 to {MAX_NUM_RUNS}")
        return value

    @model_validator(mode="after")
    def _adaptive_keys_need_auto(self) -> "SuiteConfig":
        given = [k for k in ("min_runs", "max_runs", "run_budget") if getattr(self, k) is not None]
        if given and self.num_runs != "auto":
            raise ValueError(f"{', '.join(given)}: only with `num_runs: auto` (num_runs is {self.num_runs})")
        if self.num_runs == "auto":
            plan = self.adaptive
            if plan.min_runs > plan.max_runs:
                raise ValueError(f"min_runs ({plan.min_runs}) is above max_runs ({plan.max_runs})")
            if not plan.min_runs <= plan.run_budget <= plan.max_runs:
                raise ValueError(f"run_budget ({plan.run_budget:g} runs per case) must lie between min_runs ({plan.min_runs}) and max_runs ({plan.max_runs})")
        return self

    @property
    def adaptive(self) -> "AdaptiveRuns":
        """`num_runs: auto`'s limits: those given, AdaptiveRuns's defaults for the rest."""
        given = {name: value for name in ("min_runs", "max_runs", "run_budget") if (value := getattr(self, name)) is not None}
        return AdaptiveRuns(**given)

    @field_validator("eval_sets", mode="before")
    @classmethod
    def _one_glob_is_a_list(cls, value: Union[str, list[str]]) -> list[str]:
        return [value] if isinstance(value, str) else value


MAX_NAME_BYTES = 255  # of one file or folder name (Linux's NAME_MAX)
MAX_PATH_BYTES = 4095


def check_file_path(value: str) -> str:
    """A path that can name a file: what the OS would refuse is refused here, naming the key."""
    if not value.strip():
        raise ValueError("is empty; name a file")
    if "\0" in value:
        raise ValueError("holds a NUL character")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_PATH_BYTES:
        raise ValueError(f"is {size:,} bytes long; a path is at most {MAX_PATH_BYTES:,}")
    if value.split("/")[-1] in ("", ".", ".."):
        raise ValueError("names a folder; name a file")
    longest = max(value.split("/"), key=lambda part: len(part.encode("utf-8", "surrogatepass")))
    if len(longest.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise ValueError(f"holds a name of more than {MAX_NAME_BYTES} bytes ({longest[:40]!r}...)")
    return value


class ProjectConfig(StrictModel):
    baseline: str = DEFAULT_BASELINE  # relative to agenteval.yaml's folder
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    # The agent's model prices over the built-in table (USD per million tokens), also the judge's
    # (judge.prices goes over these for the judge).
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    suites: list[SuiteConfig] = Field(min_length=1)

    @field_validator("baseline")
    @classmethod
    def _baseline_is_a_file_path(cls, value: str) -> str:
        return check_file_path(value)

    @property
    def baseline_named(self) -> bool:
        """A `baseline:` other than the default must exist: a typo must not pass as a first run."""
        return "baseline" in self.model_fields_set and posixpath.normpath(self.baseline) != posixpath.normpath(DEFAULT_BASELINE)

    @model_validator(mode="after")
    def _unique_suite_names(self) -> "ProjectConfig":
        names = [s.name for s in self.suites]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"suite names must be unique; give each suite a `name` (repeated: {', '.join(duplicates)})")
        unknown = sorted(set(self.gate.suite_budgets) - set(names))
        if unknown:
            raise ValueError(f"gate.suite_budgets names no suite: {', '.join(unknown)} (suites: {', '.join(names)})")
        unknown = sorted(set(self.gate.suite_metrics) - set(names))
        if unknown:
            raise ValueError(f"gate.suite_metrics names no suite: {', '.join(unknown)} (suites: {', '.join(names)})")
        return self
