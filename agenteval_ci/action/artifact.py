"""The results artifact: the files the action leaves in its results folder (what a `publish`
job or an `/agenteval accept` downloads), and reading one back as the untrusted input it is."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pydantic

from ..errors import InputError, Problem, UsageError
from ..files.readers import MAX_FILE_BYTES, decode_text, parse_json
from ..files.results_file import GZIP_MAGIC
from ..files.writing import write_atomic
from ..github import BadArtifact, PullRequest, Repo
from ..schema.problems import problems_from
from .event import PullFile
from .inputs import ActionSettings

RESULTS = "results.json.gz"  # gzip: a 100,000-case suite's is ~10x smaller, well within an artifact's download
OLD_RESULTS = "results.json"  # what artifacts of releases before it hold
PULL = "pull.json"  # which PR and head a results artifact belongs to, for mode publish
COMMENT = "comment.md"
COMPARISON = "comparison.json"
JUNIT = "junit.xml"
REPORT = "report.html"
SHARD_RESULTS = "results-*.json*"  # what mode merge joins (`.json.gz`, or `.json` from before)


def shard_results(shard: str) -> str:
    """One shard's results file: `results-2-of-3.json` for `--shard 2/3`."""
    return f"results-{shard.replace('/', '-of-')}.json.gz"


@dataclass(frozen=True)
class Downloaded:
    """A results artifact's files: the results file saved under the results folder, and pull.json's text."""

    results: Path
    pull: str | None


def download_results(s: ActionSettings, repo: Repo, run_id: int) -> Downloaded:
    """The artifact's results file (written, as it came, to the results folder) and pull.json as
    text. An artifact a fork's run uploaded is untrusted: its files go through the guarded
    readers like any input."""
    artifact = next((a for a in repo.artifacts(run_id) if a.name == s.artifact_name and not a.expired), None)
    if artifact is None:
        raise UsageError(f"run {run_id} has no artifact named '{s.artifact_name}' (input artifact-name)")
    try:
        files = {Path(name).name: data for name, data in repo.download_artifact(artifact.id, MAX_FILE_BYTES).items()}
    except BadArtifact as exc:
        raise InputError(Problem(f"artifact {s.artifact_name} of run {run_id}", "$", str(exc))) from None
    name = next((n for n in (RESULTS, OLD_RESULTS) if n in files), None)
    if name is None:
        raise InputError(Problem(f"artifact {s.artifact_name}", "$", f"has no {RESULTS} (nor {OLD_RESULTS})"))
    where = f"artifact {s.artifact_name} of run {run_id}: "
    data = files.pop(name)
    if not data.startswith(GZIP_MAGIC):
        decode_text(where + name, data)  # not UTF-8: said of the artifact, not of our copy of it
    path = s.results_dir / name
    write_atomic(path, data)
    return Downloaded(path, decode_text(where + PULL, files[PULL]) if PULL in files else None)


def read_pull_file(text: str | None, where: str = PULL) -> PullFile | None:
    """pull.json of a results artifact: which PR and head it claims to belong to."""
    if text is None:
        return None
    try:
        return PullFile.model_validate(parse_json(where, text))
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, where, PullFile)) from None


def pull_for_run(repo: Repo, pull_file: str | None, head_sha: str) -> PullRequest | None:
    """The PR the artifact claims, trusted only if that PR's head is the run's head."""
    claimed = read_pull_file(pull_file)
    if claimed is None:
        return None
    number = claimed.number
    pull = repo.pull(number)
    if pull.head.sha != head_sha:
        raise UsageError(f"PR #{number}'s head is {pull.head.sha[:7]}, not the evaluated {head_sha[:7]}; a newer run will publish")
    return pull
