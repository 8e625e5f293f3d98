"""Compare results with a baseline and publish: files, job summary, comment, check, outputs."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.digest import ScoredResults
from ..core.gate import Comparison, compare
from ..core.gate_overrides import resolve_gate
from ..files.baseline_file import load_baseline, parse_baseline_text
from ..files.project import project_settings
from ..files.spilled_outcomes import SpilledOutcomes
from ..files.writing import write_atomic, write_pieces
from ..github import Annotation, FileContent, Forbidden, GitHubError, NotFound, PullRequest, Repo
from ..report import comment_marker, comparison_json_parts, html_parts, junit_parts, render_comment, render_summary
from ..schema import Outcome, Verdict
from ..schema.baseline import Baseline
from ..schema.labels import short_name
from ..schema.settings import GateSettings
from . import artifact
from .inputs import ActionSettings
from .workflow import Runner

CHECK_SUMMARY_LIMIT = 65535  # GitHub's limit on a check run's output.summary


@dataclass(frozen=True)
class Target:
    """Where a verdict goes: the PR (if any), the commit the check belongs to, and whether we may write."""

    pull: PullRequest | None
    head_sha: str
    can_write: bool
    read_only_reason: str = ""


@dataclass(frozen=True)
class BaselineChoice:
    baseline: Baseline | None  # what the verdict is graded against
    path: str  # repo-relative
    edited_by_pull: bool = False  # the PR changed the file by hand: graded against the base's, flagged
    accepted_by: str = ""  # the PR's own baseline, accepted by this writer through /agenteval accept
    base: Baseline | None = None  # with accepted_by: the base branch's, for the deltas reviewers see


ACCEPTED = re.compile(r"<!-- agenteval-ci:accepted pr=(?P<pr>\d+) sha256=(?P<digest>[0-9a-f]{64}) by=(?P<login>[A-Za-z0-9-]+(?:\[bot\])?) -->")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def accepted_on_pull(repo: Repo, number: int, text: str) -> str:
    """The writer who accepted exactly this baseline text on this PR, or "". Only the action's
    own accept replies count, and only their first line (nothing a PR can inject lands there);
    a digest recorded on another PR does not match this PR's number."""
    wanted = digest(text)
    for comment in repo.own_comments(number):
        match = ACCEPTED.fullmatch(comment.body.split("\n", 1)[0])
        if match and int(match["pr"]) == number and match["digest"] == wanted:
            return match["login"]
    return ""

def project_choices(s: ActionSettings) -> tuple[str, GateSettings]:
    """agenteval.yaml's baseline (repo-relative) and gate, with the `fail-on` input applied."""
    project = project_settings(str(s.in_workspace(s.config)))
    return Path(os.path.relpath(project.baseline, s.workspace)).as_posix(), resolve_gate(project.gate, s.gate_overrides)


def baseline_of(file: FileContent | None, ref: str) -> Baseline | None:
    """A baseline fetched through the API (its text in memory), read case by case as a file is,
    its cases kept on disk; errors name the file and the commit."""
    if file is None:
        return None
    return parse_baseline_text(f"{file.path} at {ref[:12]}", file.text)


def choose_baseline(s: ActionSettings, repo: Repo | None, pull: PullRequest | None) -> BaselineChoice:
    """A PR is graded against its base branch's baseline, never the one it brings along."""
    path, _ = project_choices(s)
    if pull is None or repo is None:
        return BaselineChoice(load_baseline(s.in_workspace(path)), path)
    base = repo.get_file(path, pull.base.sha)
    head = repo.get_file(path, pull.head.sha)
    edited = (base.text if base else None) != (head.text if head else None)
    if edited and head is not None:
        login = accepted_on_pull(repo, pull.number, head.text)
        if login:
            return BaselineChoice(baseline_of(head, pull.head.sha), path, False, login, baseline_of(base, pull.base.sha))
    return BaselineChoice(baseline_of(base, pull.base.sha), path, edited)


