"""The one error family, the exit codes, and the one handler both front doors end with.

Every error a user (or GitHub) can cause is an AgentevalError whose class carries its exit
code; `cli.main` and `action.main` hand whatever ended a command to `exit_code_of`, which
says why in one line (no traceback) and returns the code. Anything else is a bug: exit 3,
with the traceback and a plea to report it. Stdlib only: the image's build runs with this
module and the agent environment's alone.
"""

from __future__ import annotations

import errno
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass

EXIT_PASSED = 0
EXIT_FAILED = 1  # the gate failed: a regression or a threshold
EXIT_USAGE = 2  # bad input: a file, a flag, a config
EXIT_BUG = 3  # unexpected: traceback + "please report"
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report it
EXIT_BROKEN_PIPE = 141  # as a process killed by SIGPIPE exits, what shells and git report


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
    """An error whose message is the whole story; by default one the user can fix."""

    exit_code = EXIT_USAGE


class InputError(AgentevalError):
    """One or more problems in the files we were given."""

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class UsageError(AgentevalError):
    """A wrong flag, a missing file, a command used the wrong way."""


class AgentUnusable(UsageError):
    """The agent cannot be reached as configured (a deployment that does not exist): the whole
    command stops with exit 2 rather than each run failing for the same reason."""


class DependencyError(AgentevalError):
    """An optional dependency (google-adk, ...) is needed but not installed."""


class ServiceError(AgentevalError):
    """A service we depend on kept failing (GitHub after its retries): neither the user's input
    nor our bug, so exit 3 without a traceback (github/errors.py has its kinds)."""

    exit_code = EXIT_BUG


# ---------------------------------------------------------------- paths


_PATH_ERRORS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ELOOP: "a symlink loop",
    errno.ENAMETOOLONG: "the path is too long (a name over 255 bytes or a path over 4,096)",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "is a folder, not a file",
}
PATH_ERRNOS = frozenset(_PATH_ERRORS)  # an OSError with one of these is about the path, not a bug


def path_problem(exc: OSError) -> str:
    """Why a path cannot be used, in words (the caller names the path)."""
    return _PATH_ERRORS.get(exc.errno or 0, exc.strerror or str(exc))


# ---------------------------------------------------------------- the handler


def exit_code_of(exc: BaseException, tell: Callable[[str], None]) -> int:
    """The exit code for what ended a command, after `tell`ing the user why (or, for a bug,
    printing the traceback and a plea to report it)."""
    if isinstance(exc, AgentevalError):
        tell(str(exc))
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, BrokenPipeError):  # `agenteval report ... | head`: the reader left; nothing to tell it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    if isinstance(exc, OSError) and exc.filename is not None and exc.errno in PATH_ERRNOS:
        # A path the user gave or their project holds (too long, a loop, no permission, a file
        # where a folder goes): bad input wherever it surfaced.
        tell(f"{os.fsdecode(exc.filename)!s}: {path_problem(exc)}")
        return EXIT_USAGE
    traceback.print_exception(exc)
    print("agenteval: unexpected error; please report it with the traceback above at the project's issue tracker", file=sys.stderr)
    return EXIT_BUG
