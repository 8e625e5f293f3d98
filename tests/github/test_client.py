"""The GitHub client against the loopback fake: retries, rate limits, pagination, typed errors."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agenteval_ci.github import (
    Annotation,
    Conflict,
    Forbidden,
    GitHubClient,
    GitHubError,
    RateLimited,
    Repo,
    Unauthorized,
    Unreachable,
    new_session,
)
from tests.fakes.github import FakeGitHub, blob_sha, read_only_token, write_token

TOKEN = "ghs_secret_token_value"


@pytest.fixture
def fake():
    with FakeGitHub() as server:
        server.add_token(TOKEN, write_token())
        yield server


def repo_for(fake: FakeGitHub, token: str = TOKEN, sleeps: list[float] | None = None, app_login: str | None = None) -> Repo:
    record = sleeps.append if sleeps is not None else (lambda s: None)
    client = GitHubClient(new_session(token), fake.base_url, backoff_seconds=0.01, sleep=record)
    return Repo(client, fake.repo, app_login)


def test_retries_server_errors_with_growing_backoff(fake):
    sleeps: list[float] = []
    old = fake.add_comment(7, "old", "github-actions[bot]", "Bot")
    fake.fail_next(500, times=2)
    comment = repo_for(fake, sleeps=sleeps).update_comment(old["id"], "hello")
    assert comment.body == "hello" and sleeps == [0.01, 0.02]
    assert len(fake.all_comments()) == 1


def test_honours_retry_after_on_secondary_rate_limit(fake):
    sleeps: list[float] = []
    fake.fail_next(403, headers={"Retry-After": "3"}, message="You have exceeded a secondary rate limit")
    fake.fail_next(403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "0"}, message="API rate limit exceeded")
    repo_for(fake, sleeps=sleeps).create_comment(7, "hello")  # a rate limit stored nothing: a create waits and resends
    assert sleeps == [3.0, 0.0] and len(fake.all_comments()) == 1


def test_gives_up_after_max_retries_with_a_typed_error(fake):
    fake.fail_next(403, times=10, headers={"Retry-After": "0"}, message="secondary rate limit")
    with pytest.raises(RateLimited):
        repo_for(fake).create_comment(7, "hello")


def test_paginates_all_comments_and_upserts_the_marked_one(fake):
    for i in range(130):
        fake.add_comment(7, f"chatter {i}")
    fake.add_comment(7, "<!-- marker --> old", "github-actions[bot]", "Bot")
    repo = repo_for(fake)
    assert len(repo.comments(7)) == 131
    updated = repo.upsert_comment(7, "<!-- marker -->", "<!-- marker --> new")
    assert updated.body.endswith("new") and len(fake.all_comments()) == 131


def test_wrong_token_is_unauthorized_and_never_in_the_message(fake):
    with pytest.raises(Unauthorized) as info:
        repo_for(fake, token="ghs_wrong").comments(7)
    assert "ghs_wrong" not in str(info.value) and TOKEN not in repr(repo_for(fake).client)


def test_read_only_token_is_forbidden_to_write(fake):
    fake.add_token("ro", read_only_token())
    with pytest.raises(Forbidden):
        repo_for(fake, token="ro").create_check("agenteval", "abc", "success", "t", "s")


def test_annotations_go_in_batches_of_fifty(fake):
    notes = [Annotation("evals/a.json", i + 1, "failure", f"case {i}", "failed") for i in range(120)]
    check = repo_for(fake).create_check("agenteval", "abc", "failure", "t", "s", annotations=notes)
    assert len(fake.check_runs[check.id]["annotations"]) == 120
    assert [len((r.body or {}).get("output", {}).get("annotations", [])) for r in fake.requests] == [50, 50, 20]


def test_put_file_with_a_stale_blob_sha_is_a_conflict(fake):
    fake.set_files("feature", {"baseline.json": "{}\n"})
    repo = repo_for(fake)
    current = repo.get_file("baseline.json", "feature")
    assert current.sha == blob_sha("{}\n")
    repo.put_file("baseline.json", '{"a": 1}\n', branch="feature", message="m", blob_sha=current.sha)
    with pytest.raises(Conflict):
        repo.put_file("baseline.json", '{"a": 2}\n', branch="feature", message="m", blob_sha=current.sha)
    with pytest.raises(Conflict):
        repo.put_file("baseline.json", '{"a": 2}\n', branch="feature", message="m", blob_sha=None)
    assert fake.files["feature"]["baseline.json"] == '{"a": 1}\n'


def test_downloads_an_artifact_through_the_redirect(fake):
    run_id = fake.add_run("abc", {"agenteval-results": {"results.json": b"{}"}})
    repo = repo_for(fake)
    assert [r.id for r in repo.runs_for("abc")] == [run_id]
    (artifact,) = repo.artifacts(run_id)
    assert repo.download_artifact(artifact.id) == {"results.json": b"{}"}


MARKER = "<!-- agenteval:default -->"


def test_a_human_comment_carrying_the_marker_is_not_ours(fake):
    human = fake.add_comment(7, f"{MARKER} pasted by a person", "mallory", "User")
    other_bot = fake.add_comment(7, f"{MARKER} some other bot", "renovate[bot]", "Bot")
    repo = repo_for(fake)
    first = repo.upsert_comment(7, MARKER, f"{MARKER} v1")
    second = repo.upsert_comment(7, MARKER, f"{MARKER} v2")
    assert first.id == second.id and second.author == "github-actions[bot]"
    assert human["body"].endswith("person") and other_bot["body"].endswith("bot")
    ours = [c for c in fake.all_comments() if c["user"]["login"] == "github-actions[bot]"]
    assert [c["body"] for c in ours] == [f"{MARKER} v2"]


def test_an_app_token_owns_its_app_comments_and_a_pat_its_user_comments(fake):
    fake.add_token("app", write_token("agenteval-app[bot]", app="agenteval-app"))
    fake.add_token("pat", write_token("maintainer", pat=True))
    repo_for(fake, token="app", app_login="agenteval-app[bot]").upsert_comment(7, MARKER, f"{MARKER} app")
    repo_for(fake, token="app", app_login="agenteval-app[bot]").upsert_comment(7, MARKER, f"{MARKER} app again")
    fake.add_comment(8, f"{MARKER} someone else", "intruder", "User")
    repo_for(fake, token="pat").upsert_comment(8, MARKER, f"{MARKER} pat")
    repo_for(fake, token="pat").upsert_comment(8, MARKER, f"{MARKER} pat again")
    assert [c["body"] for c in fake.comments[7]] == [f"{MARKER} app again"]
    assert [(c["user"]["login"], c["body"]) for c in fake.comments[8]] == [
        ("intruder", f"{MARKER} someone else"), ("maintainer", f"{MARKER} pat again")]


def test_another_apps_bot_is_not_us_though_it_posts_through_an_app(fake):
    """Under GITHUB_TOKEN, a third-party app that echoes a user's text (our marker in it) is not us;
    nor is our own app's bot until the app-login input names it."""
    echo = fake.add_comment(7, f"{MARKER} echoed by a bot", "echo-bot[bot]", "Bot", app="echo-bot")
    ours = repo_for(fake).upsert_comment(7, MARKER, f"{MARKER} ours")
    assert ours.id != echo["id"] and echo["body"].endswith("by a bot")
    fake.add_token("app", write_token("agenteval-app[bot]", app="agenteval-app"))
    unnamed = repo_for(fake, token="app")
    first = unnamed.upsert_comment(8, MARKER, f"{MARKER} app")
    assert not unnamed.identity().owns(first)
    assert repo_for(fake, token="app", app_login="agenteval-app[bot]").upsert_comment(8, MARKER, f"{MARKER} again").id == first.id


