"""The `agenteval` command line, a front door: argv parsed into one command's typed settings
(arguments.py), the command run, whatever ended it mapped to an exit code (errors.exit_code_of).
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

from ..errors import exit_code_of
from ..files.readers import check_arguments
from .arguments import COMMANDS, build_parser, command_in


def dispatch(argv: list[str]) -> int:
    """Parse and run one command; errors propagate (`main` maps them to exit codes)."""
    check_arguments(argv)
    args = build_parser(argv).parse_args(argv)
    return COMMANDS[args.command].run(args).exit_code


def _say(message: str) -> None:
    print(f"agenteval: error: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    # A run builds many long-lived records (cases, invocations, scores); with the default
    # thresholds the cyclic collector rescans them thousands of times (~40% of `score`).
    gc.set_threshold(100_000, 50, 100)
    try:
        return dispatch(sys.argv[1:] if argv is None else argv)
    except (Exception, KeyboardInterrupt) as exc:
        return exit_code_of(exc, _say)


# Every command but `run` runs no user code, so nothing needs atexit or finalizers.
_NO_USER_CODE = frozenset(COMMANDS) - {"run"}


def console() -> NoReturn:
    """The `agenteval` script and `python -m agenteval_ci`: `main`, then the exit."""
    argv = sys.argv[1:]
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 must not end a message in a crash
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure:
            reconfigure(errors="backslashreplace")
    code = main(argv)
    if command_in(argv) in _NO_USER_CODE:
        # Freeing a big run's records one by one at interpreter exit takes about as long
        # as scoring a sixth of them (~75 ms for 2,000 cases); the OS takes them back at once.
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    sys.exit(code)
