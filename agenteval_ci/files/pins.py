"""What versions of a package a Python project asks for, in every packaging style it may use:
requirements files (with their `-r` / `-c` includes), pyproject.toml's [project] dependencies
and dependency groups, Poetry (its caret, tilde and wildcard ranges, its groups), PDM's and
Hatch's dependency tables, uv's (`[tool.uv]` and `uv.lock`), setup.cfg and setup.py's
install_requires. `agenteval init` reads google-adk's pins with it (files/served_projects.py).

Read, never run or built: what cannot be read (a broken file, a setup.py computing its list)
says nothing. Ranges are written as PEP 440 specifiers, as pip reads them.
"""

from __future__ import annotations

import ast
import configparser
import posixpath
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .project_scan import source_text

_MAX_FILE_BYTES = 10_000_000  # a big project's uv.lock
_MAX_INCLUDES = 20  # requirements files read through -r / -c, a loop or a chain of them bounded
_INCLUDE = re.compile(r"^(?:-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+|(?=\S))(\S+)")
_POETRY_PART = re.compile(r"^(\^|~(?!=)|~=|==|!=|>=|<=|>|<|=)?\s*(\S+)$")


@dataclass(frozen=True)
class Pin:
    """One place a project names the package."""

    specifiers: tuple[str, ...]  # PEP 440 specifier sets, any of which admits a version ("" admits all)
    file: str  # the file naming it, relative to the project's root: "pyproject.toml"
    written: str  # as the file writes it: 'google-adk = "^0.5.0" ([tool.poetry.dependencies])'
    name: str = ""  # the package, as the file spells it (extras kept)

    @property
    def requirement(self) -> str:
        """The pin as pip takes it (its first alternative, when Poetry gave several)."""
        return f"{self.name}{self.specifiers[0]}" if self.specifiers else self.name

    def admits(self, version: str) -> bool:
        """Whether the pin lets pip install `version`; a range that cannot be read says nothing (True)."""
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        try:
            return any(version in SpecifierSet(s, prereleases=True) for s in self.specifiers)
        except InvalidSpecifier:
            return True


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _text(path: Path) -> str:
    return source_text(path, _MAX_FILE_BYTES)


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(_text(path))
    except tomllib.TOMLDecodeError:
        return {}