def line_of_case(path: Path, eval_id: str) -> int:
    """The line of `"eval_id": "<id>"` in an eval set file (1 if we cannot find it)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return 1
    pattern = re.compile(r'"(?:eval_id|evalId|name)"\s*:\s*' + re.escape(f'"{eval_id}"'))
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def failing_annotations(s: ActionSettings, comparison: Comparison, results: ScoredResults) -> list[Annotation]:
    failing = [o for o in Outcome if o.traits.fails and comparison.counts.get(o.value)]
    wanted = {(c.suite, c.eval_set_id, c.eval_id) for o in failing for c in comparison.cases.of(o.value)}
    files = {(c.suite, c.eval_set_id, c.eval_id): c.eval_set_file for c in results.cases if (c.suite, c.eval_set_id, c.eval_id) in wanted}
    notes = []
    for case in comparison.cases:
        file = files.get((case.suite, case.eval_set_id, case.eval_id))
        outcome = Outcome(case.outcome)
        if not outcome.traits.fails or not file:
            continue
        message = f"{outcome.word}: {', '.join(case.worse_metrics) or 'see the report'}"
        if case.note:
            message += f"\n{case.note}"
        path = Path(os.path.relpath(s.in_workspace(file), s.workspace)).as_posix()
        notes.append(Annotation(path, line_of_case(s.in_workspace(file), case.eval_id), "failure", f"{outcome.word} {short_name(case.eval_id)}", message))
    return notes


def write_reports(s: ActionSettings, comparison: Comparison, results: ScoredResults, comment: str) -> Path:
    s.results_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(s.results_dir / artifact.COMMENT, comment)
    write_pieces(s.results_dir / artifact.COMPARISON, comparison_json_parts(comparison))
    write_pieces(s.results_dir / artifact.JUNIT, junit_parts(results, comparison))
    report = s.results_dir / artifact.REPORT
    write_pieces(report, html_parts(comparison, results))  # every case, written as made
    return report


def post_comment(repo: Repo, runner: Runner, pull: PullRequest, suite: str, body: str) -> str:
    try:
        comment = repo.upsert_comment(pull.number, comment_marker(suite), body)
    except (Forbidden, NotFound) as exc:
        runner.warning(f"could not post the PR comment ({exc.status}: {exc.message}); the job summary has the report")
        return ""
    if not repo.identity().owns(comment):  # a GitHub App's token: we cannot learn whose it is
        runner.warning(f"the token comments as {comment.author}, which the action does not take for its own: the next run "
                       f"posts a new comment and accept replies do not count; set the input app-login: {comment.author}")
    return comment.html_url


def check_title(comparison: Comparison) -> str:
    """The check's one line: a gate that failed on no regression (a budget, lost figures, a
    threshold) says its first reason rather than "0 regression(s)"."""
    if comparison.verdict == Verdict.FAILED and not comparison.regressions and comparison.reasons:
        reason = comparison.reasons[0]
        return f"failed: {reason if len(reason) <= 120 else reason[:119] + '…'}"
    return f"{comparison.verdict}: {comparison.regressions} regression(s)"


def post_check(s: ActionSettings, repo: Repo, runner: Runner, target: Target, comparison: Comparison,
               summary: str, annotations: list[Annotation]) -> None:
    """A check run; a token that may not create one (403/404, e.g. a fork's) gets a commit status instead."""
    conclusion = "success" if comparison.verdict == Verdict.PASSED else "failure"
    title = check_title(comparison)
    try:
        repo.create_check(s.check_name, target.head_sha, conclusion, title, summary, annotations=annotations, details_url=s.run_url or None)
        return
    except (Forbidden, NotFound) as exc:
        runner.warning(f"could not create a check run ({exc.status}: {exc.message}); setting a commit status instead")
    try:
        repo.create_status(target.head_sha, conclusion, s.check_name, title, s.run_url or None)
    except GitHubError as exc:
        runner.warning(f"could not set a commit status either ({exc.status}: {exc.message}); the step's exit code carries the verdict")


def emit_errors(runner: Runner, annotations: list[Annotation]) -> None:
    for note in annotations:
        if not runner.error(note.message, file=note.path, line=note.line, title=note.title):
            break


def publish(s: ActionSettings, runner: Runner, repo: Repo | None, results: ScoredResults, choice: BaselineChoice,
            target: Target, results_path: Path) -> int:
    _, gate = project_choices(s)
    comparison = compare(results, choice.baseline, gate, SpilledOutcomes())
    comparison = dataclasses.replace(comparison, baseline_edited=choice.edited_by_pull)
    if choice.accepted_by:  # graded against the accepted baseline; the deltas shown are the base's
        shown = compare(results, choice.base, gate, SpilledOutcomes())
        comparison = dataclasses.replace(shown, verdict=comparison.verdict, exit_code=comparison.exit_code,
                                         reasons=comparison.reasons, accepted_by=choice.accepted_by)
    suite = s.suite or ",".join(results.suites)  # one sticky comment per suite (or per set of suites)
    # Fits both a comment (65,536) and a check run's summary (65,535), truncated by importance.
    comment = render_comment(comparison, results, suite=suite, baseline_path=choice.path, max_chars=CHECK_SUMMARY_LIMIT)
    summary = render_summary(comparison, results, baseline_path=choice.path)
    report = write_reports(s, comparison, results, comment)
    runner.add_summary(summary)
    annotations = failing_annotations(s, comparison, results)
    # Before posting: a GitHub that fails to answer still leaves the verdict to later steps.
    for name, value in {"verdict": comparison.verdict, "regressions": str(comparison.regressions),
                        "results-path": str(results_path), "report-path": str(report)}.items():
        runner.set_output(name, value)
    comment_url = ""
    if repo is None or not target.can_write:
        runner.notice(f"agenteval: not posting a comment or check ({target.read_only_reason or 'no token'}); "
                      f"the verdict is in the job summary and {s.results_dir.name}/")
    else:
        if s.comment and target.pull is not None:
            comment_url = post_comment(repo, runner, target.pull, suite, comment)
        if s.check and target.head_sha:
            post_check(s, repo, runner, target, comparison, comment, annotations)
    emit_errors(runner, annotations)
    runner.set_output("comment-url", comment_url)
    runner.log_untrusted(f"agenteval: {check_title(comparison)}")  # a reason may quote case ids
    return comparison.exit_code
