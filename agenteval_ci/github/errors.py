"""Typed errors of the GitHub REST client. Messages name the request, never the token."""

from __future__ import annotations

from ..errors import AgentevalError, ServiceError


class GitHubError(ServiceError):
    """GitHub answered with an error status (after any retries): exit 3, without a traceback."""

    def __init__(self, method: str, path: str, status: int, message: str):
        self.method = method
        self.path = path
        self.status = status
        self.message = message
        super().__init__(f"GitHub {method} {path} -> {status}: {message}")


class Unauthorized(GitHubError):
    """401: the token is missing, wrong or expired."""


class Forbidden(GitHubError):
    """403: the token may not do this (a fork PR's read-only token, missing `permissions:`)."""


class NotFound(GitHubError):
    """404: no such thing, or GitHub hides it from this token."""


class Conflict(GitHubError):
    """409 or 422 on a write: someone changed the thing since we read it."""


class RateLimited(GitHubError):
    """Still rate limited after the retries."""


class Unreachable(GitHubError):
    """No answer at all (connection refused or dropped, a timeout) after the retries."""

    def __init__(self, method: str, path: str, api_url: str, tries: int, reason: str):
        super().__init__(method, path, 0, reason)
        self.api_url = api_url
        self.tries = tries
        self.args = (str(self),)

    def __str__(self) -> str:
        return f"GitHub API at {self.api_url} unreachable after {self.tries} {'try' if self.tries == 1 else 'tries'}: {self.message}"


class BadArtifact(AgentevalError):
    """An artifact that is not a zip, or holds a file larger than we read (a fork's run uploads it): bad input."""


def error_for(method: str, path: str, status: int, message: str) -> GitHubError:
    kind = {401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict, 429: RateLimited}.get(status, GitHubError)
    return kind(method, path, status, message)
