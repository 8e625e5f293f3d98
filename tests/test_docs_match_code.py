"""The docs' tables of flags, keys, fields, outputs and events read against the code they
describe (the CLI's parser, the config schema, the file models, action.yml, the action's
event table), so the next drift fails CI instead of a user (issue 35)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shutil
import tomllib
import typing
from pathlib import Path
from typing import Any

import pydantic
import pytest
import yaml

from agenteval_ci.action.inputs import MODE_BY_EVENT, MODES, REFUSED_EVENTS
from agenteval_ci.cli import main as cli_main
from agenteval_ci.cli.arguments import COMMANDS, build_parser
from agenteval_ci.core.budgets import BudgetSummary, CaseDelta, SuiteCost
from agenteval_ci.core.gate import CaseMetric, CaseOutcome, Comparison, MetricSummary, RubricSummary
from agenteval_ci.core.judge_change import JudgeChange
from agenteval_ci.core.metrics.registry import REGISTRY
from agenteval_ci.schema.judge import JudgeFingerprint
from agenteval_ci.schema.project import AdaptiveRuns, ProjectConfig
from agenteval_ci.schema.results import (
    AdaptiveInfo,
    CaseResult,
    JudgeUsage,
    MetricResult,
    MetricRun,
    RejudgedBaseline,
    Results,
    RubricVerdict,
    RunRecord,
    RunStats,
    ShardInfo,
)
from agenteval_ci.schema.vocabulary import Outcome
from tests.agents.remote.helpers import free_port, python_command, weather_case, write_project

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


def table_rows(text: str, index: int = 0) -> list[list[str]]:
    """The cells of each row of the `index`-th markdown table in `text`, header and rule left out."""
    starts = [m.start() for m in re.finditer(r"(?:^|\n)\n\|", text)]
    rows = []
    for line in text[starts[index]:].lstrip("\n").splitlines():
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


@pytest.mark.parametrize("heading, row, record", [
    ("## A metric", "rubrics", RubricSummary), ("## A case", "metrics", CaseMetric),
    ("## Top level", "judge_changes", JudgeChange), ("## A budget", "drivers", CaseDelta),
])
def test_comparison_format_names_the_fields_of_nested_records(heading, row, record):
    """A row of records (`rubrics`, `drivers`, ...) names each of their fields in its cell."""
    missing = fields_of(record) - set(ticked(row_text("docs/comparison-format.md", heading, row)))
    assert not missing, f"{row} leaves out {sorted(missing)}"


def test_comparison_format_lists_every_outcome():
    text = (DOCS / "comparison-format.md").read_text()
    listed = text.split("\nOutcomes: ", 1)[1].split("(", 1)[0]
    assert set(ticked(listed)) == {o.value for o in Outcome}


def row_text(doc: str, heading: str, name: str, index: int = 0) -> str:
    """The cells after the name of the row of field `name` in a section's table."""
    (row,) = [rest for first, *rest in table_rows(section(doc, heading), index) if ticked(first) == [name]]
    return " ".join(row)


@pytest.mark.parametrize("heading, index, record, extra", [
    ("## Top level", 0, Results, set()),
    ("## A case", 0, CaseResult, set()),
    ("## A metric result", 0, MetricResult, set()),
    ("## A metric result", 1, MetricRun, set()),
])
def test_results_format_names_every_field_the_file_has(heading, index, record, extra):
    documented = {name for first, *_ in table_rows(section("docs/results-format.md", heading), index) for name in ticked(first)}
    assert documented == fields_of(record) | extra


@pytest.mark.parametrize("heading, index, row, record", [
    ("## Top level", 0, "stats", RunStats), ("## Top level", 0, "stats", JudgeUsage), ("## Top level", 0, "adaptive", AdaptiveInfo),
    ("## Top level", 0, "shard", ShardInfo), ("## Top level", 0, "rejudged", RejudgedBaseline), ("## A case", 0, "runs", RunRecord),
    ("## A metric result", 1, "rubric_scores", RubricVerdict),
])
def test_results_format_names_the_fields_of_nested_records(heading, index, row, record):
    missing = fields_of(record) - set(ticked(row_text("docs/results-format.md", heading, row, index)))
    assert not missing, f"{row} leaves out {sorted(missing)}"


