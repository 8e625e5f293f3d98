"""A loopback fake of PyPI's upload API (the "legacy" endpoint twine and pypa/gh-action-pypi-publish use).

It takes what PyPI checks at the door: a POST of multipart form data with `:action=file_upload`,
basic auth, a file whose name starts with the normalized `name-version`, and digests that match
the file; a file uploaded twice is refused (400), as PyPI refuses it. Accepted uploads are kept
in `uploads`.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Upload:
    name: str
    version: str
    filetype: str
    filename: str
    sha256: str
    size: int


def _form(content_type: str, body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """Field name -> (file name, bytes) of a multipart/form-data body."""
    message = BytesParser(policy=policy.HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    if not message.is_multipart():
        return {}
    return {part.get_param("name", header="content-disposition"): (part.get_filename(), part.get_payload(decode=True))
            for part in message.iter_parts()}


class FakePyPI:
    def __init__(self) -> None:
        self.uploads: list[Upload] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def upload_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/legacy/"

    def __enter__(self) -> "FakePyPI":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def accept(self, form: dict[str, tuple[str | None, bytes]]) -> tuple[int, str]:
        text = {key: value.decode() for key, (filename, value) in form.items() if filename is None}
        if text.get(":action") != "file_upload":
            return 400, "Invalid value for :action"
        if "content" not in form or not form["content"][0]:
            return 400, "Upload payload does not have a file"
        filename, content = form["content"]
        name, version = text.get("name", ""), text.get("version", "")
        stem = f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}"
        if not name or not version or not filename.lower().startswith(stem + (".tar.gz" if text.get("filetype") == "sdist" else "-")):
            return 400, f"Start filename for {name!r} with {stem!r}"
        sha256 = hashlib.sha256(content).hexdigest()
        if text.get("sha256_digest") != sha256 or text.get("blake2_256_digest") != hashlib.blake2b(content, digest_size=32).hexdigest():
            return 400, "The digest supplied does not match a digest calculated from the uploaded file"
        if any(u.filename == filename for u in self.uploads):
            return 400, "File already exists"
        self.uploads.append(Upload(name, version, text.get("filetype", ""), filename, sha256, len(content)))
        return 200, "OK"

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                if not self.headers.get("Authorization", "").startswith("Basic "):
                    status, reason = 403, "Invalid or non-existent authentication information"
                else:
                    body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                    status, reason = fake.accept(_form(self.headers.get("Content-Type", ""), body))
                self.send_response(status, reason)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        return Handler