def test_a_pat_keeps_the_sticky_comment_the_actions_bot_wrote_but_not_the_reverse(fake):
    fake.add_token("pat", write_token("maintainer", pat=True))
    bot = repo_for(fake).upsert_comment(7, MARKER, f"{MARKER} by GITHUB_TOKEN")
    assert repo_for(fake, token="pat").upsert_comment(7, MARKER, f"{MARKER} by a PAT").id == bot.id
    assert [c["body"] for c in fake.comments[7]] == [f"{MARKER} by a PAT"]
    repo_for(fake, token="pat").upsert_comment(8, MARKER, f"{MARKER} by a PAT")
    repo_for(fake).upsert_comment(8, MARKER, f"{MARKER} by GITHUB_TOKEN")  # a user's comment is never the bot's
    assert [c["user"]["login"] for c in fake.comments[8]] == ["maintainer", "github-actions[bot]"]


def test_a_create_stored_before_a_502_is_not_posted_twice(fake):
    fake.fail_next(502, store=True, match="POST .*/comments$")
    comment = repo_for(fake).upsert_comment(7, MARKER, f"{MARKER} v1")
    assert [c["id"] for c in fake.all_comments()] == [comment.id]
    assert [r.method for r in fake.requests if r.path.endswith("/comments")] == ["GET", "POST", "GET"]


def test_a_create_dropped_before_it_was_stored_is_posted_again(fake):
    fake.fail_next(drop=True, match="POST .*/comments$")
    comment = repo_for(fake).create_comment(7, "reply")
    assert [c["id"] for c in fake.all_comments()] == [comment.id]


def test_a_check_run_stored_before_a_502_is_not_created_twice(fake):
    fake.fail_next(502, store=True, match="POST .*/check-runs$")
    notes = [Annotation("evals/a.json", i + 1, "failure", f"case {i}", "failed") for i in range(60)]
    check = repo_for(fake).create_check("agenteval", "abc", "failure", "t", "s", annotations=notes)
    assert list(fake.check_runs) == [check.id] and len(fake.check_runs[check.id]["annotations"]) == 60


