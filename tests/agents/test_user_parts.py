"""Every part of a user turn reaches the agent, byte for byte: an image turn (text + inline_data) and a
file-only turn (file_data) through a Python callable, a JSON-contract server, an in-process ADK agent
(the model request the fake Gemini receives) and an A2A message; a part A2A cannot carry fails the run."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from agenteval_ci.cli import main
from agenteval_ci.schema import Content
from tests.agents.remote.helpers import free_port, python_command
from tests.fakes.gemini import FakeGemini, GeminiRequest, text_reply

PNG = bytes(range(256)) + b"\x89PNG\r\n\x1a\n\x00\xff"  # every byte value, so no encoding step can pass unnoticed
IMAGE_PARTS = [{"text": "What is in this picture?"}, {"inline_data": {"mime_type": "image/png", "data": base64.b64encode(PNG).decode()}}]
FILE_PARTS = [{"file_data": {"mime_type": "application/pdf", "file_uri": "gs://bucket/report.pdf"}}]

CALLABLE = '''
import json, os

def agent(text, session):
    seen = [{k: ({**v, "data": v["data"].hex()} if k == "inline_data" else v) for k, v in p.items()} for p in session.parts]
    with open(os.environ["SEEN"], "a") as f:
        f.write(json.dumps({"case": session.case_id, "text": text, "parts": seen}) + "\\n")
    return "ok"
'''


def _cases() -> list[dict[str, Any]]:
    turn = lambda parts: {"user_content": {"role": "user", "parts": parts}, "final_response": {"role": "model", "parts": [{"text": "ok"}]}}
    return [{"eval_id": "image", "conversation": [turn(IMAGE_PARTS)]}, {"eval_id": "file", "conversation": [turn(FILE_PARTS)]}]


def _project(tmp_path: Path, agent: Any) -> Path:
    (tmp_path / "media.evalset.json").write_text(json.dumps({"eval_set_id": "media", "eval_cases": _cases()}))
    config = tmp_path / "agenteval.yaml"
    config.write_text(yaml.safe_dump({"suites": [{"agent": agent, "eval_sets": "media.evalset.json"}]}))
    return config


def _seen(path: Path) -> dict[str, dict[str, Any]]:
    return {row["case"]: row for row in map(json.loads, path.read_text().splitlines())}


def test_a_callable_gets_every_part_with_its_bytes_and_mime_type(tmp_path, monkeypatch):
    (tmp_path / "media_agent.py").write_text(CALLABLE)
    monkeypatch.setenv("SEEN", str(tmp_path / "seen.jsonl"))
    config = _project(tmp_path, "media_agent.py:agent")
    assert main(["run", "--config", str(config), "--json", str(tmp_path / "r.json"), "-q"]) == 0
    seen = _seen(tmp_path / "seen.jsonl")
    assert seen["image"]["text"] == "What is in this picture?"
    assert seen["image"]["parts"] == [{"text": "What is in this picture?"}, {"inline_data": {"mime_type": "image/png", "data": PNG.hex()}}]
    assert seen["file"]["text"] == ""
    assert seen["file"]["parts"] == FILE_PARTS


def test_a_json_contract_server_gets_every_part_in_the_request(tmp_path):
    port = free_port()
    requests = tmp_path / "requests.jsonl"
    agent = {"kind": "http", "url": f"http://127.0.0.1:{port}/turn", "start": python_command("json_agent.py"), "ready_timeout_seconds": 20,
             "env": {"AGENT_REQUESTS": str(requests)}}
    assert main(["run", "--config", str(_project(tmp_path, agent)), "--json", str(tmp_path / "r.json"), "-q"]) == 1  # it answers weather, not "ok"
    bodies = {body["case_id"]: body for body in map(json.loads, requests.read_text().splitlines())}
    image = bodies["image"]["parts"]
    assert image[0] == {"text": "What is in this picture?"}
    assert image[1]["inline_data"]["mime_type"] == "image/png" and base64.b64decode(image[1]["inline_data"]["data"]) == PNG
    assert bodies["file"]["parts"] == FILE_PARTS and bodies["file"]["message"] == ""


def test_an_in_process_adk_agent_sends_every_part_to_its_model(tmp_path, monkeypatch):
    package = tmp_path / "media_adk_agent"
    package.mkdir()
    (package / "__init__.py").write_text("from . import agent\n")
    (package / "agent.py").write_text("from google.adk.agents import LlmAgent\nroot_agent = LlmAgent(name='looker', model='gemini-2.5-flash', instruction='Describe.')\n")
    (tmp_path / "media.evalset.json").write_text(json.dumps({"eval_set_id": "media", "eval_cases": _cases()}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))

    def responder(request: GeminiRequest) -> dict[str, Any]:
        return text_reply("ok")

    try:
        with FakeGemini(responder=responder) as fake:
            for name, value in fake.env().items():
                monkeypatch.setenv(name, value)
            monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
            assert main(["run", "media_adk_agent", "media.evalset.json", "--json", "r.json", "-q"]) == 0
            user_parts = [request.contents[-1]["parts"] for request in fake.requests]
    finally:
        for name in [m for m in sys.modules if m.startswith("media_adk_agent")]:
            del sys.modules[name]
    image = next(parts for parts in user_parts if any("inlineData" in p for p in parts))
    blob = next(p["inlineData"] for p in image if "inlineData" in p)
    assert blob.get("mimeType", blob.get("mime_type")) == "image/png" and base64.urlsafe_b64decode(blob["data"] + "=" * (-len(blob["data"]) % 4)) == PNG
    files = [p["fileData"] for parts in user_parts for p in parts if "fileData" in p]
    assert [(f.get("mimeType", f.get("mime_type")), f.get("fileUri", f.get("file_uri"))) for f in files] == [("application/pdf", "gs://bucket/report.pdf")]


def test_an_a2a_message_carries_bytes_and_urls_and_refuses_what_it_cannot_carry():
    pytest.importorskip("a2a.types", reason="kind a2a needs the a2a extra")
    from agenteval_ci.agents.parts import PartNotCarried
    from agenteval_ci.agents.remote.a2a import _a2a_parts

    text, image = _a2a_parts(Content.model_validate({"role": "user", "parts": IMAGE_PARTS}))
    assert text.text == "What is in this picture?"
    assert (image.raw, image.media_type) == (PNG, "image/png")
    [file] = _a2a_parts(Content.model_validate({"role": "user", "parts": FILE_PARTS}))
    assert (file.url, file.media_type) == ("gs://bucket/report.pdf", "application/pdf")
    with pytest.raises(PartNotCarried, match="part 0 is function_response, which an A2A message cannot carry"):
        _a2a_parts(Content.model_validate({"role": "user", "parts": [{"function_response": {"name": "f", "response": {}}}]}))
