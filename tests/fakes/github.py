"""A stateful loopback fake of the GitHub REST endpoints the action uses.

Point the action at it with `GITHUB_API_URL=server.base_url`. It keeps issue comments,
reactions, check runs, commit statuses, collaborators, pull requests, files per ref
(with git blob shas), the commits its contents PUTs made, workflow runs and their artifacts (served as zips through a
redirect, as GitHub does). Like GitHub it checks the bearer token (401) and the
token's permissions per scope (403 "Resource not accessible by integration"), pages
listings with `Link` headers, rejects more than 50 annotations per request and a
contents PUT whose blob sha is stale (409) or missing (422).

`fail_next(status, headers=...)` queues faults served before the next requests: 500s,
or 403 secondary rate limits with `Retry-After`; `store=True` answers the fault only after
doing the work (GitHub's stored-then-502), `drop=True` closes the connection instead of
answering, and `match` (a regex on "METHOD /path") picks which requests a fault hits.
A token is an installation token (GET /user is 403; it comments as a Bot) unless
`pat=True` (GET /user names its user; it comments as that User).
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import json
import re
import threading
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from urllib.parse import parse_qs, urlsplit

WRITE, READ = "write", "read"
SCOPES = ("contents", "pull_requests", "issues", "checks", "statuses", "actions")


def blob_sha(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def write_token(login: str = "github-actions[bot]", *, pat: bool = False, app: Optional[str] = None) -> "Token":
    return Token(login, {scope: WRITE for scope in SCOPES}, pat, app)


def read_only_token(login: str = "github-actions[bot]") -> "Token":
    """What a fork PR's GITHUB_TOKEN can do."""
    return Token(login, {scope: READ for scope in SCOPES})


@dataclass
class Token:
    login: str
    scopes: dict[str, str]
    pat: bool = False  # a user's personal access token, not an installation's
    app: Optional[str] = None  # the GitHub App whose installation token this is (None: Actions' own)

    def allows(self, scope: str, need: str) -> bool:
        have = self.scopes.get(scope)
        return have == WRITE or (have == READ and need == READ)


@dataclass
class Fault:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "Server Error"
    store: bool = False  # do the work, then answer the fault
    drop: bool = False  # close the connection without an answer
    match: str = ""  # regex on "METHOD /path"; empty: any request


@dataclass
class Recorded:
    method: str
    path: str
    body: Any


class _Route:
    def __init__(self, method: str, pattern: str, scope: str, need: str, handler: str):
        self.method = method
        self.regex = re.compile("^/repos/(?P<repo>[^/]+/[^/]+)" + pattern + "$")
        self.scope, self.need, self.handler = scope, need, handler


ROUTES = [
    _Route("GET", r"/issues/(?P<n>\d+)/comments", "issues", READ, "list_comments"),
    _Route("POST", r"/issues/(?P<n>\d+)/comments", "issues", WRITE, "create_comment"),
    _Route("GET", r"/issues/comments/(?P<id>\d+)", "issues", READ, "get_comment"),
    _Route("PATCH", r"/issues/comments/(?P<id>\d+)", "issues", WRITE, "update_comment"),
    _Route("POST", r"/issues/comments/(?P<id>\d+)/reactions", "issues", WRITE, "create_reaction"),
    _Route("GET", r"/pulls/(?P<n>\d+)", "pull_requests", READ, "get_pull"),
    _Route("GET", r"/collaborators/(?P<user>[^/]+)/permission", "contents", READ, "get_permission"),
    _Route("POST", r"/check-runs", "checks", WRITE, "create_check"),
    _Route("GET", r"/commits/(?P<sha>[0-9a-f]+)/check-runs", "checks", READ, "list_checks"),
    _Route("PATCH", r"/check-runs/(?P<id>\d+)", "checks", WRITE, "update_check"),
    _Route("POST", r"/statuses/(?P<sha>[0-9a-f]+)", "statuses", WRITE, "create_status"),
    _Route("GET", r"/commits", "contents", READ, "list_commits"),
    _Route("GET", r"/contents/(?P<path>.+)", "contents", READ, "get_contents"),
    _Route("PUT", r"/contents/(?P<path>.+)", "contents", WRITE, "put_contents"),
    _Route("GET", r"/git/blobs/(?P<sha>[0-9a-f]{40})", "contents", READ, "get_blob"),
    _Route("GET", r"/actions/runs", "actions", READ, "list_runs"),
    _Route("GET", r"/actions/runs/(?P<id>\d+)/artifacts", "actions", READ, "list_artifacts"),
    _Route("GET", r"/actions/artifacts/(?P<id>\d+)/zip", "actions", READ, "download_artifact"),
]


