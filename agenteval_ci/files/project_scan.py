"""What a project's source files say about its models and its environment (`agenteval init`).

Read with limits, never imported or run: string literals that are model names (core/
credentials.py knows them), the environment variables the code reads by name without a
default (`os.environ["X"]`, `os.getenv("X")`, `process.env.X`, `os.Getenv("X")`,
`System.getenv("X")`), those it sets itself (`os.environ.setdefault("X", "v")`), and the
names and values of the project's `.env` files.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import dotenv_values

from ..core.credentials import looks_like_model
from ..errors import InputError
from .readers import read_bytes

SOURCE_SUFFIXES = (".py", ".java", ".kt", ".go", ".ts", ".mts", ".js", ".mjs", ".cjs")
DOTENV_NAMES = (".env", ".env.local", ".env.example", ".env.sample", ".env.template")  # the real one first
MAX_FILES = 2000  # source files read per project; the rest are passed by
MAX_FILE_BYTES = 1_000_000

_LITERAL = re.compile(r"""(["'`])([^"'`\s\\]{2,200})\1""")
_NAME = r"""["']([A-Za-z_][A-Za-z0-9_]*)["']"""
# Reads that fail or come back empty without the variable: no default given.
_READS = [re.compile(p) for p in (
    rf"environ\[\s*{_NAME}\s*\](?!\s*=[^=])",  # os.environ["X"], not an assignment
    rf"(?:environ\.get|getenv)\(\s*{_NAME}\s*\)",  # os.environ.get("X"), os.getenv("X")
    r"process\.env\.([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*(?:\|\||\?\?|=[^=]))",  # process.env.X, not X || default
    rf"process\.env\[\s*{_NAME}\s*\](?!\s*(?:\|\||\?\?|=[^=]))",
    r"""os\.(?:Getenv|LookupEnv)\(\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*\)""",
    r"""System\.getenv\(\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*\)""",
)]
_VALUE = r"""(?:["']([^"'\n]*)["'])?"""
_ASSIGNMENTS = [re.compile(p) for p in (
    rf"environ\[\s*{_NAME}\s*\]\s*=(?!=)\s*{_VALUE}",
    rf"environ\.setdefault\(\s*{_NAME}\s*,\s*{_VALUE}",
    rf"process\.env\.([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*{_VALUE}",
    rf"""os\.Setenv\(\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*,\s*{_VALUE}""",
)]


@dataclass
class SourceFacts:
    models: dict[str, str] = field(default_factory=dict)  # model string -> the file it is in
    read: dict[str, str] = field(default_factory=dict)  # variable -> the file that reads it
    assigned: dict[str, str] = field(default_factory=dict)  # variable -> the value set ("" when not a literal)


def facts_of(text: str, where: str, facts: SourceFacts) -> None:
    """Add what one file's text says to `facts` (the first file to say something keeps it)."""
    for match in _LITERAL.finditer(text):
        if looks_like_model(match[2]):
            facts.models.setdefault(match[2], where)
    for pattern in _ASSIGNMENTS:
        for match in pattern.finditer(text):
            facts.assigned.setdefault(match[1], match[2] or "")
    for pattern in _READS:
        for match in pattern.finditer(text):
            facts.read.setdefault(match[1], where)


def source_text(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """A source file's text, or "" when it cannot be read or is too big to be source."""
    try:
        data = read_bytes(path)
    except InputError:
        return ""
    return "" if len(data) > max_bytes else data.decode("utf-8", errors="replace")


def scan_sources(root: Path, files: Iterable[str]) -> SourceFacts:
    """The facts of the files (posix paths relative to `root`), at most MAX_FILES of them."""
    facts = SourceFacts()
    for count, rel in enumerate(files):
        if count >= MAX_FILES:
            break
        facts_of(source_text(root / rel), rel, facts)
    return facts


def read_dotenv(root: Path, folders: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]:
    """(name -> value, name -> file) of the .env files in `folders` (relative to `root`), the
    real `.env` before its examples, the first file naming a variable winning."""
    values: dict[str, str] = {}
    files: dict[str, str] = {}
    for name in DOTENV_NAMES:
        for folder in dict.fromkeys(folders):
            rel = f"{folder}/{name}" if folder not in ("", ".") else name
            # python-dotenv's parser, as `run` reads the file; on text already read, so an
            # unreadable or oversized file is passed by like any source.
            for variable, value in dotenv_values(stream=io.StringIO(source_text(root / rel))).items():
                if value is not None:
                    values.setdefault(variable, value)
                    files.setdefault(variable, rel)
    return values, files
