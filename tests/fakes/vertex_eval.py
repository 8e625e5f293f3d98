"""A loopback fake of Google's Gen AI evaluation service (`evaluateInstances`) and of the OAuth
token endpoint application default credentials refresh at, for the production provider
(agenteval_ci/judge/providers/vertex_eval.py) to call unpatched.

Tests point the credentials at it with `credentials_file()`: a service account key file (a
fresh RSA key) whose token_uri is this server, so google-auth's real refresh (a signed JWT
exchanged for a token) runs against 127.0.0.1. Requests without the token it handed out are
refused with 401. Faults are loopback.py's (5xx, 429 with Retry-After, a malformed body, a
dropped connection); `reply_next` scripts replies such as a metric result without a score
(`missing_score()`) or with the service's error (`metric_error()`); `scorer` answers the rest.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Callable, Union
from urllib.parse import parse_qs, urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from .loopback import FakeHandler, Fault, LoopbackFake

TOKEN = "fake-access-token"
JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"  # a service account's signed assertion for a token
_EVALUATE = re.compile(r"^/v1beta1/projects/(?P<project>[^/]+)/locations/(?P<location>[^/:]+):evaluateInstances$")


@dataclass(frozen=True)
class EvalRequest:
    project: str
    location: str
    body: dict[str, Any]

    @property
    def spec(self) -> str:
        return str(self.body["metrics"][0]["predefined_metric_spec"]["metric_spec_name"])

    @property
    def response_text(self) -> str:
        contents = (self.body["instance"].get("response") or {}).get("contents", {}).get("contents", [])
        return "".join(part.get("text", "") for content in contents for part in content.get("parts", []))


Reply = Union[dict[str, Any], Fault]


def scored(score: float, explanation: str = "fake explanation") -> dict[str, Any]:
    """A reply as the service gives it: one metric result per metric asked for."""
    return {"metricResults": [{"score": score, "explanation": explanation}]}


def missing_score() -> dict[str, Any]:
    return {"metricResults": [{"explanation": "no score here"}]}


def metric_error(message: str = "Single-turn metric received agent_eval_data with 2 turns") -> dict[str, Any]:
    return {"metricResults": [{"error": {"code": 3, "message": message}}]}


@dataclass
class FakeEvaluationService(LoopbackFake):
    scorer: Callable[[EvalRequest], Reply] = field(default=lambda request: scored(1.0))
    refuse_tokens: bool = False  # the token endpoint answers invalid_grant (a revoked login)

    def __post_init__(self) -> None:
        self.token_requests = 0
        self.refused = 0
        self._scripted: list[Reply] = []
        self._open()

    def reply_next(self, *replies: Reply) -> None:
        """Answer the next requests with these, before `scorer` (after injected faults)."""
        with self._lock:
            self._scripted.extend(replies)

    def credentials_file(self, folder: Path) -> Path:
        """A service account key file (google-auth honours its token_uri) whose tokens this server grants."""
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        path = folder / "service-account.json"
        path.write_text(json.dumps({
            "type": "service_account", "project_id": "fake-project", "private_key_id": "fake-key",
            "private_key": pem.decode(), "client_email": "ci@fake-project.iam.gserviceaccount.com",
            "client_id": "1", "token_uri": f"{self.root_url}/token",
        }))
        return path

    def env(self, folder: Path, project: str = "fake-project", location: str = "us-central1") -> dict[str, str]:
        """The environment of a project with Vertex credentials pointing here."""
        return {"GOOGLE_CLOUD_PROJECT": project, "GOOGLE_CLOUD_LOCATION": location, "GOOGLE_VERTEX_BASE_URL": self.root_url,
                "GOOGLE_APPLICATION_CREDENTIALS": str(self.credentials_file(folder))}

    @property
    def evaluations(self) -> list[EvalRequest]:
        return [request for request in self.requests if isinstance(request, EvalRequest)]

    def _next_reply(self, request: EvalRequest) -> Reply:
        fault = self._recorded(request)
        if fault:
            return fault
        with self._lock:
            scripted = self._scripted.pop(0) if self._scripted else None
        return scripted if scripted is not None else self.scorer(request)

    def _token_reply(self, raw: bytes) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.token_requests += 1
        form = {key: values[0] for key, values in parse_qs(raw.decode()).items()}
        if self.refuse_tokens or form.get("grant_type") != JWT_GRANT or not form.get("assertion"):
            return 400, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}
        return 200, {"access_token": TOKEN, "expires_in": 3600, "token_type": "Bearer"}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(FakeHandler):
            malformed_body = b'{"metricResults": [{"score": '

            def serve(self) -> None:
                raw = self.body()
                path = urlsplit(self.path).path
                if path == "/token":
                    return self.send_json(*fake._token_reply(raw))
                found = _EVALUATE.match(path)
                if not found:
                    return self.send_json(404, _error_body(Fault(404, f"no route {path}")))
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    with fake._lock:
                        fake.refused += 1
                    return self.send_json(401, _error_body(Fault(401, "Request had invalid authentication credentials.")))
                request = EvalRequest(found["project"], found["location"], json.loads(raw or b"{}"))
                self.answer(fake._next_reply(request), _error_body)

        Handler.fake = fake
        return Handler


STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}


def _error_body(fault: Fault) -> dict[str, Any]:
    """Google's error shape."""
    return {"error": {"code": fault.status, "message": fault.message, "status": STATUS.get(fault.status, "UNKNOWN")}}

