"""What a project's source files say about its models and its environment (`agenteval init`).

Read with limits, never imported or run: string literals that are model names (core/
credentials.py knows them), the environment variables the code reads by name without a
default (`os.environ["X"]`, `os.getenv("X")`, `process.env.X`, `os.Getenv("X")`,
`System.getenv("X")`), those it sets itself (`os.environ.setdefault("X", "v")`), and the
names and values of the project's `.env` files, with those their comments mark as deployment's.
For a Python agent, only the files its package imports are read (`imported_sources`): a web
server or a deployment script beside it is not what the eval runs.
"""

from __future__ import annotations

import ast
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

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


# Comments that say a variable is for deploying the app, not for running the agent.
_DEPLOYMENT = re.compile(r"\bdeploy", re.I)
_DOTENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$")


def deployment_only(root: Path, folders: Iterable[str]) -> set[str]:
    """The variables of the .env files whose comment says they are for deployment ("only
    required for deployment"): on the line, or heading its group of lines (up to a blank line)."""
    names: set[str] = set()
    for name in DOTENV_NAMES:
        for folder in dict.fromkeys(folders):
            rel = f"{folder}/{name}" if folder not in ("", ".") else name
            names |= _marked_for_deployment(source_text(root / rel))
    return names


def _marked_for_deployment(text: str) -> set[str]:
    marked: set[str] = set()
    heading: list[str] = []  # the comment lines heading the current group of lines
    assigned = False  # the group has had a variable: a comment after it starts a new group
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            heading, assigned = [], False
        elif stripped.startswith("#"):
            heading, assigned = ([] if assigned else heading) + [stripped], False
        elif match := _DOTENV_LINE.match(line):
            assigned = True
            if _DEPLOYMENT.search(" ".join([*heading, _inline_comment(match[2])])):
                marked.add(match[1])
    return marked


def _inline_comment(value: str) -> str:
    """`VALUE  # comment` -> "comment"; a quoted value's `#` is part of it."""
    value = value.strip()
    return "" if value[:1] in ("'", '"') else value.partition(" #")[2]


# ---------------------------------------------------------------- what a Python agent imports


def imported_sources(root: Path, packages: Iterable[str], sources: Iterable[str]) -> list[str]:
    """The project's Python files that importing the agent packages (posix folders relative to
    `root`) runs, following their imports: what ADK loads (the package, then its `agent`
    module) and what those import of the project, from the agents' folder or the root."""
    known = set(sources)
    found: dict[str, None] = {}
    queue = []
    for package in packages:
        queue += [f for f in (f"{package}/__init__.py", f"{package}/agent.py") if f in known]
    while queue and len(found) < MAX_FILES:
        rel = queue.pop()
        if rel in found:
            continue
        found[rel] = None
        queue += [f for f in _imports_of(root, rel, packages) if f in known and f not in found]
    return list(found)


def _imports_of(root: Path, rel: str, packages: Iterable[str]) -> list[str]:
    """The project files an import in `rel` may load: each module named, its parent packages,
    and, for `from X import name`, a submodule `X/name.py`."""
    try:
        tree = ast.parse(source_text(root / rel))
    except (SyntaxError, ValueError):
        return []
    here = PurePosixPath(rel).parent
    bases = list(dict.fromkeys([*(str(PurePosixPath(p).parent) for p in packages), "."]))
    files: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                files += _module_files(bases, alias.name.split("."), [])
        elif isinstance(node, ast.ImportFrom):
            names = [alias.name for alias in node.names if alias.name != "*"]
            parts = (node.module or "").split(".") if node.module else []
            if node.level:
                start = here
                for _ in range(node.level - 1):
                    start = start.parent
                files += _module_files([str(start)], parts, names)
            else:
                files += _module_files(bases, parts, names)
    return files


def _module_files(bases: list[str], parts: list[str], names: list[str]) -> list[str]:
    """`a.b` from each base: a/__init__.py, a/b.py, a/b/__init__.py, and a/b/NAME.py per name."""
    files = []
    for base in bases:
        folder = PurePosixPath(base)
        for part in parts:
            files.append(str(folder / part) + ".py")
            folder = folder / part
            files.append(str(folder / "__init__.py"))
        files += [str(folder / f"{name}.py") for name in names]
        files += [str(folder / name / "__init__.py") for name in names]
    return [f.removeprefix("./") for f in files]
