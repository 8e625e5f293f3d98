"""`agenteval convert PATH... [--initial-session FILE] [--force] [--config YAML] [--to evalset|gemini]`:
legacy `.test.json` files to EvalSet files, and the project moved over to them; EvalSets to
Gemini-platform datasets (`--to gemini`, NAME.dataset.json) and such datasets back to EvalSets,
each saying what of the file does not map (the project is not edited for these).

A legacy file is a list of queries (`query`, `expected_tool_use`, `reference`, ...) or the
older list of `{name, data, initial_session}` cases. The EvalSet written beside it
(`NAME.evalset.json`) holds what google-adk 2.13 reads from the legacy file, so it scores
the same, with stable ids instead of ADK's random ones and no null fields. The initial
session ADK's AgentEvaluator takes as a separate file (`--initial-session`, else
`initial.session.json` beside the legacy file) becomes each case's `session_input`.

Then the project follows (agenteval.yaml given or found above the working folder): each
suite glob that ran the legacy files (`evals/*.test.json`) is edited in place to run the new
ones (`evals/*.evalset.json`), and the baseline's entries move to the new case ids, so the
next `run` compares like with like. Where an edit would not give exactly the converted files,
nothing is edited and the exact edit is printed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..errors import EXIT_PASSED, EXIT_USAGE, AgentevalError, InputError, Problem, UsageError
from ..files.baseline_file import load_baseline, write_baseline
from ..files.conversion import Converted, GlobEdit, SuiteFiles, carried_baseline, edited_yaml, renamed_glob, with_globs
from ..files.discovery import find_project_file
from ..files.eval_sets import LoadedEvalSet, load_eval_set, session_from
from ..files.formats import gemini_dataset
from ..files.formats.gemini_dataset import from_eval_set
from ..files.project import eval_set_files, read_project_config
from ..files.readers import parse_yaml, printable, read_bytes, read_json, read_text, regular_or_kind
from ..files.writing import write_atomic
from ..schema import EvalCase, EvalSet
from ..schema.eval_set import SessionInput
from ..schema.project import DEFAULT_PROJECT_FILE, ProjectConfig
from ._common import Done, Verbosity, applies_verbosity, files_in, say

SESSION_FILE_NAME = "initial.session.json"
LEGACY_SUFFIX = ".test.json"
DATASET_SUFFIX = ".dataset.json"  # what `--to gemini` writes
TARGETS = ("evalset", "gemini")


@dataclass(frozen=True)
class ConvertSettings:
    paths: tuple[str, ...]  # legacy .test.json files, or folders to search for them
    initial_session: str | None = None  # default: initial.session.json beside each file, when present
    force: bool = False  # overwrite an existing .evalset.json that differs
    config: str | None = None  # agenteval.yaml to move over (default: the nearest above)
    to: str = "evalset"  # evalset: legacy files (or Gemini-platform datasets) to EvalSets; gemini: EvalSets to datasets
    verbosity: Verbosity = Verbosity()  # -q, --log-level


def eval_set_id_for(path: Path) -> str:
    """The file's name without `.test.json`, in the characters ADK allows in an eval set id."""
    stem = path.name.removesuffix(LEGACY_SUFFIX).removesuffix(".json")
    return re.sub(r"[^A-Za-z0-9_]", "_", stem) or "eval_set"


