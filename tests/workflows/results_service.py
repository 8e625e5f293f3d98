"""A loopback fake of the service actions/upload-artifact and download-artifact (v4 and later)
talk to, storing every upload as an artifact of a run of the fake GitHub: a later workflow
(publish, accept) downloads it through the REST API, as from GitHub.

Why not act's own artifact server: act 0.2.89's refuses the blob uploads of upload-artifact v6
('Error unauthorized': the Azure SDK drops the `=` of the signed URL's base64 signature;
nektos/act#6021). The protocol served here is the Twirp JSON one of @actions/artifact:
CreateArtifact -> a signed URL the Azure blob client PUTs blocks and a block list to ->
FinalizeArtifact; ListArtifacts -> GetSignedArtifactURL -> GET the zip.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes.github import FakeGitHub

TWIRP = "/twirp/github.actions.results.api.v1.ArtifactService/"


def runtime_token(run_id: int) -> str:
    """The ACTIONS_RUNTIME_TOKEN a job gets: a JWT whose `scp` names the run's backend ids
    (the client reads them from it and never checks the signature)."""
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part({'scp': f'Actions.Results:{run_id}:{run_id}'})}.x"


@dataclass
class _Upload:
    run_id: int
    name: str
    blocks: dict[str, bytes] = field(default_factory=dict)
    data: bytes = b""


class ResultsService:
    """The artifact service of one test's runs; `start_run` gives the environment act passes on."""

    def __init__(self, github: FakeGitHub):
        self.github = github
        self._uploads: dict[int, _Upload] = {}
        self._lock = threading.Lock()
        self.base_url = ""

    def start_run(self, head_sha: str, workflow: str, event: str) -> tuple[int, dict[str, str]]:
        """A new run of the fake GitHub, in progress, and the variables its jobs need."""
        run_id = self.github.add_run(head_sha, {}, conclusion="")
        self.github.runs[-1].update({"status": "in_progress", "name": workflow, "event": event})
        return run_id, {"ACTIONS_RESULTS_URL": self.base_url + "/", "ACTIONS_RUNTIME_URL": self.base_url + "/",
                        "ACTIONS_RUNTIME_TOKEN": runtime_token(run_id), "GITHUB_RUN_ID": str(run_id)}

    def end_run(self, run_id: int, conclusion: str) -> None:
        run = next(r for r in self.github.runs if r["id"] == run_id)
        run.update({"status": "completed", "conclusion": conclusion})

    def artifacts_of(self, run_id: int) -> dict[str, bytes]:
        """name -> zip of each artifact the run uploaded."""
        return {a["name"]: a["zip"] for a in self.github.artifacts.values() if a["run_id"] == run_id}

    # the Twirp calls ------------------------------------------------------------------
    def _create(self, body: dict[str, Any]) -> tuple[int, Any]:
        run_id, name = int(_field(body, "workflow_run_backend_id")), str(body["name"])
        if any(a["run_id"] == run_id and a["name"] == name for a in self.github.artifacts.values()):
            return 409, {"code": "already_exists", "msg": f"an artifact named {name} exists in run {run_id}"}
        with self._lock:
            upload_id = len(self._uploads) + 1
            self._uploads[upload_id] = _Upload(run_id, name)
        return 200, {"ok": True, "signedUploadUrl": f"{self.base_url}/blob/{upload_id}?sig=fake"}

    def _finalize(self, body: dict[str, Any]) -> tuple[int, Any]:
        run_id, name = int(_field(body, "workflow_run_backend_id")), str(body["name"])
        upload = next(u for u in self._uploads.values() if (u.run_id, u.name) == (run_id, name))
        artifact_id = max([*self.github.artifacts, 5000]) + 1
        self.github.artifacts[artifact_id] = {"run_id": run_id, "name": name, "zip": upload.data}
        return 200, {"ok": True, "artifactId": str(artifact_id)}

    def _list(self, body: dict[str, Any]) -> tuple[int, Any]:
        run_id = int(_field(body, "workflow_run_backend_id"))
        name, artifact_id = _field(body, "name_filter"), _field(body, "id_filter")
        found = [{"workflowRunBackendId": str(run_id), "workflowJobRunBackendId": str(run_id), "databaseId": str(aid),
                  "name": a["name"], "size": str(len(a["zip"])),
                  "createdAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
                 for aid, a in self.github.artifacts.items()
                 if a["run_id"] == run_id and name in (None, a["name"]) and artifact_id in (None, str(aid))]
        return 200, {"artifacts": found}

    def _signed_download(self, body: dict[str, Any]) -> tuple[int, Any]:
        run_id, name = int(_field(body, "workflow_run_backend_id")), str(body["name"])
        aid = next(i for i, a in self.github.artifacts.items() if (a["run_id"], a["name"]) == (run_id, name))
        return 200, {"name": name, "signedUrl": f"{self.base_url}/zip/{aid}?sig=fake"}

    def _put_blob(self, upload_id: int, query: dict[str, str], data: bytes) -> None:
        upload = self._uploads[upload_id]
        if query.get("comp") == "block":
            upload.blocks[query["blockid"]] = data
        elif query.get("comp") == "blocklist":
            order = re.findall(rb"<Latest>([^<]*)</Latest>", data)
            upload.data = b"".join(upload.blocks[block.decode()] for block in order)
        else:  # a blob in one request
            upload.data = data

    # serving --------------------------------------------------------------------------
    def __enter__(self) -> "ResultsService":
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, status: int, payload: Any) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/zip" if isinstance(payload, bytes) else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                calls = {"CreateArtifact": service._create, "FinalizeArtifact": service._finalize,
                         "ListArtifacts": service._list, "GetSignedArtifactURL": service._signed_download}
                call = calls.get(self.path.removeprefix(TWIRP))
                self._reply(*(call(body) if call else (404, {"code": "not_found", "msg": self.path})))

            def do_PUT(self) -> None:
                url = urlsplit(self.path)
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                service._put_blob(int(url.path.rsplit("/", 1)[1]), {k: v[0] for k, v in parse_qs(url.query).items()}, data)
                self._reply(201, b"")

            def do_GET(self) -> None:
                artifact = service.github.artifacts.get(int(urlsplit(self.path).path.rsplit("/", 1)[1]))
                self._reply(200, artifact["zip"]) if artifact else self._reply(404, {"msg": "no such artifact"})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()


def _field(body: dict[str, Any], snake: str) -> Any:
    """A request field by its proto name or its JSON (lowerCamelCase) name; wrappers unwrapped."""
    camel = re.sub(r"_(\w)", lambda m: m[1].upper(), snake)
    value = body.get(camel, body.get(snake))
    return value.get("value") if isinstance(value, dict) else value
