"""Eval sets from disk, in each of the formats google-adk 2.13 reads, with clear errors.

An EvalSet file (snake_case or camelCase), ADK's ConversationScenarios file, the legacy
`.test.json` list of queries and the older list of `{name, data, initial_session}` cases;
other tools' formats are read by their modules in `formats/`.
Every problem names the file and the JSON path. Where ADK silently ignores something (an
unknown key) we return a warning.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pydantic

from ..core.simulation import resolve_persona
from ..errors import InputError, Problem
from ..schema import EvalSet, Invocation
from ..schema.content import Content, FunctionCall, Part
from ..schema.eval_set import BUILTIN_TOOLS, ConversationScenarios, EvalCase, IntermediateData, SessionInput
from ..schema.problems import problems_from
from .formats import format_of, misnamed, parsed_by_suffix
from .json_stream import ArrayLayout, array_layout, read_span
from .readers import check_data, decode_text, may_hold_lone_surrogate, open_regular, parse_json, read_text


@dataclass(frozen=True)
class LoadedEvalSet:
    path: str
    eval_set: EvalSet
    legacy: bool = False  # a raw list of queries (old `.test.json` format)
    warnings: list[Problem] = field(default_factory=list)
    made_up_id: bool = False  # the file names no eval set (a legacy list, a scenarios file): its id is its path

    @property
    def eval_set_id(self) -> str:
        return self.eval_set.eval_set_id

    def cases(self) -> Iterator[EvalCase]:
        return iter(self.eval_set.eval_cases)

    def case_at(self, index: int) -> EvalCase:
        return self.eval_set.eval_cases[index]


@dataclass(frozen=True)
class StreamedEvalSet:
    """An EvalSet file read one case at a time (`cases()`, as often as needed): what a big suite
    holds of it is where its cases lie in the file. Its `warnings` are complete once the cases
    have been read (unknown keys on a case, a duplicate eval_id)."""

    path: str
    eval_set_id: str
    layout: ArrayLayout
    warnings: list[Problem] = field(default_factory=list)
    made_up_id: ClassVar[bool] = False  # an EvalSet names itself

    def __len__(self) -> int:
        return len(self.layout)

    def cases(self) -> Iterator[EvalCase]:
        seen: set[str] = set()
        known = {w for w in self.warnings}
        with open_regular(self.path) as f:
            for i, (start, end) in enumerate(zip(self.layout.starts, self.layout.ends)):
                case = self.case_from(read_span(f, start, end), i)
                for warning in _case_warnings(self.path, i, case, seen):
                    if warning not in known:
                        known.add(warning)
                        self.warnings.append(warning)
                yield case

    def case_at(self, index: int) -> EvalCase:
        """One case read again from the file (the runner reads each when it starts the case)."""
        with open_regular(self.path) as f:
            return self.case_from(read_span(f, self.layout.starts[index], self.layout.ends[index]), index)

    def case_from(self, data: bytes, index: int) -> EvalCase:
        at = f"$.eval_cases[{index}]"
        try:
            return EvalCase.model_validate_json(data)
        except (ValueError, RecursionError):
            pass
        try:  # the slow way, to name what is wrong where
            parsed = json.loads(decode_text(self.path, data))
        except (ValueError, RecursionError) as exc:
            raise InputError(Problem(self.path, at, f"not valid JSON: {str(exc)[:200]}")) from None
        check_data(self.path, parsed, prefix=at)
        try:
            return EvalCase.model_validate(parsed)
        except pydantic.ValidationError as exc:
            raise InputError(problems_from(exc, self.path, EvalCase, prefix=at)) from None


EvalSetFile = LoadedEvalSet | StreamedEvalSet


def no_case(path: str) -> Problem:
    """An eval set without a case would pass whatever the agent does: `run`, `validate` and
    `score` refuse it, as they refuse a glob that matches no file."""
    return Problem(path, "$.eval_cases", "no eval case: nothing in this eval set could fail the gate; add cases, or leave the file out")


def open_eval_set(path: str | Path) -> EvalSetFile:
    """An EvalSet file to read case by case; any of ADK's other formats (or a file with a
    mistake the whole-file reader names) is loaded whole."""
    name = Path(path).as_posix()
    found = eval_set_layout(path)
    if found is None:
        return load_eval_set(path)
    layout, header = found
    warnings = [Problem(name, f"$.{key}", "unknown key; google-adk ignores it") for key in header.model_extra or {}]
    return StreamedEvalSet(name, header.eval_set_id, layout, warnings)


def eval_set_layout(path: str | Path) -> tuple[ArrayLayout, EvalSet] | None:
    """Where the cases of an EvalSet-shaped file lie, and the file's other fields (an EvalSet
    without cases); None when the file is not such an object, as far as a quick look tells."""
    layout = array_layout(path, "eval_cases")
    if layout is None:
        return None
    try:
        return layout, EvalSet.model_validate_json(layout.rest)
    except (ValueError, RecursionError):
        return None


BUILTIN_EXPECTED = "expects a call of"  # how the warning below begins: a suite counting built-in tools drops it


def _builtin_expectations(name: str, i: int, case: EvalCase) -> list[Problem]:
    """An expected call of a built-in tool (google_search, code execution, ...): the model runs
    those itself and leaves no function call, so no trajectory metric can ever match it."""
    found = []
    for j, turn in enumerate(case.conversation or []):
        for call in turn.tool_calls:
            if call.name in BUILTIN_TOOLS:
                found.append(Problem(name, f"$.eval_cases[{i}].conversation[{j}].intermediate_data", (
                    f"{BUILTIN_EXPECTED} {call.name}, a built-in tool the model runs itself: it leaves no function call, so "
                    f"trajectory metrics (ADK's too) can never match it; drop it from the expected calls, or count built-in "
                    f"tools as calls with the suite's `builtin_tools: count` (docs/metrics.md)")))
    return found


def _case_warnings(name: str, i: int, case: EvalCase, seen: set[str]) -> list[Problem]:
    warnings = [Problem(name, f"$.eval_cases[{i}].{key}", "unknown key on an eval case; google-adk ignores it") for key in case.model_extra or {}]
    warnings += _builtin_expectations(name, i, case)
    if case.eval_id in seen:
        warnings.append(Problem(name, f"$.eval_cases[{i}].eval_id", f"duplicate eval_id {case.eval_id!r}"))
    seen.add(case.eval_id)
    return warnings



def load_eval_set(path: str | Path) -> LoadedEvalSet:
    """An EvalSet file, or a legacy raw list of queries (one case per file, as ADK)."""
    name, text = Path(path).as_posix(), read_text(path)
    by_suffix = parsed_by_suffix(name, text)
    if by_suffix is not None:
        other, data = by_suffix
        return _other_format(name, other.read(name, data))
    eval_set = valid_eval_set_json(text)
    if eval_set is not None:
        return LoadedEvalSet(name, eval_set, warnings=_eval_set_warnings(name, eval_set))
    return eval_set_from_data(name, parse_json_or_say_what(name, text))


def parse_json_or_say_what(name: str, text: str) -> Any:
    """The file's JSON; a file that is not JSON but a format we can name says so."""
    try:
        return parse_json(name, text)
    except InputError:
        problem = misnamed(name, text)
        if problem is None:
            raise
        raise InputError(problem) from None


