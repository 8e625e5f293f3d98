"""How a case is named for people: `suite / eval_set / case` (the key, `suite/eval_set_id/eval_id`,
stays what files and `accept --case` use).

Eval set ids and eval ids are often file paths: ADK names a legacy `.test.json` file's eval set
and its one case after the file, and eval sets converted by ADK keep the author's absolute path
as the eval id. Such a part is shown as its file's name without the suffix, a part equal to the
one before it is dropped, and where two cases would read the same, their paths' folders are
added back one at a time until they differ.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from .results import case_key

SEPARATOR = " / "
_FILE_SUFFIXES = (".evalset.json", ".test.json", ".json")
_ABSOLUTE = re.compile(r"^(/|\\\\|[A-Za-z]:[\\/])")


class NamedCase(Protocol):
    """A case result, or a case outcome of a comparison."""

    @property
    def suite(self) -> str: ...

    @property
    def eval_set_id(self) -> str: ...

    @property
    def eval_id(self) -> str: ...


def is_path(name: str) -> bool:
    """An id that names a file: ends in .json, or is absolute."""
    return name.lower().endswith(".json") or bool(_ABSOLUTE.match(name))


def _components(name: str) -> list[str]:
    return [part for part in re.split(r"[\\/]+", name) if part]


def short_name(name: str, depth: int = 1) -> str:
    """An id as shown: a path's last `depth` components, its file suffix dropped; else the id."""
    if not is_path(name):
        return name
    parts = _components(name)[-depth:] or [name]
    last = parts[-1]
    for suffix in _FILE_SUFFIXES:
        if last.lower().endswith(suffix) and len(last) > len(suffix):
            parts[-1] = last[: -len(suffix)]
            break
    return "/".join(parts)


def _can_deepen(name: str, depth: int) -> bool:
    return is_path(name) and len(_components(name)) > depth


def label(suite: str, eval_set_id: str, eval_id: str, depth: int = 1) -> str:
    eval_set, case = short_name(eval_set_id, depth), short_name(eval_id, depth)
    parts = [suite, eval_set] if case == eval_set else [suite, eval_set, case]
    return SEPARATOR.join(parts)


def case_labels(cases: Iterable[NamedCase]) -> dict[str, str]:
    """Case key -> label, every label unique among `cases` whenever their paths allow it."""
    names = list(dict.fromkeys((c.suite, c.eval_set_id, c.eval_id) for c in cases))
    depth = dict.fromkeys(names, 1)
    while True:
        labels = {n: label(*n, depth=depth[n]) for n in names}
        holders: dict[str, list[tuple[str, str, str]]] = {}
        for name, text in labels.items():
            holders.setdefault(text, []).append(name)
        clashing = [n for group in holders.values() if len(group) > 1 for n in group
                    if _can_deepen(n[1], depth[n]) or _can_deepen(n[2], depth[n])]
        if not clashing:
            return {case_key(*n): text for n, text in labels.items()}
        for name in clashing:
            depth[name] += 1


class CaseLabels:
    """case_labels(cases) made without holding a label per case: only a case named by a path
    (whose label may lengthen to differ from another's) and a case whose label such a case's
    could become are worked out together; any other case's label is its plain one, made when
    read. `cases` is read twice (a sequence, or a store of a comparison's cases)."""

    def __init__(self, *cases: Iterable[NamedCase]) -> None:
        pathed = {(c.suite, c.eval_set_id, c.eval_id): None for group in cases for c in group if _named_by_path(c)}
        reachable = {label(*n, depth=d) for n in pathed for d in range(1, _deepest(n) + 1)}
        names = (n for group in cases for c in group for n in [(c.suite, c.eval_set_id, c.eval_id)])
        self._worked_out = case_labels(_Named(*n) for n in names if n in pathed or label(*n) in reachable) if pathed else {}

    def label_of(self, case: NamedCase) -> str:
        key = case_key(case.suite, case.eval_set_id, case.eval_id)
        return self._worked_out.get(key) or label(case.suite, case.eval_set_id, case.eval_id)


def _named_by_path(case: NamedCase) -> bool:
    return is_path(case.eval_set_id) or is_path(case.eval_id)


def _deepest(name: tuple[str, str, str]) -> int:
    return max(len(_components(name[1])), len(_components(name[2])), 1)


@dataclass(frozen=True)
class _Named:
    suite: str
    eval_set_id: str
    eval_id: str
