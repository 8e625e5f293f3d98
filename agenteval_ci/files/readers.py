"""The one guarded reader of the files we are given (JSON and YAML): limits on size and
nesting, and every way reading can fail (a folder, no permission, a symlink loop, bytes
that are not UTF-8, a number too long, a lone surrogate, an alias bomb) is an InputError
naming the file, never a traceback.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import PATH_ERRNOS, InputError, Problem, UsageError, path_problem  # noqa: F401 - PATH_ERRNOS re-exported

MAX_FILE_BYTES = 256 * 1024 * 1024  # a 2,000-case results file is ~11 MB
MAX_DEPTH = 200  # nesting of arrays/objects (pydantic's JSON parser stops at 200 too)
MAX_YAML_NODES = 100_000  # nodes after expanding aliases and merge keys

# A lone surrogate can only enter decoded JSON through a \uD800-\uDFFF escape; json.dumps
# writes every emoji as a pair of them, which decodes to one valid character.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_PAIR = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes, at most MAX_FILE_BYTES of them."""
    name = Path(path).as_posix()
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise InputError(Problem(name, "$", f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}"))
        try:
            data = f.read(size + 1)  # not read(MAX_FILE_BYTES + 1): read(n) sets n bytes aside first
            return data + f.read(MAX_FILE_BYTES + 1 - len(data)) if len(data) > size else data  # it grew meanwhile: to the limit
        except OSError as exc:
            raise InputError(Problem(name, "$", _cannot_read(exc, path))) from None


def open_regular(path: str | Path) -> BinaryIO:
    """The file opened for reading in binary, to be read piece by piece (the caller closes it).
    Opened without blocking and refused unless it is a regular file: a FIFO where a file should
    be would otherwise wait forever for a writer."""
    name = Path(path).as_posix()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError) as exc:
        raise InputError(Problem(name, "$", _cannot_read(exc, path))) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(Problem(name, "$", _not_a_file(st.st_mode)))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _cannot_read(exc: OSError | ValueError, path: str | Path) -> str:
    if isinstance(exc, ValueError):
        return "not a valid path (it holds a NUL character)"
    if exc.errno == errno.ENOENT:
        return "file not found"
    if exc.errno == errno.ENXIO:  # a socket
        return regular_or_kind(path) or "no such device"
    return path_problem(exc) if exc.errno == errno.EISDIR else f"cannot read the file: {path_problem(exc)}"


def regular_or_kind(path: str | Path) -> str | None:
    """None for a regular file (after symlinks) or nothing there; else what is wrong, in words
    ("is a folder, not a file", "a symlink loop", "the path is too long ..."). Never opens it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return path_problem(exc)
    except ValueError:  # a NUL byte
        return "not a valid path (it holds a NUL character)"
    return None if stat.S_ISREG(mode) else _not_a_file(mode)


def _not_a_file(mode: int) -> str:
    kinds = [(stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")]
    return f"is {next((name for test, name in kinds if test(mode)), 'something else')}, not a file"


def printable(path: str | Path) -> str:
    """A path as text that can be printed: bytes of a name that are not UTF-8 (which Python holds
    as lone surrogates) shown as \\xff escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def decode_text(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        hint = " (it looks like UTF-16)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise InputError(
            Problem(name, "$", f"not UTF-8 text{hint}: byte 0x{data[exc.start]:02x} at offset {exc.start}; save it as UTF-8")
        ) from None


def read_text(path: str | Path) -> str:
    return decode_text(Path(path).as_posix(), read_bytes(path))


