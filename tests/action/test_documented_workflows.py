"""The ready-to-copy workflows of docs/workflows/ do what the docs promise: every job that
publishes a PR's verdict leaves the results artifact `/agenteval accept` reads, and a sharded
PR, run as sharded.yml says, can be accepted (issue 35)."""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from agenteval_ci.action.inputs import MODE_BY_EVENT
from tests.fakes.gemini import FakeGemini
from tests.fakes.github import Token
from tests.test_release_names import ours

from .harness import BASE_SHA, BASELINE, HEAD_SHA, ROOT, comment_event, make_repo, pull_request_event, rubric_yes, run_action

WORKFLOWS = sorted((ROOT / "docs" / "workflows").glob("*.yml"))
ACTION_INPUTS = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
UPLOAD = "actions/upload-artifact@"


def load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def events(workflow: dict[str, Any]) -> list[str]:
    on = workflow[True]  # YAML 1.1 reads the key `on` as true
    return [on] if isinstance(on, str) else list(on)


def is_ours(step: dict[str, Any]) -> bool:
    return bool(ours(f"uses: {step.get('uses', '')}"))


def action_input(step: dict[str, Any], name: str) -> str:
    return str(step.get("with", {}).get(name, ACTION_INPUTS[name]["default"]))


def publishing_steps(workflow: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    """(job, index, step) of each step of ours that posts a PR's verdict from results it made:
    mode run (not one shard of a matrix) or merge, on a workflow a pull request triggers."""
    if "pull_request" not in events(workflow):
        return []
    found = []
    for name, job in workflow["jobs"].items():
        for index, step in enumerate(job["steps"]):
            mode = action_input(step, "mode") if is_ours(step) else ""
            mode = MODE_BY_EVENT["pull_request"] if mode == "auto" else mode
            if mode == "merge" or (mode == "run" and not step.get("with", {}).get("shard")):
                found.append((name, index, step))
    return found


def runs_after_a_failure(step: dict[str, Any], action_step: dict[str, Any]) -> bool:
    """A regression fails the action's step (exit 1): the upload must run anyway."""
    condition = str(step.get("if", ""))
    return "always()" in condition or "!cancelled()" in condition or action_step.get("continue-on-error") is True


def uploaded_paths(step: dict[str, Any]) -> list[str]:
    return [line.strip() for line in str(step["with"]["path"]).splitlines() if line.strip()]


def test_some_documented_workflow_publishes():
    assert {path.name for path in WORKFLOWS if publishing_steps(load(path))} >= {"pr-gate.yml", "sharded.yml", "fork-safe-evaluate.yml"}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_a_job_that_publishes_a_verdict_uploads_the_artifact_accept_reads(path):
    workflow = load(path)
    for job_name, index, action_step in publishing_steps(workflow):
        results_dir = action_input(action_step, "results-dir").rstrip("/")
        artifact = action_input(action_step, "artifact-name")
        uploads = [s for s in workflow["jobs"][job_name]["steps"][index + 1:] if str(s.get("uses", "")).startswith(UPLOAD)]
        ours_up = [s for s in uploads if s["with"].get("name") == artifact
                   and any(p.rstrip("/") == results_dir for p in uploaded_paths(s))]
        assert ours_up, f"{path.name}: job {job_name} publishes a verdict but uploads no artifact '{artifact}' of {results_dir}/"
        assert runs_after_a_failure(ours_up[0], action_step), f"{path.name}: job {job_name} uploads nothing when the gate fails"


# Running sharded.yml as GitHub would, on the fake GitHub ------------------------------------


def upload(step: dict[str, Any], workspace: Path) -> dict[str, bytes]:
    """What actions/upload-artifact puts in the artifact: the files the path lines match,
    `!` lines excluded, named relative to the folder uploaded."""
    included: dict[str, bytes] = {}
    excluded = [line[1:] for line in uploaded_paths(step) if line.startswith("!")]
    for line in uploaded_paths(step):
        if line.startswith("!"):
            continue
        root = workspace / line.rstrip("/")
        for file in sorted(p for p in root.rglob("*") if p.is_file()):
            relative = file.relative_to(workspace).as_posix()
            if not any(fnmatch.fnmatch(relative, pattern) for pattern in excluded):
                included[file.relative_to(root).as_posix()] = file.read_bytes()
    return included


def steps_of(job: dict[str, Any], uses: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(uses) or (uses == "ours" and is_ours(s))]


def test_a_sharded_pr_run_as_sharded_yml_says_can_be_accepted(tmp_path, github, good_baseline):
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA)
    for ref in (BASE_SHA, HEAD_SHA, "feature"):
        github.set_files(ref, {BASELINE: good_baseline})
    github.collaborators["maintainer"] = "maintain"
    jobs = load(ROOT / "docs" / "workflows" / "sharded.yml")["jobs"]
    shards = jobs["evaluate"]["strategy"]["matrix"]["shard"]
    artifacts: dict[str, dict[str, bytes]] = {}
    for shard in shards:  # each matrix job: its own checkout, the action, its upload
        workspace = make_repo(tmp_path / f"shard-{shard}", broken=True)
        (step,) = steps_of(jobs["evaluate"], "ours")
        inputs = {k: str(v).replace("${{ matrix.shard }}", str(shard)) for k, v in step["with"].items() if k != "install"}
        with FakeGemini(responder=rubric_yes) as gemini:  # the judge the workflow's GOOGLE_API_KEY reaches
            run = run_action(tmp_path, workspace, github.base_url, "pull_request", pull_request_event(), inputs=inputs,
                             extra_env=gemini.env())
        assert run.code == 0, run.stderr
        (up,) = steps_of(jobs["evaluate"], UPLOAD)
        artifacts[up["with"]["name"].replace("${{ matrix.shard }}", str(shard))] = upload(up, workspace)

    merge_job = jobs["merge"]
    workspace = make_repo(tmp_path / "merge")
    (download,) = steps_of(merge_job, "actions/download-artifact@")
    target = workspace / download["with"]["path"]
    for name, files in artifacts.items():
        if fnmatch.fnmatch(name, download["with"]["pattern"]):
            for file, data in files.items():
                (target / file).parent.mkdir(parents=True, exist_ok=True)
                (target / file).write_bytes(data)
    (step,) = steps_of(merge_job, "ours")
    merged = run_action(tmp_path, workspace, github.base_url, "pull_request", pull_request_event(), inputs=dict(step["with"]))
    assert merged.code == 1, merged.stderr  # the broken agent regressed: the step fails, the upload still runs
    uploads = [s for s in steps_of(merge_job, UPLOAD) if runs_after_a_failure(s, step)]
    github.add_run(HEAD_SHA, {**artifacts, **{s["with"]["name"]: upload(s, workspace) for s in uploads}})

    github.add_comment(7, "/agenteval accept", login="maintainer")
    comment_id = github.all_comments()[-1]["id"]
    accepted = run_action(tmp_path, make_repo(tmp_path / "accept"), github.base_url, "issue_comment",
                          comment_event("/agenteval accept", comment_id=comment_id))
    assert accepted.code == 0, accepted.stdout + accepted.stderr
    committed = json.loads(github.files["feature"][BASELINE])
    assert committed["provenance"]["commit"] == HEAD_SHA
    assert any("Baseline accepted by @maintainer" in c["body"] for c in github.all_comments())


