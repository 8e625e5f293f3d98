"""The package's way out (issue 29), run on a copy of this checkout released as v1.2.3 of
octo/agenteval-ci by the workflows' own steps: the tag is pushed on main to a bare "origin";
dist.yml stamps a checkout of it, builds the sdist and the wheel, checks them and runs the
README's first command from the wheel in a clean venv; release.yml's publish job makes the
release commit and moves the tags on origin; its smoke step installs the README's git line
from there; the files go through twine's upload to a loopback index.

The venvs here are new, and agenteval in them comes only from the wheel or the git tag; its
dependencies are borrowed from the test environment (PYTHONPATH, pip's --no-deps), where CI's
jobs download them, so that the whole module stays within seconds and offline: github.com is
rewritten to origin (git's url.insteadOf) and git may use no protocol but file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.fakes.pypi import FakePyPI

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
TAG, REPOSITORY = "v1.2.3", "octo/agenteval-ci"
VERSION = TAG[1:]
IMAGE = f"ghcr.io/{REPOSITORY}:{VERSION}"
GIT = ["git", "-c", "user.name=maintainer", "-c", "user.email=maintainer@example.invalid", "-c", "init.defaultBranch=main"]


def step(workflow: str, job: str, name: str) -> str:
    steps = yaml.safe_load((WORKFLOWS / workflow).read_text())["jobs"][job]["steps"]
    return next(s["run"] for s in steps if s.get("name") == name)


def environment(**extra: str) -> dict[str, str]:
    """This test environment's python, pip, build and twine first on PATH, as setup-python's in CI."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PIP_NO_DEPS") and not k.startswith("GIT_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env | {"GIT_ALLOW_PROTOCOL": "file"} | extra


def borrowed_dependencies() -> dict[str, str]:
    """A new venv sees this environment's packages after its own; pip installs nothing more."""
    return {"PYTHONPATH": sysconfig.get_path("purelib"), "PIP_NO_DEPS": "1"}


def run_step(script: str, cwd: Path, timeout: int, **env: str) -> subprocess.CompletedProcess:
    """A workflow step's script, run as Actions runs it (bash -e -o pipefail)."""
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd,
                          env=environment(**env), capture_output=True, text=True, timeout=timeout)


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, capture_output=True, text=True, check=True, timeout=60).stdout


def checkout(origin: Path, to: Path) -> Path:
    """actions/checkout of the tag, full history."""
    subprocess.run(["git", "clone", "-q", str(origin), str(to)], check=True, timeout=60)
    git(to, "checkout", "-q", TAG)
    return to


def passed(done: subprocess.CompletedProcess) -> bool:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return True


@dataclass(frozen=True)
class Release:
    origin: Path  # GitHub's copy: the tags moved to the release commit
    main: str  # the commit the maintainer tagged
    dist_job: Path  # dist.yml's stamped checkout, its dist/ built

    @property
    def dist(self) -> Path:
        return self.dist_job / "dist"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Release:
    base = tmp_path_factory.mktemp("release")
    main = base / "main"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for rel in listed.splitlines():
        if (ROOT / rel).is_file():
            (main / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, main / rel)
    git(main, "init", "-q")
    git(main, "add", "-A")
    git(main, "commit", "-q", "-m", "main")
    git(main, "tag", TAG)
    origin = base / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(main), str(origin)], check=True, timeout=60)

    dist_job = checkout(origin, base / "dist-job")
    passed(run_step(step("dist.yml", "dist", "Stamp the release"), dist_job, 60, TAG=TAG, GITHUB_REPOSITORY=REPOSITORY))
    built = run_step(step("dist.yml", "dist", "Build and check the sdist and the wheel"), dist_job, 300)
    assert passed(built) and built.stdout.count("PASSED") == 2  # twine check --strict, both files

    publish_job = checkout(origin, base / "publish-job")
    published = run_step(step("release.yml", "publish", "Stamp the release, point action.yml at the image and move the tags"),
                         publish_job, 60, TAG=TAG, MAJOR="v1", IMAGE=IMAGE, GITHUB_REPOSITORY=REPOSITORY)
    passed(published)
    return Release(origin, git(main, "rev-parse", "HEAD").strip(), dist_job)


def test_the_release_commit_carries_the_stamp_and_both_tags_point_at_it(release):
    tagged = git(release.origin, "rev-parse", f"{TAG}^{{commit}}").strip()
    assert git(release.origin, "rev-parse", "v1^{commit}").strip() == tagged
    assert git(release.origin, "rev-parse", f"{tagged}^").strip() == release.main
    changed = set(git(release.origin, "diff", "--name-only", release.main, tagged).split())
    assert changed == {"action.yml", "agenteval_ci/_release.py", "README.md", "docs/action.md", ".pre-commit-hooks.yaml",
                       *(f"docs/workflows/{p.name}" for p in (ROOT / "docs" / "workflows").glob("*.yml"))}
    assert f"  image: docker://{IMAGE}\n" in git(release.origin, "show", f"{TAG}:action.yml")
    # What went to PyPI was built from what the tag holds.
    for path in changed - {"action.yml"}:
        assert (release.dist_job / path).read_text() == git(release.origin, "show", f"{TAG}:{path}"), path


