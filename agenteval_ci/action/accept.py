"""`/agenteval accept` on a PR: a writer's comment commits the PR head's results as the new baseline.

The comment body is parsed as plain words (never a shell): case ids and `--metric NAME`.
Authorization asks GitHub for the commenter's role (admin, maintain, write), never
`author_association`. The results are the artifact of the PR head's own run, and the
commit names the blob sha it replaces, so a concurrent change is a conflict, not an overwrite.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..core.baseline import baseline_from_results, dump_baseline, referenced_outputs, refuse_unsound
from ..core.digest import ResultsDigest
from ..core.figures import kept_figures
from ..errors import EXIT_BUG, EXIT_FAILED, EXIT_PASSED, AgentevalError, UsageError
from ..files.baseline_file import utc_now
from ..files.baseline_outputs import accepted_records, outputs_bytes, outputs_path
from ..files.results_file import ResultsFile
from ..files.spill import spilled_cases
from ..github import Comment, Conflict, FileBytes, FileContent, GitHubError, PullRef, PullRequest, Repo, Unreachable
from ..schema import CaseResult
from ..schema.baseline import Baseline
from . import artifact
from .event import IssueCommentEvent
from .inputs import ActionSettings
from .modes import github_repo
from .publish import BaselineChoice, Target, baseline_of, digest, project_choices, publish
from .workflow import Runner

COMMAND = "/agenteval accept"
ALLOW_FAILED = "--allow-failed"
REPLY_MARKER = "<!-- agenteval-ci:reply -->"
WRITER_ROLES = ("admin", "maintain", "write")
_WORD = re.compile(r"^[A-Za-z0-9_.:/@+-]{1,200}$")


@dataclass(frozen=True)
class AcceptCommand:
    cases: list[str] | None  # None: every case
    metrics: list[str] | None  # None: every metric
    allow_failed: bool = False  # accept even with failed runs or unevaluated gated metrics


class Refused(AgentevalError):
    """Accepting is not possible now; the message is the reply to the commenter, and the step fails."""

    exit_code = EXIT_FAILED


def parse_command(body: str) -> AcceptCommand | None:
    first_line = body.strip().splitlines()[0] if body.strip() else ""
    if not (first_line == COMMAND or first_line.startswith(COMMAND + " ")):
        return None
    words = first_line[len(COMMAND):].split()
    cases, metrics, allow_failed = [], [], False
    while words:
        word = words.pop(0)
        if word == ALLOW_FAILED:
            allow_failed = True
            continue
        if word == "--metric":
            if not words:
                raise Refused("`--metric` needs a metric name, like `/agenteval accept --metric response_match_score`.")
            word = words.pop(0)
            metrics.append(word)
        else:
            cases.append(word)
        if not _WORD.match(word) or word.startswith("--"):
            raise Refused(f"I did not understand `{word[:60]}`: use `/agenteval accept [CASE_ID ...] [--metric NAME]`.")
    return AcceptCommand(cases or None, metrics or None, allow_failed)


def reply(repo: Repo, issue: int, text: str, marker: str = REPLY_MARKER) -> Comment:
    return repo.create_comment(issue, f"{marker}\n{text}")


def accepted_marker(number: int, text: str, login: str) -> str:
    """The first line of the bot's accept reply: the trust anchor that lets this PR be graded
    against the baseline file with exactly this text (see publish.accepted_on_pull)."""
    return f"<!-- agenteval-ci:accepted pr={number} sha256={digest(text)} by={login} -->"


def results_of_head(s: ActionSettings, repo: Repo, pull: PullRequest) -> tuple[ResultsDigest, Path]:
    """The results artifact that the PR's current head commit produced, and where it was saved."""
    for run in repo.runs_for(pull.head.sha):
        if run.status != "completed" or run.head_sha != pull.head.sha:
            continue
        try:
            downloaded = artifact.download_results(s, repo, run.id)
        except GitHubError:
            raise
        except AgentevalError:
            continue  # a run of another workflow: no agenteval artifact
        claimed = artifact.read_pull_file(downloaded.pull)
        if claimed is not None and claimed.head_sha not in (None, pull.head.sha):
            continue
        return ResultsFile(downloaded.results).digest(), downloaded.results
    raise Refused(
        f"I found no agenteval results for this PR's head commit {pull.head.sha[:7]}. The head has moved since the "
        "last evaluation, or its run has not finished: wait for the agenteval run of the latest commit, then comment again."
    )