def _table(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


# ---------------------------------------------------------------- PEP 508 lines


def _pep508(line: str, package: str, file: str, where: str) -> Pin | None:
    """The pin a PEP 508 requirement makes, when it names the package and applies to this Python."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(line)
    except InvalidRequirement:
        return None
    if _normalized(requirement.name) != package or (requirement.marker is not None and not requirement.marker.evaluate()):
        return None
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    return Pin((str(requirement.specifier),), file, f"{line.strip()}{where}", requirement.name + extras)


def _requirements_files(root: Path, first: str) -> Iterator[tuple[str, str]]:
    """(line, file) of a requirements file and the files it includes (-r, -c), each read once."""
    queue, seen = [first], set[str]()
    while queue and len(seen) < _MAX_INCLUDES:
        rel = queue.pop(0)
        if rel in seen or rel.startswith("..") or PurePosixPath(rel).is_absolute():
            continue
        seen.add(rel)
        for raw in _text(root / rel).splitlines():
            line = re.split(r"(?:^|\s)#", raw, maxsplit=1)[0].strip()
            include = _INCLUDE.match(line)
            if include:
                queue.append(posixpath.normpath(PurePosixPath(rel).parent / include[1]))
            elif line and not line.startswith("-"):
                yield line, rel


# ---------------------------------------------------------------- Poetry


def _bump(numbers: list[int], index: int) -> str:
    upper = numbers[:index + 1]
    upper[index] += 1
    return ".".join(map(str, upper + [0] * (len(numbers) - index - 1)))


def _poetry_part(part: str) -> str | None:
    """One Poetry constraint as PEP 440 (`^0.5.0` is `>=0.5.0,<0.6.0`); None when unreadable."""
    match = _POETRY_PART.match(part)
    if not match:
        return None
    operator, version = match[1] or "", match[2]
    if version == "*":
        return ""
    if operator in ("^", "~"):
        numbers = [int(n) for n in re.sub(r"[^\d.].*", "", version).split(".") if n]  # the release, not "rc1"
        if not numbers:
            return None
        if operator == "^":  # the first non-zero part of those given may not change
            index = next((i for i, n in enumerate(numbers) if n), len(numbers) - 1)
        else:  # ~1.2.3 and ~1.2 keep the minor, ~1 the major
            index = min(1, len(numbers) - 1)
        return f">={version},<{_bump(numbers, index)}"
    if operator in ("", "="):
        return f"=={version}"
    return f"{operator}{version}"


def _poetry_constraint(constraint: str) -> tuple[str, ...] | None:
    """A Poetry version constraint as PEP 440 alternatives (`||` separates them)."""
    alternatives = []
    for alternative in constraint.split("||"):
        parts = re.findall(r"(?:\^|~=?|[<>!=]=?)?\s*[^\s,<>!=~^]+", alternative)
        converted = [_poetry_part(p.replace(" ", "")) for p in parts]
        if any(c is None for c in converted):
            return None
        alternatives.append(",".join(c for c in converted if c))
    return tuple(alternatives)


def _poetry_versions(value: Any) -> list[str]:
    """The version constraints of a Poetry dependency: a string, a table, or a list of tables."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        version = value.get("version")
        return [version] if isinstance(version, str) else []
    return [v for item in value for v in _poetry_versions(item)] if isinstance(value, list) else []


def _poetry_pins(tables: dict[str, Any], package: str) -> Iterator[Pin]:
    for where, table in tables.items():
        if not isinstance(table, dict):
            continue
        for name, value in table.items():
            if _normalized(name) != package:
                continue
            alternatives: list[str] = []
            for version in _poetry_versions(value):
                converted = _poetry_constraint(version)
                if converted is None:
                    break
                alternatives += converted
            else:
                if alternatives:
                    yield Pin(tuple(alternatives), "pyproject.toml", f"{name} = {_written(value)} ({where})", name)


def _written(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


def _poetry_tables(pyproject: dict[str, Any]) -> dict[str, Any]:
    poetry = _table(pyproject, "tool", "poetry")
    tables = {"[tool.poetry.dependencies]": _table(poetry, "dependencies"),
              "[tool.poetry.dev-dependencies]": _table(poetry, "dev-dependencies")}
    groups = _table(poetry, "group")
    for group, content in (groups.items() if isinstance(groups, dict) else ()):
        tables[f"[tool.poetry.group.{group}.dependencies]"] = _table(content, "dependencies")
    return tables


def poetry_dependencies(pyproject: dict[str, Any]) -> list[str]:
    """Poetry's main dependencies as PEP 508 lines, those with a version pip can take (not python)."""
    main = _table(pyproject, "tool", "poetry", "dependencies")
    lines = []
    for name, value in (main.items() if isinstance(main, dict) else ()):
        versions = _poetry_versions(value)
        converted = _poetry_constraint(versions[0]) if len(versions) == 1 else None
        if name.lower() != "python" and converted is not None and len(converted) == 1:
            lines.append(f"{name}{converted[0]}")
    return lines


# ---------------------------------------------------------------- pyproject.toml's other tables


def _pep508_lists(pyproject: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(requirement, where) from every table of PEP 508 lists: [project], dependency groups, PDM, Hatch, uv."""
    named = {
        "[project] dependencies": _table(pyproject, "project", "dependencies"),
        "[tool.uv] dev-dependencies": _table(pyproject, "tool", "uv", "dev-dependencies"),
        "[tool.uv] constraint-dependencies": _table(pyproject, "tool", "uv", "constraint-dependencies"),
        "[tool.uv] override-dependencies": _table(pyproject, "tool", "uv", "override-dependencies"),
    }
    for prefix, tables in (("[dependency-groups] ", _table(pyproject, "dependency-groups")),
                           ("[tool.pdm.dev-dependencies] ", _table(pyproject, "tool", "pdm", "dev-dependencies"))):
        for name, value in (tables.items() if isinstance(tables, dict) else ()):
            named[prefix + name] = value
    hatch = _table(pyproject, "tool", "hatch", "envs")
    for env, table in (hatch.items() if isinstance(hatch, dict) else ()):
        for key in ("dependencies", "extra-dependencies"):
            named[f"[tool.hatch.envs.{env}] {key}"] = _table(table, key)
    for where, value in named.items():
        for line in _strings(value):
            yield line, where


def _uv_lock(root: Path, package: str) -> Iterator[Pin]:
    for entry in _table(_toml(root / "uv.lock"), "package") or ():
        name, version = _table(entry, "name"), _table(entry, "version")
        if isinstance(name, str) and isinstance(version, str) and _normalized(name) == package:
            yield Pin((f"=={version}",), "uv.lock", f'{name} {version} (locked; `uv export --frozen` installs it)', name)


# ---------------------------------------------------------------- setup.cfg, setup.py


def _setup_cfg(root: Path) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(_text(root / "setup.cfg"))
    except configparser.Error:
        return []
    value = parser.get("options", "install_requires", fallback="").strip()
    # setuptools reads a list a line each, or one line of requirements separated by ";"
    items = value.splitlines() if "\n" in value else value.split(";")
    return [item.strip() for item in items if item.strip()]


def _setup_py(root: Path) -> list[str]:
    """The literal strings of setup(install_requires=[...]); a computed list says nothing."""
    try:
        tree = ast.parse(_text(root / "setup.py"))
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "install_requires" and isinstance(node.value, (ast.List, ast.Tuple)):
            found += [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return found


# ---------------------------------------------------------------- all of them


def pins(root: Path, package: str) -> list[Pin]:
    """Every place the project at `root` names `package` with the versions it accepts, in the
    order an install line reads them (requirements files first, then the project, then locks)."""
    package = _normalized(package)
    lines = [(line, file, "") for line, file in _requirements_files(root, "requirements.txt")]
    pyproject = _toml(root / "pyproject.toml")
    lines += [(line, "pyproject.toml", f" ({where})") for line, where in _pep508_lists(pyproject)]
    lines += [(line, "setup.cfg", " ([options] install_requires)") for line in _setup_cfg(root)]
    lines += [(line, "setup.py", " (install_requires)") for line in _setup_py(root)]
    found = [pin for line, file, where in lines if (pin := _pep508(line, package, file, where))]
    return [*found, *_poetry_pins(_poetry_tables(pyproject), package), *_uv_lock(root, package)]
