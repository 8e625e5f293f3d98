"""A loopback fake of Vertex AI Agent Engine's REST API serving a real ADK agent, as a deployed
AdkApp serves it (google-cloud-aiplatform's AdkApp template: sessions through `:query`, turns
through `:streamQuery`, one `event.model_dump_json(exclude_none=True)` per line).

Every request needs a live access token from the FakeTokenEndpoint (401 UNAUTHENTICATED
otherwise); `revoke_after` revokes all tokens after that many authorized requests, as a rotated
credential does. `legacy=True` is an engine deployed before AdkApp's async methods.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from tests.fakes.google_auth import FakeTokenEndpoint
from tests.fakes.loopback import FakeHandler, LoopbackFake

RESOURCE = "projects/demo-project/locations/us-central1/reasoningEngines/4242"


class FakeAgentEngine(LoopbackFake):
    def __init__(self, root_agent: Any, tokens: FakeTokenEndpoint, resource: str = RESOURCE, legacy: bool = False, revoke_after: int = 0):
        from google.adk.runners import Runner
        from google.adk.sessions import InMemorySessionService

        self.resource = resource
        self.tokens = tokens
        self.legacy = legacy
        self.revoke_after = revoke_after
        self.refusals = 0
        self.authorized = 0
        self.sessions = InMemorySessionService()
        self.runner = Runner(app_name="deployed_app", agent=root_agent, session_service=self.sessions)
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()
        self._open()

    @property
    def url(self) -> str:
        return f"{self.root_url}/v1/{self.resource}"

    def stop(self) -> None:
        super().stop()
        self._loop.call_soon_threadsafe(self._loop.stop)

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(60)

    def methods(self) -> tuple[str, str]:
        return ("create_session", "stream_query") if self.legacy else ("async_create_session", "async_stream_query")

    async def create_session(self, user_id: str, state: dict[str, Any]) -> dict[str, Any]:
        session = await self.sessions.create_session(app_name="deployed_app", user_id=user_id, state=state)
        return session.model_dump(mode="json")

    async def stream(self, message: dict[str, Any], user_id: str, session_id: str) -> list[str]:
        from google.genai import types

        content = types.Content.model_validate(message)
        return [event.model_dump_json(exclude_none=True) async for event in self.runner.run_async(user_id=user_id, session_id=session_id, new_message=content)]

    def _authorized(self, header: str) -> bool:
        with self._lock:
            if not (header.startswith("Bearer ") and self.tokens.live(header.removeprefix("Bearer "), None)):
                self.refusals += 1
                return False
            self.authorized += 1
            if self.revoke_after and self.authorized == self.revoke_after:
                self.tokens.revoke()
            return True

    def _handler(self) -> type:
        fake = self

        def error(code: int, status: str, message: str) -> dict[str, Any]:
            return {"error": {"code": code, "message": message, "status": status}}

        class Handler(FakeHandler):
            def do_GET(self) -> None:  # noqa: N802 - the engine's resource
                if not fake._authorized(self.headers.get("Authorization", "")):
                    return self.send_json(401, error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."))
                if self.path != f"/v1/{fake.resource}":
                    return self.send_json(404, error(404, "NOT_FOUND", f"The ReasoningEngine {self.path.removeprefix('/v1/')} does not exist."))
                self.send_json(200, {"name": fake.resource, "displayName": "deployed_app"})

            def serve(self) -> None:
                body = json.loads(self.body())
                if not fake._authorized(self.headers.get("Authorization", "")):
                    return self.send_json(401, error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."))
                fake._recorded({"path": self.path, **body})
                path, _, verb = self.path.partition(":")
                if path != f"/v1/{fake.resource}":
                    return self.send_json(404, error(404, "NOT_FOUND", "The ReasoningEngine does not exist."))
                create, stream = fake.methods()
                method, given = body.get("classMethod") or body.get("class_method"), body["input"]
                if verb == "query" and method == create:
                    return self.send_json(200, {"output": fake.run(fake.create_session(given["user_id"], given.get("state") or {}))})
                if verb == "streamQuery" and method == stream:
                    lines = fake.run(fake.stream(given["message"], given["user_id"], given["session_id"]))
                    return self.send_bytes(200, "".join(line + "\n" for line in lines).encode(), "application/json")
                self.send_json(400, error(400, "INVALID_ARGUMENT", f"Failed to find method {method} in class_methods for {verb}."))

        Handler.fake = self
        return Handler