def fork_instructions(path: str, old: str, new: str) -> str:
    patch = "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"))
    return (
        "This PR comes from a fork, so I cannot push to its branch. To accept, the PR author can apply this patch "
        f"(save it as `baseline.patch`, run `git apply baseline.patch`, commit and push):\n\n```diff\n{patch[:60000]}```"
    )


def accept_mode(s: ActionSettings, runner: Runner) -> int:
    event = s.event
    if not isinstance(event, IssueCommentEvent):
        raise UsageError(f"mode accept runs on an issue_comment event, not {s.event_name or 'no event'!r} ($GITHUB_EVENT_NAME)")
    comment, number = event.comment, event.issue.number
    body, user = comment.text, comment.user
    if event.action != "created" or user.type == "Bot" or REPLY_MARKER in body or "<!-- agenteval" in body:
        print("agenteval: not a new human comment; nothing to do")
        return EXIT_PASSED
    repo = github_repo(s)
    try:
        command = parse_command(body)
        if command is None:
            print("agenteval: the comment is not an `/agenteval accept` command")
            return EXIT_PASSED
        if repo is None:
            raise Refused("the action has no github-token")
        if not event.issue.is_pull:
            raise Refused("`/agenteval accept` works on pull requests only.")
        if repo.permission(user.login) not in WRITER_ROLES:
            reply(repo, number, f"Thanks @{user.login}! Only people with write access to this repository can "
                  "accept a new baseline; a maintainer can comment `/agenteval accept` if the change is intended.")
            return EXIT_PASSED
        react_quietly(repo, runner, comment.id, "eyes")
        return accept(s, runner, repo, number, user.login, command, comment.id)
    except GitHubError as exc:  # before the commit: nothing was written
        if repo is not None and not isinstance(exc, Unreachable):
            with contextlib.suppress(GitHubError):
                reply(repo, number, f"GitHub failed while I was accepting: {exc}. Nothing was committed; comment "
                      "`/agenteval accept` again once GitHub answers.")
        raise
    except AgentevalError as exc:  # refused, or a case id that is not in the results: the reply says why
        runner.log_untrusted(str(exc))
        if repo is not None:
            reply(repo, number, str(exc))
        return EXIT_FAILED  # the step fails as a refusal does, whatever refused it


def accept(s: ActionSettings, runner: Runner, repo: Repo, number: int, login: str, command: AcceptCommand, comment_id: int) -> int:
    pull = repo.pull(number)
    results, results_path = results_of_head(s, repo, pull)
    refuse_unsound(results, command.allow_failed, command.cases, flag=f"`{COMMAND} {ALLOW_FAILED}`")
    path, gate = project_choices(s)
    current = repo.get_file(path, pull.head.sha)
    new = baseline_from_results(results, baseline_of(current, pull.head.sha), command.cases, command.metrics, commit=pull.head.sha,
                                figures=kept_figures(gate), new_cases=spilled_cases(), created_at=utc_now())
    text = dump_baseline(new)
    marker = accepted_marker(number, text, login)
    if pull.is_fork:
        reply(repo, number, fork_instructions(path, current.text if current else "", text) + FORK_OUTPUTS_NOTE, marker)
        return EXIT_PASSED
    outputs = recorded_outputs(repo, pull, path, new, ResultsFile(results_path))
    if repo.pull(number).head.sha != pull.head.sha:
        raise Refused("The PR's head moved while I was preparing the baseline; comment again once its new run has finished.")
    what = " ".join(command.cases or ["all cases"]) + (f" (metrics: {', '.join(command.metrics)})" if command.metrics else "")
    # The reply carrying the accepted digest comes first: a commit never lands without it, so
    # the next push is never graded as a hand edit. It vouches only for the text this writer
    # accepted, so it is harmless if the commit then fails; when we know it failed, it is withdrawn.
    pending = reply(repo, number, f"Accepting the baseline for {what} (@{login}): committing `{path}`...", marker)
    try:
        if outputs.changed:  # first: the baseline points to its records; extra records are harmless
            commit_baseline(repo, pull, outputs.path, outputs.data, outputs.current, f"agenteval: recorded outputs of the baseline for {what}\n\n"
                            f"Accepted by @{login} in #{number} via /agenteval accept.")
        commit = commit_baseline(repo, pull, path, text, current, f"agenteval: accept baseline for {what}\n\n"
                                 f"Accepted by @{login} in #{number} via /agenteval accept.")
    except (Refused, GitHubError) as exc:
        return withdraw(repo, runner, pending, path, exc)
    react_quietly(repo, runner, comment_id, "+1")
    accepted = PullRequest(pull.number, PullRef(commit, pull.head.ref, pull.head.repo), pull.base, pull.state)
    try:
        repo.update_comment(pending.id, f"{marker}\nBaseline accepted by @{login} for {what}: committed `{path}` in {commit[:7]}.")
        publish(s, runner, repo, results, BaselineChoice(new, path), Target(accepted, commit, True), results_path)
    except GitHubError as exc:  # the acceptance stands (its digest is recorded); the next push posts the verdict
        report_github_error(runner, f"the baseline is committed in {commit[:7]}, but posting the verdict failed: {exc}")
        return EXIT_BUG
    return EXIT_PASSED


