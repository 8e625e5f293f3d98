"""Recorded agent outputs for `agenteval score` ("bring your own predictions").

An ACTUAL file is one of:
- an EvalSet-shaped file whose cases (same eval_ids) hold the agent's actual invocations;
- an ADK `*.evalset_result.json` (ADK writes it as a JSON string inside JSON; both read);
- an agenteval results file: each of its runs becomes a run here (re-scoring without re-running);
- an OTLP/JSON trace export: each case's session becomes a run (agents/traces/recorded.py);
- another tool's format registered in files/formats/: the traces `agents-cli eval generate`
  writes, Vertex AI rows with `response` and `predicted_trajectory` (JSONL, CSV, a JSON list).

A recorded case is matched to an eval case on its key, as far as its file names it (KeyMatch):
the same eval_id of the same eval set, and of one suite when a results file holds the case
under several. Cases of other eval sets are passed by, and counted for a note.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Generic, NamedTuple, Optional, Protocol, TypeVar, Union

import pydantic
from pydantic.alias_generators import to_camel

from ..errors import InputError, Problem
from ..files.eval_sets import StreamedEvalSet, eval_set_from_data, eval_set_layout, parse_json_or_say_what, valid_eval_set_json
from ..files.formats import format_of, parsed_by_suffix
from ..files.json_stream import ArrayLayout, read_span
from ..files.readers import open_regular, parse_json, read_text
from ..files.results_file import ResultsFile, is_results_file, results_from_data
from ..schema import EvalCase, EvalSet, Invocation, RunRecord
from ..schema._base import AdkModel
from ..schema.problems import problems_from
from .traces.otlp import OtlpError
from .traces.recorded import looks_like_otlp, runs_from_spans, spans_from_text

ADK_FAILED = 2  # google-adk's EvalStatus.FAILED
Where = TypeVar("Where")  # how a reader finds a recorded case again: its runs, its place, its key


class CaseRef(NamedTuple):
    """Which case a recorded output is of, as far as its file says: None where it says nothing
    (a legacy list, a trace export or an older ADK result names no eval set; only our results
    files name a suite)."""

    eval_set_id: Optional[str]
    eval_id: str
    suite: Optional[str] = None


RunsByCase = dict[CaseRef, list[RunRecord]]


@dataclass(frozen=True)
class KeyMatch:
    """The eval set being scored (None when its file names none: a legacy list, a scenarios
    file), and the suite `score` records it under (--suite)."""

    eval_set_id: Optional[str]
    suite: str

    def takes(self, ref: CaseRef) -> bool:
        """A recorded case of this eval set (a file that names no eval set is taken as this one's)."""
        return None in (ref.eval_set_id, self.eval_set_id) or ref.eval_set_id == self.eval_set_id


class CaseIndex(Generic[Where]):
    """A file's recorded cases of one eval set by eval_id (the others counted by eval set): a
    case held under several suites is the --suite one's, else an error naming the suites."""

    def __init__(self, name: str, match: KeyMatch, recorded: Iterable[tuple[CaseRef, Where]]) -> None:
        self.name = name
        self.match = match
        self.by_id: dict[str, dict[Optional[str], Where]] = {}
        self.others: Counter[str] = Counter()
        for ref, where in recorded:
            if match.takes(ref):
                self.by_id.setdefault(ref.eval_id, {}).setdefault(ref.suite, where)
            else:
                self.others[str(ref.eval_set_id)] += 1

    def find(self, eval_id: str) -> Optional[Where]:
        by_suite = self.by_id.get(eval_id)
        if not by_suite:
            return None
        if self.match.suite in by_suite:
            return by_suite[self.match.suite]
        if len(by_suite) == 1:
            return next(iter(by_suite.values()))
        suites = ", ".join(repr(s) for s in by_suite)
        raise InputError(Problem(self.name, "$", f"case {eval_id!r} is recorded under suites {suites}: name the one to score with --suite"))


class _AdkResultModel(AdkModel):
    """The parts of ADK's EvalSetResult we read; the rest (metric results, sessions) is ignored."""

    model_config = pydantic.ConfigDict(extra="ignore")


class _PerInvocation(_AdkResultModel):
    actual_invocation: Invocation


class _CaseResult(_AdkResultModel):
    eval_id: str
    eval_set_id: Optional[str] = None  # ADK writes "" when it does not know
    final_eval_status: Optional[Union[int, str]] = None  # ADK's EvalStatus: 1 PASSED, 2 FAILED, 3 NOT_EVALUATED
    eval_metric_result_per_invocation: list[_PerInvocation] = []

    def run(self) -> RunRecord:
        """ADK writes a case whose inference failed (the agent raised) as FAILED with no
        invocations: that run failed, it is not a case with nothing to evaluate."""
        invocations = [p.actual_invocation for p in self.eval_metric_result_per_invocation]
        failed = self.final_eval_status in (ADK_FAILED, "FAILED")
        error = "google-adk recorded this case as FAILED with no invocations: the agent's run failed" if failed and not invocations else None
        return RunRecord(invocations=invocations, error=error)


class _EvalSetResult(_AdkResultModel):
    eval_set_result_id: str
    eval_set_id: Optional[str] = None  # required by google-adk 2.13, absent from older results
    eval_case_results: list[_CaseResult] = []


# Keys that make a file one of the other formats below, even if it also reads as an EvalSet.
_OTHER_FORMATS_KEYS = {"schema_version", "eval_case_results", "evalCaseResults"}


def load_actuals(path: str | Path, cases: Optional[list[EvalCase]] = None) -> RunsByCase:
    """Each recorded case -> its runs in this file (one per file, except results files). A trace
    export is read against `cases` (their sessions and user turns), so they are its cases."""
    name, text = Path(path).as_posix(), read_text(path)
    if looks_like_otlp(text):  # before the suffixes: an OTLP export is JSON Lines too (traces.jsonl)
        return _from_traces(name, text, cases or [])
    by_suffix = parsed_by_suffix(name, text)
    if by_suffix is not None:
        text_format, rows = by_suffix
        return _from_other_format(text_format.read_traces(name, rows))
    eval_set = valid_eval_set_json(text)
    if eval_set is not None and not (eval_set.model_extra or {}).keys() & _OTHER_FORMATS_KEYS:
        return _from_eval_set(name, eval_set)
    data: Any = parse_json_or_say_what(name, text)
    if isinstance(data, str):  # ADK's double-encoded evalset_result.json
        data = parse_json(f"{name} (the JSON inside its string)", data)
    other = format_of(data)
    if other is not None:
        return _from_other_format(other.read_traces(name, data))
    if isinstance(data, list):  # a legacy test file or the old eval set format: its id is made up from the file name
        return _from_eval_set(name, eval_set_from_data(name, data).eval_set, named=False)
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", "expected an EvalSet, an ADK evalset_result or an agenteval results file"))
    if "schema_version" in data:
        return _from_results(name, data)
    if "eval_case_results" in data or "evalCaseResults" in data:
        return _from_adk_result(name, data)
    return _from_eval_set(name, data)


def _validate(model: type[pydantic.BaseModel], name: str, data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, model)) from None


