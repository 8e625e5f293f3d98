"""The GitHub operations the action needs, as typed records over `GitHubClient`.

Everything here takes already-rendered strings (comment bodies, check summaries);
nothing imports the report package.
"""

from __future__ import annotations

import base64
import functools
import io
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..files.readers import MAX_FILE_BYTES
from .client import GitHubClient
from .errors import BadArtifact, Conflict, Forbidden, GitHubError, NotFound

ANNOTATIONS_PER_REQUEST = 50  # GitHub's limit per check-run create/update call
ACTIONS_BOT = "github-actions[bot]"  # who an Actions GITHUB_TOKEN comments as


@dataclass(frozen=True)
class Comment:
    id: int
    body: str
    html_url: str
    author: str = ""
    author_type: str = ""  # User | Bot | Organization


@dataclass(frozen=True)
class Identity:
    """Who the token comments as: a user's login (a PAT: GET /user answers), or, for an
    installation token (GET /user is 403), the Actions bot, or the app bot named by the
    `app-login` input. Any other app's bot is not us: a third-party app that echoes what a
    user wrote must not be able to post an accepted marker for us.

    A PAT also owns the Actions bot's comments: only a workflow of this repository with a
    write token can write as github-actions[bot], so a workflow that switched from
    GITHUB_TOKEN to a PAT keeps editing its one sticky comment (and its accept replies
    still count). The other way round is not possible: a user's comment is never ours
    under an installation token, since we cannot tell which user a past PAT was."""

    login: str | None
    app_login: str | None = None  # the bot of the GitHub App whose installation token this is

    def owns(self, comment: Comment) -> bool:
        if comment.author_type != "Bot":
            return self.login is not None and comment.author == self.login
        return comment.author in (ACTIONS_BOT, self.login, self.app_login)


@dataclass(frozen=True)
class PullRef:
    sha: str
    ref: str
    repo: str  # owner/name; differs from the base's on a fork PR


@dataclass(frozen=True)
class PullRequest:
    number: int
    head: PullRef
    base: PullRef
    state: str

    @property
    def is_fork(self) -> bool:
        return self.head.repo != self.base.repo


@dataclass(frozen=True)
class FileContent:
    path: str
    sha: str  # the blob sha a later PUT must name
    text: str


@dataclass(frozen=True)
class FileBytes:
    path: str
    sha: str  # the blob sha a later PUT must name
    data: bytes


@dataclass(frozen=True)
class Annotation:
    path: str
    line: int
    level: str  # notice | warning | failure
    title: str
    message: str


@dataclass(frozen=True)
class CheckRun:
    id: int
    html_url: str


@dataclass(frozen=True)
class Artifact:
    id: int
    name: str
    expired: bool


@dataclass(frozen=True)
class WorkflowRun:
    id: int
    head_sha: str
    status: str


def _comment(data: dict[str, Any]) -> Comment:
    user = data.get("user") or {}  # null for a deleted account ("ghost")
    return Comment(data["id"], data.get("body") or "", data.get("html_url", ""), user.get("login", ""),
                   user.get("type", ""))


def _pull_ref(data: dict[str, Any]) -> PullRef:
    repo = data.get("repo") or {}  # null when the fork was deleted
    return PullRef(data["sha"], data.get("ref", ""), repo.get("full_name", ""))


def pull_request_from(data: dict[str, Any]) -> PullRequest:
    return PullRequest(data["number"], _pull_ref(data["head"]), _pull_ref(data["base"]), data.get("state", "open"))


