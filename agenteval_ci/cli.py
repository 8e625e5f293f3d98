"""The `agenteval` command line: parse argv, run one command, map errors to exit codes."""

from __future__ import annotations

import argparse
import sys
import traceback

from . import __version__
from .commands import COMMANDS
from .errors import EXIT_BUG, AgentevalError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agenteval", description="The CI gate for AI agents.")
    parser.add_argument("--version", action="version", version=f"agenteval-ci {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        module.configure(sub.add_parser(name, help=module.HELP, description=module.HELP))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command].run(args)
    except AgentevalError as exc:
        print(f"agenteval: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except Exception:  # a bug: show everything, ask for a report
        traceback.print_exc()
        print(
            "agenteval: unexpected error; please report it with the traceback above "
            "at the project's issue tracker",
            file=sys.stderr,
        )
        return EXIT_BUG