def config_keys(model: type = ProjectConfig, prefix: str = "") -> set[str]:
    """Every key path of agenteval.yaml (`judge.backoff_max_seconds`, `suites.num_runs`)."""
    keys = set()
    for name, info in model.model_fields.items():  # type: ignore[attr-defined]
        keys.add(prefix + name)
        for inner in typing.get_args(info.annotation) or (info.annotation,):
            if isinstance(inner, type) and issubclass(inner, pydantic.BaseModel):
                keys |= config_keys(inner, f"{prefix}{name}.")
    return keys


def test_every_key_the_docs_place_in_agenteval_yaml_is_one():
    keys = config_keys()
    last_parts = {key.rsplit(".", 1)[-1] for key in keys}
    pattern = re.compile(r"`([a-z_.]+):?(?: [^`]*)?` (?:in|of|from) agenteval\.yaml")
    for doc in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for name in pattern.findall(doc.read_text()):
            assert name in keys or ("." not in name and name in last_parts), f"{doc.name}: `{name}` is no key of agenteval.yaml"


def null_parents(data: object, parent: str = "$") -> set[str]:
    """The keys whose objects hold a `null` value, anywhere in a JSON document."""
    found = set()
    if isinstance(data, dict):
        for key, value in data.items():
            found |= {parent} if value is None else null_parents(value, key)
    elif isinstance(data, list):
        for item in data:
            found |= null_parents(item, parent)
    return found


def test_results_format_says_where_a_results_file_keeps_nulls(tmp_path):
    project = shutil.copytree(ROOT / "examples" / "home_automation", tmp_path / "project",
                              ignore=shutil.ignore_patterns("__pycache__", "baseline*"))
    out = tmp_path / "results.json"
    assert cli_main(["run", "--config", str(project / "agenteval.yaml"), "--json", str(out), "--no-gate", "-q"]) == 0
    text = (DOCS / "results-format.md").read_text()
    (sentence,) = re.findall(r"Keys (?:of our records )?whose value is `null`\s+are left out[^.]*\.", text)
    holders = null_parents(json.loads(out.read_text()))
    assert holders, "a run of the example reports some figure as not reported"
    assert holders <= set(ticked(sentence)), f"results-format.md does not say that {sorted(holders - set(ticked(sentence)))} keep nulls"


# agenteval.yaml: the full example is the schema, with its defaults -----------------------------


def full_example() -> tuple[dict[str, Any], set[str]]:
    """config.md's "Everything, with defaults", and the keys it shows commented out (they apply
    to `num_runs: auto` only), read as if they were not."""
    block = section("docs/config.md", "## Everything, with defaults").split("```yaml\n", 1)[1].split("```", 1)[0]
    commented = set(re.findall(r"^ {0,4}# (\w+):", block, re.M))
    return yaml.safe_load(re.sub(r"^( {0,4})# (\w+:)", r"\1\2", block, flags=re.M)), commented


def key_tree(data: Any) -> Any:
    """The keys of nested mappings (a list: its first item's), without the values."""
    if isinstance(data, dict):
        return {key: key_tree(value) for key, value in data.items()}
    if isinstance(data, list) and data and isinstance(data[0], dict):
        return [key_tree(data[0])]
    return None


def test_configs_full_example_shows_every_key_of_agenteval_yaml():
    example, _ = full_example()
    schema = ProjectConfig.model_validate({"suites": [{"agent": "my_agent", "eval_sets": ["x"]}]}).model_dump()
    assert key_tree(example) == key_tree(schema)


def test_configs_full_example_gives_the_defaults_and_loads():
    example, commented = full_example()
    suite = example["suites"][0]
    shown = {**example, "suites": [{k: v for k, v in suite.items() if k not in commented}]}
    defaults = {"suites": [{"agent": suite["agent"], "eval_sets": suite["eval_sets"]}]}
    assert ProjectConfig.model_validate(shown).model_dump() == ProjectConfig.model_validate(defaults).model_dump()
    assert commented == {f.name for f in dataclasses.fields(AdaptiveRuns)}  # num_runs: auto's, at their defaults
    assert AdaptiveRuns(**{name: suite[name] for name in commented}) == AdaptiveRuns()


# The README's promises ------------------------------------------------------------------------


def test_the_readmes_google_adk_range_is_the_one_pip_installs_and_ci_tests():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["adk"]
    (requirement,) = [r for r in extra if r.startswith("google-adk")]
    line = next(line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("pip install 'agenteval-ci[adk]'"))
    assert requirement.replace(" ", "") in line.replace(" ", "")
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    for version in ci["jobs"]["adk-versions"]["strategy"]["matrix"]["google-adk"]:
        assert version in line, f"README's install line does not name google-adk {version}, which CI tests"


