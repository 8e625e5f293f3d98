"""The baseline's recorded answers, case by case, for head_to_head_v1 (core/head_to_head.py).

Read once, on the first case that asks: the baseline, then the recorded outputs beside it
(files/baseline_outputs.py) of every baseline case, held for the run. A run whose metrics never
compare head to head reads nothing. Each case gets its baseline's recorded runs when the
baseline has the same test (the same fingerprint), else the reason it has none.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import AgentevalError
from ..schema import RunRecord
from ..schema.baseline import Baseline
from ..schema.recorded_outputs import RecordedCase
from .baseline_file import load_baseline
from .baseline_outputs import outputs_path, read_outputs

Answers = tuple[list[RunRecord] | None, str]  # the recorded runs, or None and why there are none


class BaselineAnswers:
    def __init__(self, baseline_path: str | Path, *, required: bool = False) -> None:
        self.path = Path(baseline_path)
        self.required = required
        self._loaded = False
        self._baseline: Baseline | None = None
        self._records: dict[str, RecordedCase] = {}
        self._unreadable = ""

    def of(self, suite: str, eval_set_id: str, eval_id: str, fingerprint: str) -> Answers:
        self._load()
        if self._unreadable:
            return None, self._unreadable
        if self._baseline is None:
            return None, f"no baseline at {self.path.as_posix()} yet"
        old = self._baseline.case(suite, eval_set_id, eval_id)
        if old is None:
            return None, "a case new since the baseline"
        if old.fingerprint != fingerprint:
            return None, "the case changed since the baseline (user turns, expected tools or responses, rubrics)"
        record = self._records.get(old.outputs or "")
        if record is None:
            return None, f"the baseline's recorded outputs ({outputs_path(self.path).as_posix()}) do not hold this case"
        return record.runs, ""

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        try:
            self._baseline = load_baseline(self.path, required=self.required)
            if self._baseline is not None:
                wanted = {case.outputs for sets in self._baseline.suites.values() for cases in sets.values()
                          for case in cases.values() if case.outputs}
                self._records = read_outputs(outputs_path(self.path), wanted)
        except AgentevalError as exc:  # the gate says what is wrong with the baseline; here, why no answer
            self._unreadable = f"the baseline cannot be read: {exc}"
