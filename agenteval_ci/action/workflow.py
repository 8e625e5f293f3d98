"""The GitHub Actions runtime: inputs, the event payload, outputs, the job summary, ::commands.

Inputs of a container action arrive as `INPUT_<NAME>` env vars with the name upper-cased
and hyphens kept (`INPUT_GITHUB-TOKEN`). Outputs and the summary are files named by
`GITHUB_OUTPUT` / `GITHUB_STEP_SUMMARY`. Untrusted text (agent output, comment bodies)
echoed to the log is wrapped in `::stop-commands::` so it cannot issue workflow commands.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from ..errors import InputError, Problem, UsageError
from ..files.readers import read_json

MAX_ERROR_ANNOTATIONS = 10  # GitHub shows at most 10 error annotations per step


def input_value(env: Mapping[str, str], name: str, default: str = "") -> str:
    value = env.get(f"INPUT_{name.upper()}", "")
    return value.strip() or default


def input_flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = input_value(env, name).lower()
    if not value:
        return default
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise UsageError(f"input '{name}' must be true or false, not {value!r}")


def read_event(path: str) -> dict[str, Any]:
    """The webhook payload that triggered the run, a JSON object, through the guarded reader:
    a folder, a missing or empty file, bytes that are not UTF-8 or deep nesting are an
    InputError naming the file (action/event.py gives it its typed shape)."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(Problem(Path(path).as_posix(), "$", f"expected a JSON object (the webhook payload), not {_json_kind(data)}"))
    return data


def _json_kind(data: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(data), "a number")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


class Runner:
    """Writes what a step reports: outputs, summary, annotations, masks, log lines."""

    def __init__(self, env: Mapping[str, str], stream: TextIO | None = None):
        self.output_path = env.get("GITHUB_OUTPUT") or None
        self.summary_path = env.get("GITHUB_STEP_SUMMARY") or None
        self.stream = stream or sys.stdout
        self.errors_emitted = 0

    def command(self, name: str, message: str, **properties: str | int) -> None:
        props = ",".join(f"{k}={_escape_property(str(v))}" for k, v in properties.items() if v not in (None, ""))
        self.stream.write(f"::{name}{' ' + props if props else ''}::{_escape_data(message)}\n")

    def mask(self, secret: str) -> None:
        if secret:
            self.command("add-mask", secret)

    def notice(self, message: str) -> None:
        self.command("notice", message)

    def warning(self, message: str, **properties: str | int) -> None:
        self.command("warning", message, **properties)

    def error(self, message: str, **properties: str | int) -> bool:
        """At most MAX_ERROR_ANNOTATIONS per step; returns False once the budget is spent."""
        if self.errors_emitted >= MAX_ERROR_ANNOTATIONS:
            return False
        self.errors_emitted += 1
        self.command("error", message, **properties)
        return True

    def log_untrusted(self, text: str) -> None:
        """Echo text we do not control without letting it run workflow commands."""
        token = secrets.token_hex(16)
        self.stream.write(f"::stop-commands::{token}\n{text}\n::{token}::\n")

    def set_output(self, name: str, value: str) -> None:
        if not self.output_path:
            return
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"  # cannot occur in the value
        with open(self.output_path, "a", encoding="utf-8") as f:
            f.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")

    def add_summary(self, markdown: str) -> None:
        if not self.summary_path:
            self.stream.write(markdown + "\n")
            return
        with open(self.summary_path, "a", encoding="utf-8") as f:
            f.write(markdown.rstrip("\n") + "\n\n")

