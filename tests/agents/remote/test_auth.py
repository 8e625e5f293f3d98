"""`auth:` of a served agent, through the CLI against loopback fakes: google-auth, unpatched, gets
its tokens from a fake token endpoint (a service-account key or a user login whose token_uri is
127.0.0.1); a Cloud Run-style service checks every request's ID token. A run that outlives its
tokens scores as one that does not; a refused request ends the run at once, naming the
credential; no token appears in any output or in the started agent's environment."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.agents.remote.helpers import weather_case, write_project
from tests.fakes.google_auth import FakeCloudRun, FakeTokenEndpoint, service_account_file

CITIES = ["Paris", "Oslo", "Rome", "Lima", "Cairo", "Quito"]


@pytest.fixture
def google_env(tmp_path, monkeypatch):
    """The environment's credentials: only a service-account key at the fake (no gcloud login, no metadata server)."""
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "no-gcloud"))
    monkeypatch.setenv("GCE_METADATA_HOST", "127.0.0.1:9")  # nothing listens: not on Google Cloud
    monkeypatch.setenv("GCE_METADATA_IP", "127.0.0.1:9")
    monkeypatch.setenv("NO_GCE_CHECK", "True")

    def use(endpoint: FakeTokenEndpoint) -> Path:
        key = service_account_file(tmp_path / "key.json", endpoint.token_uri)
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key))
        return key

    return use


def _run(folder: Path, agent: dict, *args: str) -> tuple[int, dict]:
    write_project(folder, agent, [weather_case("six_cities", CITIES)])
    code = main(["run", "--config", str(folder / "agenteval.yaml"), "--json", str(folder / "results.json"), "--no-gate", "-q", *args])
    return code, json.loads((folder / "results.json").read_text())


def _scores(results: dict) -> dict:
    [case] = results["cases"]
    return {name: m.get("score") for name, m in case["metrics"].items() if name not in ("latency", "invocation_duration_v1")}


def _grants(endpoint: FakeTokenEndpoint) -> int:
    return len(endpoint.requests)


def test_a_run_that_outlives_its_id_tokens_refreshes_them_and_scores_the_same(tmp_path, google_env, capsys):
    with FakeTokenEndpoint(lifetime=3600) as long_lived, FakeTokenEndpoint(lifetime=1.2) as short_lived:
        google_env(long_lived)
        with FakeCloudRun(long_lived) as service:
            code, steady = _run(tmp_path / "steady", {"kind": "http", "url": f"{service.root_url}/turn", "auth": "google"})
        assert code == 0 and _grants(long_lived) == 1

        google_env(short_lived)
        with FakeCloudRun(short_lived, latency=0.3) as service:
            agent = {"kind": "http", "url": f"{service.root_url}/turn", "auth": "google",
                     "start": f"{sys.executable} -c \"import os,json,time; open('agent_env.json','w').write(json.dumps(dict(os.environ))); time.sleep(60)\""}
            started = time.monotonic()
            code, rotated = _run(tmp_path / "rotated", agent)
            took = time.monotonic() - started
        assert code == 0, rotated
        assert took > 1.2  # the run outlived its first token...
        assert _grants(short_lived) >= 2  # ...so it was fetched again before it expired
        assert service.refusals == 0  # never sent once expired
        assert _scores(rotated) == _scores(steady) and _scores(rotated)["tool_trajectory_avg_score"] == 1.0
        issued = list(long_lived.issued) + list(short_lived.issued)
    out = capsys.readouterr()
    outputs = [out.out, out.err] + [p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file() and p.name != "key.json"]
    assert (tmp_path / "rotated" / "agent_env.json").is_file()  # the started agent's environment is among them
    assert not [token for token in issued for text in outputs if token in text]


def test_a_token_revoked_mid_run_is_fetched_again_once_and_the_run_goes_on(tmp_path, google_env):
    with FakeTokenEndpoint() as endpoint, FakeCloudRun(endpoint, revoke_after=2) as service:
        google_env(endpoint)
        code, results = _run(tmp_path, {"kind": "http", "url": f"{service.root_url}/turn", "auth": "google"})
    assert code == 0, results
    assert service.refusals == 1 and _grants(endpoint) == 2
    assert _scores(results)["tool_trajectory_avg_score"] == 1.0


def test_a_refused_token_ends_the_run_at_once_naming_the_credential_not_its_value(tmp_path, google_env):
    with FakeTokenEndpoint() as endpoint, FakeCloudRun(endpoint, forbidden=True) as service:
        google_env(endpoint)
        started = time.monotonic()
        code, results = _run(tmp_path, {"kind": "http", "url": f"{service.root_url}/turn", "auth": "google"})
        took = time.monotonic() - started
    [case] = results["cases"]
    [run] = case["runs"]
    assert code == 1 and took < 1.0 and len(service.authorizations) == 1  # no retry, no polling
    assert f"POST {service.root_url}/turn was refused: HTTP 403" in run["error"]
    assert f"Google ID token for audience {service.root_url} from service account gate@demo-project.iam.gserviceaccount.com" in run["error"]
    assert not [token for token in endpoint.issued if token in json.dumps(results)]


