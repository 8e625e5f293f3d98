"""agenteval.yaml: suites (agent, eval sets, run settings) and project-wide settings.

Every key has a default except a suite's `agent` and `eval_sets`, so the smallest useful
file is three lines (see docs/config.md).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Optional, Union

from pydantic import Field, field_validator, model_validator

from ._base import StrictModel

from .settings import GateSettings, JudgeSettings

DEFAULT_PROJECT_FILE = "agenteval.yaml"
DEFAULT_BASELINE = ".agenteval/baseline.json"
DEFAULT_RESULTS = ".agenteval/results.json"  # what `run` writes and `accept` reads when given no path
MAX_NUM_RUNS = 100  # maxima documented in docs/config.md
MAX_CONCURRENCY = 1000


class SuiteConfig(StrictModel):
    """One agent and the eval sets it runs against."""

    name: str = "default"
    # An ADK agent folder or module (root_agent / get_agent_async / app), or a Python
    # callable as `package.module:function` or `path/to/file.py:function`.
    agent: str = Field(min_length=1)
    eval_sets: list[str] = Field(min_length=1)  # globs, relative to agenteval.yaml's folder
    eval_config: Optional[str] = None  # else test_config.json beside each eval set, else ADK's defaults
    num_runs: int = Field(default=1, ge=1, le=MAX_NUM_RUNS)
    concurrency: int = Field(default=8, ge=1, le=MAX_CONCURRENCY)  # case x run jobs in flight at once
    turn_timeout_seconds: float = Field(default=300.0, gt=0)

    @field_validator("eval_sets", mode="before")
    @classmethod
    def _one_glob_is_a_list(cls, value: Union[str, list[str]]) -> list[str]:
        return [value] if isinstance(value, str) else value


class ProjectConfig(StrictModel):
    baseline: str = DEFAULT_BASELINE  # relative to agenteval.yaml's folder
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    suites: list[SuiteConfig] = Field(min_length=1)

    @property
    def baseline_named(self) -> bool:
        """A `baseline:` other than the default must exist: a typo must not pass as a first run."""
        return "baseline" in self.model_fields_set and PurePosixPath(self.baseline) != PurePosixPath(DEFAULT_BASELINE)

    @model_validator(mode="after")
    def _unique_suite_names(self) -> "ProjectConfig":
        names = [s.name for s in self.suites]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"suite names must be unique; give each suite a `name` (repeated: {', '.join(duplicates)})")
        return self
