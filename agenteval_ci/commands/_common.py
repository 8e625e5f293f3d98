"""What the commands share: where their results go, how the table looks, how much they say."""

from __future__ import annotations

import errno
import fnmatch
import gc
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol, TypeVar

from ..agents.logs import DEFAULT_CONSOLE_LEVEL
from ..core.digest import ResultsDigest, ScoredCase, ScoredResults, digest
from ..errors import Problem, UsageError
from ..files.dotenv import load_agent_dotenv
from ..files.readers import printable, regular_or_kind
from ..files.results_file import ResultsFile, results_file
from ..files.spill import SpilledDigests
from ..report.console import PLAIN, Style
from ..report.judged_blind import JudgedBlind
from ..report.table import Table
from ..schema import CaseResult, Results

if TYPE_CHECKING:
    from ..core.gate import Comparison
    from ..files.project import Suite


@dataclass(frozen=True)
class Done:
    """What every command ends with: the process's exit code."""

    exit_code: int


@dataclass(frozen=True)
class Output:
    """Where a command's results file goes and how its table is printed."""

    json: str | None = None  # the results file ('-' for stdout)
    detailed: bool = False  # adk eval's per-turn details
    quiet: bool = False  # no table
    style: Style = PLAIN


@dataclass(frozen=True)
class Verbosity:
    """`-q` and `--log-level`, the same on every command. The level is that of everything
    logged: agenteval's notes (INFO) and warnings, and the agent's own log (`run`, `init`);
    `-q` also drops the routine lines (tables, progress, one line per file written or checked)."""

    quiet: bool = False
    log_level: str | None = None  # one of agents.logs.LEVELS; None: WARNING, or ERROR with `quiet`

    @property
    def level(self) -> str:
        return self.log_level or ("ERROR" if self.quiet else DEFAULT_CONSOLE_LEVEL)

    def shows(self, level: str) -> bool:
        return bool(logging.getLevelName(level) >= logging.getLevelName(self.level))

    @contextmanager
    def applied(self) -> Iterator[None]:
        """While a command runs: what `say`, `note` and `print_warnings` print."""
        token = _VERBOSITY.set(self)
        try:
            yield
        finally:
            _VERBOSITY.reset(token)


_VERBOSITY: ContextVar[Verbosity | None] = ContextVar("verbosity", default=None)


def _current() -> Verbosity:
    return _VERBOSITY.get() or Verbosity()


class _Spoken(Protocol):
    @property
    def verbosity(self) -> Verbosity: ...


SettingsT = TypeVar("SettingsT", bound=_Spoken)
DoneT = TypeVar("DoneT", bound=Done)


def applies_verbosity(command: Callable[[SettingsT], DoneT]) -> Callable[[SettingsT], DoneT]:
    """A command that prints as its settings' `verbosity` says."""
    @wraps(command)
    def run(settings: SettingsT) -> DoneT:
        with settings.verbosity.applied():
            return command(settings)

    return run


def say(text: str = "") -> None:
    """A routine line (`wrote agenteval.yaml`, `ok file`): not with `-q`."""
    if not _current().quiet:
        print(text)


def note(text: str) -> None:
    """Something worth knowing that nobody asked about: from `--log-level INFO`."""
    if _current().shows("INFO"):
        print(f"note: {text}", file=sys.stderr)


def print_warnings(warnings: Iterable[Problem | str]) -> None:
    if not _current().shows("WARNING"):
        return
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: reference counting frees acyclic records, and
    the collector's passes over tens of thousands of live ones cost ~10% of `score`."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class SavedResults:
    """A command's results, written case by case as they are scored (`add`), then `close`d with
    the fields known at the end. Each case's digest is kept on disk with where its line lies
    (files/spill.py: memory stays flat however many cases); the file is read again for what
    needs whole cases (a report's diffs, the detailed table). No path: digests only. Made by
    `saved_results`, which also cleans up."""

    def __init__(self, path: str | None, spooled: bool = False) -> None:
        self.path = path
        self.spooled = spooled  # a temp file standing in for stdout
        self._file = results_file(path) if path else None
        self._writer = self._file.__enter__() if self._file else None
        self.digests = SpilledDigests()
        self.blind = JudgedBlind()
        self.closed = False

    def add(self, case: CaseResult) -> None:
        at = self._writer.add(case) if self._writer is not None else None
        self.digests.add(digest(case), *(at or (0, 0)))
        self.blind.add(case)

    def close(self, header: Results, load_warnings: Iterable[Problem | str] = ()) -> ResultsDigest:
        """The file finished: the load warnings, and those about the scores (printed now)."""
        about_scores = self.blind.warnings()
        print_warnings(about_scores)
        header = header.model_copy(update={"warnings": [*(str(w) for w in load_warnings), *header.warnings, *about_scores]})
        if self._file is None or self._writer is None or self.path is None:
            return ResultsDigest(header, self.digests, _nothing)
        self._writer.finish(header)
        self._file.__exit__(None, None, None)
        self.closed = True
        return ResultsDigest(header, self.digests, ResultsFile(self.path).located_by(self.digests).fetch)

    def whole(self) -> Iterable[CaseResult] | None:
        """The whole cases, read from the file again (for `--detailed`)."""
        return ResultsFile(self.path) if self.closed and self.path else None