def test_the_release_build_carries_the_tags_version_and_names(release):
    assert sorted(p.name for p in release.dist.iterdir()) == [f"agenteval_ci-{VERSION}-py3-none-any.whl", f"agenteval_ci-{VERSION}.tar.gz"]
    with zipfile.ZipFile(release.dist / f"agenteval_ci-{VERSION}-py3-none-any.whl") as wheel:
        names = wheel.namelist()
        metadata = wheel.read(f"agenteval_ci-{VERSION}.dist-info/METADATA").decode()
        module = wheel.read("agenteval_ci/_release.py").decode()
    assert f"\nVersion: {VERSION}\n" in metadata and "\nLicense-Expression: Apache-2.0\n" in metadata
    assert f"pip install 'agenteval-ci[adk] @ git+https://github.com/{REPOSITORY}@{TAG}'" in metadata  # PyPI's page is the README
    assert f'VERSION = "{VERSION}"' in module and f'REPOSITORY = "{REPOSITORY}"' in module
    assert {"agenteval_ci/workflow_templates/gate.yml", "agenteval_ci/report/templates/comment.md.j2"} <= set(names)
    assert not [n for n in names if n.startswith("tests/")]
    with tarfile.open(release.dist / f"agenteval_ci-{VERSION}.tar.gz") as sdist:
        files = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"PKG-INFO", "LICENSE", "README.md", "pyproject.toml", "agenteval_ci/_release.py"} <= files
    assert not [f for f in files if f.startswith(("tests/", ".github/", "examples/"))]


def test_the_wheel_runs_the_readmes_first_command_in_a_clean_venv(release):
    script = step("dist.yml", "dist", "The wheel in a clean venv runs the README's first command")
    done = run_step(script, release.dist_job, 300, **borrowed_dependencies())
    assert passed(done) and "pip install /" in done.stdout
    assert "&& agenteval run --config examples/home_automation/agenteval.yaml\n" in done.stdout
    assert f"the wheel agenteval_ci-{VERSION}-py3-none-any.whl ran the README's first command" in done.stdout


def test_the_readmes_git_line_installs_the_release_from_the_moved_tag(release, tmp_path):
    smoke_job = checkout(release.origin, tmp_path / "smoke-job")
    github = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"url.file://localhost{release.origin}.insteadOf",
              "GIT_CONFIG_VALUE_0": f"https://github.com/{REPOSITORY}"}
    script = step("release.yml", "smoke", "The README's install line from the repository installs the release")
    done = run_step(script, smoke_job, 300, TAG=TAG, GITHUB_REPOSITORY=REPOSITORY, RUNNER_TEMP=str(tmp_path), **github, **borrowed_dependencies())
    assert passed(done) and f"git+https://github.com/{REPOSITORY}@{TAG}" in done.stdout

    def agenteval(*args: str, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run([str(tmp_path / "venv" / "bin" / "agenteval"), *args], cwd=cwd,
                              env=environment(**borrowed_dependencies()), capture_output=True, text=True, timeout=300)

    passed(agenteval("run", "--config", "examples/home_automation/agenteval.yaml", cwd=smoke_job))
    project = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "data" / "newcomer", project)
    init = agenteval("init", str(project), "--no-run", cwd=tmp_path)
    assert passed(init) and "placeholder" not in init.stdout
    assert f"the workflows use the action {REPOSITORY}@v1: the major version of this agenteval-ci ({VERSION})" in init.stdout
    for workflow in ("agenteval.yml", "agenteval-accept.yml"):
        assert f"uses: {REPOSITORY}@v1\n" in (project / ".github" / "workflows" / workflow).read_text()


def test_the_pypi_jobs_dry_run_finds_exactly_the_files_of_the_version(release):
    script = step("release.yml", "pypi", "What goes to PyPI")
    passed(run_step(script, release.dist_job, 30, VERSION=TAG))
    assert run_step(script, release.dist_job, 30, VERSION="v1.2.4").returncode != 0


def test_the_upload_takes_both_files_named_for_the_tag(release):
    """pypa/gh-action-pypi-publish runs twine upload on dist/*: here against a loopback index."""
    files = sorted(release.dist.iterdir())
    with FakePyPI() as index:
        done = subprocess.run(["twine", "upload", "--non-interactive", "--disable-progress-bar", "--repository-url", index.upload_url,
                               "-u", "__token__", "-p", "pypi-loopback", *map(str, files)],
                              env=environment(), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    assert sorted((u.name, u.version, u.filetype, u.filename) for u in index.uploads) == [
        ("agenteval-ci", VERSION, "bdist_wheel", files[0].name), ("agenteval-ci", VERSION, "sdist", files[1].name)]
    assert {u.sha256 for u in index.uploads} == {hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