def read_session(path: Path) -> Optional[SessionInput]:
    """An ADK session file (`id`, `app_name`, `user_id`, `state`, ...) as a case's session_input,
    read as AgentEvaluator reads it: missing names are empty, an empty file is no session."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(Problem(path.as_posix(), "$", "a session file must be an object"))
    return session_from(path.as_posix(), "$", data)


def converted(loaded: LoadedEvalSet, source: Path, session: Optional[SessionInput]) -> Converted:
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
    eval_set = EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=cases)
    ids = {old.eval_id: new.eval_id for old, new in zip(loaded.eval_set.eval_cases, cases)}
    return Converted(source, source.with_name(f"{eval_set_id}.evalset.json"), eval_set, ids, one_case_per_file)


def eval_set_json(eval_set: EvalSet) -> str:
    return json.dumps(eval_set.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False) + "\n"


def _session_for(source: Path, given: Optional[str]) -> tuple[Optional[SessionInput], Optional[Path]]:
    path = Path(given) if given else source.parent / SESSION_FILE_NAME
    if given and not os.path.lexists(path):
        raise UsageError(f"--initial-session {given}: no such file")
    return (read_session(path), path) if os.path.lexists(path) else (None, None)


def convert_file(source: Path, session_file: Optional[str], force: bool, taken: dict[Path, Path]) -> tuple[str, Converted | None]:
    """Writes NAME.evalset.json beside `source`: what was done (the log line) and the conversion
    (None for a file that is already an EvalSet). `taken`: targets already written this run."""
    loaded = load_eval_set(source)
    if not loaded.legacy:
        return f"skipped {source.as_posix()}: already an EvalSet", None
    session, session_path = _session_for(source, session_file)
    conversion = converted(loaded, source, session)
    target = conversion.target
    other = taken.setdefault(Path(os.path.realpath(target)), source)
    if other != source:
        raise UsageError(f"{other.as_posix()} and {source.as_posix()} both convert to {target.as_posix()}; rename one of them")
    if not _written(source, target, eval_set_json(conversion.eval_set), force):
        return f"unchanged {target.as_posix()}", conversion
    with_session = f" with the session of {session_path.as_posix()}" if session_path else ""
    return f"wrote   {target.as_posix()} ({len(conversion.eval_set.eval_cases)} case(s) from {source.as_posix()}{with_session})", conversion


def _written(source: Path, target: Path, text: str, force: bool) -> bool:
    """`text` written to `target` (False: it holds exactly that already); an existing file that
    differs is overwritten only with --force."""
    data = text.encode("utf-8")
    kind = regular_or_kind(target)
    if kind:
        raise UsageError(f"{target.as_posix()}: {kind}; convert writes the converted file there")
    if os.path.lexists(target) and read_bytes(target) == data:
        return False
    if os.path.lexists(target) and not force:
        raise UsageError(f"{target.as_posix()} exists and differs from the conversion of {source.as_posix()}; pass --force to overwrite it")
    write_atomic(target, data)
    return True


# ---------------------------------------------------------------- EvalSets and Gemini-platform datasets


def dataset_target(source: Path) -> Path:
    return source.with_name(source.name.removesuffix(".json").removesuffix(".evalset") + DATASET_SUFFIX)


def to_dataset(source: Path, force: bool) -> list[str]:
    """NAME.dataset.json beside an EvalSet: the log line, then what did not map."""
    loaded = load_eval_set(source)
    data, lost = from_eval_set(loaded.eval_set)
    target = dataset_target(source)
    wrote = _written(source, target, json.dumps(data, indent=2, ensure_ascii=False) + "\n", force)
    line = f"wrote   {target.as_posix()} ({len(data['eval_cases'])} case(s) from {source.as_posix()})" if wrote else f"unchanged {target.as_posix()}"
    return [line, *(f"  not mapped: {what}" for what in lost)]


def from_dataset(source: Path, force: bool) -> list[str]:
    """NAME.evalset.json beside a Gemini-platform dataset: the log line, then what did not map."""
    loaded = load_eval_set(source)
    eval_set_id = eval_set_id_for(source.with_name(source.name.removesuffix(DATASET_SUFFIX).removesuffix(".json")))
    eval_set = loaded.eval_set.model_copy(update={"eval_set_id": eval_set_id, "name": eval_set_id})
    target = source.with_name(f"{eval_set_id}.evalset.json")
    wrote = _written(source, target, eval_set_json(eval_set), force)
    line = f"wrote   {target.as_posix()} ({len(eval_set.eval_cases)} case(s) from {source.as_posix()})" if wrote else f"unchanged {target.as_posix()}"
    lost = [f"  not mapped: {w.json_path}: {w.message}" for w in loaded.warnings]
    if _has_responses(source):
        lost.append("  not mapped: the cases' `responses` and agent events (an agent's recorded answers): score them with "
                    f"`agenteval score {target.as_posix()} --actual {source.as_posix()}`")
    return [line, *lost]


def _has_responses(source: Path) -> bool:
    data = read_json(source)
    cases = data.get("eval_cases", []) if isinstance(data, dict) else []
    return any(isinstance(c, dict) and (c.get("responses") or c.get("agent_data")) for c in cases)


def _is_dataset(source: Path) -> bool:
    try:
        return source.name.endswith(".json") and gemini_dataset.recognises(read_json(source))
    except InputError:
        return False  # reading it as a legacy file says what is wrong with it


def _convert_formats(settings: ConvertSettings) -> Done:
    """`--to gemini`: EvalSets to datasets; a dataset named with the default `--to evalset`: back."""
    patterns = ["*.evalset.json"] if settings.to == "gemini" else [f"*{DATASET_SUFFIX}"]
    failed = 0
    for source in files_in(settings.paths, patterns):
        try:
            lines = to_dataset(source, settings.force) if settings.to == "gemini" else from_dataset(source, settings.force)
            print("\n".join(lines))
        except (InputError, UsageError) as exc:
            failed += 1
            print(f"FAILED  {source.as_posix()}\n" + "\n".join(f"  {line}" for line in str(exc).splitlines()))
    return Done(EXIT_USAGE if failed else EXIT_PASSED)


@applies_verbosity
def convert(settings: ConvertSettings) -> Done:
    datasets = settings.to == "evalset" and any(Path(p).is_file() and _is_dataset(Path(p)) for p in settings.paths)
    if settings.to == "gemini" or datasets:
        return _convert_formats(settings)
    files = files_in(settings.paths, [f"*{LEGACY_SUFFIX}"])
    if not files:
        raise UsageError(f"no *{LEGACY_SUFFIX} files in " + ", ".join(settings.paths))
    failed, conversions = 0, []
    taken: dict[Path, Path] = {}
    for source in files:
        try:
            line, conversion = convert_file(source, settings.initial_session, settings.force, taken)
            say(line)
            conversions += [conversion] if conversion else []
        except (InputError, UsageError) as exc:
            failed += 1
            print(f"FAILED  {source.as_posix()}\n" + "\n".join(f"  {line}" for line in str(exc).splitlines()))
    project = settings.config or find_project_file()
    if conversions and project is not None:
        failed += not move_project(Path(project), conversions)
    elif conversions:
        print(f"\nno {DEFAULT_PROJECT_FILE} here or above: run the new .evalset.json files instead of the legacy ones, then delete those")
    return Done(EXIT_USAGE if failed else EXIT_PASSED)


# ---------------------------------------------------------------- the project follows


def move_project(config_path: Path, conversions: list[Converted]) -> bool:
    """agenteval.yaml's globs and the baseline's entries moved to the converted files; False
    when the project could not be read or edited (said why, and the exact edit)."""
    name = config_path.as_posix()
    try:
        config = read_project_config(config_path)
        text = read_text(config_path)
        data = parse_yaml(name, text)
        suites, edits, advice = _planned_edits(name, config, config_path.parent, conversions)
    except (InputError, UsageError) as exc:
        print(f"\n{name} not updated: {exc}")
        return False
    if edits and not advice:
        new_text = edited_yaml(text, edits)
        if new_text is None or parse_yaml(name, new_text) != with_globs(data, edits):
            advice = [f"{name} at $.suites[{e.suite}].eval_sets[{e.index}]: replace {e.old!r} with {e.new!r}" for e in edits]
            suites = [SuiteFiles(s.name, s.before, s.before) for s in suites]
        else:
            write_atomic(config_path, new_text)
            for e in edits:
                say(f"updated {name} at $.suites[{e.suite}].eval_sets[{e.index}]: {e.old!r} -> {e.new!r}")
    if advice:
        print(f"\n{name} still runs the legacy files; to run the new ones instead:\n" + "\n".join(f"  {line}" for line in advice))
    _move_baseline(config_path.parent / config.baseline, config_path.parent, suites, conversions)
    if not advice:
        sources = " ".join(shlex.quote(c.source.as_posix()) for c in conversions)
        print(f"\nthe legacy files are no longer read; delete them when you are ready: git rm {sources}")
    return True


def _planned_edits(name: str, config: ProjectConfig, base_dir: Path, conversions: list[Converted]) -> tuple[list[SuiteFiles], list[GlobEdit], list[str]]:
    """Per suite the files it runs now and after renaming its legacy globs; the renames; and
    the exact edits to make by hand when renaming would not run exactly the converted files."""
    targets = {c.source.resolve(): c.target.resolve() for c in conversions}
    suites, edits, advice = [], [], []
    for i, suite in enumerate(config.suites):
        at = f"$.suites[{i}].eval_sets"
        before = [_matches(name, f"{at}[{j}]", base_dir, g) for j, g in enumerate(suite.eval_sets)]
        now = frozenset(f for files in before for f in files)
        legacy = [j for j, files in enumerate(before) if files & targets.keys()]
        wanted = frozenset(targets.get(f, f) for f in now)
        if not legacy:
            suites.append(SuiteFiles(suite.name, now, now))
            continue
        renamed = {j: new for j in legacy if (new := renamed_glob(suite.eval_sets[j])) is not None}
        if len(renamed) == len(legacy) and _runs_exactly(wanted, [
                _matches(name, f"{at}[{j}]", base_dir, renamed[j]) if j in renamed else files for j, files in enumerate(before)]):
            edits += [GlobEdit(i, j, suite.eval_sets[j], renamed[j]) for j in legacy]
            suites.append(SuiteFiles(suite.name, now, wanted))
            continue
        suites.append(SuiteFiles(suite.name, now, now))
        if _runs_exactly(wanted, [files for j, files in enumerate(before) if j not in legacy]):
            advice.append(f"{name} at {at}: remove " + ", ".join(repr(suite.eval_sets[j]) for j in legacy) + " (the other globs match the new files)")
        elif all(targets.get(f, f) in now for f in now):
            advice.append(f"{name} at {at}: its globs match the new files too; delete the legacy files and they match only those")
        else:
            files = sorted(printable(os.path.relpath(f, base_dir.resolve())) for f in wanted)
            advice.append(f"{name} at {at}: run exactly {', '.join(files)} (a glob of them, or list them)")
    return suites, edits, advice


def _runs_exactly(wanted: frozenset[Path], matched: list[frozenset[Path]]) -> bool:
    """Whether the globs' matches are the wanted files, each matched once."""
    files = [f for found in matched for f in found]
    return len(files) == len(set(files)) and set(files) == wanted


