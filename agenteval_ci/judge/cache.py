"""Content-addressed on-disk cache of judge replies.

The key covers everything that decides a reply (model, generation config, full prompt,
sample index, repeat), so an unchanged agent output is never judged twice and a new
sample or repeat always draws afresh. Writes go to a temporary file renamed into place,
so concurrent writers (parallel CI shards sharing the directory) never leave a torn entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional


@dataclass(frozen=True)
class CachedReply:
    text: str
    tokens_in: int
    tokens_out: int


def cache_key(model: str, config: Optional[dict[str, Any]], prompt: str, sample: int, repeat: int) -> str:
    material = json.dumps(
        {"model": model, "config": config or {}, "prompt": prompt, "sample": sample, "repeat": repeat},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(material.encode()).hexdigest()


class DiskCache:
    def __init__(self, directory: str | Path):
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / "judge" / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[CachedReply]:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            return CachedReply(str(data["text"]), int(data["tokens_in"]), int(data["tokens_out"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent or unreadable: judge again and overwrite

    def put(self, key: str, reply: CachedReply) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(asdict(reply), handle, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