def parse_json(name: str, text: str) -> Any:
    """`name` says where the text came from (a file, or a file at a commit) in any error."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            Problem(name, "$", f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}")
        ) from None
    except RecursionError:
        raise InputError(Problem(name, "$", f"nested more than {MAX_DEPTH} levels deep")) from None
    except ValueError as exc:  # Python's limit on the digits of an integer
        raise InputError(Problem(name, "$", f"not valid JSON: {str(exc).split(';')[0]}")) from None
    check_data(name, data, surrogates=may_hold_lone_surrogate(text))
    return data


def may_hold_lone_surrogate(text: str) -> bool:
    """Whether JSON text has a surrogate escape that is not half of a pair, in a few ms where
    walking every decoded string takes a second on a 2,000-case file. Escaped backslashes are
    dropped first (`\\\\ud800` is a backslash and text), then each pair accounts for two escapes."""
    if not _SURROGATE_ESCAPE.search(text):
        return False
    escapes = text.replace("\\\\", "")
    return len(_SURROGATE_ESCAPE.findall(escapes)) != 2 * len(_SURROGATE_PAIR.findall(escapes))


def check_data(name: str, data: Any, surrogates: bool = True, prefix: str = "$") -> None:
    """Nesting within MAX_DEPTH; with `surrogates`, no string (or key) holds a lone surrogate.
    A first pass touches only containers, a level at a time (a tenth of the cost of parsing);
    the JSON path of a problem is worked out only when there is one."""
    if _nesting_within_limit(data) and not surrogates:
        return
    problem = _problem_at(data, prefix, surrogates)
    if problem:
        raise InputError(Problem(name, *problem))


def _nesting_within_limit(data: Any) -> bool:
    # Exact types: parsed JSON and safe-loaded YAML hold plain dicts and lists only.
    level = [data] if type(data) is dict or type(data) is list else []
    for _ in range(MAX_DEPTH):
        if not level:
            return True
        level = [item for value in level for item in (value.values() if type(value) is dict else value)
                 if type(item) is dict or type(item) is list]
    return not level


def _problem_at(data: Any, prefix: str, surrogates: bool) -> tuple[str, str] | None:
    """(JSON path, message) of the first problem, slowly, with paths."""
    stack: list[tuple[Any, str, int]] = [(data, prefix, 0)]
    while stack:
        value, at, depth = stack.pop()
        if isinstance(value, (dict, list)) and depth >= MAX_DEPTH:
            return at if len(at) < 200 else at[:200] + "...", f"nested more than {MAX_DEPTH} levels deep"
        if isinstance(value, dict):
            for key, item in value.items():
                if surrogates and isinstance(key, str) and _lone_surrogate(key):  # YAML keys may be numbers or booleans
                    return at, f"key {_shown(key)} holds a lone surrogate (not valid Unicode)"
                stack.append((item, f"{at}.{key}", depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{at}[{i}]", depth + 1) for i, item in enumerate(value))
        elif surrogates and isinstance(value, str) and _lone_surrogate(value):
            return at, f"{_shown(value)} holds a lone surrogate (not valid Unicode)"
    return None


def _lone_surrogate(text: str) -> bool:
    return not is_utf8(text)


def is_utf8(text: str) -> bool:
    """Whether the text can be written as UTF-8: no lone surrogate (a JSON escape, or the bytes
    of a file name that are not UTF-8, which Python holds as surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_arguments(values: Iterable[str]) -> None:
    """Arguments (argv, or what a front door passes on) that name files or choose things: bytes
    that are not UTF-8 arrive as lone surrogates, and nothing could write them."""
    for value in values:
        if not value.isascii() and not is_utf8(value):
            raise UsageError(f"argument {ascii(value)[:80]} is not valid UTF-8")


def _shown(text: str) -> str:
    return ascii(text[:60])


def read_json(path: str | Path) -> Any:
    return parse_json(Path(path).as_posix(), read_text(path))


# ---------------------------------------------------------------- YAML


def parse_yaml(name: str, text: str) -> Any:
    # PyYAML loads only when a YAML file is read: a score of JSON files reads none (~13 ms of its start).
    import yaml

    from ._guarded_yaml import GuardedLoader

    try:
        data = yaml.load(text, Loader=GuardedLoader)  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InputError(Problem(name, "$", f"not valid YAML{where}: {getattr(exc, 'problem', None) or exc}")) from None
    except (RecursionError, ValueError) as exc:
        raise InputError(Problem(name, "$", f"not valid YAML: {type(exc).__name__}: {exc}"[:300])) from None
    check_data(name, data)
    return data