def _matches(file: str, at: str, base_dir: Path, glob_: str) -> frozenset[Path]:
    return frozenset(Path(f).resolve() for f in eval_set_files(file, at, base_dir, glob_))


def _move_baseline(path: Path, base_dir: Path, suites: list[SuiteFiles], conversions: list[Converted]) -> None:
    """The baseline's legacy entries carried to the new ids; what the gate will see, said."""
    try:
        baseline = load_baseline(path)
    except AgentevalError as exc:
        print(f"baseline {path.as_posix()} not updated: {exc}")
        return
    if baseline is None:
        return
    moved, carried = carried_baseline(baseline, suites, conversions, lambda key: _resolved(base_dir, key))
    if moved != baseline:
        write_baseline(path, moved)
        say(f"updated {path.as_posix()}: {len(carried)} case(s) carried to their new ids")
    changed = [c for c in carried if c.changed]
    if changed:
        flags = "".join(f" --case {shlex.quote(f'{c.suite}/{c.new[0]}/{c.new[1]}')}" for c in changed)
        print(f"{len(changed)} case(s) expect something new after the conversion (an initial session): the gate "
              f"shows them as incomparable until you accept them: agenteval run && agenteval accept{flags}")


def _resolved(base_dir: Path, key: str) -> Path | None:
    """The file a baseline eval_set_id names, if it is a path (a legacy file's id is its path
    as `run` was given it: relative to the working folder then, usually the project's)."""
    try:
        return next((p.resolve() for p in (Path(key), base_dir / key) if p.is_file()), None)
    except (OSError, ValueError):
        return None