def test_the_test_extra_installs_every_optional_extra_so_ci_skips_none_of_their_tests():
    """CI installs only `.[test]` (.ci/run, ci.yml): an extra it lacks is an extra whose tests
    skip there (LiteLLM's did)."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    name = lambda requirement: re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower()
    tested = {name(r) for r in extras["test"]}
    for extra, requirements in extras.items():
        assert {name(r) for r in requirements} <= tested, f"the test extra lacks the {extra} extra's {requirements}"


def test_the_agent_log_holds_one_runs_output_as_agents_md_says(tmp_path):
    """A started agent's output goes to .agenteval/agent.log, which each run empties first (it
    was documented as appended to)."""
    port = free_port()
    agent = {"kind": "http", "url": f"http://127.0.0.1:{port}/turn", "start": python_command("json_agent.py"), "ready_timeout_seconds": 20}
    config = write_project(tmp_path, agent, [weather_case("rome", ["Rome"])])
    log = tmp_path / ".agenteval" / "agent.log"
    assert cli_main(["run", "--config", str(config), "--json", str(tmp_path / "r.json"), "-q"]) == 0
    with log.open("a") as file:
        file.write("a line an earlier run left\n")
    assert cli_main(["run", "--config", str(config), "--json", str(tmp_path / "r.json"), "-q"]) == 0
    text = log.read_text()
    assert "a line an earlier run left" not in text and text.count("listening on") == 1
    started = " ".join(section("docs/agents.md", "### Starting the agent").split())
    assert "each run empties the file when it starts" in started and "appended" not in started


def test_the_inputs_table_is_action_ymls_inputs_with_their_defaults():
    rows = table_rows(section("docs/action.md", "## Inputs"))
    documented = {name: default for names, default, _ in rows for name in ticked(names)}
    assert set(documented) == set(ACTION["inputs"])
    for name, default in documented.items():
        if len(ticked(default)) == 1 and default == f"`{ticked(default)[0]}`":  # a value, not words
            assert ticked(default)[0] == str(ACTION["inputs"][name]["default"]), name


def test_the_outputs_paragraph_names_action_ymls_outputs():
    paragraph = section("docs/action.md", "## Outputs").split("The step's exit code", 1)[0]
    assert set(ticked(paragraph)) - {"passed", "failed"} == set(ACTION["outputs"])


# The command line: every flag the docs' tables and synopses show is one the parser takes --------


def options_of(command: str) -> set[str]:
    parser = build_parser([command])
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(commands.choices[command]._option_string_actions)


def documented_commands() -> list[tuple[str, str, str]]:
    """(where, command, its usage) for each row of the README's command table and each line of
    config.md's command-line synopsis."""
    usages = [ticked(first)[0] for first, _ in table_rows(section("README.md", "## Commands"))]
    found = [("README's commands table", usage.split()[1], usage) for usage in usages]
    synopsis = section("docs/config.md", "## Command line").split("```\n", 1)[1].split("```", 1)[0]
    command = ""
    for line in synopsis.splitlines():
        command = line.split()[1] if line.startswith("agenteval ") else command
        found.append(("config.md's command line", command, line))
    return found


def test_every_command_is_in_the_readmes_table():
    assert {command for where, command, _ in documented_commands() if where.startswith("README")} == set(COMMANDS)


def test_every_flag_the_docs_show_is_one_the_command_takes():
    for where, command, usage in documented_commands():
        flags = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", usage))
        unknown = flags - options_of(command)
        assert not unknown, f"{where}: `agenteval {command}` takes no {sorted(unknown)}"


def test_judge_md_names_every_field_of_the_judges_fingerprint():
    assert documented_fields("docs/judge.md", "## The judge's fingerprint") == fields_of(JudgeFingerprint)


def test_every_metric_metrics_md_tables_name_is_a_metric():
    text = (DOCS / "metrics.md").read_text()
    named = set()
    for start in (m.start() for m in re.finditer(r"\n\n\| metric", text)):
        named |= {name for first, *_ in table_rows(text[start:]) for name in ticked(first)}
    assert named and not named - set(REGISTRY), sorted(named - set(REGISTRY))
