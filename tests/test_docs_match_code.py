"""The docs' tables of flags, keys, fields, outputs and events read against the code they
describe (the CLI's parser, the config schema, the file models, action.yml, the action's
event table), so the next drift fails CI instead of a user (issue 35)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import yaml

from agenteval_ci.action.settings import MODE_BY_EVENT, MODES, REFUSED_EVENTS
from agenteval_ci.core.budgets import BudgetSummary, CaseDelta, SuiteCost
from agenteval_ci.core.gate import CaseMetric, CaseOutcome, Comparison, MetricSummary, RubricSummary
from agenteval_ci.core.judge_change import JudgeChange
from agenteval_ci.schema.vocabulary import Outcome

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


def section(doc: str, heading: str) -> str:
    """The text under a markdown heading, up to the next heading of the same or a higher level."""
    text = (ROOT / doc).read_text()
    level, _, title = heading.partition(" ")
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    end = re.search(rf"^#{{1,{len(level)}}} ", text[start:], re.M)
    assert title, heading
    return text[start:start + end.start()] if end else text[start:]


def table_rows(text: str) -> list[list[str]]:
    """The cells of each row of the first markdown table in `text`, header and rule left out."""
    rows = []
    for line in text[text.index("\n|"):].splitlines()[1:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
    return [r for r in rows[1:] if not set("".join(r)) <= set("-: ")]


def ticked(cell: str) -> list[str]:
    """The `code` spans of a cell."""
    return re.findall(r"`([^`]+)`", cell)


# The action: its modes, events, inputs and outputs ---------------------------------------------


def without_asides(cell: str) -> str:
    return re.sub(r"\([^)]*\)", "", cell)


def test_the_modes_table_lists_the_events_auto_maps_and_refuses():
    text = section("docs/action.md", "## Modes and the permissions each needs")
    rows = table_rows(text)
    documented = {event: ticked(mode)[0] for mode, events, *_ in rows for event in ticked(without_asides(events))}
    assert documented == MODE_BY_EVENT
    assert {ticked(mode)[0] for mode, *_ in rows} == set(MODES) - {"auto"}
    for event in REFUSED_EVENTS:
        assert f"**`{event}` is refused**" in text


def test_action_yml_says_which_events_auto_maps_and_which_it_refuses():
    description = " ".join(ACTION["inputs"]["mode"]["description"].split())
    for event in [*MODE_BY_EVENT, *REFUSED_EVENTS]:
        assert re.search(rf"\b{event}\b", description), f"action.yml's mode input does not name {event}"
    assert all(f"{event} is refused" in description for event in REFUSED_EVENTS)


# The files we write: each documented table names exactly the record's fields ---------------


def documented_fields(doc: str, heading: str) -> set[str]:
    return {name for first, *_ in table_rows(section(doc, heading)) for name in ticked(first)}


def fields_of(record: type) -> set[str]:
    if dataclasses.is_dataclass(record):
        return {f.name for f in dataclasses.fields(record)}
    return set(record.model_fields)  # type: ignore[attr-defined]


@pytest.mark.parametrize("heading, record, extra", [
    ("## Top level", Comparison, {"schema_version"}),
    ("## A metric", MetricSummary, set()),
    ("## A case", CaseOutcome, set()),
    ("## A budget", BudgetSummary, set()),
    ("## A cost", SuiteCost, set()),
])
def test_comparison_format_names_every_field_the_file_has(heading, record, extra):
    assert documented_fields("docs/comparison-format.md", heading) == fields_of(record) | extra


@pytest.mark.parametrize("row, record", [
    ("rubrics", RubricSummary), ("metrics", CaseMetric), ("judge_changes", JudgeChange), ("drivers", CaseDelta),
])
def test_comparison_format_names_the_fields_of_nested_records(row, record):
    """A row of records (`rubrics`, `drivers`, ...) names each of their fields in its cell."""
    cells = {ticked(first)[0]: rest[-1] for heading in ("## Top level", "## A metric", "## A case", "## A budget")
             for first, *rest in table_rows(section("docs/comparison-format.md", heading)) if len(ticked(first)) == 1}
    assert not fields_of(record) - set(ticked(cells[row])), f"{row} leaves out {sorted(fields_of(record) - set(ticked(cells[row])))}"


def test_comparison_format_lists_every_outcome():
    text = (DOCS / "comparison-format.md").read_text()
    listed = text.split("\nOutcomes: ", 1)[1].split("(", 1)[0]
    assert set(ticked(listed)) == {o.value for o in Outcome}
