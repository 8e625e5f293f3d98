"""Trust (issue 38): a custom metric's code is the PR's code, like the agent. The privileged
modes (`publish`, `accept`) read stored scores: with a workspace whose metrics would leave a
mark if imported or run, they leave none."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main

from .harness import BASE_SHA, BASELINE, HEAD_SHA, comment_event, make_repo, pull_request_event, run_action
from .test_accept_mode import broken_results, pull  # noqa: F401 - fixtures


def _trapped(repo: Path, marker: Path) -> Path:
    """`repo` with custom metrics in every form that write `marker` when imported or run."""
    write = f"open({str(marker)!r}, 'a').write('ran\\n')"
    (repo / "trap_metric.py").write_text(f"{write}\ndef score(*args):\n    {write}\n")
    custom = {
        "trap_code": {"code_config": {"name": "trap_metric.score"}},
        "trap_inline": {"custom_function": f"{write}\ndef evaluate(instance):\n    {write}\n"},
        "trap_command": {"command": ["sh", "-c", f"echo ran >> {marker}"]},
    }
    config = repo / "evals" / "in_order" / "test_config.json"
    data = json.loads(config.read_text())
    data["criteria"].update({name: 0.5 for name in custom})
    config.write_text(json.dumps({**data, "custom_metrics": custom}))
    return repo


def test_publish_imports_and_runs_no_workspace_metric(tmp_path, github, good_baseline):
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA, head_repo="someone/agent-fork")
    github.set_files(BASE_SHA, {BASELINE: good_baseline})
    github.set_files(HEAD_SHA, {BASELINE: good_baseline})
    evaluated = make_repo(tmp_path / "pr-checkout", broken=True)
    fork = run_action(tmp_path, evaluated, github.base_url, "pull_request",
                      pull_request_event(head_repo="someone/agent-fork"), inputs={"comment": "false", "check": "false"})
    assert fork.code == 1
    out = evaluated / "agenteval-results"
    run_id = github.add_run(HEAD_SHA, {"agenteval-results": {
        "results.json.gz": (out / "results.json.gz").read_bytes(), "pull.json": (out / "pull.json").read_bytes()}})
    marker = tmp_path / "marker"
    trusted = _trapped(make_repo(tmp_path / "default-branch"), marker)
    event = {"action": "completed", "workflow_run": {"id": run_id, "head_sha": HEAD_SHA, "pull_requests": []}}
    run = run_action(tmp_path, trusted, github.base_url, "workflow_run", event)
    assert run.code == 1, run.stderr
    assert len(github.all_comments()) == 1
    assert not marker.exists()


def test_accept_imports_and_runs_no_workspace_metric(tmp_path, pull):  # noqa: F811 - the fixture
    marker = tmp_path / "marker"
    repo = _trapped(make_repo(tmp_path / "repo"), marker)
    comment_id = pull.all_comments()[-1]["id"]
    run = run_action(tmp_path, repo, pull.base_url, "issue_comment", comment_event("/agenteval accept", comment_id=comment_id))
    assert run.code == 0, run.stderr + run.stdout
    assert not marker.exists()


def test_the_traps_fire_where_metrics_score(tmp_path, capsys):
    """The control: the same workspace scored (as `run` and `score` do) leaves the mark of every form."""
    marker = tmp_path / "marker"
    repo = _trapped(make_repo(tmp_path / "repo"), marker)
    evalset = repo / "evals" / "in_order" / "relative.evalset.json"
    main(["score", str(evalset), "--actual", str(evalset), "--json", str(tmp_path / "r.json")])
    assert marker.read_text().count("ran") >= 3
