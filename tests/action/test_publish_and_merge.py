"""Modes publish (workflow_run, fork-safe) and merge (shards) end to end."""

from __future__ import annotations

import gzip
import json

from .harness import BASE_SHA, BASELINE, HEAD_SHA, make_repo, pull_request_event, run_action


def test_publish_posts_the_verdict_of_an_uploaded_artifact_without_running_the_agent(tmp_path, github, good_baseline):
    """The evaluate job (fork PR, read-only) uploads; publish (trusted, default branch) posts."""
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA, head_repo="someone/agent-fork")
    github.set_files(BASE_SHA, {BASELINE: good_baseline})
    github.set_files(HEAD_SHA, {BASELINE: good_baseline})
    evaluated = make_repo(tmp_path / "pr-checkout", broken=True)
    fork = run_action(tmp_path, evaluated, github.base_url, "pull_request",
                      pull_request_event(head_repo="someone/agent-fork"), inputs={"comment": "false", "check": "false"})
    assert fork.code == 1 and github.all_comments() == []
    out = evaluated / "agenteval-results"
    run_id = github.add_run(HEAD_SHA, {"agenteval-results": {
        "results.json.gz": (out / "results.json.gz").read_bytes(), "pull.json": (out / "pull.json").read_bytes()}})

    trusted = make_repo(tmp_path / "default-branch")
    (trusted / "agent.py").write_text("raise SystemExit('publish must not import the agent')\n")
    event = {"action": "completed", "workflow_run": {"id": run_id, "head_sha": HEAD_SHA, "pull_requests": []}}
    run = run_action(tmp_path, trusted, github.base_url, "workflow_run", event)
    assert run.code == 1, run.stderr
    (comment,) = github.all_comments()
    assert "set_thermostat" in comment["body"]
    (check,) = github.check_runs.values()
    assert check["head_sha"] == HEAD_SHA and check["conclusion"] == "failure"


def test_publish_refuses_an_artifact_whose_pr_moved_on(tmp_path, github, good_baseline):
    github.add_pull(7, head_sha="e" * 40, head_ref="feature", base_sha=BASE_SHA)
    run_id = github.add_run(HEAD_SHA, {"agenteval-results": {"results.json": b"{}", "pull.json": b'{"number": 7}'}})
    event = {"action": "completed", "workflow_run": {"id": run_id, "head_sha": HEAD_SHA}}
    run = run_action(tmp_path, make_repo(tmp_path / "repo"), github.base_url, "workflow_run", event)
    assert run.code == 2 and "not the evaluated" in run.stderr and github.all_comments() == []


def test_shards_then_merge_give_one_verdict_one_comment_one_check(tmp_path, github, good_baseline):
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA)
    github.set_files(BASE_SHA, {BASELINE: good_baseline})
    github.set_files(HEAD_SHA, {BASELINE: good_baseline})
    repo = make_repo(tmp_path / "repo", broken=True)
    for index in (1, 2):
        shard = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), inputs={"shard": f"{index}/2"})
        assert shard.code == 0, shard.stderr
    assert github.all_comments() == [] and github.check_runs == {}
    merged = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), inputs={"mode": "merge"})
    assert merged.code == 1, merged.stderr
    results = json.loads(gzip.decompress((repo / "agenteval-results" / "results.json.gz").read_bytes()))
    assert len(results["cases"]) == 11
    assert len(github.all_comments()) == 1 and len(github.check_runs) == 1


def test_publish_refuses_an_artifact_that_is_not_a_zip_or_not_utf8(tmp_path, github):
    """A fork's run uploads the artifact: it is input like any file, exit 2 naming it."""
    run_id = github.add_run(HEAD_SHA, {"agenteval-results": {"results.json": b"{\"x\": \"caf\xe9\"}"}})
    event = {"action": "completed", "workflow_run": {"id": run_id, "head_sha": HEAD_SHA}}
    run = run_action(tmp_path, make_repo(tmp_path / "repo"), github.base_url, "workflow_run", event)
    assert run.code == 2 and f"artifact agenteval-results of run {run_id}: results.json: not UTF-8" in run.stderr, run.stderr
    (artifact_id,) = [a for a, v in github.artifacts.items() if v["run_id"] == run_id]
    github.artifacts[artifact_id]["zip"] = b"not a zip"
    run = run_action(tmp_path, make_repo(tmp_path / "repo2"), github.base_url, "workflow_run", event)
    assert run.code == 2 and "is not a readable zip archive" in run.stderr and "Traceback" not in run.stderr, run.stderr