# The permissions each mode needs: one table (docs/action.md), proven, and every copy of it --


def mode_permissions() -> dict[str, dict[str, str]]:
    """docs/action.md's "Modes and the permissions each needs": mode -> {scope: level}; what a
    cell names in parentheses (a fallback) is not required."""
    text = (ROOT / "docs" / "action.md").read_text()
    section = text.split("## Modes and the permissions each needs", 1)[1].split("\n## ", 1)[0]
    table: dict[str, dict[str, str]] = {}
    for row in re.findall(r"^\| `(\w+)` \|.*\| ([^|]+) \|$", section, re.M):
        mode, cell = row
        cell = re.sub(r"\([^)]*\)", "", cell)
        table[mode] = table[cell.split("`")[1]] if cell.strip().startswith("as `") else dict(re.findall(r"`([\w-]+): (\w+)`", cell))
    return table


def grants(have: dict[str, str], need: dict[str, str]) -> list[str]:
    """The scopes of `need` that `have` does not grant (write covers read)."""
    return [f"{scope}: {level}" for scope, level in need.items() if have.get(scope) not in (level, "write")]


def test_the_permissions_table_names_every_mode():
    from agenteval_ci.action.inputs import MODES

    table = mode_permissions()
    assert set(table) == set(MODES) - {"auto"}
    assert table["accept"]["contents"] == "write" and table["run"]["pull-requests"] == "write"


