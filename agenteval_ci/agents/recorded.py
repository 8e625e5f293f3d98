"""Recorded agent outputs for `agenteval score` ("bring your own predictions").

An ACTUAL file is one of:
- an EvalSet-shaped file whose cases (same eval_ids) hold the agent's actual invocations;
- an ADK `*.evalset_result.json` (ADK writes it as a JSON string inside JSON; both read);
- an agenteval results file: each of its runs becomes a run here (re-scoring without re-running);
- an OTLP/JSON trace export: each case's session becomes a run (agents/traces/recorded.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Optional, Protocol, Union

import pydantic
from pydantic.alias_generators import to_camel

from ..errors import InputError, Problem
from ..files.eval_sets import StreamedEvalSet, eval_set_from_data, eval_set_layout, valid_eval_set_json
from ..files.json_stream import ArrayLayout, read_span
from ..files.readers import open_regular, parse_json, read_text
from ..files.results import ResultsFile, is_results_file, results_from_data
from ..schema import CaseResult, EvalCase, EvalSet, Invocation, RunRecord
from ..schema._base import AdkModel
from ..schema.problems import problems_from
from .traces.otlp import OtlpError
from .traces.recorded import looks_like_otlp, runs_from_spans, spans_from_text

RunsByCase = dict[str, list[RunRecord]]
ADK_FAILED = 2  # google-adk's EvalStatus.FAILED


class _AdkResultModel(AdkModel):
    """The parts of ADK's EvalSetResult we read; the rest (metric results, sessions) is ignored."""

    model_config = pydantic.ConfigDict(extra="ignore")


class _PerInvocation(_AdkResultModel):
    actual_invocation: Invocation


class _CaseResult(_AdkResultModel):
    eval_id: str
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
    eval_case_results: list[_CaseResult] = []


# Keys that make a file one of the other formats below, even if it also reads as an EvalSet.
_OTHER_FORMATS_KEYS = {"schema_version", "eval_case_results", "evalCaseResults"}


def load_actuals(path: str | Path, cases: Optional[list[EvalCase]] = None) -> RunsByCase:
    """eval_id -> the runs recorded in this file (one per file, except results files). A trace
    export is read against `cases` (their sessions and user turns)."""
    name, text = Path(path).as_posix(), read_text(path)
    if looks_like_otlp(text):
        return _from_traces(name, text, cases or [])
    eval_set = valid_eval_set_json(text)
    if eval_set is not None and not (eval_set.model_extra or {}).keys() & _OTHER_FORMATS_KEYS:
        return _from_eval_set(name, eval_set)
    data: Any = parse_json(name, text)
    if isinstance(data, str):  # ADK's double-encoded evalset_result.json
        data = parse_json(f"{name} (the JSON inside its string)", data)
    if isinstance(data, list):  # a legacy test file or the old eval set format: read as the loader does
        return _from_eval_set(name, eval_set_from_data(name, data).eval_set)
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


def _from_eval_set(name: str, data: dict[str, Any] | EvalSet) -> RunsByCase:
    eval_set = data if isinstance(data, EvalSet) else _validate(EvalSet, name, data)
    runs: RunsByCase = {}
    for i, case in enumerate(eval_set.eval_cases):
        if case.conversation is None:
            raise InputError(Problem(name, f"$.eval_cases[{i}]", "an actual case must hold the agent's `conversation`"))
        runs[case.eval_id] = [RunRecord(invocations=case.conversation)]
    return runs


def _from_adk_result(name: str, data: dict[str, Any]) -> RunsByCase:
    result = _validate(_EvalSetResult, name, data)
    return {c.eval_id: [c.run()] for c in result.eval_case_results}


def _from_traces(name: str, text: str, cases: list[EvalCase]) -> RunsByCase:
    try:
        spans = spans_from_text(text)
    except OtlpError as exc:
        raise InputError(Problem(name, "$", f"not an OTLP/JSON trace export: {exc}")) from None
    return runs_from_spans(spans, cases)


def _from_results(name: str, data: dict[str, Any]) -> RunsByCase:
    return {c.eval_id: list(c.runs) for c in results_from_data(name, data).cases}


# ---------------------------------------------------------------- case by case


class RecordedRuns(Protocol):
    """One ACTUAL file's runs, asked for case by case in the eval set's order."""

    name: str

    def runs(self, eval_id: str) -> list[RunRecord] | None:
        """The case's recorded runs; None when the file has none for it."""
        ...

    def unknown(self) -> list[str]:
        """Once every case was asked for: the eval_ids recorded that no case asked for."""
        ...


@dataclass
class InMemory:
    """A file read whole (a trace export, ADK's evalset_result, a legacy list, an old results file)."""

    name: str
    by_case: RunsByCase
    asked: set[str] = field(default_factory=set)

    def runs(self, eval_id: str) -> list[RunRecord] | None:
        self.asked.add(eval_id)
        return self.by_case.get(eval_id)

    def unknown(self) -> list[str]:
        return sorted(set(self.by_case) - self.asked)


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
    while the orders agree (holding nothing per case); else the file is read once for where its
    cases lie (kept on disk, files/spill.py) and each case is read from there."""

    def __init__(self, file: ResultsFile) -> None:
        self.name = file.name
        self._file = file
        self._lines = file.case_lines()
        self._waiting: CaseResult | None = None
        self._taken = 0  # the cases read in step: each was asked for
        self._keys: dict[str, str] | None = None  # once off step: eval_id -> the file's key
        self._asked: set[str] = set()

    def runs(self, eval_id: str) -> list[RunRecord] | None:
        if self._keys is None:
            case = self._waiting or self._next_case()
            self._waiting = None
            if case is not None and case.eval_id == eval_id:
                self._taken += 1
                return list(case.runs)
            self._waiting = case
            self._keys, self._asked = self._where()
        self._asked.add(eval_id)
        key = self._keys.get(eval_id)
        return None if key is None else list(self._file.fetch([key])[key].runs)

    def unknown(self) -> list[str]:
        if self._keys is not None:
            return sorted(set(self._keys) - self._asked)
        rest = {self._file.digest_at(line, i).eval_id for i, line in self._lines}  # to the end, as the index would read
        if rest:
            rest.difference_update(self._file.digest_at(line, i).eval_id for i, line in itertools.islice(self._file.case_lines(), self._taken))
        return sorted(rest)

    def _next_case(self) -> CaseResult | None:
        found = next(self._lines, None)
        return None if found is None else self._file.case_at(found[1], found[0])

    def _where(self) -> tuple[dict[str, str], set[str]]:
        """Each eval_id's key in the file (the file's digests go to disk, with where each case
        lies), and the eval_ids of the cases read in step."""
        digests = self._file.digest().cases
        return {d.eval_id: d.key for d in digests}, {d.eval_id for d in itertools.islice(digests, self._taken)}


def open_actuals(path: str | Path, eval_set: Callable[[], list[EvalCase]]) -> RecordedRuns:
    """An ACTUAL file to read case by case when its format allows (EvalSet-shaped, our results);
    other formats are read whole (`eval_set` gives the cases a trace export is matched to)."""
    name = Path(path).as_posix()
    if is_results_file(path):
        return ResultsShaped(ResultsFile(path))
    found = eval_set_layout(path)
    if found is not None and not (found[1].model_extra or {}).keys() & _OTHER_FORMATS_KEYS:
        return EvalSetShaped(name, found[0])
    return InMemory(name, load_actuals(path, eval_set()))