def _nothing(keys: Iterable[str]) -> dict[str, CaseResult]:
    return {}


@contextmanager
def saved_results(path: str | None) -> Iterator[SavedResults]:
    """Results written as they come. If the block fails, nothing is written (the temp file goes).
    `-` goes to stdout through a temp file, copied out at the end, so it can be read again too."""
    spool = None
    if path == "-":
        fd, spool = tempfile.mkstemp(prefix="agenteval-results-", suffix=".json")
        os.close(fd)
    saved = SavedResults(spool or path, spooled=spool is not None)
    try:
        yield saved
    except BaseException as exc:
        if saved._file is not None and not saved.closed:
            saved._file.__exit__(type(exc), exc, exc.__traceback__)
        raise
    finally:
        if spool is not None:
            if saved.closed:
                sys.stdout.flush()
                with open(spool, "rb") as spooled:
                    shutil.copyfileobj(spooled, sys.stdout.buffer)
                sys.stdout.buffer.flush()
            Path(spool).unlink(missing_ok=True)


def print_table(results: ScoredResults, output: Output, comparison: Comparison | None = None, whole: Iterable[CaseResult] | None = None) -> None:
    """The table, each case tagged with its outcome against the baseline when there is one;
    not with `--quiet`, nor when stdout carries the results file. `--detailed` reads `whole`
    cases (the results file again), a case at a time."""
    if output.json == "-" or output.quiet:
        return
    outcomes = {c.key: c.outcome for c in comparison.cases} if comparison and comparison.has_baseline else None
    table = Table.for_results(results, output.style, output.detailed, outcomes)
    cases: Iterable[ScoredCase] = whole if output.detailed and whole is not None else results.cases
    for case in cases:
        print("\n".join(table.lines(case)))
    print("\n".join(table.footer(results)))


def files_in(paths: Iterable[str], patterns: Iterable[str]) -> list[Path]:
    """Files named, and the files under folders named that match a pattern, sorted per folder."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(_files_under(path, tuple(patterns)))
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"{raw}: {regular_or_kind(path) or 'no such file or folder'}")
    return files


def _files_under(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    """Regular files whose names match, in every folder below (symlinked folders not entered).
    A folder that vanishes or cannot be listed (/proc, a race) is passed by; one the user may
    not read is said, so a check does not pass by its files in silence."""
    found = []

    def unreadable(error: OSError) -> None:
        if error.errno in (errno.EACCES, errno.EPERM):
            print_warnings([f"{printable(error.filename or folder)}: cannot list it (permission denied); its files are not checked"])

    for here, _, names in os.walk(folder, onerror=unreadable):
        found += [Path(here, n) for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns) and Path(here, n).is_file()]
    return sorted(found)


def with_agent_dotenv(suites: Iterable[Suite], environ: Mapping[str, str]) -> Mapping[str, str]:
    """Load the suites' agents' `.env` files into os.environ, as `adk eval` does (files/dotenv.py),
    and return `environ` as the judge should read it: with those values beneath what it holds."""
    loaded = load_agent_dotenv(s.agent.folder for s in suites)
    for path, names in loaded.items():
        note(f"loaded {path.as_posix()} ({len(names)} variable(s) not already set), as adk eval loads an agent's .env")
    if not loaded or environ is os.environ:
        return environ
    return {**{name: os.environ[name] for names in loaded.values() for name in names}, **environ}
