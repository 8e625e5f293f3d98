"""Loopback fakes of Google's token endpoint and of a Cloud Run service behind an ID-token check.

FakeTokenEndpoint is the `token_uri` of a service-account key written by `service_account_file`
(google-auth sends a user login's refresh to Google whatever its file says): google-auth,
unpatched, posts its signed JWT there and gets an access token, or an ID token (a JWT with `aud` and `exp`) when
it asked for a `target_audience`. Tokens last `lifetime` seconds; `revoke()` ends every token
issued so far, as a rotated key does. FakeCloudRun serves our JSON contract (kind: http) and
answers 401 to any request without a live ID token for its own URL.
"""

from __future__ import annotations

import base64
import json
import math
import secrets
import time
from pathlib import Path
from typing import Any, Optional
from urllib.parse import parse_qs

from tests.fakes.loopback import FakeHandler, LoopbackFake


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unverified_claims(jwt: str) -> dict[str, Any]:
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class FakeTokenEndpoint(LoopbackFake):
    def __init__(self, lifetime: float = 3600.0):
        self.lifetime = lifetime
        self.issued: dict[str, tuple[Optional[str], float]] = {}  # token -> (audience or None for access, expiry)
        self.refused_grants = False  # answer every grant 400 invalid_grant (a deleted key)
        self._open()

    @property
    def token_uri(self) -> str:
        return f"{self.root_url}/token"

    def issue(self, audience: Optional[str]) -> dict[str, Any]:
        expiry = time.time() + self.lifetime
        if audience is None:
            token = f"ya29.fake-{secrets.token_urlsafe(24)}"
            reply: dict[str, Any] = {"access_token": token, "expires_in": self.lifetime, "token_type": "Bearer"}
        else:
            header = _b64(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
            expiry = float(math.ceil(expiry))  # `exp` is whole seconds: the token lives exactly as long as it says
            claims = _b64(json.dumps({"aud": audience, "exp": int(expiry), "iat": int(time.time()), "nonce": secrets.token_hex(12)}).encode())
            token = f"{header}.{claims}.{_b64(secrets.token_bytes(32))}"
            reply = {"id_token": token}
        with self._lock:
            self.issued[token] = (audience, expiry)
        return reply

    def live(self, token: str, audience: Optional[str]) -> bool:
        with self._lock:
            found = self.issued.get(token)
        return found is not None and found[0] == audience and time.time() < found[1]

    def revoke(self) -> None:
        with self._lock:
            self.issued = {token: (aud, 0.0) for token, (aud, _) in self.issued.items()}

    def _handler(self) -> type:
        fake = self

        class Handler(FakeHandler):
            def serve(self) -> None:
                form = {k: v[0] for k, v in parse_qs(self.body().decode()).items()}
                fake._recorded(form)
                if fake.refused_grants:
                    return self.send_json(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
                if form.get("grant_type") == "refresh_token":  # what a test's token command asks for, `audience` its ID token's
                    return self.send_json(200, fake.issue(form.get("audience")))
                audience = unverified_claims(form["assertion"]).get("target_audience")
                self.send_json(200, fake.issue(audience))

        Handler.fake = self
        return Handler


def service_account_file(path: Path, token_uri: str, email: str = "gate@demo-project.iam.gserviceaccount.com") -> Path:
    """A service-account key whose token_uri is the fake (a fresh RSA key: google-auth signs with it)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    info = {"type": "service_account", "project_id": "demo-project", "private_key_id": "k1", "private_key": pem,
            "client_email": email, "client_id": "1", "token_uri": token_uri}
    path.write_text(json.dumps(info))
    return path


class FakeCloudRun(LoopbackFake):
    """POST /turn: our JSON contract, answered only with a live ID token for this service's URL."""

    def __init__(self, tokens: FakeTokenEndpoint, latency: float = 0.0, forbidden: bool = False, revoke_after: int = 0):
        self.tokens = tokens
        self.turn_latency = latency
        self.forbidden = forbidden  # 403 to every request: a caller without roles/run.invoker
        self.revoke_after = revoke_after  # revoke every token after this many turns (0: never)
        self.authorizations: list[str] = []
        self.refusals = 0
        self._open()

    def _authorized(self, header: str) -> bool:
        token = header.removeprefix("Bearer ")
        return header.startswith("Bearer ") and self.tokens.live(token, self.root_url)

    def _handler(self) -> type:
        fake = self

        class Handler(FakeHandler):
            def do_GET(self) -> None:  # noqa: N802 - the ready check
                self.send_json(200, {"status": "ok"})

            def serve(self) -> None:
                body = json.loads(self.body())
                header = self.headers.get("Authorization", "")
                with fake._lock:
                    fake.authorizations.append(header)
                if fake.forbidden:
                    return self.send_bytes(403, b"Forbidden: the caller does not have run.routes.invoke", "text/html")
                if not fake._authorized(header):
                    with fake._lock:
                        fake.refusals += 1
                    return self.send_bytes(401, b"Your client does not have permission to the requested URL.", "text/html")
                fake._recorded(body)
                if fake.revoke_after and len(fake.requests) == fake.revoke_after:
                    fake.tokens.revoke()
                time.sleep(fake.turn_latency)
                city = body["message"].removeprefix("weather in ")
                self.send_json(200, {"response": f"It is sunny in {city}.", "tool_calls": [{"name": "get_weather", "args": {"city": city}}]})

        Handler.fake = self
        return Handler


class FakeMetadataServer(LoopbackFake):
    """Google Cloud's metadata server, as google-auth finds it through GCE_METADATA_HOST and
    GCE_METADATA_IP (Cloud Build, GKE, a runner on Google Cloud): the identity endpoint's ID
    tokens and the default service account's access tokens, issued by `tokens`."""

    ROOT = "/computeMetadata/v1/instance/service-accounts/default/"

    def __init__(self, tokens: FakeTokenEndpoint):
        self.tokens = tokens
        self._open()

    @property
    def host(self) -> str:
        return self.root_url.removeprefix("http://")

    def _handler(self) -> type:
        fake = self

        class Handler(FakeHandler):
            def _metadata(self, status: int, body: bytes, content_type: str) -> None:
                self.send_bytes(status, body, content_type, {"Metadata-Flavor": "Google"})

            def do_GET(self) -> None:  # noqa: N802
                path, _, query = self.path.partition("?")
                params = {k: v[0] for k, v in parse_qs(query).items()}
                if self.headers.get("Metadata-Flavor") != "Google":
                    return self._metadata(403, b"Missing Metadata-Flavor:Google header.", "text/plain")
                if path in ("", "/"):
                    return self._metadata(200, b"computeMetadata/\n", "text/plain")
                if path == fake.ROOT + "identity":
                    return self._metadata(200, fake.tokens.issue(params["audience"])["id_token"].encode(), "application/text")
                if path == fake.ROOT + "token":
                    return self._metadata(200, json.dumps(fake.tokens.issue(None)).encode(), "application/json")
                if path == fake.ROOT.rstrip("/") or path == fake.ROOT:
                    info = {"email": "runner@demo-project.iam.gserviceaccount.com", "scopes": ["https://www.googleapis.com/auth/cloud-platform"], "aliases": ["default"]}
                    return self._metadata(200, json.dumps(info).encode(), "application/json")
                if path == fake.ROOT + "email":
                    return self._metadata(200, b"runner@demo-project.iam.gserviceaccount.com", "text/plain")
                self._metadata(404, b"not found", "text/plain")

            def serve(self) -> None:
                self._metadata(405, b"", "text/plain")

        Handler.fake = self
        return Handler
