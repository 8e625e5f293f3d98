"""The action's name and the package's source in one place (agenteval_ci/_release.py): the docs
and `init` name what it names, and scripts/stamp_release.py turns main's development names into
a release's everywhere (issue 29)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agenteval_ci._release import ACTION, REPOSITORY, VERSION, action_name, is_release, published_names
from agenteval_ci.cli import main

ROOT = Path(__file__).resolve().parent.parent
STAMP = ROOT / "scripts" / "stamp_release.py"
DOCS = ["README.md", "docs/action.md", ".pre-commit-hooks.yaml", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs" / "workflows").glob("*.yml"))]
# Actions the docs use beside ours.
OTHERS = re.compile(r"(actions|docker|pypa|google-github-actions)/|\./")


def ours(text: str) -> list[str]:
    """The `uses:` values that name agenteval's action (a doc's YAML blocks included)."""
    return [u for u in re.findall(r"^[\s-]*uses:\s*(\S+)", text, re.M) if not OTHERS.match(u)]


def tracked_files() -> list[str]:
    done = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [f for f in done.stdout.splitlines() if (ROOT / f).is_file()]


def test_main_is_a_development_build_that_names_a_placeholder_nobody_can_own():
    assert not is_release() and VERSION.endswith(".dev0")
    assert ACTION == f"{REPOSITORY}@main" and "<" in REPOSITORY  # GitHub account names cannot hold "<"
    assert action_name("1.2.3", "octo/agenteval-ci") == "octo/agenteval-ci@v1"
    assert published_names("1.2.3", "octo/agenteval-ci")["pip from git"] == "agenteval-ci[adk] @ git+https://github.com/octo/agenteval-ci@v1.2.3"


def test_every_doc_names_the_action_and_the_source_as_the_constant_does():
    names = published_names()
    uses = {doc: ours((ROOT / doc).read_text()) for doc in DOCS}
    assert all(uses[doc] for doc in DOCS if doc.endswith(".yml") or doc.endswith(".md")), uses
    assert {u for found in uses.values() for u in found} == {ACTION}
    readme = (ROOT / "README.md").read_text()
    assert f"pip install '{names['pip from git']}'" in readme and "pip install 'agenteval-ci[adk]'" in readme
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert f"#   - {names['pre-commit repo']}\n#     {names['pre-commit rev']}\n" in hooks


def test_only_the_stamped_files_name_the_repository():
    """The stamp rewrites the docs it knows; a mention anywhere else would outlive a release."""
    naming = {f for f in tracked_files() if REPOSITORY in (ROOT / f).read_text(encoding="utf-8", errors="replace")}
    assert naming - {"agenteval_ci/_release.py"} - {f for f in naming if f.startswith("tests/")} == set(DOCS)


def test_init_writes_the_constants_action_and_says_it_is_a_placeholder_to_replace(tmp_path, capsys):
    shutil.copytree(ROOT / "tests" / "data" / "newcomer", tmp_path / "p")
    assert main(["init", str(tmp_path / "p"), "--no-run"]) == 0
    out = capsys.readouterr().out
    for workflow in ("agenteval.yml", "agenteval-accept.yml"):
        assert ours((tmp_path / "p" / ".github" / "workflows" / workflow).read_text()) == [ACTION]
    assert f"the workflows use the action {ACTION}, a placeholder" in out
    assert f"Replace {REPOSITORY} in .github/workflows/agenteval.yml and .github/workflows/agenteval-accept.yml" in out
    assert main(["init", str(tmp_path / "p"), "--no-run"]) == 0
    assert "the workflows use" not in capsys.readouterr().out  # kept files: init wrote no name


# ---------------------------------------------------------------- the stamp


def docs_copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel in [*DOCS, "agenteval_ci/_release.py"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, root / rel)
    return root


def stamp(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(STAMP), *args, str(root)], capture_output=True, text=True, timeout=30)


def snapshot(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*") if p.is_file()}


def test_the_stamp_gives_every_name_the_releases_value(tmp_path):
    root = docs_copy(tmp_path)
    done = stamp(root, "v1.2.3", "octo/agenteval-ci")
    assert done.returncode == 0, done.stderr
    assert "stamped agenteval_ci/_release.py" in done.stdout and "stamped README.md" in done.stdout
    module = (root / "agenteval_ci" / "_release.py").read_text()
    assert 'VERSION = "1.2.3"' in module and 'REPOSITORY = "octo/agenteval-ci"' in module
    old, new = published_names(), published_names("1.2.3", "octo/agenteval-ci")
    for doc in DOCS:
        text = (root / doc).read_text()
        assert REPOSITORY not in text
        assert set(ours(text)) <= {"octo/agenteval-ci@v1"}
        expected = (ROOT / doc).read_text()
        for kind in old:
            expected = expected.replace(old[kind], new[kind])
        assert text == expected  # nothing else changed
    assert f"pip install '{new['pip from git']}'" in (root / "README.md").read_text()
    hooks = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())
    assert hooks[0]["id"] == "agenteval-validate"  # still a hooks file
    assert "#     rev: v1.2.3\n" in (root / ".pre-commit-hooks.yaml").read_text()


@pytest.mark.parametrize(("tag", "repository", "says"), [
    ("1.2.3", "octo/agenteval-ci", "not a release tag"),
    ("v1.2", "octo/agenteval-ci", "not a release tag"),
    ("v1.2.3-rc1", "octo/agenteval-ci", "not a release tag"),
    ("v1.2.3", "octo", "not a GitHub owner/repo"),
    ("v1.2.3", "<owner>/agenteval-ci", "not a GitHub owner/repo"),
    ("v1.2.3", "octo/agenteval-ci x", "not a GitHub owner/repo"),
])
def test_a_bad_tag_or_repository_is_refused_and_nothing_changes(tmp_path, tag, repository, says):
    root = docs_copy(tmp_path)
    before = snapshot(root)
    done = stamp(root, tag, repository)
    assert done.returncode != 0 and says in done.stderr
    assert snapshot(root) == before


def test_stamping_twice_is_refused(tmp_path):
    root = docs_copy(tmp_path)
    assert stamp(root, "v1.2.3", "octo/agenteval-ci").returncode == 0
    stamped = snapshot(root)
    again = stamp(root, "v1.2.4", "octo/agenteval-ci")
    assert again.returncode != 0 and "already stamped (1.2.3)" in again.stderr
    assert snapshot(root) == stamped


def test_a_doc_naming_the_repository_in_a_way_the_stamp_does_not_know_stops_it_before_any_write(tmp_path):
    root = docs_copy(tmp_path)
    readme = root / "README.md"
    readme.write_text(readme.read_text() + f"\nClone https://github.com/{REPOSITORY}.git to hack on it.\n")
    before = snapshot(root)
    done = stamp(root, "v1.2.3", "octo/agenteval-ci")
    assert done.returncode != 0 and "README.md: names <owner>/<repo>" in done.stderr
    assert snapshot(root) == before
