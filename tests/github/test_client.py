"""The GitHub client against the loopback fake: retries, rate limits, pagination, typed errors."""

from __future__ import annotations

import pytest

from agenteval_ci.github import Annotation, Conflict, Forbidden, GitHubClient, RateLimited, Repo, Unauthorized, new_session
from tests.fakes.github import FakeGitHub, blob_sha, read_only_token, write_token

TOKEN = "ghs_secret_token_value"


@pytest.fixture
def fake():
    with FakeGitHub() as server:
        server.add_token(TOKEN, write_token())
        yield server


def repo_for(fake: FakeGitHub, token: str = TOKEN, sleeps: list[float] | None = None) -> Repo:
    record = sleeps.append if sleeps is not None else (lambda s: None)
    client = GitHubClient(new_session(token), fake.base_url, backoff_seconds=0.01, sleep=record)
    return Repo(client, fake.repo)


def test_retries_server_errors_with_growing_backoff(fake):
    sleeps: list[float] = []
    fake.fail_next(500, times=2)
    comment = repo_for(fake, sleeps=sleeps).create_comment(7, "hello")
    assert comment.body == "hello" and sleeps == [0.01, 0.02]
    assert len(fake.all_comments()) == 1


def test_honours_retry_after_on_secondary_rate_limit(fake):
    sleeps: list[float] = []
    fake.fail_next(403, headers={"Retry-After": "3"}, message="You have exceeded a secondary rate limit")
    fake.fail_next(403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "0"}, message="API rate limit exceeded")
    repo_for(fake, sleeps=sleeps).create_comment(7, "hello")
    assert sleeps == [3.0, 0.0]


def test_gives_up_after_max_retries_with_a_typed_error(fake):
    fake.fail_next(403, times=10, headers={"Retry-After": "0"}, message="secondary rate limit")
    with pytest.raises(RateLimited):
        repo_for(fake).create_comment(7, "hello")


def test_paginates_all_comments_and_upserts_the_marked_one(fake):
    for i in range(130):
        fake.add_comment(7, f"chatter {i}")
    fake.add_comment(7, "<!-- marker --> old")
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