def test_a_refused_connection_is_retried_until_github_answers(fake):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    later = FakeGitHub()
    later.add_token(TOKEN, write_token())
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:  # GitHub comes back while we wait
        sleeps.append(seconds)
        if len(sleeps) == 2:
            later.serve(port)

    repo = Repo(GitHubClient(new_session(TOKEN), f"http://127.0.0.1:{port}", backoff_seconds=0.01, sleep=sleep), later.repo)
    try:
        comment = repo.upsert_comment(7, MARKER, f"{MARKER} v1")
    finally:
        later.close()
    assert [c["id"] for c in later.all_comments()] == [comment.id] and sleeps == [0.01, 0.02]


def test_unreachable_throughout_is_one_clear_error(fake):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    sleeps: list[float] = []
    repo = Repo(GitHubClient(new_session(TOKEN), url, max_retries=3, backoff_seconds=0.01, sleep=sleeps.append), fake.repo)
    with pytest.raises(Unreachable) as info:
        repo.comments(7)
    message = str(info.value)
    assert message.startswith(f"GitHub API at {url} unreachable after 4 tries: ") and message.endswith("Connection refused")
    assert " object at 0x" not in message
    assert isinstance(info.value, GitHubError) and sleeps == [0.01, 0.02, 0.04]


def test_a_create_that_never_gets_an_answer_stops_after_the_retries(fake):
    fake.fail_next(drop=True, times=10, match="POST .*/comments$")
    with pytest.raises(Unreachable) as info:
        repo_for(fake).create_comment(7, "reply")
    assert "unreachable after 6 tries" in str(info.value) and fake.all_comments() == []


def test_a_timeout_is_retried_like_a_lost_connection():
    sleeps: list[float] = []
    with socket.socket() as silent:  # accepts connections (the kernel's backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        client = GitHubClient(new_session(TOKEN), url, max_retries=1, backoff_seconds=0.01, timeout_seconds=0.2, sleep=sleeps.append)
        with pytest.raises(Unreachable) as info:
            client.json("GET", "repos/octo/agent/pulls/7")
    assert "unreachable after 2 tries" in str(info.value) and "timed out" in str(info.value) and sleeps == [0.01]


@contextlib.contextmanager
def _answering(body: bytes) -> Iterator[GitHubClient]:
    """A client of a loopback server that answers every GET with 200 and `body`."""
    class Fixed(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Fixed)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield GitHubClient(new_session(TOKEN), f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("body", [b"<html>502 Bad Gateway</html>", b'{"comments": 1}'])
def test_an_answer_that_is_not_githubs_json_is_a_github_error(body):
    """A proxy's HTML page in a 200, or a page of the wrong shape: one clear error, not a traceback."""
    with _answering(body) as client, pytest.raises(GitHubError, match="not JSON|not a list"):
        Repo(client, "octo/agent").comments(7)


@pytest.mark.parametrize("call, body", [
    (lambda repo: repo.comments(7), b'[{"body": "no id"}]'),
    (lambda repo: repo.pull(7), b'{"number": 7, "head": "abc"}'),
    (lambda repo: repo.identity(), b'["login"]'),
    (lambda repo: repo.get_file("b.json", "main"), b'{"type": "file", "path": "b.json", "sha": "1", "content": "/w=="}'),
    (lambda repo: repo.runs_for("abc"), b'{"workflow_runs": [{"id": 1}]}'),
])
def test_a_json_answer_without_the_documented_fields_is_a_github_error(call, body):
    """A 200 whose JSON lacks what GitHub documents: one error naming the call, not a traceback."""
    with _answering(body) as client, pytest.raises(GitHubError, match=r"answer to Repo\.\w+ -> 200: not the shape GitHub documents"):
        call(Repo(client, "octo/agent"))


def test_an_artifact_that_is_no_zip_or_too_large_unpacked_is_refused(fake):
    from agenteval_ci.github import BadArtifact

    run_id = fake.add_run("abc", {"agenteval-results": {"results.json": b"{}" + b" " * 5000}})
    repo = repo_for(fake)
    (artifact,) = repo.artifacts(run_id)
    with pytest.raises(BadArtifact, match="results.json is 5,002 bytes unpacked; the limit is 1,000"):
        repo.download_artifact(artifact.id, max_file_bytes=1000)
    fake.artifacts[artifact.id]["zip"] = b"not a zip"
    with pytest.raises(BadArtifact, match="not a readable zip archive"):
        repo.download_artifact(artifact.id)


def test_a_binary_file_round_trips_and_one_over_the_contents_limit_comes_through_the_blobs_api(fake):
    """The baseline's recorded outputs are gzip: committed as bytes; GitHub serves a file over
    1 MB without content from the contents API, so it is read from the git blobs API."""
    repo = repo_for(fake)
    data = bytes(range(256)) * 40  # not UTF-8
    repo.put_file("o.gz", data, branch="main", message="bytes", blob_sha=None)
    assert repo.get_bytes("o.gz", "main").data == data
    fake.contents_limit = 1000
    got = repo.get_bytes("o.gz", "main")
    assert got.data == data and got.sha == blob_sha(data)
    assert any(r.path.endswith(f"/git/blobs/{got.sha}") for r in fake.requests)
    assert repo.get_bytes("missing.gz", "main") is None