def test_a_401_after_a_fresh_token_fails_the_run_with_the_reason(tmp_path, google_env):
    with FakeTokenEndpoint() as endpoint, FakeCloudRun(endpoint) as service:
        google_env(endpoint)
        other = service.root_url.replace("127.0.0.1", "localhost")
        code, results = _run(tmp_path, {"kind": "http", "url": f"{other}/turn", "auth": "google"})  # the token's audience is not the service's
    [run] = results["cases"][0]["runs"]
    assert code == 1 and service.refusals == 2 and _grants(endpoint) == 2
    assert "HTTP 401" in run["error"] and "fetched again and refused again" in run["error"]


def test_credentials_that_give_no_token_fail_without_waiting_for_the_ready_timeout(tmp_path, google_env):
    with FakeTokenEndpoint() as endpoint, FakeCloudRun(endpoint) as service:
        google_env(endpoint)
        endpoint.refused_grants = True
        started = time.monotonic()
        code, results = _run(tmp_path, {"kind": "http", "url": f"{service.root_url}/turn", "auth": "google", "ready": "/healthz"})
        took = time.monotonic() - started
    [run] = results["cases"][0]["runs"]
    assert code == 1 and took < 5.0 and not service.authorizations
    assert "auth: google: cannot get a Google ID token" in run["error"] and "invalid_grant" in run["error"]


def test_a_google_apis_url_gets_an_access_token(tmp_path, google_env):
    """A *.googleapis.com URL (Agent Engine, any Google API) takes an access token, not an ID token."""
    from agenteval_ci.agents.remote.auth import GoogleTokens, google_audience

    with FakeTokenEndpoint() as endpoint:
        google_env(endpoint)
        assert google_audience("https://us-central1-aiplatform.googleapis.com/v1/projects/p") is None
        assert google_audience("https://svc-abc-uc.a.run.app/turn") == "https://svc-abc-uc.a.run.app"
        token = GoogleTokens(None).fetch()
        assert token.value.startswith("ya29.fake-") and endpoint.live(token.value, None)
        assert token.expires_at is not None and token.expires_at - time.monotonic() > 3000


TOKEN_COMMAND = """\
import json, sys, urllib.parse, urllib.request
count = open("runs.txt", "a"); count.write("x"); count.close()
body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": "r", "audience": sys.argv[2]}).encode()
print(json.loads(urllib.request.urlopen(sys.argv[1], body).read())["id_token"])
"""


def test_a_token_command_is_run_again_when_its_jwt_expires(tmp_path):
    with FakeTokenEndpoint(lifetime=1.2) as endpoint, FakeCloudRun(endpoint, latency=0.3) as service:
        (tmp_path / "token.py").write_text(TOKEN_COMMAND)
        command = f"{sys.executable} token.py {endpoint.token_uri} {service.root_url}"
        code, results = _run(tmp_path, {"kind": "http", "url": f"{service.root_url}/turn", "auth": {"command": command}})
        issued = list(endpoint.issued)
    assert code == 0, results
    assert service.refusals == 0 and len((tmp_path / "runs.txt").read_text()) >= 2
    assert not [token for token in issued if token in (tmp_path / "results.json").read_text()]


def test_a_failing_token_command_fails_the_run_with_its_status(tmp_path):
    with FakeTokenEndpoint() as endpoint, FakeCloudRun(endpoint) as service:
        code, results = _run(tmp_path, {"kind": "http", "url": f"{service.root_url}/turn", "auth": {"command": "echo 'not logged in' >&2; exit 3"}})
    [run] = results["cases"][0]["runs"]
    assert code == 1 and "exited with status 3: not logged in" in run["error"] and not service.authorizations


@pytest.mark.parametrize("auth, headers, expected", [
    ("google", {"Authorization": "Bearer x"}, "auth: sets the Authorization header"),
    ("gooogle", {}, "suites[0].agent"),
    ({"command": "x", "refresh_second": 5}, {}, "refresh_second"),
])
def test_a_wrong_auth_is_a_usage_error_naming_it(tmp_path, capsys, auth, headers, expected):
    write_project(tmp_path, {"kind": "http", "url": "http://127.0.0.1:9/turn", "auth": auth, "headers": headers}, [weather_case("c", ["Paris"])])
    assert main(["run", "--config", str(tmp_path / "agenteval.yaml"), "-q"]) == 2
    assert expected in capsys.readouterr().err


