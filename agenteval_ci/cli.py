"""The `agenteval` command line: parse argv, run one command, map errors to exit codes."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import traceback
from typing import NoReturn

from . import __version__
from .commands import COMMANDS, load
from .errors import EXIT_BUG, EXIT_USAGE, AgentevalError, UsageError

EXIT_BROKEN_PIPE = 141  # as a process killed by SIGPIPE exits, what shells and git report
from .readers import PATH_ERRNOS, is_utf8, path_problem


def _command_in(argv: list[str]) -> str | None:
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    """Every command is listed; only the one named in `argv` is imported to add its options."""
    chosen = _command_in(argv)
    parser = argparse.ArgumentParser(prog="agenteval", description="The CI gate for AI agents.")
    parser.add_argument("--version", action="version", version=f"agenteval-ci {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            load(name).configure(command_parser)
    return parser


def dispatch(argv: list[str]) -> int:
    """Parse and run one command; errors propagate (the action maps them its own way)."""
    for arg in argv:  # bytes that are not UTF-8 arrive as lone surrogates; nothing could write them
        if not arg.isascii() and not is_utf8(arg):
            raise UsageError(f"argument {ascii(arg)[:80]} is not valid UTF-8")
    args = build_parser(argv).parse_args(argv)
    return load(args.command).run(args)


def main(argv: list[str] | None = None) -> int:
    # A run builds many long-lived records (cases, invocations, scores); with the default
    # thresholds the cyclic collector rescans them thousands of times (~40% of `score`).
    gc.set_threshold(100_000, 50, 100)
    try:
        return dispatch(sys.argv[1:] if argv is None else argv)
    except AgentevalError as exc:
        print(f"agenteval: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `agenteval report ... | head`: the reader left; nothing to tell it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        if exc.filename is None or exc.errno not in PATH_ERRNOS:
            print_bug_report()
            return EXIT_BUG
        # A path the user gave or their project holds (too long, a loop, no permission, a file where
        # a folder goes): bad input wherever it surfaced.
        print(f"agenteval: error: {os.fsdecode(exc.filename)!s}: {path_problem(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except Exception:  # a bug: show everything, ask for a report
        print_bug_report()
        return EXIT_BUG


def print_bug_report() -> None:
    traceback.print_exc()
    print("agenteval: unexpected error; please report it with the traceback above at the project's issue tracker", file=sys.stderr)


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
    if _command_in(argv) in _NO_USER_CODE:
        # Freeing a big run's records one by one at interpreter exit takes about as long
        # as scoring a sixth of them (~75 ms for 2,000 cases); the OS takes them back at once.
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    sys.exit(code)
