"""The webhook payload that triggered the run, parsed once at the edge into typed models.

Only the keys the action uses are modelled (the rest is ignored), strictly: an id is a
positive integer (not a string, a float, Infinity or a bool), a sha is hex. Which keys are
required follows the event's name (an `issue_comment` needs `issue` and `comment`); a
payload of the wrong shape is an InputError naming `$GITHUB_EVENT_PATH` and the JSON path.
"""

from __future__ import annotations

import re
from typing import Annotated, Optional

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError, Problem
from ..github import PullRef, PullRequest
from ..schema.problems import problems_from
from .workflow import read_event

GitHubId = Annotated[int, Field(ge=1, le=2**53)]  # GitHub's ids fit a JSON number exactly
Sha = Annotated[str, Field(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")]  # SHA-1, or SHA-256 repositories


class _Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class EventRepo(_Model):
    full_name: str


class EventPullRef(_Model):
    sha: Sha
    ref: str = ""
    repo: Optional[EventRepo] = None  # null when the fork was deleted


class EventPull(_Model):
    number: GitHubId
    state: str = "open"
    head: EventPullRef
    base: EventPullRef

    def typed(self) -> PullRequest:
        return PullRequest(self.number, _ref(self.head), _ref(self.base), self.state)


def _ref(ref: EventPullRef) -> PullRef:
    return PullRef(ref.sha, ref.ref, ref.repo.full_name if ref.repo else "")


class EventUser(_Model):
    login: str
    type: str = "User"


class EventComment(_Model):
    id: GitHubId
    body: Optional[str] = None
    user: EventUser

    @property
    def text(self) -> str:
        return self.body or ""


class IssuePullLink(_Model):
    """Present on an issue that is a pull request; its contents are not needed."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)


class EventIssue(_Model):
    number: GitHubId
    pull_request: Optional[IssuePullLink] = None

    @property
    def is_pull(self) -> bool:
        return self.pull_request is not None


class EventWorkflowRun(_Model):
    id: GitHubId
    head_sha: Sha


class Event(_Model):
    """push, workflow_dispatch, schedule, merge_group, or no payload at all (outside Actions)."""

    action: str = ""
    pull_request: Optional[EventPull] = None  # e.g. pull_request_review, run with mode: run


class PullRequestEvent(Event):
    pull_request: EventPull


class IssueCommentEvent(Event):
    issue: EventIssue
    comment: EventComment


class WorkflowRunEvent(Event):
    workflow_run: EventWorkflowRun


MODEL_BY_EVENT: dict[str, type[Event]] = {
    "pull_request": PullRequestEvent,
    "issue_comment": IssueCommentEvent, "workflow_run": WorkflowRunEvent,
}


def event_file_name(path: str, event_name: str = "") -> str:
    return f"$GITHUB_EVENT_PATH ({path}, event {event_name})" if event_name else f"$GITHUB_EVENT_PATH ({path})"


def parse_event(path: str | None, event_name: str) -> Event:
    """The payload at `path` as the model of `event_name`; an empty Event without a path."""
    if not path:
        return Event()
    try:
        data = read_event(path)
    except InputError as exc:  # the reader names the file by its path; say which file it is
        raise InputError([Problem(event_file_name(path), p.json_path, p.message) for p in exc.problems]) from None
    model = MODEL_BY_EVENT.get(event_name, Event)
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = problems_from(exc, event_file_name(path, event_name), model)
        raise InputError([Problem(p.file, p.json_path, _plain(p.message)) for p in problems]) from None


def _plain(message: str) -> str:
    """pydantic names our model classes; the user wrote (or GitHub sent) JSON."""
    return _MODEL_TYPE.sub("should be a JSON object", message)


_MODEL_TYPE = re.compile(r"should be a valid dictionary or instance of \w+")


class PullFile(_Model):
    """pull.json in a results artifact: the PR and head the evaluating run was for (an
    artifact of a fork's run is untrusted input like any other file)."""

    number: GitHubId
    head_sha: Optional[Sha] = None