def valid_eval_set_json(text: str) -> EvalSet | None:
    """Most files are valid EvalSets, and pydantic reads those straight from the text, a
    third faster than json.loads and then validating. Anything else (another of ADK's
    formats, or a mistake) is None and takes the path that tells them apart and says
    what is wrong where."""
    if not text.lstrip().startswith("{") or may_hold_lone_surrogate(text):
        return None  # a lone surrogate: the slow path says where
    try:
        return EvalSet.model_validate_json(text)
    except (ValueError, RecursionError):  # pydantic.ValidationError, or JSON pydantic will not read
        return None


def eval_set_from_data(name: str, data: Any) -> LoadedEvalSet:
    """Parsed JSON as an eval set, in whichever of ADK's formats it is."""
    other = format_of(data)
    if other is not None:
        return _other_format(name, other.read(name, data))
    if isinstance(data, list) and data and all(isinstance(row, dict) and "data" in row for row in data):
        return _load_old_eval_set(name, data)
    if isinstance(data, list):
        return _load_legacy(name, data)
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", f"expected an EvalSet object or a list of queries, got {type(data).__name__}"))
    if "scenarios" in data and "eval_cases" not in data:
        return _load_scenarios_file(name, data)
    try:
        eval_set = EvalSet.model_validate(data)
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, EvalSet)) from None
    return LoadedEvalSet(name, eval_set, warnings=_eval_set_warnings(name, eval_set))


