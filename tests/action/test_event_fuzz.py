"""Malformed webhook payloads through the action's real code path (issue 13).

Every path of a real payload of each event kind gets every wrong value (deleted, null, a type
swap, a huge number, NaN, Infinity, a lone surrogate). The action runs as entrypoint.py runs
it (`agenteval_ci.action.main` on the runner's environment, in-process for speed; a few whole
files also through entrypoint.py itself) against the fake GitHub. A payload of the wrong shape
is exit 2 naming $GITHUB_EVENT_PATH and a JSON path at or above the change; one that is still
valid ends as the mode documents (0 passed / nothing to do, 1 failed or refused). Never exit 3,
never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agenteval_ci.action.main import main as action_main

from .harness import BASE_SHA, BASELINE, HEAD_SHA, ROOT, TOKEN, comment_event, make_repo, pull_request_event, results_text

DELETE = object()
WRONG_VALUES: list[Any] = [DELETE, None, [], ["x"], {}, "x", 0, -1, 1.5, True, 10**30, 2**63, float("nan"), float("inf"),
                           "\ud800"]
WORKFLOW_RUN_ID = 4242


def paths(data: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if at:
        yield at
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield from paths(value, (*at, key))


def mutated(data: Any, at: tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(data))
    parent = copy
    for key in at[:-1]:
        parent = parent[key]
    if value is DELETE:
        del parent[at[-1]]
    else:
        parent[at[-1]] = value
    return copy


def json_path(at: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in at)


def mutations(event: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(JSON path changed, payload text) for every path and wrong value."""
    for at in paths(event):
        for value in WRONG_VALUES:
            yield json_path(at), json.dumps(mutated(event, at, value))  # NaN and Infinity as JS literals


def env_for(tmp: Path, repo: Path, api_url: str, event_name: str, event_path: Path, mode: str) -> dict[str, str]:
    for name in ("output.txt", "summary.md"):
        (tmp / name).write_text("")
    return {
        "GITHUB_WORKSPACE": str(repo), "GITHUB_REPOSITORY": "octo/agent", "GITHUB_API_URL": api_url,
        "GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(event_path), "GITHUB_SHA": "c" * 40,
        "GITHUB_OUTPUT": str(tmp / "output.txt"), "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"), "GITHUB_RUN_ID": "42",
        "INPUT_GITHUB-TOKEN": TOKEN, "INPUT_CONFIG": "agenteval.yaml", "INPUT_MODE": mode,
        "AGENTEVAL_GITHUB_BACKOFF_SECONDS": "0",
    }


