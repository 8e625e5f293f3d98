"""Running entrypoint.py as GitHub's runner would: env, event payload file, output files.

The repository under test is a copy of examples/home_automation; "breaking" it makes the
thermostat tool receive the wrong temperature, a real regression the gate must catch.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenteval_ci.cli import main as cli_main
from agenteval_ci.core.baseline import baseline_from_results, dump_baseline
from agenteval_ci.files.results_file import read_results
from tests.fakes.gemini import FakeGemini
from tests.judge.helpers import json_reply

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "home_automation"
BASELINE = ".agenteval/baseline.json"
OUTPUTS = ".agenteval/baseline.outputs.jsonl.gz"  # its recorded outputs, committed before it
TOKEN = "ghs_fake_write_token_0123456789"
BASE_SHA, HEAD_SHA = "b" * 40, "a" * 40


@dataclass
class ActionRun:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


@contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def make_repo(path: Path, broken: bool = False) -> Path:
    shutil.copytree(EXAMPLE, path, ignore=shutil.ignore_patterns("__pycache__", "baseline.json"), dirs_exist_ok=True)
    if broken:
        agent = path / "agent.py"
        source = agent.read_text()
        assert "temperature=int(match[1]))" in source
        agent.write_text(source.replace("temperature=int(match[1]))", "temperature=int(match[1]) + 1)"))
    return path


def rubric_yes(request) -> dict:
    """A judge that says yes to every rubric its prompt lists."""
    ids = re.findall(r"- id: (\S+) \|", request.prompt_text)
    return json_reply({"rubrics": [{"id": i, "rationale": "fine", "verdict": "yes"} for i in ids]})


def results_text(repo: Path, *args: str) -> str:
    """Results of running the repo's agent in-process (what a run's artifact holds); the
    judged cases the committed judge cache does not know are judged by a fake Gemini."""
    out = repo / "results-for-test.json"
    with FakeGemini(responder=rubric_yes) as gemini, _environ(gemini.env()):
        cli_main(["run", "--config", str(repo / "agenteval.yaml"), "--json", str(out), "--no-gate", *args])
    text = out.read_text()
    out.unlink()
    return text


def baseline_text_of(repo: Path) -> str:
    out = repo / "results-for-baseline.json"
    cli_main(["run", "--config", str(repo / "agenteval.yaml"), "--json", str(out)])
    text = dump_baseline(baseline_from_results(read_results(out), commit=BASE_SHA))
    out.unlink()
    return text


def parse_outputs(path: Path) -> dict[str, str]:
    outputs = {}
    text = path.read_text() if path.exists() else ""
    for match in re.finditer(r"^(?P<name>[\w-]+)<<(?P<delim>\S+)\n(?P<value>.*?)\n(?P=delim)$", text, re.S | re.M):
        outputs[match["name"]] = match["value"]
    return outputs


def run_action(tmp: Path, repo: Path, api_url: str, event_name: str, event: dict[str, Any],
               inputs: dict[str, str] | None = None, token: str = TOKEN, container: str | None = None,
               extra_env: dict[str, str] | None = None) -> ActionRun:
    event_path, output_path, summary_path = tmp / "event.json", tmp / "output.txt", tmp / "summary.md"
    event_path.write_text(json.dumps(event))
    for path in (output_path, summary_path):
        path.write_text("")
    env = {
        "PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(repo), "GITHUB_REPOSITORY": "octo/agent", "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.test", "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path), "GITHUB_OUTPUT": str(output_path),
        "GITHUB_STEP_SUMMARY": str(summary_path), "GITHUB_SHA": "c" * 40, "GITHUB_RUN_ID": "42",
        "INPUT_GITHUB-TOKEN": token, "INPUT_CONFIG": "agenteval.yaml",
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in (inputs or {}).items()})
    env.update(extra_env or {})
    command = [sys.executable, str(ROOT / "entrypoint.py")] if container is None else in_container(container, env, [tmp, repo])
    done = subprocess.run(command, env=env, cwd=tmp, capture_output=True, text=True, timeout=300)
    return ActionRun(done.returncode, done.stdout, done.stderr, parse_outputs(output_path), summary_path.read_text())


def in_container(image: str, env: dict[str, str], mounts: list[Path]) -> list[str]:
    """`podman run` of the action's image as the runner would: same paths mounted, env passed by name."""
    command = ["podman", "--runtime", "runc", "run", "--rm", "--network", "host",
               "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=20000:20000", "--workdir", str(mounts[0])]
    for mount in dict.fromkeys(mounts):
        command += ["--volume", f"{mount}:{mount}"]
    for name in env:
        if name not in ("PATH", "HOME"):
            command += ["--env", name]
    return [*command, image]


def pull_request_event(number: int = 7, head_sha: str = HEAD_SHA, head_repo: str = "octo/agent") -> dict[str, Any]:
    return {"action": "synchronize", "number": number, "pull_request": {
        "number": number, "state": "open",
        "head": {"sha": head_sha, "ref": "feature", "repo": {"full_name": head_repo}},
        "base": {"sha": BASE_SHA, "ref": "main", "repo": {"full_name": "octo/agent"}}}}


def comment_event(body: str, login: str = "maintainer", user_type: str = "User", number: int = 7,
                  is_pull: bool = True, comment_id: int = 555) -> dict[str, Any]:
    issue: dict[str, Any] = {"number": number}
    if is_pull:
        issue["pull_request"] = {"url": f"https://api.github.test/repos/octo/agent/pulls/{number}"}
    return {"action": "created", "issue": issue,
            "comment": {"id": comment_id, "body": body, "user": {"login": login, "type": user_type}}}
