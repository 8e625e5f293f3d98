"""The agent's own logging, kept from burying the report.

Agent modules often call `logging.basicConfig(level=logging.DEBUG)` at import, and google-adk
and google-genai then log every request: thousands of lines around our table. And a failing
agent makes google-adk log `Node execution failed with exception` with a ~95-line traceback
several times per case. So once the user's modules are imported:

- every console handler shows the chosen level and up (WARNING by default, `--log-level` to
  change it), and a record that carries a traceback (any level, from ADK or the user's code)
  never reaches the console: the run's one line per failed run says why it failed;
- what the agent asked to log below that level, and every record with a traceback, go to a
  file (`.agenteval/agent.log`) instead of nowhere, and the run says how many and where;
- `--log-level DEBUG` shows everything on the console, tracebacks included;
- advice google-adk logs as a warning that says nothing about the run, and that `adk eval`
  does not print (ADVICE), counts as INFO: shown from `--log-level INFO`.

Everything is put back afterwards, so nothing leaks into the caller's process.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# (logger, the start of the message): google-adk's advice, not news about the run.
ADVICE = (
    # Runner: an app whose agents transfer to each other has no context_cache_config.
    ("google_adk.google.adk.runners", 'App "%s" can transfer between agents but has no context_cache_config'),
)
DEFAULT_CONSOLE_LEVEL = "WARNING"
LOG_FILE = Path(".agenteval") / "agent.log"
_FILED = "_agenteval_filed"  # set on a record once it is in the file: it arrives by two paths


def carries_traceback(record: logging.LogRecord) -> bool:
    return bool(record.exc_info or record.exc_text or record.stack_info)


class _LogFile(logging.FileHandler):
    """The agent's log file: appended to (a started agent server writes its output there too;
    the run empties it once, `AgentLogs.begin`), opened when the first record arrives (delay),
    each record written once, and counted as quieter than the console or as carrying a traceback."""

    def __init__(self, path: Path, quieter_than: int, formatter: logging.Formatter | None):
        path.parent.mkdir(parents=True, exist_ok=True)
        super().__init__(path, mode="a", encoding="utf-8", delay=True)
        self.setFormatter(formatter or logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self.quieter_than = quieter_than
        self.quieter = 0
        self.tracebacks = 0

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, _FILED, False):
            return
        setattr(record, _FILED, True)
        if carries_traceback(record):
            self.tracebacks += 1
        else:
            self.quieter += 1
        super().emit(record)


class _KeepsQuietRecords(logging.Filter):
    """On the log file at the root: the records the console does not show."""

    def __init__(self, console_level: int, asked: int):
        super().__init__()
        self.console_level = console_level
        self.asked = asked

    def filter(self, record: logging.LogRecord) -> bool:
        return carries_traceback(record) or self.asked <= record.levelno < self.console_level


class _DivertsTracebacks(logging.Filter):
    """On a console handler: a record with a traceback goes to the log file instead (a logger
    that does not propagate never reaches the file's own handler at the root)."""

    def __init__(self, log_file: _LogFile):
        super().__init__()
        self.log_file = log_file

    def filter(self, record: logging.LogRecord) -> bool:
        if not carries_traceback(record):
            return True
        self.log_file.handle(record)
        return False


class _AdviceIsInfo(logging.Filter):
    """On a google-adk logger: its advice (ADVICE) is logged as INFO, not WARNING."""

    def __init__(self, starts: tuple[str, ...]):
        super().__init__()
        self.starts = starts

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and isinstance(record.msg, str) and record.msg.startswith(self.starts):
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def _advice_filters() -> list[tuple[logging.Logger, logging.Filter]]:
    by_logger: dict[str, tuple[str, ...]] = {}
    for name, start in ADVICE:
        by_logger[name] = (*by_logger.get(name, ()), start)
    return [(logging.getLogger(name), _AdviceIsInfo(starts)) for name, starts in by_logger.items()]


def _console_handlers() -> list[logging.Handler]:
    """Stream handlers (not files) of the root logger and of every logger made so far."""
    loggers = [logging.getLogger()] + [x for x in logging.Logger.manager.loggerDict.values() if isinstance(x, logging.Logger)]
    handlers = [h for lg in loggers for h in lg.handlers]
    return [h for h in dict.fromkeys(handlers) if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)]


@dataclass
class AgentLogs:
    console_level: str = DEFAULT_CONSOLE_LEVEL
    log_file: Path = LOG_FILE
    _handler_levels: list[tuple[logging.Handler, int]] = field(default_factory=list)
    _filtered: list[tuple[logging.Handler, logging.Filter]] = field(default_factory=list)
    _demoting: list[tuple[logging.Logger, logging.Filter]] = field(default_factory=list)
    _root_level: int | None = None
    _added: list[logging.Handler] = field(default_factory=list)
    _file: _LogFile | None = None

    def begin(self) -> None:
        """Before anything of this run writes to the log file: empty what an earlier run left."""
        if self.log_file.is_file():
            self.log_file.write_bytes(b"")

    @property
    def level(self) -> int:
        level: int = logging.getLevelName(self.console_level)
        return level

    def apply(self) -> None:
        """After the user's modules are imported: the console shows `console_level` and up,
        without tracebacks unless that level is DEBUG; the rest goes to the log file."""
        root = logging.getLogger()
        self._root_level = root.level
        asked = root.getEffectiveLevel()
        for logger, advice in _advice_filters():
            logger.addFilter(advice)
            self._demoting.append((logger, advice))
        formatter = next((h.formatter for h in root.handlers if h.formatter), None)
        debug = self.level <= logging.DEBUG  # `--log-level DEBUG`: everything, what the agent did not ask for too
        # With no handler Python's last-resort one prints WARNING and up, tracebacks and all.
        if not root.handlers or (debug and not any(h in _console_handlers() for h in root.handlers)):
            self._add(_console())
        for handler in _console_handlers():
            self._handler_levels.append((handler, handler.level))
            handler.setLevel(max(handler.level, self.level))
        if debug:
            root.setLevel(self.level)
            return
        self._file = _LogFile(self.log_file, self.level, formatter)
        self._file.addFilter(_KeepsQuietRecords(self.level, asked))
        self._add(self._file)
        for handler in _console_handlers():
            diverts = _DivertsTracebacks(self._file)
            handler.addFilter(diverts)
            self._filtered.append((handler, diverts))

    def _add(self, handler: logging.Handler) -> None:
        logging.getLogger().addHandler(handler)
        self._added.append(handler)

    def restore(self) -> None:
        root = logging.getLogger()
        for handler, diverts in self._filtered:
            handler.removeFilter(diverts)
        for logger, advice in self._demoting:
            logger.removeFilter(advice)
        self._demoting.clear()
        for handler in self._added:
            root.removeHandler(handler)
            handler.close()
        for handler, level in self._handler_levels:
            handler.setLevel(level)
        if self._root_level is not None:
            root.setLevel(self._root_level)
        self._filtered.clear()
        self._handler_levels.clear()

    def notice(self) -> str:
        """What went to the log file instead of the console, and where, or "" when nothing did."""
        if self._file is None or not (self._file.quieter or self._file.tracebacks):
            return ""
        kinds = [f"{self._file.quieter:,} record(s) below {self.console_level}"] if self._file.quieter else []
        kinds += [f"{self._file.tracebacks:,} record(s) with a traceback"] if self._file.tracebacks else []
        return (f"agenteval: the agent logged {' and '.join(kinds)}: see {self.log_file.as_posix()} "
                "(--log-level DEBUG shows them here)")


def _console() -> logging.Handler:
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    return console