def run_in_process(env: dict[str, str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = action_main(env)
    return code, out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def shard_results(tmp_path_factory) -> str:
    return results_text(make_repo(tmp_path_factory.mktemp("shard") / "repo"), "--shard", "1/1")


@pytest.fixture
def world(github, good_baseline, shard_results):
    """PR #7 with baselines, a writer, and a finished run whose artifact holds the head's results."""
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA)
    for ref in (BASE_SHA, HEAD_SHA, "feature"):
        github.set_files(ref, {BASELINE: good_baseline})
    github.collaborators["maintainer"] = "maintain"
    pull_file = json.dumps({"number": 7, "head_sha": HEAD_SHA}).encode()
    github.add_run(HEAD_SHA, {"agenteval-results": {"results.json": shard_results.encode(), "pull.json": pull_file}})
    github.add_comment(7, "/agenteval accept", login="maintainer")
    return github


def workflow_run_event(run_id: int) -> dict[str, Any]:
    return {"action": "completed", "workflow_run": {"id": run_id, "head_sha": HEAD_SHA, "pull_requests": [{"number": 7}]}}


def real_events(github) -> dict[str, tuple[str, dict[str, Any]]]:
    """mode -> (event name, payload) as GitHub sends them, trimmed to what the action reads."""
    run_id = github.runs[0]["id"]
    comment_id = github.all_comments()[-1]["id"]
    return {
        "merge": ("pull_request", pull_request_event()),
        "accept": ("issue_comment", comment_event("/agenteval accept", comment_id=comment_id)),
        "publish": ("workflow_run", workflow_run_event(run_id)),
    }


def check_outcome(code: int, output: str, changed: str) -> str | None:
    """What is wrong with one run's ending, or None."""
    if code not in (0, 1, 2) or "Traceback" in output or "please report" in output:
        return f"exit {code}"
    if code == 2:
        if "$GITHUB_EVENT_PATH" not in output:
            return "exit 2 without naming $GITHUB_EVENT_PATH"
        named = re.findall(r" at (\$[^:\s]*):", output)
        if not any(_related(at, changed) for at in named):
            return f"exit 2 without naming {changed} or a path above or below it"
    return None


def _related(named: str, changed: str) -> bool:
    """One JSON path is the other or lies inside it (`$.a.b` and `$.a`; never `$.ab`)."""
    short, long = sorted((named, changed), key=len)
    return long == short or long.startswith((short + ".", short + "["))


@pytest.mark.parametrize("mode", ["merge", "accept", "publish"])
def test_every_wrong_value_at_every_path_of_a_real_payload(tmp_path, monkeypatch, world, shard_results, mode):
    monkeypatch.chdir(tmp_path)  # the action changes into the workspace
    repo = make_repo(tmp_path / "repo")
    event_name, event = real_events(world)[mode]
    event_path = tmp_path / "event.json"
    tried, wrong, codes = 0, [], set()
    for changed, text in mutations(event):
        if mode == "merge":  # merge publishes shard results: the PR verdict without running the agent
            shard = repo / "agenteval-results" / "results-1-of-1.json"
            shard.parent.mkdir(exist_ok=True)
            shard.write_text(shard_results)
        event_path.write_text(text)
        code, output = run_in_process(env_for(tmp_path, repo, world.base_url, event_name, event_path, mode))
        tried += 1
        codes.add(code)
        problem = check_outcome(code, output, changed)
        if problem:
            wrong.append(f"{changed} = {text[:200]}: {problem}\n{output[-1500:]}")
    assert not wrong, f"{len(wrong)} of {tried} payloads:\n\n" + "\n\n".join(wrong[:3])
    assert tried >= 60 and 2 in codes and codes - {2}, (tried, codes)


WHOLE_FILES: dict[str, bytes | None] = {
    "empty": b"", "array": b"[]", "number": b"7", "string": b'"x"', "null": b"null", "latin-1": b'{"action": "caf\xe9"}',
    "UTF-16": '{"action": "x"}'.encode("utf-16"), "deep": b"[" * 5000 + b"]" * 5000, "truncated": b'{"action": ',
    "folder": None,
}


@pytest.mark.parametrize("kind", sorted(WHOLE_FILES))
def test_an_event_file_that_is_not_a_payload_is_exit_2_through_entrypoint(tmp_path, kind):
    event_path = tmp_path / "event.json"
    if WHOLE_FILES[kind] is None:
        event_path.mkdir()
    else:
        event_path.write_bytes(WHOLE_FILES[kind])
    env = {**env_for(tmp_path, tmp_path, "http://127.0.0.1:9", "pull_request", event_path, "auto"), "PATH": ""}
    done = subprocess.run([sys.executable, str(ROOT / "entrypoint.py")], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert f"$GITHUB_EVENT_PATH ({event_path})" in done.stderr and "Traceback" not in done.stderr
    if kind == "folder":
        assert "is a folder, not a file" in done.stderr


@pytest.mark.parametrize("event_name, payload, says", [
    ("issue_comment", {"action": "created", "comment": ["x"], "issue": {"number": 7}}, "at $.comment: Input should be a JSON object"),
    ("issue_comment", {"action": "created", "comment": {"id": 1, "body": 5, "user": {"login": "a"}}, "issue": {"number": 7}},
     "at $.comment.body:"),
    ("issue_comment", {"action": "created", "comment": {"id": 1, "body": "/agenteval accept", "user": {"login": "a"}}},
     "at $.issue: required key 'issue' is missing"),
    ("workflow_run", {"workflow_run": {"head_sha": HEAD_SHA}}, "at $.workflow_run.id: required key 'id' is missing"),
    ("workflow_run", {"workflow_run": {"id": "12", "head_sha": HEAD_SHA}}, "at $.workflow_run.id: Input should be a valid integer"),
    ("pull_request", {"pull_request": {"number": 7, "head": {"ref": "x"}, "base": {"sha": BASE_SHA}}},
     "at $.pull_request.head.sha: required key 'sha' is missing"),
    ("pull_request", {"pull_request": {"number": 7, "head": None, "base": {"sha": BASE_SHA}}}, "at $.pull_request.head:"),
])
def test_the_issues_reproducers_name_the_event_file_and_the_json_path(tmp_path, monkeypatch, event_name, payload, says):
    monkeypatch.chdir(tmp_path)
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(payload))
    code, output = run_in_process(env_for(tmp_path, tmp_path, "http://127.0.0.1:9", event_name, event_path, "auto"))
    assert code == 2 and f"$GITHUB_EVENT_PATH ({event_path}, event {event_name}) {says}" in output, output


def test_a_mode_that_needs_another_event_says_which(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps({"ref": "refs/heads/main"}))
    for mode, needed in (("publish", "a workflow_run"), ("accept", "an issue_comment")):
        code, output = run_in_process(env_for(tmp_path, tmp_path, "http://127.0.0.1:9", "push", event_path, mode))
        assert code == 2 and f"mode {mode} runs on {needed} event, not 'push'" in output, output