FORK_OUTPUTS_NOTE = (
    "\n\nThe baseline's recorded outputs (what a changed judge re-judges) cannot travel in a text patch: "
    "to record them too, run `agenteval accept` on this PR's results artifact and commit both files."
)


@dataclass(frozen=True)
class OutputsFile:
    path: str
    data: bytes
    current: FileBytes | None

    @property
    def changed(self) -> bool:
        return self.current is None or self.current.data != self.data


def recorded_outputs(repo: Repo, pull: PullRequest, path: str, baseline: Baseline, results: Iterable[CaseResult]) -> OutputsFile:
    """The outputs file beside the accepted baseline: the records it points to, from the results'
    cases (read a case at a time from the artifact's file) or carried over from the branch's
    file (docs/baseline.md, "Recorded outputs")."""
    where = outputs_path(path).as_posix()
    current = repo.get_bytes(where, pull.head.sha)
    records = accepted_records(referenced_outputs(baseline), results, current.data if current else None, f"{where} at {pull.head.sha[:12]}")
    data, _ = outputs_bytes(records)
    return OutputsFile(where, data, current)


def commit_baseline(repo: Repo, pull: PullRequest, path: str, text: str | bytes, current: FileContent | FileBytes | None, message: str) -> str:
    try:
        return repo.put_file(path, text, branch=pull.head.ref, message=message, blob_sha=current.sha if current else None)
    except Conflict:
        raise Refused(f"`{path}` changed on the branch since I read it, so I did not overwrite it. Pull the latest changes "
                      "and comment `/agenteval accept` again.") from None


def withdraw(repo: Repo, runner: Runner, pending: Comment, path: str, exc: Exception) -> int:
    """The commit failed and the branch is as it was (the client reads the branch again before
    it gives up): the pending reply loses its accepted digest and says what failed. With GitHub
    unreachable we cannot know, and the digest stays (it vouches only for accepted text)."""
    if isinstance(exc, Unreachable):
        report_github_error(runner, str(exc))
        return EXIT_BUG
    why = str(exc) if isinstance(exc, Refused) else f"I could not commit `{path}`: {exc}. Nothing was written to the branch; " \
        "comment `/agenteval accept` again once GitHub answers."
    runner.log_untrusted(why)
    try:
        repo.update_comment(pending.id, f"{REPLY_MARKER}\n{why}")
    except GitHubError as failed:
        report_github_error(runner, f"{exc}; and the reply could not be updated: {failed}")
        return EXIT_BUG
    if isinstance(exc, Refused):
        return EXIT_FAILED
    report_github_error(runner, str(exc))
    return EXIT_BUG


def react_quietly(repo: Repo, runner: Runner, comment_id: int, content: str) -> None:
    """A reaction is a courtesy: GitHub failing to store one changes nothing else."""
    try:
        repo.react(comment_id, content)
    except GitHubError as exc:
        runner.warning(f"could not react with {content} to the comment: {exc}")


def report_github_error(runner: Runner, message: str) -> None:
    runner.error(f"agenteval: {message}")
    print(f"agenteval: error: {message}", file=sys.stderr)
