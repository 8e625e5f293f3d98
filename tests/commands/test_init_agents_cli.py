"""`agenteval init` on a project laid out as `agents-cli create my-agent -y` (google-agents-cli 1.11)
lays it out (issue 39, item 5): agents-cli-manifest.yaml, the agent in app/, the Gemini-platform
datasets in tests/eval/datasets/*.json and tests/eval/eval_config.yaml, run as they are, with the
workflow's Google Cloud sign-in and variables for the managed metrics."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from agenteval_ci.cli import main

MANIFEST = """name: "my-agent"
acli_version: "1.11.0"
agent_directory: "app"
base_template: "adk"
language: "python"
framework: "google-adk"
"""
AGENT = """from google.adk.agents import Agent

root_agent = Agent(name="my_agent", model="gemini-2.5-flash", instruction="Answer briefly.")
"""
DATASET = {"eval_cases": [
    {"eval_case_id": "greeting", "prompt": {"role": "user", "parts": [{"text": "Hello, what can you help me with?"}]}},
    {"eval_case_id": "capital_lookup", "prompt": {"role": "user", "parts": [{"text": "What is the capital of France?"}]},
     "reference": {"response": {"role": "model", "parts": [{"text": "The capital of France is Paris."}]}}},
]}


def agents_cli_layout(root: Path, eval_config: str = "metrics_to_run:\n  - general_quality\n") -> Path:
    (root / "app").mkdir(parents=True)
    (root / "agents-cli-manifest.yaml").write_text(MANIFEST)
    (root / "app" / "__init__.py").write_text("from . import agent\n")
    (root / "app" / "agent.py").write_text(AGENT)
    datasets = root / "tests" / "eval" / "datasets"
    datasets.mkdir(parents=True)
    (datasets / "basic-dataset.json").write_text(json.dumps(DATASET))
    (datasets / "README.md").write_text("# Datasets\n")
    (root / "tests" / "eval" / "eval_config.yaml").write_text(eval_config)
    (root / "tests" / "eval" / "notes.json").write_text("{}")  # beside the datasets, not one of them
    return root


def test_init_recognises_an_agents_cli_project_and_runs_its_datasets_and_metrics_unchanged(tmp_path, capsys):
    root = agents_cli_layout(tmp_path / "my-agent")
    assert main(["init", str(root), "--no-run"]) == 0
    out = capsys.readouterr().out
    config = yaml.safe_load((root / "agenteval.yaml").read_text())
    [suite] = config["suites"]
    assert suite["agent"] == "app"
    assert suite["eval_sets"] == ["tests/eval/datasets/*.json"]
    assert suite["eval_config"] == "tests/eval/eval_config.yaml"
    workflow = (root / ".github" / "workflows" / "agenteval.yml").read_text()
    assert "google-github-actions/auth" in workflow and "GOOGLE_CLOUD_PROJECT: ${{ vars.GOOGLE_CLOUD_PROJECT }}" in workflow
    assert re.search(r"variable GOOGLE_CLOUD_PROJECT +the judges' model vertex_eval/general_quality_v2 \(general_quality, "
                     r"\S*tests/eval/eval_config.yaml\)", out)
    assert "secret   GCP_CREDENTIALS" in out
    assert main(["validate", str(root / "agenteval.yaml")]) == 0


def test_an_eval_config_init_cannot_run_is_refused_naming_it(tmp_path, capsys):
    root = agents_cli_layout(tmp_path / "my-agent", "metrics_to_run:\n  - no_such_metric\n")
    assert main(["init", str(root), "--no-run"]) == 2
    assert "tests/eval/eval_config.yaml at $.metrics_to_run[0]: unknown metric 'no_such_metric'" in capsys.readouterr().err
    assert not (root / "agenteval.yaml").exists()


def test_json_files_outside_an_agents_cli_project_are_not_taken_for_datasets(tmp_path, capsys):
    root = agents_cli_layout(tmp_path / "my-agent")
    (root / "agents-cli-manifest.yaml").unlink()
    assert main(["init", str(root), "--no-run"]) == 2
    assert "no eval sets" in capsys.readouterr().err
