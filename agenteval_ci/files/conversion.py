"""What converting legacy `.test.json` files changes in a project, so that `run` after `convert`
is green without a hand edit: agenteval.yaml's globs (`evals/*.test.json` becomes
`evals/*.evalset.json`, edited in place so comments and layout stay) and the baseline's
entries (moved from the legacy file's case ids to the EvalSet's).

Pure: the caller reads the files and writes what comes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml

from ..core.fingerprint import case_fingerprint
from ..schema import EvalSet
from ..schema.baseline import Baseline, BaselineCase

LEGACY_GLOB = ".test.json"
EVALSET_GLOB = ".evalset.json"


@dataclass(frozen=True)
class Converted:
    """One legacy file and the EvalSet written beside it."""

    source: Path
    target: Path
    eval_set: EvalSet
    case_ids: dict[str, str]  # the legacy case's eval_id as `run` reads it -> its id in the EvalSet
    one_case_per_file: bool  # a list of queries: `run` names its one case after the file's path


@dataclass(frozen=True)
class GlobEdit:
    suite: int  # index in agenteval.yaml's suites
    index: int  # index in the suite's eval_sets
    old: str
    new: str


@dataclass(frozen=True)
class SuiteFiles:
    """The eval set files a suite runs before the edit, and after it (resolved paths)."""

    name: str
    before: frozenset[Path]
    after: frozenset[Path]


def renamed_glob(glob: str) -> str | None:
    return glob[: -len(LEGACY_GLOB)] + EVALSET_GLOB if glob.endswith(LEGACY_GLOB) else None


# ---------------------------------------------------------------- agenteval.yaml, edited in place


def edited_yaml(text: str, edits: list[GlobEdit]) -> str | None:
    """The text with each edited glob's `.test.json` ending turned into `.evalset.json` where it
    stands, or None when a glob is not a scalar of its own there (an alias, an escape): then the
    caller says the exact edit instead."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    cuts: list[tuple[int, int]] = []
    for edit in edits:
        node = _glob_node(root, edit)
        if node is None:
            return None
        source = text[node.start_mark.index : node.end_mark.index]
        closing = len(source) - len(source.rstrip("'\""))
        end = node.end_mark.index - closing
        if not text[:end].endswith(LEGACY_GLOB):
            return None
        cuts.append((end - len(LEGACY_GLOB), end))
    if len(set(cuts)) != len(cuts):  # one node reached twice: an alias
        return None
    for start, end in sorted(cuts, reverse=True):
        text = text[:start] + EVALSET_GLOB + text[end:]
    return text


def _glob_node(root: Any, edit: GlobEdit) -> yaml.ScalarNode | None:
    suites = _value_of(root, "suites")
    if not isinstance(suites, yaml.SequenceNode) or edit.suite >= len(suites.value):
        return None
    eval_sets = _value_of(suites.value[edit.suite], "eval_sets")
    if isinstance(eval_sets, yaml.ScalarNode) and edit.index == 0:
        node = eval_sets
    elif isinstance(eval_sets, yaml.SequenceNode) and edit.index < len(eval_sets.value):
        node = eval_sets.value[edit.index]
    else:
        return None
    return node if isinstance(node, yaml.ScalarNode) and node.value == edit.old else None


def _value_of(mapping: Any, key: str) -> Any:
    if not isinstance(mapping, yaml.MappingNode):
        return None
    return next((v for k, v in mapping.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def with_globs(data: dict[str, Any], edits: list[GlobEdit]) -> dict[str, Any]:
    """Parsed agenteval.yaml with the edits applied: what the edited text must read back as."""
    suites = [dict(s) for s in data["suites"]]
    for edit in edits:
        suite = suites[edit.suite]
        if isinstance(suite["eval_sets"], str):
            suite["eval_sets"] = edit.new
        else:
            suite["eval_sets"] = [edit.new if i == edit.index else g for i, g in enumerate(suite["eval_sets"])]
    return {**data, "suites": suites}


# ---------------------------------------------------------------- the baseline


@dataclass(frozen=True)
class CarriedCase:
    suite: str
    old: tuple[str, str]  # (eval_set_id, eval_id) as `run` named the legacy case
    new: tuple[str, str]
    changed: bool  # the conversion changed what the case expects (an initial session was added)


def carried_baseline(
    baseline: Baseline, suites: list[SuiteFiles], conversions: list[Converted], resolve: Callable[[str], Path | None]
) -> tuple[Baseline, list[CarriedCase]]:
    """Each legacy case's baseline entry copied to its new id in every suite that ran the legacy
    file; the old entry dropped where the suite no longer runs it. `resolve(suite, key)` is the
    file a baseline eval_set_id names (a legacy file's id is its path as `run` was given it)."""
    entries = baseline.model_copy(deep=True).suites
    carried = []
    for suite in suites:
        sets = entries.get(suite.name, {})
        for conversion in conversions:
            source = conversion.source.resolve()
            if source not in suite.before:
                continue
            for old_set in [k for k in sets if resolve(k) == source]:
                for old_id, entry in list(sets[old_set].items()):
                    new = _new_key(conversion, old_set, old_id)
                    if new is None:
                        continue
                    sets.setdefault(new[0], {}).setdefault(new[1], entry)
                    carried.append(CarriedCase(suite.name, (old_set, old_id), new, _changed(entry, conversion, new[1])))
                if source not in suite.after:
                    del sets[old_set]
    return baseline.model_copy(update={"suites": entries}), carried


def _new_key(conversion: Converted, old_set: str, old_id: str) -> tuple[str, str] | None:
    if conversion.one_case_per_file:
        return (conversion.eval_set.eval_set_id, conversion.eval_set.eval_cases[0].eval_id) if old_id == old_set else None
    new_id = conversion.case_ids.get(old_id)
    return (conversion.eval_set.eval_set_id, new_id) if new_id is not None else None


def _changed(entry: BaselineCase, conversion: Converted, new_id: str) -> bool:
    case = next(c for c in conversion.eval_set.eval_cases if c.eval_id == new_id)
    return entry.fingerprint != case_fingerprint(case)
