"""Every file we write is written whole or not at all."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable

from ..errors import InputError, Problem, UsageError
from .readers import regular_or_kind


def write_atomic(path: str | Path, content: str | bytes) -> None:
    """Temp file in the same folder, then rename: a reader never sees half a file, and a
    write that fails (a name too long, a parent that is a file, a read-only folder, text
    that is not valid Unicode) leaves the old file as it was and no temp file behind."""
    write_pieces(path, [content])


def write_pieces(path: str | Path, pieces: Iterable[str | bytes]) -> None:
    """A file made piece by piece (a report of a big suite), written as write_atomic writes."""
    name = Path(path).as_posix()
    with atomic_writer(path) as f:
        for piece in pieces:
            f.write(encoded(name, piece))


def encoded(name: str, text: str | bytes) -> bytes:
    try:
        return text.encode("utf-8") if isinstance(text, str) else text
    except UnicodeEncodeError as exc:
        shown = ascii(exc.object[max(0, exc.start - 20) : exc.end + 20])
        raise InputError(
            Problem(name, "$", f"cannot write: the text holds a lone surrogate (not valid Unicode) near {shown}")
        ) from None


def write_atomic_with(path: str | Path, write: Callable[[BinaryIO], object]) -> None:
    """As write_atomic, for a file written in pieces by `write` (a stream too large to hold)."""
    with atomic_writer(path) as f:
        write(f)


@contextmanager
def atomic_writer(path: str | Path) -> Iterator[BinaryIO]:
    """A file written piece by piece, and still whole or not at all: the pieces go to a temp file
    in the same folder, renamed over `path` when the block ends without an error."""
    target = Path(path)
    name = target.as_posix()
    if os.path.isdir(target):
        raise UsageError(f"{name}: is a folder; name a file to write")
    kind = regular_or_kind(target)
    if kind:  # a device, FIFO or socket: renaming over it would replace it (as root, /dev/stdout itself)
        raise UsageError(f"{name}: cannot write here: {kind}")
    try:
        if any(os.path.isfile(parent) for parent in target.parents):
            raise NotADirectoryError(errno.ENOTDIR, "a parent of it is a file, not a folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:200]}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise UsageError(f"{name}: cannot write here: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            # mkstemp's 0600 would hide the file from the next step (another user in a container):
            # a replaced file keeps its mode, a new one gets what open() would give it.
            os.fchmod(f.fileno(), _mode_for(target))
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"{name}: cannot write here: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where Linux tells it (other threads create files too)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        umask = os.umask(0o022)  # elsewhere setting it is the only way to read it; set straight back
        os.umask(umask)
        return umask
