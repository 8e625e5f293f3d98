"""The one user-facing error family and the exit codes it maps to.

Commands raise these; `cli.main` and `action.main` catch them in one place, print
the message (no traceback) and exit with `exit_code`. Anything else is a bug: exit 3.
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_PASSED = 0
EXIT_FAILED = 1  # the gate failed: a regression or a threshold
EXIT_USAGE = 2  # bad input: a file, a flag, a config
EXIT_BUG = 3  # unexpected: traceback + "please report"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one place in one file."""

    file: str
    json_path: str  # "$" for the whole document
    message: str

    def __str__(self) -> str:
        where = self.file if self.json_path in ("", "$") else f"{self.file} at {self.json_path}"
        return f"{where}: {self.message}"


class AgentevalError(Exception):
    """An error the user can fix; its message is the whole story."""

    exit_code = EXIT_USAGE


class InputError(AgentevalError):
    """One or more problems in the files we were given."""

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class UsageError(AgentevalError):
    """A wrong flag, a missing file, a command used the wrong way."""


class DependencyError(AgentevalError):
    """An optional dependency (google-adk, ...) is needed but not installed."""
