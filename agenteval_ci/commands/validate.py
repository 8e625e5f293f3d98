"""`agenteval validate PATH...`: check eval sets and configs; usable as a pre-commit hook.

Folders are searched recursively for *.test.json, *.evalset.json, test_config.json and
*.session.json. Exit 0 when everything is valid, 1 when a file has a problem.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import EXIT_FAILED, EXIT_PASSED, AgentevalError, InputError, Problem, UsageError
from ..loader import CONFIG_FILE_NAME, load_eval_config, load_eval_set, read_json
from ._common import print_warnings


_PATTERNS = ("*.test.json", "*.evalset.json", CONFIG_FILE_NAME, "*.session.json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")


def discover(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = {f for pattern in _PATTERNS for f in path.rglob(pattern) if f.is_file()}
            files.extend(sorted(found))
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"{raw}: no such file or folder")
    return files


def check_file(path: Path) -> str:
    """A one-line description of a valid file; raises InputError for an invalid one."""
    if path.name == CONFIG_FILE_NAME or path.name.endswith("config.json"):
        config = load_eval_config(path)
        print_warnings(config.warnings)
        return f"eval config, {len(config.config.criteria)} criteria"
    if path.name.endswith(".session.json"):
        return _check_session(path)
    loaded = load_eval_set(path)
    print_warnings(loaded.warnings)
    kind = "legacy test file" if loaded.legacy else "eval set"
    return f"{kind}, {len(loaded.eval_set.eval_cases)} case(s)"


def _check_session(path: Path) -> str:
    """An initial session for legacy files: an object whose `state`, if any, is an object."""
    data = read_json(path)
    name = path.as_posix()
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", "a session file must be an object"))
    if not isinstance(data.get("state", {}), dict):
        raise InputError(Problem(name, "$.state", "must be an object"))
    return "session"


def run(args: argparse.Namespace) -> int:
    files = discover(args.paths)
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
