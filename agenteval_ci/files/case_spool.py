"""Cases set aside on disk to be read back once, in the order written: a private temporary
file (deleted when closed or when the process ends), one case's JSON a line. What
`judge-agreement` keeps of the first judge's verdicts while the second judges the same cases."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

from ..schema import CaseResult
from .results_file import case_json


class CaseSpool:
    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()

    def add(self, case: CaseResult) -> None:
        self._file.write(case_json(case) + b"\n")  # compact JSON never holds a raw newline

    def __iter__(self) -> Iterator[CaseResult]:
        """The cases written, in order, a line at a time."""
        self._file.seek(0)
        for line in self._file:
            yield CaseResult.model_validate_json(line)

    def close(self) -> None:
        self._file.close()
