"""`agenteval validate PATH...`: check eval sets and configs; usable as a pre-commit hook.

Folders are searched recursively for *.test.json, *.evalset.json, test_config.json,
eval_config.json and *.session.json. A file is told apart by what it holds: an object
with a config's keys (`criteria`, ...) is an eval config whatever its name. Exit 0 when
everything is valid, 1 when a file has a problem.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..discovery import CONFIG_NAMES, looks_like_eval_config
from ..errors import EXIT_FAILED, EXIT_PASSED, AgentevalError, UsageError
from ..loader import eval_set_from_data, load_eval_config, read_json
from ._common import files_in, print_warnings
from .convert import read_session


_PATTERNS = ("*.test.json", "*.evalset.json", *CONFIG_NAMES, "*.session.json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")


def check_file(path: Path) -> str:
    """A one-line description of a valid file; raises InputError for an invalid one."""
    if path.name.endswith(".session.json"):
        return _check_session(path)
    data = read_json(path)
    if path.name.endswith("config.json") or looks_like_eval_config(data):
        config = load_eval_config(path)
        print_warnings(config.warnings)
        return f"eval config, {len(config.config.criteria)} criteria"
    loaded = eval_set_from_data(path.as_posix(), data)
    print_warnings(loaded.warnings)
    kind = "legacy test file" if loaded.legacy else "eval set"
    return f"{kind}, {len(loaded.eval_set.eval_cases)} case(s)"


def _check_session(path: Path) -> str:
    """An initial session for legacy files, checked as `convert` reads it."""
    read_session(path)
    return "session"


def run(args: argparse.Namespace) -> int:
    files = files_in(args.paths, _PATTERNS)
    if not files:
        raise UsageError("no eval sets or configs found in " + ", ".join(args.paths))
    invalid = 0
    for path in files:
        try:
            print(f"ok      {path.as_posix()} ({check_file(path)})")
        except AgentevalError as exc:
            invalid += 1
            print(f"INVALID {path.as_posix()}\n" + "\n".join(f"  {line}" for line in str(exc).splitlines()))
    print(f"\n{len(files)} file(s) checked, {invalid} invalid")
    return EXIT_FAILED if invalid else EXIT_PASSED
