"""`agenteval convert PATH... [--initial-session FILE] [--force]`: legacy `.test.json` files
to EvalSet files.

A legacy file is a list of queries (`query`, `expected_tool_use`, `reference`, ...) or the
older list of `{name, data, initial_session}` cases. The EvalSet written beside it
(`NAME.evalset.json`) holds what google-adk 2.13 reads from the legacy file, so it scores
the same, with stable ids instead of ADK's random ones and no null fields. The initial
session ADK's AgentEvaluator takes as a separate file (`--initial-session`, else
`initial.session.json` beside the legacy file) becomes each case's `session_input`.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Optional

from ..errors import EXIT_PASSED, EXIT_USAGE, InputError, Problem, UsageError
from ..loader import LoadedEvalSet, load_eval_set, read_json
from ..results_file import write_atomic
from ..schema import EvalCase, EvalSet
from ..schema.eval_set import SessionInput
from ._common import files_in

SESSION_FILE_NAME = "initial.session.json"
LEGACY_SUFFIX = ".test.json"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="legacy .test.json files, or folders to search for them")
    parser.add_argument("--initial-session", metavar="FILE",
                        help=f"the session every case starts from, as AgentEvaluator's initial_session_file (default: {SESSION_FILE_NAME} beside each file, when present)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing .evalset.json that differs")


def eval_set_id_for(path: Path) -> str:
    """The file's name without `.test.json`, in the characters ADK allows in an eval set id."""
    stem = path.name.removesuffix(LEGACY_SUFFIX).removesuffix(".json")
    return re.sub(r"[^A-Za-z0-9_]", "_", stem) or "eval_set"


def read_session(path: Path) -> Optional[SessionInput]:
    """An ADK session file (`id`, `app_name`, `user_id`, `state`, ...) as a case's session_input,
    read as AgentEvaluator reads it: missing names are empty, an empty file is no session."""
    data = read_json(path)
    name = path.as_posix()
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", "a session file must be an object"))
    if not data:
        return None
    for key in ("app_name", "user_id"):
        if not isinstance(data.get(key, ""), str):
            raise InputError(Problem(name, f"$.{key}", "must be a string"))
    if not isinstance(data.get("state", {}), dict):
        raise InputError(Problem(name, "$.state", "must be an object"))
    return SessionInput(app_name=data.get("app_name", ""), user_id=data.get("user_id", ""), state=data.get("state", {}))


def converted(loaded: LoadedEvalSet, source: Path, session: Optional[SessionInput]) -> EvalSet:
    """The EvalSet of a legacy file: one case per file (named after it) or per old-format case."""
    eval_set_id = eval_set_id_for(source)
    one_case_per_file = len(loaded.eval_set.eval_cases) == 1 and loaded.eval_set.eval_cases[0].eval_id == loaded.path
    cases = []
    for case in loaded.eval_set.eval_cases:
        eval_id = eval_set_id if one_case_per_file else case.eval_id
        turns = [
            turn.model_copy(update={"invocation_id": f"{eval_id}-turn-{n}"})
            for n, turn in enumerate(case.conversation or [], start=1)
        ]
        cases.append(EvalCase(eval_id=eval_id, conversation=turns, session_input=case.session_input or session))
    return EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=cases)


def eval_set_json(eval_set: EvalSet) -> str:
    return json.dumps(eval_set.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False) + "\n"


def _session_for(source: Path, given: Optional[str]) -> tuple[Optional[SessionInput], Optional[Path]]:
    path = Path(given) if given else source.parent / SESSION_FILE_NAME
    if given and not path.is_file():
        raise UsageError(f"--initial-session {given}: no such file")
    return (read_session(path), path) if path.is_file() else (None, None)


def convert_file(source: Path, session_file: Optional[str], force: bool) -> str:
    """Writes NAME.evalset.json beside `source`; returns what was done, for the log line."""
    loaded = load_eval_set(source)
    if not loaded.legacy:
        return f"skipped {source.as_posix()}: already an EvalSet"
    session, session_path = _session_for(source, session_file)
    target = source.with_name(f"{eval_set_id_for(source)}.evalset.json")
    text = eval_set_json(converted(loaded, source, session))
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return f"unchanged {target.as_posix()}"
    if target.exists() and not force:
        raise UsageError(f"{target.as_posix()} exists and differs from the conversion of {source.as_posix()}; pass --force to overwrite it")
    write_atomic(target, text)
    with_session = f" with the session of {session_path.as_posix()}" if session_path else ""
    cases = len(loaded.eval_set.eval_cases)
    return f"wrote   {target.as_posix()} ({cases} case(s) from {source.as_posix()}{with_session})"


def run(args: argparse.Namespace) -> int:
    files = files_in(args.paths, [f"*{LEGACY_SUFFIX}"])
    if not files:
        raise UsageError(f"no *{LEGACY_SUFFIX} files in " + ", ".join(args.paths))
    failed = 0
    for source in files:
        try:
            print(convert_file(source, args.initial_session, args.force))
        except (InputError, UsageError) as exc:
            failed += 1
            print(f"FAILED  {source.as_posix()}\n" + "\n".join(f"  {line}" for line in str(exc).splitlines()))
    print("\nthe legacy files are left in place: run the new .evalset.json files, then delete the old ones")
    return EXIT_USAGE if failed else EXIT_PASSED