def _other_format(name: str, read: tuple[EvalSet, list[Problem]]) -> LoadedEvalSet:
    """Another tool's format names no eval set: its id is its path."""
    eval_set, warnings = read
    return LoadedEvalSet(name, eval_set, warnings=warnings, made_up_id=True)


def _eval_set_warnings(name: str, eval_set: EvalSet) -> list[Problem]:
    warnings = [Problem(name, f"$.{key}", "unknown key; google-adk ignores it") for key in eval_set.model_extra or {}]
    for i, case in enumerate(eval_set.eval_cases):
        for key in case.model_extra or {}:
            warnings.append(Problem(name, f"$.eval_cases[{i}].{key}", "unknown key on an eval case; google-adk ignores it"))
        warnings += _builtin_expectations(name, i, case)
    seen: set[str] = set()
    for i, case in enumerate(eval_set.eval_cases):
        if case.eval_id in seen:
            warnings.append(Problem(name, f"$.eval_cases[{i}].eval_id", f"duplicate eval_id {case.eval_id!r}"))
        seen.add(case.eval_id)
    return warnings


def _load_scenarios_file(name: str, data: dict[str, Any]) -> LoadedEvalSet:
    """ADK's ConversationScenarios file (`adk eval_set add_eval_case --scenarios_file`): one
    scenario case per entry, named as ADK names it (first 8 hex digits of the SHA-256 of the
    scenario's JSON, keys sorted; a pre-built persona is hashed in our wording of it)."""
    try:
        scenarios = ConversationScenarios.model_validate(data).scenarios
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, ConversationScenarios)) from None
    cases = []
    for scenario in scenarios:
        dumped = scenario.model_copy(update={"user_persona": resolve_persona(scenario.user_persona)}).model_dump()
        eval_id = hashlib.sha256(json.dumps(dumped, sort_keys=True).encode("utf-8")).hexdigest()[:8]
        cases.append(EvalCase(eval_id=eval_id, conversation_scenario=scenario))
    eval_set = EvalSet(eval_set_id=name, name=name, eval_cases=cases)
    return LoadedEvalSet(name, eval_set, warnings=_eval_set_warnings(name, eval_set), made_up_id=True)


_LEGACY_KEYS = {"query", "expected_tool_use", "reference", "expected_intermediate_agent_responses"}


_OLD_CASE_KEYS = {"name", "data", "initial_session"}


def _load_old_eval_set(name: str, entries: list[dict[str, Any]]) -> LoadedEvalSet:
    """`adk eval`'s older eval set format: a list of {name, data: [queries], initial_session}."""
    problems: list[Problem] = []
    warnings: list[Problem] = []
    cases = []
    for i, entry in enumerate(entries):
        warnings += [
            Problem(name, f"$[{i}].{key}", "unknown key in an eval case of the old format; google-adk ignores it")
            for key in entry
            if key not in _OLD_CASE_KEYS
        ]
        if not isinstance(entry.get("name"), str) or not isinstance(entry.get("data"), list):
            problems.append(Problem(name, f"$[{i}]", "an old-format eval case needs `name` (a string) and `data` (a list of queries)"))
            continue
        invocations = _legacy_invocations(name, entry["data"], f"$[{i}].data", problems, warnings)
        try:
            session_input = session_from(name, f"$[{i}].initial_session", entry.get("initial_session"))
        except InputError as exc:
            problems += exc.problems
            continue
        cases.append(EvalCase(eval_id=entry["name"], conversation=invocations, session_input=session_input))
    if problems:
        raise InputError(problems)
    return LoadedEvalSet(name, EvalSet(eval_set_id=name, name=name, eval_cases=cases), legacy=True, warnings=warnings, made_up_id=True)