def token_of(permissions: dict[str, str]) -> Token:
    """The GITHUB_TOKEN a job with exactly these `permissions:` gets (the rest: none)."""
    return Token("github-actions[bot]", {scope.replace("-", "_"): level for scope, level in permissions.items()})


def test_a_pr_run_with_the_tables_permissions_posts_its_comment_and_check(tmp_path, github, good_baseline):
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA)
    for ref in (BASE_SHA, HEAD_SHA):
        github.set_files(ref, {BASELINE: good_baseline})
    token = github.add_token("ghs_table_run", token_of(mode_permissions()["run"]))
    run = run_action(tmp_path, make_repo(tmp_path / "repo"), github.base_url, "pull_request", pull_request_event(), token=token)
    assert run.code == 0, run.stderr
    assert len(github.all_comments()) == 1 and [c["head_sha"] for c in github.check_runs.values()] == [HEAD_SHA]
    assert set(run.outputs) == set(yaml.safe_load((ROOT / "action.yml").read_text())["outputs"])  # every output it declares


def test_an_accept_with_the_tables_permissions_commits_and_checks_the_new_commit(tmp_path, github, good_baseline):
    """With fewer (the README's set before issue 35), the accepted commit got no check and a
    required check stayed pending."""
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA)
    for ref in (BASE_SHA, HEAD_SHA, "feature"):
        github.set_files(ref, {BASELINE: good_baseline})
    github.collaborators["maintainer"] = "maintain"
    with FakeGemini(responder=rubric_yes) as gemini:
        run = run_action(tmp_path, make_repo(tmp_path / "pr", broken=True), github.base_url, "pull_request",
                         pull_request_event(), inputs={"comment": "false", "check": "false"}, extra_env=gemini.env())
    assert run.code == 1, run.stderr
    out = tmp_path / "pr" / "agenteval-results"
    github.add_run(HEAD_SHA, {"agenteval-results": {p.name: p.read_bytes() for p in out.iterdir()}})
    github.add_comment(7, "/agenteval accept", login="maintainer")
    token = github.add_token("ghs_table_accept", token_of(mode_permissions()["accept"]))
    accepted = run_action(tmp_path, make_repo(tmp_path / "accept"), github.base_url, "issue_comment",
                          comment_event("/agenteval accept", comment_id=github.all_comments()[-1]["id"]), token=token)
    assert accepted.code == 0, accepted.stdout + accepted.stderr
    commit = github.commits[-1]
    assert commit["branch"] == "feature"
    assert [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()] == [(commit["sha"], "success")]


def documented_grants() -> list[tuple[str, str, dict[str, str], dict[str, Any]]]:
    """(where, mode, permissions given, the step's inputs) for every job of docs/workflows/ that
    runs the action, and the README's workflow and its sentence on accept."""
    found = []
    for path in WORKFLOWS:
        workflow = load(path)
        for name, job in workflow["jobs"].items():
            for step in (s for s in job["steps"] if is_ours(s)):
                mode = action_input(step, "mode")
                mode = MODE_BY_EVENT[events(workflow)[0]] if mode == "auto" else mode
                given = job.get("permissions", workflow.get("permissions", {}))
                found.append((f"{path.name} job {name}", mode, given, step.get("with", {})))
    readme = (ROOT / "README.md").read_text()
    block = yaml.safe_load(readme.split("## In a workflow\n\n```yaml\n", 1)[1].split("```", 1)[0])
    found.append(("README's workflow", "run", block["permissions"], {}))
    sentence = re.search(r"`accept` \(`issue_comment`: needs ([^)]*)\)", readme)
    assert sentence, "README: the sentence naming accept's permissions moved; keep this test reading it"
    found.append(("README's accept sentence", "accept", dict(re.findall(r"`([\w-]+): (\w+)`", sentence[1])), {}))
    return found


def test_every_documented_set_of_permissions_grants_what_its_mode_needs():
    table = mode_permissions()
    for where, mode, given, inputs in documented_grants():
        need = dict(table[mode])
        if str(inputs.get("comment", "true")) == "false":
            need = {k: v for k, v in need.items() if k not in ("pull-requests", "issues")}
        if str(inputs.get("check", "true")) == "false":
            need.pop("checks", None)
        assert not grants(given, need), f"{where} (mode {mode}) lacks {grants(given, need)} (docs/action.md's table)"
