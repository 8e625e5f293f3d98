"""Loading the user's agent: errors name the config key and show the user's own traceback."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main

EVAL_SET = {"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [{
    "user_content": {"role": "user", "parts": [{"text": "hi"}]},
    "final_response": {"role": "model", "parts": [{"text": "hi"}]}}]}]}


def _project(tmp_path: Path, agent: str) -> Path:
    (tmp_path / "a.evalset.json").write_text(json.dumps(EVAL_SET))
    config = tmp_path / "agenteval.yaml"
    config.write_text(f"suites:\n  - agent: {agent}\n    eval_sets: a.evalset.json\n")
    return config


def test_an_import_error_in_the_users_package_names_the_key_and_their_line(tmp_path, capsys):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "agent.py").write_text("import helper\n")
    (tmp_path / "pkg" / "helper.py").write_text("def f():\n    raise ValueError('bad config value')\nf()\n")
    assert main(["run", "--config", str(_project(tmp_path, "pkg/agent.py:handle"))]) == 2
    err = capsys.readouterr().err
    assert "agenteval.yaml at $.suites[0].agent: cannot load agent 'pkg/agent.py:handle': ValueError: bad config value" in err
    assert f'File "{tmp_path / "pkg" / "helper.py"}", line 2, in f' in err
    assert "agenteval_ci" not in err.split("Traceback in your code", 1)[1]


def test_sys_exit_at_import_is_a_load_error_not_an_exit(tmp_path, capsys):
    (tmp_path / "agent.py").write_text("import sys\nsys.exit(0)\n")
    assert main(["run", "--config", str(_project(tmp_path, "agent.py:handle"))]) == 2
    assert "SystemExit" in capsys.readouterr().err


def test_an_adk_folder_can_import_itself_absolutely(tmp_path, capsys):
    """adk eval puts the agent folder's parent on sys.path: `from my_agent.tools import x` works."""
    pkg = tmp_path / "my_agent_abs"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import agent\n")
    (pkg / "tools.py").write_text("VALUE = 1\n")
    (pkg / "agent.py").write_text("from my_agent_abs.tools import VALUE\nraise RuntimeError(f'imported {VALUE}')\n")
    assert main(["run", "--config", str(_project(tmp_path, "my_agent_abs"))]) == 2
    assert "RuntimeError: imported 1" in capsys.readouterr().err