def _from_eval_set(name: str, data: dict[str, Any] | EvalSet, named: bool = True) -> RunsByCase:
    eval_set = data if isinstance(data, EvalSet) else _validate(EvalSet, name, data)
    runs: RunsByCase = {}
    for i, case in enumerate(eval_set.eval_cases):
        if case.conversation is None:
            raise InputError(Problem(name, f"$.eval_cases[{i}]", "an actual case must hold the agent's `conversation`"))
        runs[CaseRef(eval_set.eval_set_id if named else None, case.eval_id)] = [RunRecord(invocations=case.conversation)]
    return runs


def _from_other_format(traces: dict[str, list[Invocation]]) -> RunsByCase:
    """Another tool's recorded outputs name no eval set: matched on the case's id alone."""
    return {CaseRef(None, eval_id): [RunRecord(invocations=turns)] for eval_id, turns in traces.items()}


def _from_adk_result(name: str, data: dict[str, Any]) -> RunsByCase:
    result = _validate(_EvalSetResult, name, data)
    return {CaseRef(c.eval_set_id or result.eval_set_id or None, c.eval_id): [c.run()] for c in result.eval_case_results}


def _from_traces(name: str, text: str, cases: list[EvalCase]) -> RunsByCase:
    try:
        spans = spans_from_text(text)
    except OtlpError as exc:
        raise InputError(Problem(name, "$", f"not an OTLP/JSON trace export: {exc}")) from None
    return {CaseRef(None, eval_id): runs for eval_id, runs in runs_from_spans(spans, cases).items()}


