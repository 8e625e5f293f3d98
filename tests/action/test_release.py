"""The release and self-test workflows' own steps, run here on copies: the released action.yml
names the image and still passes GitHub's schema; the self-test's broken copy really breaks."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml

from .harness import EXAMPLE, ROOT, pull_request_event, run_action
from .test_lint import check, tool

WORKFLOWS = ROOT / ".github" / "workflows"


def release_action_yml(tmp_path, image: str):
    action = tmp_path / "action.yml"
    shutil.copy(ROOT / "action.yml", action)
    done = subprocess.run(["bash", str(ROOT / "scripts" / "release_action_yml.sh"), image, str(action)],
                          capture_output=True, text=True, timeout=30)
    return action, done


def test_the_released_action_yml_runs_the_image_and_nothing_else_changes(tmp_path):
    action, done = release_action_yml(tmp_path, "ghcr.io/octo/agenteval-ci:1.2.3")
    assert done.returncode == 0, done.stderr
    released, dev = yaml.safe_load(action.read_text()), yaml.safe_load((ROOT / "action.yml").read_text())
    assert dev["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert released["runs"] == {"using": "docker", "image": "docker://ghcr.io/octo/agenteval-ci:1.2.3"}
    assert {k: v for k, v in released.items() if k != "runs"} == {k: v for k, v in dev.items() if k != "runs"}
    check(tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", str(action))


@pytest.mark.parametrize("image", ["ghcr.io/Octo/Agent:1.2.3", "ghcr.io/octo/agent", "ghcr.io/octo/agent:1.2.3|x"])
def test_a_bad_image_reference_is_refused(tmp_path, image):
    action, done = release_action_yml(tmp_path, image)
    assert done.returncode == 2 and "image:version" in done.stderr
    assert action.read_text() == (ROOT / "action.yml").read_text()


def test_releasing_twice_is_refused(tmp_path):
    action, _ = release_action_yml(tmp_path, "ghcr.io/octo/agent:1.2.3")
    again = subprocess.run(["bash", str(ROOT / "scripts" / "release_action_yml.sh"), "ghcr.io/octo/agent:1.2.4", str(action)],
                           capture_output=True, text=True, timeout=30)
    assert again.returncode == 2 and "image: Dockerfile" in again.stderr


def self_test_steps() -> dict[str, dict]:
    workflow = yaml.safe_load((WORKFLOWS / "self-test.yml").read_text())
    return {step.get("name", step.get("id", "")): step for step in workflow["jobs"]["self-test"]["steps"]}


def test_the_self_test_runs_this_checkout_on_the_bundled_example():
    steps = self_test_steps()
    gate = steps["Run the action on the example"]
    assert gate["uses"] == "./" and (ROOT / gate["with"]["config"]).resolve() == EXAMPLE / "agenteval.yaml"
    assert steps["Run the action on the broken copy"]["continue-on-error"] is True


def test_the_self_tests_broken_copy_fails_the_gate_as_the_workflow_expects(tmp_path):
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLE, workspace / "examples" / "home_automation", ignore=shutil.ignore_patterns("__pycache__"))
    steps = self_test_steps()
    done = subprocess.run(["bash", "-c", steps["Break a copy of the example"]["run"]], cwd=workspace,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "temperature=int(match[1]) + 1)" in (workspace / "self-test-broken" / "agent.py").read_text()
    step = steps["Run the action on the broken copy"]["with"]
    run = run_action(tmp_path, workspace, "http://127.0.0.1:9", "pull_request", pull_request_event(),
                     inputs={k: str(v) for k, v in step.items()}, token=step["github-token"])
    assert run.code == 1, run.stdout + run.stderr
    assert run.outputs["verdict"] == "failed" and int(run.outputs["regressions"]) >= 1


def test_only_a_version_tag_uploads_to_pypi_and_a_pull_request_runs_up_to_the_upload():
    workflow = yaml.safe_load((WORKFLOWS / "release.yml").read_text())
    on, jobs = workflow[True], workflow["jobs"]  # YAML 1.1 reads the key `on` as true
    assert on == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}, "pull_request": None} and workflow["permissions"] == {}
    pypi = jobs["pypi"]
    assert pypi["permissions"] == {"id-token": "write"}  # trusted publishing, nothing else
    assert pypi["environment"] == "${{ github.event_name == 'push' && 'pypi' || '' }}"
    upload = [s for s in pypi["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")]
    assert len(upload) == 1 and upload[0]["if"] == "github.event_name == 'push'"
    assert "github.event_name == 'pull_request'" in pypi["if"] and jobs["dist"]["uses"] == "./.github/workflows/dist.yml"
    # What writes anywhere runs on a tag only: the image, the release commit and the tags.
    assert jobs["image"]["if"] == "github.event_name == 'push'" and "image" in jobs["publish"]["needs"]
    assert "if" not in jobs["publish"] and jobs["smoke"]["needs"] == "publish"
    group = workflow["concurrency"]["group"]
    assert group.startswith("${{ github.event_name == 'push' && 'release' ||") and "github.ref" in group  # a PR never cancels a release
