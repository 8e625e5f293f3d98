"""The agent's own logging, kept from burying the report.

Agent modules often call `logging.basicConfig(level=logging.DEBUG)` at import, and google-adk
and google-genai then log every request: thousands of lines around our table. So once the
user's modules are imported, every console handler is raised to the chosen level (WARNING by
default, `--log-level` to change it); what the agent asked to log below that goes to a file
(`.agenteval/agent.log`) instead of nowhere, and the run says where. Everything is put back
afterwards, so nothing leaks into the caller's process.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DEFAULT_CONSOLE_LEVEL = "WARNING"
LOG_FILE = Path(".agenteval") / "agent.log"


class _CountingFileHandler(logging.FileHandler):
    """The file is created only when a record arrives (delay) and the records are counted."""

    def __init__(self, path: Path, level: int, formatter: logging.Formatter | None):
        path.parent.mkdir(parents=True, exist_ok=True)
        super().__init__(path, mode="w", encoding="utf-8", delay=True)
        self.setLevel(level)
        self.setFormatter(formatter or logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        super().emit(record)


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
    _root_level: int | None = None
    _added: list[logging.Handler] = field(default_factory=list)

    @property
    def level(self) -> int:
        return logging.getLevelName(self.console_level)

    def apply(self) -> None:
        """After the user's modules are imported: the console shows `console_level` and up."""
        root = logging.getLogger()
        self._root_level = root.level
        asked = root.getEffectiveLevel()
        formatter = next((h.formatter for h in root.handlers if h.formatter), None)
        for handler in _console_handlers():
            self._handler_levels.append((handler, handler.level))
            handler.setLevel(max(handler.level, self.level))
        if asked < self.level and root.handlers:  # the agent configured more than we show: keep it in a file
            self._add(_CountingFileHandler(self.log_file, asked, formatter))
        if self.level < asked:  # `--log-level DEBUG`: show what the agent did not ask for
            root.setLevel(self.level)
            if not any(isinstance(h, logging.StreamHandler) for h in root.handlers):
                console = logging.StreamHandler(sys.stderr)
                console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
                self._add(console)

    def _add(self, handler: logging.Handler) -> None:
        logging.getLogger().addHandler(handler)
        self._added.append(handler)

    def restore(self) -> None:
        root = logging.getLogger()
        for handler in self._added:
            root.removeHandler(handler)
            handler.close()
        for handler, level in self._handler_levels:
            handler.setLevel(level)
        if self._root_level is not None:
            root.setLevel(self._root_level)
        self._handler_levels.clear()

    def filed(self) -> int:
        return sum(h.count for h in self._added if isinstance(h, _CountingFileHandler))

    def notice(self) -> str:
        """Where the agent's quieter log went, or "" when nothing went there."""
        count = self.filed()
        if not count:
            return ""
        return (f"agenteval: the agent logged {count:,} record(s) below {self.console_level}: "
                f"see {self.log_file.as_posix()} (--log-level DEBUG shows them here)")