def _from_results(name: str, data: dict[str, Any]) -> RunsByCase:
    return {CaseRef(c.eval_set_id, c.eval_id, c.suite): list(c.runs) for c in results_from_data(name, data).cases}


# ---------------------------------------------------------------- case by case


class RecordedRuns(Protocol):
    """One ACTUAL file's runs of one eval set, asked for case by case in the eval set's order."""

    name: str

    def runs(self, eval_id: str) -> list[RunRecord] | None:
        """The case's recorded runs; None when the file has none for it."""
        ...

    def unknown(self) -> list[str]:
        """Once every case was asked for: the eval_ids of this eval set recorded that no case asked for."""
        ...

    def other_eval_sets(self) -> Counter[str]:
        """Once every case was asked for: how many cases of each other eval set the file holds (passed by)."""
        ...


@dataclass
class InMemory:
    """A file read whole (a trace export, ADK's evalset_result, a legacy list, an old results file)."""

    name: str
    index: CaseIndex[list[RunRecord]]
    asked: set[str] = field(default_factory=set)

    def runs(self, eval_id: str) -> list[RunRecord] | None:
        self.asked.add(eval_id)
        return self.index.find(eval_id)

    def unknown(self) -> list[str]:
        return sorted(set(self.index.by_id) - self.asked)

    def other_eval_sets(self) -> Counter[str]:
        return self.index.others


@dataclass
class OtherEvalSet:
    """An EvalSet-shaped file of another eval set: none of its cases are this eval set's."""

    name: str
    eval_set_id: str
    cases: int

    def runs(self, eval_id: str) -> list[RunRecord] | None:
        return None

    def unknown(self) -> list[str]:
        return []

    def other_eval_sets(self) -> Counter[str]:
        return Counter({self.eval_set_id: self.cases})