def _answers_checked(cls: type) -> type:
    """Every public method of `cls` turns an answer of the wrong shape (a 200 without the fields
    we read) into a GitHubError naming the call, never a traceback."""
    def checked(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
                raise GitHubError("answer to", f"{cls.__name__}.{name}", 200,
                                  f"not the shape GitHub documents ({type(exc).__name__}: {exc})") from None
        return call

    for name, method in list(vars(cls).items()):
        if callable(method) and not name.startswith("_"):
            setattr(cls, name, checked(name, method))
    return cls


@_answers_checked
class Repo:
    """One repository's endpoints."""

    def __init__(self, client: GitHubClient, full_name: str, app_login: str | None = None):
        self.client = client
        self.full_name = full_name
        self.app_login = app_login
        self.base = f"repos/{full_name}"
        self._identity: Identity | None = None

    # issue comments ---------------------------------------------------------------
    def comments(self, issue: int) -> list[Comment]:
        return [_comment(c) for c in self.client.paginate(f"{self.base}/issues/{issue}/comments")]

    def identity(self) -> Identity:
        """Asked once: GET /user names a PAT's user; an installation token may not ask (403)."""
        if self._identity is None:
            try:
                self._identity = Identity(self.client.json("GET", "user")["login"], self.app_login)
            except (Forbidden, NotFound):
                self._identity = Identity(None, self.app_login)
        return self._identity

    def own_comments(self, issue: int) -> list[Comment]:
        """Comments the token's identity wrote; anyone can paste our marker into theirs."""
        mine = self.identity()
        return [c for c in self.comments(issue) if mine.owns(c)]

    def create_comment(self, issue: int, body: str) -> Comment:
        """Posted once: after a 5xx or a lost connection, an own comment with this body counts as posted."""
        def look_again() -> Comment | None:
            return next((c for c in self.own_comments(issue) if c.body == body), None)

        created = self.client.create(f"{self.base}/issues/{issue}/comments", {"body": body}, look_again)
        return created if isinstance(created, Comment) else _comment(created)

    def update_comment(self, comment_id: int, body: str) -> Comment:
        return _comment(self.client.json("PATCH", f"{self.base}/issues/comments/{comment_id}", json={"body": body}))

    def upsert_comment(self, issue: int, marker: str, body: str) -> Comment:
        """The sticky comment: our own first one carrying `marker` (among all pages) is edited in place."""
        mine = next((c for c in self.own_comments(issue) if marker in c.body), None)
        if mine is None:
            return self.create_comment(issue, body)
        return self.update_comment(mine.id, body)

    def react(self, comment_id: int, content: str) -> None:
        # Retried like a GET: GitHub answers 200 with the existing reaction to a repeat.
        self.client.json("POST", f"{self.base}/issues/comments/{comment_id}/reactions", json={"content": content})

    # pulls and permissions --------------------------------------------------------
    def pull(self, number: int) -> PullRequest:
        return pull_request_from(self.client.json("GET", f"{self.base}/pulls/{number}"))

    def permission(self, login: str) -> str:
        """The user's role: admin, maintain, write, triage, read or none."""
        try:
            data = self.client.json("GET", f"{self.base}/collaborators/{login}/permission")
        except NotFound:
            return "none"
        return data.get("role_name") or data.get("permission") or "none"

    # checks and statuses ----------------------------------------------------------
    def create_check(
        self, name: str, head_sha: str, conclusion: str, title: str, summary: str,
        annotations: Sequence[Annotation] = (), details_url: str | None = None,
    ) -> CheckRun:
        """A completed check run; annotations beyond the first 50 follow in updates of 50."""
        batches = [list(annotations[i:i + ANNOTATIONS_PER_REQUEST]) for i in range(0, len(annotations), ANNOTATIONS_PER_REQUEST)] or [[]]
        output = {"title": title, "summary": summary}
        body = {"name": name, "head_sha": head_sha, "status": "completed", "conclusion": conclusion,
                "output": {**output, "annotations": [_annotation(a) for a in batches[0]]}}
        if details_url:
            body["details_url"] = details_url
        data = self.client.create(f"{self.base}/check-runs", body, lambda: self._same_check(body))
        for batch in batches[1:]:
            self.client.json("PATCH", f"{self.base}/check-runs/{data['id']}",
                             json={"output": {**output, "annotations": [_annotation(a) for a in batch]}})
        return CheckRun(data["id"], data.get("html_url", ""))

    def _same_check(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """A check run on the head saying what `body` says (ours, stored before a failed answer;
        or an earlier run's with the same verdict, which is as good)."""
        def same(c: dict[str, Any]) -> bool:
            output = c.get("output") or {}
            return (c.get("name"), c.get("conclusion"), output.get("title"), output.get("summary")) == (
                body["name"], body["conclusion"], body["output"]["title"], body["output"]["summary"])

        found = self.client.paginate(f"{self.base}/commits/{body['head_sha']}/check-runs", key="check_runs",
                                     params={"check_name": body["name"]})
        return next((c for c in found if same(c)), None)

    def create_status(self, sha: str, state: str, context: str, description: str, target_url: str | None = None) -> None:
        # Retried like a GET: a repeated status for the same context replaces the last one.
        body = {"state": state, "context": context, "description": description[:140]}
        if target_url:
            body["target_url"] = target_url
        self.client.json("POST", f"{self.base}/statuses/{sha}", json=body)

    # contents ---------------------------------------------------------------------
    def get_file(self, path: str, ref: str) -> FileContent | None:
        found = self.get_bytes(path, ref)
        return None if found is None else FileContent(found.path, found.sha, found.data.decode("utf-8"))

    def get_bytes(self, path: str, ref: str) -> FileBytes | None:
        """A file as bytes (a binary one, e.g. the baseline's recorded outputs); one over 1 MB,
        which the contents API serves without content, through the git blobs API."""
        try:
            data = self.client.json("GET", f"{self.base}/contents/{path}", params={"ref": ref})
        except NotFound:
            return None
        if not isinstance(data, dict) or data.get("type") != "file":
            return None
        content = data.get("content", "")
        if data.get("encoding") == "none":
            content = self.client.json("GET", f"{self.base}/git/blobs/{data['sha']}")["content"]
        return FileBytes(data["path"], data["sha"], base64.b64decode(content))

    def put_file(self, path: str, text: str | bytes, *, branch: str, message: str, blob_sha: str | None) -> str:
        """Commit `text` to `branch`; `blob_sha` (None for a new file) makes a concurrent change a Conflict.

        Returns the new commit's sha. Like a create, a PUT whose answer was lost (a 5xx, a
        dropped connection) is not resent blindly: GitHub may have committed it, and resending
        the old blob sha would then be a conflict with our own commit. The branch is read again:
        our text there is our commit; the old file untouched means send again.
        """
        data = text.encode("utf-8") if isinstance(text, str) else text
        body = {"message": message, "content": base64.b64encode(data).decode("ascii"), "branch": branch}
        if blob_sha:
            body["sha"] = blob_sha

        def look_again() -> dict[str, Any] | None:
            now = self.get_bytes(path, branch)
            if now is not None and now.data == data:
                return {"commit": {"sha": self.last_commit(branch, path)}}
            if (now.sha if now else None) != blob_sha:
                raise Conflict("PUT", f"{self.base}/contents/{path}", 409, "the file changed on the branch meanwhile")
            return None

        try:
            data = self.client.create(f"{self.base}/contents/{path}", body, look_again, method="PUT")
        except GitHubError as exc:
            if exc.status == 422:  # "sha wasn't supplied": the file appeared since we looked
                raise Conflict(exc.method, exc.path, exc.status, exc.message) from None
            raise
        return str(data["commit"]["sha"])

    def last_commit(self, branch: str, path: str) -> str:
        """The newest commit on `branch` that changed `path`."""
        found = self.client.json("GET", f"{self.base}/commits", params={"sha": branch, "path": path, "per_page": 1})
        return found[0]["sha"] if found else ""

    # actions runs and artifacts -----------------------------------------------------
    def runs_for(self, head_sha: str) -> list[WorkflowRun]:
        found = self.client.paginate(f"{self.base}/actions/runs", key="workflow_runs", params={"head_sha": head_sha})
        return [WorkflowRun(r["id"], r["head_sha"], r.get("status", "")) for r in found]

    def artifacts(self, run_id: int) -> list[Artifact]:
        found = self.client.paginate(f"{self.base}/actions/runs/{run_id}/artifacts", key="artifacts")
        return [Artifact(a["id"], a["name"], bool(a.get("expired"))) for a in found]

    def download_artifact(self, artifact_id: int, max_file_bytes: int = MAX_FILE_BYTES) -> dict[str, bytes]:
        """The artifact's files by name (GitHub serves a zip, usually via a redirect). A file
        larger than `max_file_bytes` unpacked is refused before it is inflated (a zip bomb)."""
        response = self.client.send("GET", f"{self.base}/actions/artifacts/{artifact_id}/zip")
        try:
            with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
                files = [info for info in archive.infolist() if not info.is_dir()]
                for info in files:
                    if info.file_size > max_file_bytes:
                        raise BadArtifact(f"artifact {artifact_id}: {info.filename} is {info.file_size:,} bytes unpacked; "
                                          f"the limit is {max_file_bytes:,}")
                return {info.filename: archive.read(info) for info in files}
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as exc:
            raise BadArtifact(f"artifact {artifact_id} is not a readable zip archive: {exc}") from None


def _annotation(a: Annotation) -> dict[str, Any]:
    return {"path": a.path, "start_line": a.line, "end_line": a.line, "annotation_level": a.level,
            "title": a.title[:255], "message": a.message[:64000]}
