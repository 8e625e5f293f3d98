"""A suite's `agent:` is parsed once (files/agent_spec.py): its kind, its folder and why it is
missing, all found without importing it."""

from __future__ import annotations

from pathlib import Path

from agenteval_ci.files.agent_spec import AgentSpec
from agenteval_ci.schema.remote_agent import RemoteAgentConfig


def _tree(root: Path) -> None:
    (root / "shop").mkdir()
    (root / "shop" / "__init__.py").write_text("from . import agent\n")
    (root / "bare").mkdir()
    (root / "odd:name").mkdir()
    (root / "odd:name" / "__init__.py").write_text("")
    (root / "tools").mkdir()
    (root / "tools" / "bot.py").write_text("def reply(x): return x\n")


def test_each_form_gets_its_kind_folder_and_problem(tmp_path):
    _tree(tmp_path)
    cases = {
        "shop": ("adk", tmp_path / "shop", None),
        "tools/bot.py:reply": ("callable", tmp_path / "tools", None),
        "odd:name": ("adk", tmp_path / "odd:name", None),  # a package folder whose name looks like module:function
        "tools/missing.py:reply": ("callable", tmp_path / "tools", "no such file"),
        "bare": ("adk", tmp_path / "bare", "folder without __init__.py"),
        "nowhere_pkg.agent": ("adk", tmp_path, "no agent folder, .py file or module"),
        "json:loads": ("callable", tmp_path, None),  # a module Python finds
    }
    for text, (kind, folder, problem) in cases.items():
        spec = AgentSpec.parse(text, tmp_path)
        assert (spec.kind, spec.folder) == (kind, folder), text
        found = spec.problem()
        assert (found is None) if problem is None else (problem in (found or "")), (text, found)


def test_a_served_agent_lives_in_the_configs_folder(tmp_path):
    spec = AgentSpec.parse(RemoteAgentConfig.model_validate({"kind": "http", "url": "http://127.0.0.1:9/run"}), tmp_path)
    assert (spec.kind, spec.folder, spec.problem()) == ("served", tmp_path, None)
    assert spec.served is not None and spec.served.url == "http://127.0.0.1:9/run"