def test_the_token_goes_only_to_the_agents_own_server(tmp_path, google_env):
    from tests.agents.remote.test_requests import Recorder

    with FakeTokenEndpoint() as endpoint, FakeCloudRun(endpoint) as service, Recorder(lambda handler: (200, {})) as elsewhere:
        google_env(endpoint)
        code, _ = _run(tmp_path, {"kind": "http", "url": f"{service.root_url}/turn", "auth": "google", "ready": f"{elsewhere.url}/healthz"})
    assert code == 0 and elsewhere.seen
    assert not [headers for _, _, headers in elsewhere.seen if "Authorization" in headers]
    assert all(header.startswith("Bearer ") for header in service.authorizations)


def test_a_preview_url_comes_from_the_environment(tmp_path, google_env, monkeypatch, capsys):
    """A deployment per PR has a URL known only in CI: `url: ${PREVIEW_URL}/turn`, and the ID
    token's audience is the expanded URL's origin."""
    with FakeTokenEndpoint() as endpoint, FakeCloudRun(endpoint) as service:
        google_env(endpoint)
        monkeypatch.setenv("PREVIEW_URL", service.root_url)
        code, results = _run(tmp_path / "set", {"kind": "http", "url": "${PREVIEW_URL}/turn", "auth": "google"})
        assert code == 0 and service.refusals == 0 and _scores(results)["tool_trajectory_avg_score"] == 1.0
        monkeypatch.delenv("PREVIEW_URL")
        write_project(tmp_path / "unset", {"kind": "http", "url": "${PREVIEW_URL}/turn", "auth": "google"}, [weather_case("c", ["Paris"])])
        assert main(["run", "--config", str(tmp_path / "unset" / "agenteval.yaml"), "-q"]) == 2
    assert "url: ${PREVIEW_URL} is not set in the environment" in capsys.readouterr().err


def test_a_token_command_is_run_again_once_on_a_401(tmp_path):
    with FakeTokenEndpoint() as endpoint, FakeCloudRun(endpoint, revoke_after=2) as service:
        (tmp_path / "token.py").write_text(TOKEN_COMMAND)
        command = f"{sys.executable} token.py {endpoint.token_uri} {service.root_url}"
        code, results = _run(tmp_path, {"kind": "http", "url": f"{service.root_url}/turn", "auth": {"command": command}})
    assert code == 0, results
    assert service.refusals == 1 and len((tmp_path / "runs.txt").read_text()) == 2  # an hour-long token: re-run only for the 401


def test_a_server_echoing_the_token_never_gets_it_into_the_results(tmp_path):
    from tests.agents.remote.test_requests import Recorder

    echo = lambda handler: (500, {"error": "boom", "you_sent": handler.headers["Authorization"]})
    with Recorder(echo) as server:
        code, results = _run(tmp_path, {"kind": "http", "url": f"{server.url}/turn", "auth": {"command": "echo tok-SECRET-4711"}})
    [run] = results["cases"][0]["runs"]
    assert code == 1 and "answered HTTP 500" in run["error"] and "Bearer [token]" in run["error"]
    assert "tok-SECRET-4711" not in (tmp_path / "results.json").read_text()


def test_on_google_cloud_the_id_token_comes_from_the_metadata_server(tmp_path):
    """Cloud Build, GKE, a runner on Google Cloud: no key file, the metadata server's identity
    endpoint. google-auth reads GCE_METADATA_HOST when imported: the real CLI, in a fresh process."""
    import os
    import subprocess

    from tests.fakes.google_auth import FakeMetadataServer

    with FakeTokenEndpoint(lifetime=1.2) as endpoint, FakeMetadataServer(endpoint) as metadata, FakeCloudRun(endpoint, latency=0.3) as service:
        write_project(tmp_path, {"kind": "http", "url": f"{service.root_url}/turn", "auth": "google"}, [weather_case("six_cities", CITIES)])
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GCE_", "CLOUDSDK_"))}
        env.update(GCE_METADATA_HOST=metadata.host, GCE_METADATA_IP=metadata.host, CLOUDSDK_CONFIG=str(tmp_path / "no-gcloud"))
        done = subprocess.run([sys.executable, "-m", "agenteval_ci", "run", "--config", str(tmp_path / "agenteval.yaml"),
                               "--json", str(tmp_path / "results.json"), "--no-gate", "-q"], env=env, capture_output=True, text=True, timeout=120)
        issued = list(endpoint.issued)
    assert done.returncode == 0, done.stdout + done.stderr
    assert service.refusals == 0 and len(issued) >= 2  # fetched again before the first expired
    assert not endpoint.requests  # every token came through the metadata server
    assert all(token not in done.stdout + done.stderr + (tmp_path / "results.json").read_text() for token in issued)