def session_from(file: str, at: str, data: Any) -> SessionInput | None:
    """An ADK session (`app_name`, `user_id`, `state`) as a case's session_input, read as
    AgentEvaluator reads its initial session: missing names are empty; nothing (null, `{}`)
    is no session; anything else that is not such an object is a problem at `at`."""
    if data is None or data == {}:
        return None
    if not isinstance(data, dict):
        raise InputError(Problem(file, at, f"a session must be an object with app_name, user_id and state, got {json.dumps(data)[:40]}"))
    problems = [Problem(file, f"{at}.{key}", "must be a string") for key in ("app_name", "user_id") if not isinstance(data.get(key, ""), str)]
    if not isinstance(data.get("state", {}), dict):
        problems.append(Problem(file, f"{at}.state", "must be an object"))
    if problems:
        raise InputError(problems)
    return SessionInput(app_name=data.get("app_name", ""), user_id=data.get("user_id", ""), state=data.get("state", {}))


def _load_legacy(name: str, rows: list[Any]) -> LoadedEvalSet:
    problems: list[Problem] = []
    warnings: list[Problem] = []
    invocations = _legacy_invocations(name, rows, "$", problems, warnings)
    if problems:
        raise InputError(problems)
    case = EvalCase(eval_id=name, conversation=invocations)
    # ADK gives a legacy file a random eval_set_id; a stable one keeps baselines comparable.
    return LoadedEvalSet(name, EvalSet(eval_set_id=name, name=name, eval_cases=[case]), legacy=True, warnings=warnings, made_up_id=True)


def _legacy_invocations(
    name: str, rows: list[Any], prefix: str, problems: list[Problem], warnings: list[Problem]
) -> list[Invocation]:
    invocations: list[Invocation] = []
    for i, row in enumerate(rows):
        at = f"{prefix}[{i}]"
        if not isinstance(row, dict):
            problems.append(Problem(name, at, f"each entry of a legacy test file must be an object, got {type(row).__name__}"))
            continue
        warnings += [
            Problem(name, f"{at}.{key}", "unknown key in a legacy query; google-adk ignores it")
            for key in row
            if key not in _LEGACY_KEYS
        ]
        try:
            invocations.append(_legacy_invocation(row))
        except (KeyError, TypeError, ValueError, pydantic.ValidationError) as exc:
            problems.append(Problem(name, at, _legacy_problem(exc)))
    return invocations


def _legacy_problem(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"required key {exc.args[0]!r} is missing (legacy queries have query, expected_tool_use [tool_name, tool_input], reference)"
    return f"not a valid legacy query: {exc}"


def _legacy_invocation(row: dict[str, Any]) -> Invocation:
    tool_uses = [FunctionCall(name=t["tool_name"], args=t["tool_input"]) for t in row.get("expected_tool_use", [])]
    responses = [
        (r["author"], [Part(text=r["text"])]) for r in row.get("expected_intermediate_agent_responses", [])
    ]
    if not isinstance(row["query"], str):
        raise ValueError("`query` must be a string")
    return Invocation(
        invocation_id=str(uuid.uuid4()),
        user_content=Content.from_text(row["query"], "user"),
        final_response=Content.from_text(row.get("reference", ""), "model"),
        intermediate_data=IntermediateData(tool_uses=tool_uses, intermediate_responses=responses),
    )
