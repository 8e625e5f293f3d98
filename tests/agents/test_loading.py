"""Loading the user's agent: errors name the config key and show the user's own traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

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


# ---------------------------------------------------------------- a package that imports itself by name

SHOP_HELPERS = '''
from google.adk.agents import LlmAgent


def check_order(order_id: str) -> dict:
    """Looks an order up."""
    return {"order_id": order_id, "status": "shipped"}


helper = LlmAgent(name="helper", model="gemini-2.5-flash", description="Knows orders.",
                  instruction="HELPER: look orders up with check_order.", tools=[check_order])
'''
SHOP_AGENT = '''
from google.adk.agents import LlmAgent

from {package}.helpers import helper  # absolute: the package by its own name

root_agent = LlmAgent(name="root", model="gemini-2.5-flash", instruction="ROOT: route order questions.",
                      sub_agents=[helper])
'''
SHOP_CASE = {"eval_set_id": "t", "eval_cases": [{"eval_id": "order", "conversation": [{
    "user_content": {"role": "user", "parts": [{"text": "where is order A1?"}]},
    "final_response": {"role": "model", "parts": [{"text": "Order A1 is shipped."}]},
    "intermediate_data": {"tool_uses": [{"name": "transfer_to_agent", "args": {"agent_name": "helper"}},
                                        {"name": "check_order", "args": {"order_id": "A1"}}]}}]}]}


def routed_shop_model(request):
    """The root transfers to the helper; the helper calls its tool, then answers."""
    from tests.fakes.gemini import function_call_reply, text_reply

    system = "".join(p.get("text", "") for p in request.body.get("systemInstruction", {}).get("parts", []))
    if "HELPER" not in system:
        return function_call_reply([("transfer_to_agent", {"agent_name": "helper"})])
    if not request.function_responses or request.function_responses[-1]["name"] != "check_order":
        return function_call_reply([("check_order", {"order_id": "A1"})])
    return text_reply("Order A1 is shipped.")


@pytest.fixture
def gemini(monkeypatch):
    pytest.importorskip("google.adk", reason="google-adk (test extra) is not installed")
    from tests.fakes.gemini import FakeGemini

    with FakeGemini(responder=routed_shop_model) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        yield fake


def _shop(folder: Path, package: str = "shop") -> Path:
    """The issue's repro: __init__ imports agent, agent imports the package's helpers absolutely."""
    pkg = folder / package
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import agent\n")
    (pkg / "helpers.py").write_text(SHOP_HELPERS)
    (pkg / "agent.py").write_text(SHOP_AGENT.format(package=package))
    (pkg / "t.evalset.json").write_text(json.dumps(SHOP_CASE))
    return pkg


def test_a_multi_agent_package_importing_itself_by_name_loads_once_and_runs(gemini, tmp_path, monkeypatch, capsys):
    """`agenteval run shop shop/t.evalset.json`, adk eval's arguments, from the project folder."""
    _shop(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    assert main(["run", "shop", "shop/t.evalset.json", "--json", str(out)]) == 0, capsys.readouterr().err
    case = json.loads(out.read_text())["cases"][0]
    assert case["status"] == "PASSED"
    assert case["metrics"]["tool_trajectory_avg_score"]["score"] == 1.0
    events = case["runs"][0]["invocations"][0]["intermediate_data"]["invocation_events"]
    assert [e["author"] for e in events] == ["root", "root", "helper", "helper", "helper"]
    shop = sys.modules["shop"]  # the package by its real name, its submodules the ones it imported
    assert shop.agent.root_agent.sub_agents == [sys.modules["shop.helpers"].helper]
    assert Path(shop.__file__) == tmp_path / "shop" / "__init__.py"


def test_two_suites_with_same_named_packages_each_import_their_own(gemini, tmp_path, capsys):
    """A monorepo of two starter-pack projects: two `app/` folders, each importing `app.helpers`."""
    first, second = _shop(tmp_path / "one", "app"), _shop(tmp_path / "two", "app")
    (second / "helpers.py").write_text(SHOP_HELPERS.replace('"shipped"', '"lost"'))
    config = tmp_path / "agenteval.yaml"
    config.write_text("suites:\n"
                      "  - {name: one, agent: one/app, eval_sets: one/app/t.evalset.json}\n"
                      "  - {name: two, agent: two/app, eval_sets: two/app/t.evalset.json}\n")
    out = tmp_path / "r.json"
    main(["run", "--config", str(config), "--json", str(out)])
    cases = {c["suite"]: c for c in json.loads(out.read_text())["cases"]}
    responses = {suite: [p["function_response"]["response"]["status"]
                         for e in c["runs"][0]["invocations"][0]["intermediate_data"]["invocation_events"]
                         for p in (e.get("content") or {}).get("parts", []) if p.get("function_response")
                         and p["function_response"]["name"] == "check_order"]
                 for suite, c in cases.items()}
    assert responses == {"one": ["shipped"], "two": ["lost"]}
    assert first != second


def test_a_folder_named_like_a_standard_module_keeps_the_module(gemini, tmp_path, capsys):
    """`calendar/` holds an agent; the standard library's calendar (http.cookiejar needs it) stays."""
    import calendar

    pkg = _shop(tmp_path, "calendar")
    (pkg / "agent.py").write_text(SHOP_AGENT.replace("from {package}.helpers", "from .helpers"))
    assert main(["run", str(pkg), str(pkg / "t.evalset.json"), "--json", str(tmp_path / "r.json")]) == 0, capsys.readouterr().err
    assert sys.modules["calendar"] is calendar


def test_a_genuine_import_error_names_the_file_and_shows_only_the_users_lines(tmp_path, capsys):
    pytest.importorskip("google.adk", reason="google-adk (test extra) is not installed")
    pkg = tmp_path / "broken_shop"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import agent\n")
    (pkg / "agent.py").write_text("from google.adk.agents import LlmAgent\n\nroot_agent = LlmAgent(name='not valid!', model='m')\n")
    assert main(["run", "--config", str(_project(tmp_path, "broken_shop"))]) == 2
    err = capsys.readouterr().err
    assert "cannot load agent 'broken_shop': ValidationError" in err
    assert f'File "{pkg / "agent.py"}", line 3, in <module>' in err
    frames = err.split("Traceback in your code", 1)[1]
    assert "site-packages" not in frames and "agenteval_ci" not in frames
    assert "broken_shop" not in sys.modules  # a failed import leaves nothing half-loaded
