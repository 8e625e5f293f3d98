"""GitHub REST over an injected requests.Session; takes rendered strings, never imports report."""

from .api import (
    ACTIONS_BOT,
    Annotation,
    Artifact,
    CheckRun,
    Comment,
    FileBytes,
    FileContent,
    PullRef,
    PullRequest,
    Repo,
    WorkflowRun,
    pull_request_from,
)
from .client import GitHubClient, new_session
from .errors import BadArtifact, Conflict, Forbidden, GitHubError, NotFound, RateLimited, Unauthorized, Unreachable

__all__ = [
    "ACTIONS_BOT", "Annotation", "Artifact", "BadArtifact", "CheckRun", "Comment", "Conflict", "FileBytes", "FileContent", "Forbidden", "GitHubClient",
    "GitHubError", "NotFound", "PullRef", "PullRequest", "RateLimited", "Repo", "Unauthorized", "Unreachable", "WorkflowRun",
    "new_session", "pull_request_from",
]
