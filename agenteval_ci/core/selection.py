"""`-k/--case`: which cases a run keeps (pure).

A pattern matches a case when it matches one of the case's names, `eval_id`, the case's
name in reports (an eval id that is a file path shown as the file's name: schema/labels.py),
`eval_set_id/eval_id` or `suite/eval_set_id/eval_id` (the names `accept --case` takes):
as a glob when it holds `*`, `?` or `[`, else as a substring. Case is ignored, as with
pytest's `-k`. Several patterns keep every case that any of them matches.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from glob import has_magic

from ..schema.labels import short_name
from ..schema.results import case_key


def case_names(suite: str, eval_set_id: str, eval_id: str) -> tuple[str, ...]:
    """Every name a case answers to; the full key last."""
    return eval_id, short_name(eval_id), f"{eval_set_id}/{eval_id}", case_key(suite, eval_set_id, eval_id)


def pattern_matches(pattern: str, suite: str, eval_set_id: str, eval_id: str) -> bool:
    wanted = pattern.lower()
    names = [name.lower() for name in case_names(suite, eval_set_id, eval_id)]
    if has_magic(wanted):
        return any(fnmatchcase(name, wanted) for name in names)
    return wanted in names[-1]  # the full name holds every shorter one


def selected(patterns: list[str] | None, suite: str, eval_set_id: str, eval_id: str) -> bool:
    """True when no filter is given or any pattern matches."""
    return not patterns or any(pattern_matches(p, suite, eval_set_id, eval_id) for p in patterns)
