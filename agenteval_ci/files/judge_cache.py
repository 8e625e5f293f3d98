"""Content-addressed on-disk cache of judge replies.

The key covers everything that decides a reply (model, generation config, full prompt,
sample index, repeat), so an unchanged agent output is never judged twice and a new
sample or repeat always draws afresh. Writes go to a temporary file renamed into place,
so concurrent writers (parallel CI shards sharing the directory) never leave a torn entry.
Entries are read through the guarded reader into a strict model: an entry that is corrupt,
oversized, of the wrong shape or stored under another key's name is a miss with a warning
(removed, judged again and written afresh), never a crash and never a reply to the wrong
prompt. The judge then reads the reply itself as the asking metric does (`discard` is for an
entry that is no complete verdict): an entry is only ever a hit as a complete, valid verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError, Problem
from ..schema.problems import problems_from
from .readers import read_json

MAX_ENTRY_BYTES = 4 * 1024 * 1024  # a judge reply is at most ~65k tokens (~260 KB)
Tokens = Annotated[int, Field(ge=0, le=10**12)]


@dataclass(frozen=True)
class CachedReply:
    text: str
    tokens_in: int
    tokens_out: int
    model_version: Optional[str] = None  # as the API reported it (absent in entries of older releases)


def cache_key(model: str, config: Optional[dict[str, Any]], prompt: str, sample: int, repeat: int, media: str = "") -> str:
    """`media`: the digest of the images and files sent with the prompt (judge/media.py); a
    text-only request's key leaves it out, so it stays the key earlier releases wrote."""
    fields = {"model": model, "config": config or {}, "prompt": prompt, "sample": sample, "repeat": repeat}
    material = json.dumps({**fields, "media": media} if media else fields, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(material.encode()).hexdigest()


class CacheEntry(BaseModel):
    """One cached reply as stored on disk."""

    model_config = ConfigDict(strict=True, extra="ignore")
    text: str
    tokens_in: Tokens
    tokens_out: Tokens
    key: Optional[str] = None  # absent in entries written before it was recorded
    model_version: Optional[str] = Field(default=None, max_length=200)


class DiskCache:
    def __init__(self, directory: str | Path):
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / "judge" / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[CachedReply]:
        """The cached reply, or None (absent, or unusable: warned, judged again and overwritten)."""
        path = self._path(key)
        if not os.path.lexists(path):
            return None
        try:
            entry = _read_entry(path, key)
        except InputError as exc:
            print(f"warning: ignoring a judge cache entry: {exc}", file=sys.stderr)
            _remove(path)
            return None
        return CachedReply(entry.text, entry.tokens_in, entry.tokens_out, entry.model_version)

    def discard(self, key: str, why: str) -> None:
        """Forget an entry that the asking metric cannot read as a complete verdict."""
        path = self._path(key)
        print(f"warning: ignoring a judge cache entry: {path.as_posix()}: {why}; judging it again", file=sys.stderr)
        _remove(path)

    def put(self, key: str, reply: CachedReply) -> None:
        """Store a reply; a cache that cannot be written (read-only, a folder in the way) only
        costs a later judge call, so it is a warning."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError as exc:
            print(f"warning: cannot write the judge cache entry {path.as_posix()}: {exc.strerror or exc}", file=sys.stderr)
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                fields = {name: value for name, value in asdict(reply).items() if value is not None}
                json.dump({**fields, "key": key}, handle, ensure_ascii=False)
            os.replace(tmp, path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            print(f"warning: cannot write the judge cache entry {path.as_posix()}: {exc.strerror or exc}", file=sys.stderr)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _remove(path: Path) -> None:
    """Best effort: a file or link that is no usable entry goes (a folder or pipe is left alone;
    a later entry cannot be written there either, which `put` reports)."""
    try:
        if path.is_symlink() or path.is_file():
            path.unlink()
    except OSError:
        pass


def _read_entry(path: Path, key: str) -> CacheEntry:
    name = path.as_posix()
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # the reader says why it cannot read it
    if size > MAX_ENTRY_BYTES:
        raise InputError(Problem(name, "$", f"is {size:,} bytes; a cache entry is at most {MAX_ENTRY_BYTES:,}"))
    try:
        entry = CacheEntry.model_validate(read_json(path))
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, CacheEntry)) from None
    if entry.key not in (None, key):
        raise InputError(Problem(name, "$.key", "the entry is stored under another prompt's name"))
    return entry
