"""Progress of a run: a bar on a terminal, periodic plain lines in CI logs.

Writes to stderr so `--json -` keeps stdout for the results file.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import TextIO


def wants_bar(stream: TextIO, env: Mapping[str, str]) -> bool:
    """A bar only on a real terminal outside CI; CI logs get plain lines."""
    ci = env.get("CI", "").lower() in ("1", "true", "yes")
    return stream.isatty() and not ci


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, bar: bool = False, every_seconds: float = 10.0, quiet: bool = False):
        self.total = total
        self.quiet = quiet  # `--quiet`: count, print nothing
        self.done = 0
        self.failed = 0
        self.again = 0  # cases run again in later rounds (num_runs: auto)
        self._stream = stream or sys.stderr
        self._bar = bar
        self._every = every_seconds
        self._started = time.monotonic()
        self._last_line = self._started

    def case_done(self, failed: bool) -> None:
        self.done += 1
        self.failed += failed
        now = time.monotonic()
        if self._bar:
            self._write("\r" + self.status_line(now, width=30))
        elif now - self._last_line >= self._every:
            self._last_line = now
            self._write(self.status_line(now) + "\n")

    def another_round(self, cases: int, note: str) -> None:
        """`num_runs: auto` runs some cases again: they count as more work."""
        self.total += cases
        self.again += cases
        self._write(f"{chr(10) if self._bar else ''}agenteval: {note}\n")

    def finish(self) -> None:
        now = time.monotonic()
        if self._bar:
            self._write("\r" + self.status_line(now, width=30) + "\n")
        self._write(
            f"agenteval: ran {self.done - self.again} case(s){f' (+{self.again} re-run(s))' if self.again else ''} in {now - self._started:.1f}s, "
            f"{self.failed} with a failed or timed-out run\n"
        )

    def status_line(self, now: float, width: int = 0) -> str:
        elapsed = now - self._started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        text = f"{self.done}/{self.total} cases, {self.failed} failed, {elapsed:.1f}s, {rate:.1f} cases/s"
        if not width:
            return "agenteval: " + text
        filled = int(width * self.done / self.total) if self.total else width
        return f"[{'#' * filled}{'.' * (width - filled)}] {text}"

    def _write(self, text: str) -> None:
        if self.quiet:
            return
        self._stream.write(text)
        self._stream.flush()