class _EvalIdOnly(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore", alias_generator=to_camel, populate_by_name=True)

    eval_id: str


class EvalSetShaped:
    """An EvalSet-shaped file read case by case: in step with the eval set while the two keep
    the same order (holding nothing per case); where they part, an index of where each eval_id
    lies is made once (a pass that reads only the ids), and each case is read from there."""

    def __init__(self, name: str, layout: ArrayLayout) -> None:
        self.name = name
        self._layout = layout
        self._next = 0  # the element read in step: every element before it was asked for
        self._index: dict[str, int] | None = None
        self._asked: set[str] = set()  # once off step: the ids asked for that the file has
        self._file: BinaryIO | None = None

    def __del__(self) -> None:
        if self._file is not None:
            self._file.close()

    def runs(self, eval_id: str) -> list[RunRecord] | None:
        if self._index is None and self._next < len(self._layout):
            case = self._read(self._next)
            if case.eval_id == eval_id:
                self._next += 1
                return [RunRecord(invocations=case.conversation or [])]
        if self._index is None:
            self._index = {eval_id: i for i, eval_id in self._ids()}
            self._asked = {eval_id for i, eval_id in self._ids() if i < self._next}
        at = self._index.get(eval_id)
        if at is None:
            return None
        self._asked.add(eval_id)
        return [RunRecord(invocations=self._read(at).conversation or [])]

    def unknown(self) -> list[str]:
        if self._index is not None:
            return sorted(set(self._index) - self._asked)
        if self._next == len(self._layout):
            return []
        rest = {eval_id for i, eval_id in self._ids() if i >= self._next}  # every element read, as the index would
        if rest:
            rest.difference_update(eval_id for i, eval_id in itertools.takewhile(lambda found: found[0] < self._next, self._ids()))
        return sorted(rest)

    def other_eval_sets(self) -> Counter[str]:
        return Counter()  # open_actuals reads a file of another eval set as OtherEvalSet

    def _span(self, i: int) -> bytes:
        if self._file is None:
            self._file = open_regular(self.name)  # held while the cases are asked for; closed with this reader
        return read_span(self._file, self._layout.starts[i], self._layout.ends[i])

    def _read(self, i: int) -> EvalCase:
        case = StreamedEvalSet(self.name, "", self._layout).case_from(self._span(i), i)
        if case.conversation is None:
            raise InputError(Problem(self.name, f"$.eval_cases[{i}]", "an actual case must hold the agent's `conversation`"))
        return case

    def _ids(self) -> Iterator[tuple[int, str]]:
        """Each element's place and eval_id, in file order."""
        with open_regular(self.name) as f:
            for i, (start, end) in enumerate(zip(self._layout.starts, self._layout.ends)):
                try:
                    yield i, _EvalIdOnly.model_validate_json(read_span(f, start, end)).eval_id
                except pydantic.ValidationError:
                    self._read(i)  # says what is wrong with it


class ResultsShaped:
    """A results file of ours read case by case: each of a case's runs is a run here. In step
    while the file's cases are this suite's and eval set's in the same order (holding nothing per
    case); else the file is read once for where its cases lie (kept on disk, files/spill.py) and
    each case is read from there."""

    def __init__(self, file: ResultsFile, match: KeyMatch) -> None:
        self.name = file.name
        self._file = file
        self._match = match
        self._lines = file.case_lines()
        self._taken = 0  # the cases read in step: each was asked for
        self._index: CaseIndex[str] | None = None  # once off step: where each case lies (its key)
        self._asked: set[str] = set()  # once off step: the eval_ids asked for

    def runs(self, eval_id: str) -> list[RunRecord] | None:
        if self._index is None:
            found = next(self._lines, None)
            case = None if found is None else self._file.case_at(found[1], found[0])
            if case is not None and case.suite == self._match.suite and self._match.takes(CaseRef(case.eval_set_id, case.eval_id)) and case.eval_id == eval_id:
                self._taken += 1
                return list(case.runs)
            self._index = self._where()
        self._asked.add(eval_id)
        key = self._index.find(eval_id)
        return None if key is None else list(self._file.fetch([key])[key].runs)

    def unknown(self) -> list[str]:
        if self._index is None and next(self._lines, None) is None:
            return []  # every case was read in step
        if self._index is None:
            self._index = self._where()
        return sorted(set(self._index.by_id) - self._asked)

    def other_eval_sets(self) -> Counter[str]:
        return self._index.others if self._index is not None else Counter()

    def _where(self) -> CaseIndex[str]:
        """Each case's key in the file, by eval_id (the file's digests go to disk, with where each
        case lies); the cases read in step count as asked for."""
        digests = self._file.digest().cases
        self._asked.update(d.eval_id for d in itertools.islice(digests, self._taken))
        return CaseIndex(self.name, self._match, ((CaseRef(d.eval_set_id, d.eval_id, d.suite), d.key) for d in digests))


def open_actuals(path: str | Path, match: KeyMatch, eval_set: Callable[[], list[EvalCase]]) -> RecordedRuns:
    """An ACTUAL file's runs of the eval set `match` names, to read case by case when its format
    allows (EvalSet-shaped, our results); other formats are read whole (`eval_set` gives the
    cases a trace export is matched to)."""
    name = Path(path).as_posix()
    if is_results_file(path):
        return ResultsShaped(ResultsFile(path), match)
    found = eval_set_layout(path)
    if found is not None and not (found[1].model_extra or {}).keys() & _OTHER_FORMATS_KEYS:
        layout, head = found
        if not match.takes(CaseRef(head.eval_set_id, "")):
            return OtherEvalSet(name, head.eval_set_id, len(layout))
        return EvalSetShaped(name, layout)
    return InMemory(name, CaseIndex(name, match, load_actuals(path, eval_set()).items()))