class FakeGitHub:
    """The state of one fake repository host; `serve()` starts the HTTP server."""

    def __init__(self, repo: str = "octo/agent"):
        self.repo = repo
        self.tokens: dict[str, Token] = {}
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.reactions: list[dict[str, Any]] = []
        self.check_runs: dict[int, dict[str, Any]] = {}
        self.statuses: list[dict[str, Any]] = []
        self.collaborators: dict[str, str] = {}  # login -> role_name
        self.pulls: dict[int, dict[str, Any]] = {}
        self.files: dict[str, dict[str, str | bytes]] = {}  # ref (branch or sha) -> path -> text (bytes: not UTF-8)
        self.commits: list[dict[str, Any]] = []
        self.runs: list[dict[str, Any]] = []
        self.artifacts: dict[int, dict[str, Any]] = {}
        self.requests: list[Recorded] = []
        self.faults: list[Fault] = []
        self._ids = itertools.count(1001)
        self._lock = threading.Lock()
        self.base_url = ""

    # scripting ------------------------------------------------------------------------
    def add_token(self, value: str, token: Token) -> str:
        self.tokens[value] = token
        return value

    def fail_next(self, status: int = 500, *, times: int = 1, headers: Optional[dict[str, str]] = None,
                  message: str = "Server Error", store: bool = False, drop: bool = False, match: str = "") -> None:
        self.faults.extend(Fault(status, headers or {}, message, store, drop, match) for _ in range(times))

    def set_files(self, ref: str, files: dict[str, str]) -> None:
        self.files[ref] = dict(files)

    def add_pull(self, number: int, *, head_sha: str, head_ref: str, base_sha: str, base_ref: str = "main",
                 head_repo: Optional[str] = None) -> None:
        self.pulls[number] = {
            "number": number, "state": "open",
            "head": {"sha": head_sha, "ref": head_ref, "repo": {"full_name": head_repo or self.repo}},
            "base": {"sha": base_sha, "ref": base_ref, "repo": {"full_name": self.repo}},
        }

    def add_comment(self, issue: int, body: str, login: str = "someone", user_type: str = "User",
                    app: Optional[str] = None) -> dict[str, Any]:
        comment = {"id": next(self._ids), "body": body, "user": {"login": login, "type": user_type},
                   "performed_via_github_app": {"slug": app, "name": app} if app else None,
                   "html_url": f"https://github.test/{self.repo}/pull/{issue}#issuecomment"}
        comment["html_url"] += f"-{comment['id']}"
        self.comments.setdefault(issue, []).append(comment)
        return comment

    def add_run(self, head_sha: str, artifacts: dict[str, dict[str, bytes]], conclusion: str = "success") -> int:
        run_id = next(self._ids)
        self.runs.append({"id": run_id, "head_sha": head_sha, "status": "completed", "conclusion": conclusion})
        for name, files in artifacts.items():
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w") as archive:
                for file_name, data in files.items():
                    archive.writestr(file_name, data)
            self.artifacts[next(self._ids)] = {"run_id": run_id, "name": name, "zip": buffer.getvalue()}
        return run_id

    def all_comments(self) -> list[dict[str, Any]]:
        return [c for comments in self.comments.values() for c in comments]

    # serving ----------------------------------------------------------------------
    def serve(self, port: int = 0) -> "FakeGitHub":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                fake._dispatch(self)

            do_GET = do_POST = do_PATCH = do_PUT = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeGitHub":
        return self.serve()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # dispatch ---------------------------------------------------------------------
    def _dispatch(self, h: BaseHTTPRequestHandler) -> None:
        url = urlsplit(h.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        with self._lock:
            self.requests.append(Recorded(h.command, url.path, body))
            fault = self._fault_for(f"{h.command} {url.path}")
            if fault is None or fault.store:
                status, headers, payload = self._answer(h, url.path, query, body)
            if fault is not None:
                status, headers, payload = fault.status, fault.headers, {"message": fault.message}
        if fault is not None and fault.drop:
            h.close_connection = True
            return
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        h.send_response(status)
        for name, value in headers.items():
            h.send_header(name, value)
        h.send_header("Content-Type", "application/zip" if isinstance(payload, bytes) else "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def _fault_for(self, request: str) -> Optional[Fault]:
        fault = next((f for f in self.faults if re.search(f.match, request)), None)
        if fault is not None:
            self.faults.remove(fault)
        return fault

    def _answer(self, h: BaseHTTPRequestHandler, path: str, query: dict[str, str], body: Any) -> tuple[int, dict[str, str], Any]:
        if path.startswith("/blobs/"):  # the redirect target of an artifact download: no token needed
            artifact = self.artifacts.get(int(path.rsplit("/", 1)[1]))
            return (200, {}, artifact["zip"]) if artifact else (404, {}, {"message": "Not Found"})
        token = self.tokens.get(h.headers.get("Authorization", "").removeprefix("Bearer ").strip())
        if token is None:
            return 401, {}, {"message": "Bad credentials"}
        if h.command == "GET" and path == "/user":
            if not token.pat:
                return 403, {}, {"message": "Resource not accessible by integration"}
            return 200, {}, {"login": token.login, "type": "User"}
        for route in ROUTES:
            match = route.regex.match(path)
            if route.method == h.command and match:
                if match["repo"] != self.repo:
                    return 404, {}, {"message": "Not Found"}
                scope_ok = token.allows(route.scope, route.need) or (
                    route.scope == "issues" and token.allows("pull_requests", route.need))
                if not scope_ok:
                    return 403, {}, {"message": "Resource not accessible by integration"}
                return getattr(self, "_" + route.handler)(token=token, query=query, body=body, **{
                    k: v for k, v in match.groupdict().items() if k != "repo"})
        return 404, {}, {"message": f"Not Found: {h.command} {path}"}

    def _page(self, path: str, items: list[Any], query: dict[str, str], key: Optional[str] = None) -> tuple[int, dict[str, str], Any]:
        per_page = min(int(query.get("per_page", 30)), 100)
        page = int(query.get("page", 1))
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {}
        if page * per_page < len(items):
            rest = "&".join(f"{k}={v}" for k, v in {**query, "per_page": per_page, "page": page + 1}.items())
            headers["Link"] = f'<{self.base_url}{path}?{rest}>; rel="next"'
        return 200, headers, ({key: chunk, "total_count": len(items)} if key else chunk)

    # handlers ---------------------------------------------------------------------
    def _list_comments(self, n: str, query: dict[str, str], **_: Any) -> tuple[int, dict[str, str], Any]:
        return self._page(f"/repos/{self.repo}/issues/{n}/comments", self.comments.get(int(n), []), query)

    def _create_comment(self, n: str, body: Any, token: Token, **_: Any) -> tuple[int, dict[str, str], Any]:
        if len(body["body"]) > 65536:
            return 422, {}, {"message": "Validation Failed: body is too long (maximum is 65536 characters)"}
        return 201, {}, self.add_comment(int(n), body["body"], token.login, "User" if token.pat else "Bot", token.app)

    def _find_comment(self, comment_id: int) -> Optional[dict[str, Any]]:
        return next((c for c in self.all_comments() if c["id"] == comment_id), None)

    def _get_comment(self, id: str, **_: Any) -> tuple[int, dict[str, str], Any]:
        comment = self._find_comment(int(id))
        return (200, {}, comment) if comment else (404, {}, {"message": "Not Found"})

    def _update_comment(self, id: str, body: Any, **_: Any) -> tuple[int, dict[str, str], Any]:
        comment = self._find_comment(int(id))
        if comment is None:
            return 404, {}, {"message": "Not Found"}
        comment["body"] = body["body"]
        return 200, {}, comment

    def _create_reaction(self, id: str, body: Any, **_: Any) -> tuple[int, dict[str, str], Any]:
        if self._find_comment(int(id)) is None:
            return 404, {}, {"message": "Not Found"}
        self.reactions.append({"comment_id": int(id), "content": body["content"]})
        return 201, {}, {"id": next(self._ids), "content": body["content"]}

    def _get_pull(self, n: str, **_: Any) -> tuple[int, dict[str, str], Any]:
        pull = self.pulls.get(int(n))
        return (200, {}, pull) if pull else (404, {}, {"message": "Not Found"})

    def _get_permission(self, user: str, **_: Any) -> tuple[int, dict[str, str], Any]:
        role = self.collaborators.get(user)
        if role is None:
            return 404, {}, {"message": f"{user} is not a user"}
        legacy = {"maintain": "write", "triage": "read"}.get(role, role)
        return 200, {}, {"permission": legacy, "role_name": role, "user": {"login": user}}

    def _check_output_ok(self, output: dict[str, Any]) -> Optional[str]:
        if len(output.get("annotations") or []) > 50:
            return "Only 50 annotations may be sent per request"
        return None

    def _create_check(self, body: Any, **_: Any) -> tuple[int, dict[str, str], Any]:
        problem = self._check_output_ok(body.get("output") or {})
        if problem:
            return 422, {}, {"message": problem}
        check_id = next(self._ids)
        check = {**body, "id": check_id, "html_url": f"https://github.test/{self.repo}/runs/{check_id}"}
        check["annotations"] = list((body.get("output") or {}).get("annotations") or [])
        self.check_runs[check_id] = check
        return 201, {}, check

    def _list_checks(self, sha: str, query: dict[str, str], **_: Any) -> tuple[int, dict[str, str], Any]:
        found = [c for c in self.check_runs.values() if c["head_sha"] == sha and c["name"] == query.get("check_name", c["name"])]
        return self._page(f"/repos/{self.repo}/commits/{sha}/check-runs", found, query, key="check_runs")

    def _update_check(self, id: str, body: Any, **_: Any) -> tuple[int, dict[str, str], Any]:
        check = self.check_runs.get(int(id))
        if check is None:
            return 404, {}, {"message": "Not Found"}
        output = body.get("output") or {}
        problem = self._check_output_ok(output)
        if problem:
            return 422, {}, {"message": problem}
        check["annotations"].extend(output.get("annotations") or [])
        check.update({k: v for k, v in body.items() if k != "output"})
        check["output"] = {**check.get("output", {}), **{k: v for k, v in output.items() if k != "annotations"}}
        return 200, {}, check

    def _create_status(self, sha: str, body: Any, **_: Any) -> tuple[int, dict[str, str], Any]:
        self.statuses.append({**body, "sha": sha})
        return 201, {}, {**body, "id": next(self._ids)}

    def _get_contents(self, path: str, query: dict[str, str], **_: Any) -> tuple[int, dict[str, str], Any]:
        text = self.files.get(query.get("ref", "main"), {}).get(path)
        if text is None:
            return 404, {}, {"message": "Not Found"}
        data = text.encode() if isinstance(text, str) else text
        if len(data) > self.contents_limit:
            return 200, {}, {"type": "file", "path": path, "sha": blob_sha(text), "size": len(data), "encoding": "none", "content": ""}
        return 200, {}, {"type": "file", "path": path, "sha": blob_sha(text), "size": len(data), "encoding": "base64",
                         "content": base64.b64encode(data).decode()}

    # Files over this size come without content from the contents API, as GitHub's over 1 MB do.
    contents_limit = 1024 * 1024

    def _get_blob(self, sha: str, **_: Any) -> tuple[int, dict[str, str], Any]:
        for tree in self.files.values():
            for text in tree.values():
                if blob_sha(text) == sha:
                    data = text.encode() if isinstance(text, str) else text
                    return 200, {}, {"sha": sha, "size": len(data), "encoding": "base64", "content": base64.b64encode(data).decode()}
        return 404, {}, {"message": "Not Found"}

    def _put_contents(self, path: str, body: Any, token: Token, **_: Any) -> tuple[int, dict[str, str], Any]:
        branch = body.get("branch", "main")
        tree = self.files.setdefault(branch, {})
        current = tree.get(path)
        if current is not None and "sha" not in body:
            return 422, {}, {"message": "Invalid request.\n\n\"sha\" wasn't supplied."}
        if current is not None and body["sha"] != blob_sha(current):
            return 409, {}, {"message": f"{path} does not match {body['sha']}"}
        data = base64.b64decode(body["content"])
        try:
            text: str | bytes = data.decode("utf-8")
        except UnicodeDecodeError:  # a binary file (the baseline's recorded outputs)
            text = data
        tree[path] = text
        commit_sha = hashlib.sha1(f"{branch}:{len(self.commits)}:{blob_sha(text)}".encode()).hexdigest()
        self.files[commit_sha] = dict(tree)
        self.commits.append({"sha": commit_sha, "branch": branch, "path": path, "message": body["message"],
                             "author": token.login})
        for pull in self.pulls.values():  # a commit to a PR's branch moves its head, as on GitHub
            if pull["head"]["ref"] == branch and pull["head"]["repo"]["full_name"] == self.repo:
                pull["head"]["sha"] = commit_sha
        return (200 if current is not None else 201), {}, {
            "content": {"path": path, "sha": blob_sha(text)}, "commit": {"sha": commit_sha, "message": body["message"]}}

    def _list_commits(self, query: dict[str, str], **_: Any) -> tuple[int, dict[str, str], Any]:
        """Commits the contents API made on a branch (`sha`), newest first, touching `path` if given."""
        found = [{"sha": c["sha"], "commit": {"message": c["message"]}} for c in reversed(self.commits)
                 if c["branch"] == query.get("sha", c["branch"]) and c["path"] == query.get("path", c["path"])]
        return self._page(f"/repos/{self.repo}/commits", found, query)

    def _list_runs(self, query: dict[str, str], **_: Any) -> tuple[int, dict[str, str], Any]:
        runs = [r for r in self.runs if r["head_sha"] == query.get("head_sha", r["head_sha"])]
        return self._page(f"/repos/{self.repo}/actions/runs", list(reversed(runs)), query, key="workflow_runs")

    def _list_artifacts(self, id: str, query: dict[str, str], **_: Any) -> tuple[int, dict[str, str], Any]:
        found = [{"id": aid, "name": a["name"], "expired": False} for aid, a in self.artifacts.items() if a["run_id"] == int(id)]
        return self._page(f"/repos/{self.repo}/actions/runs/{id}/artifacts", found, query, key="artifacts")

    def _download_artifact(self, id: str, **_: Any) -> tuple[int, dict[str, str], Any]:
        if int(id) not in self.artifacts:
            return 404, {}, {"message": "Not Found"}
        return 302, {"Location": f"{self.base_url}/blobs/{id}"}, {}
