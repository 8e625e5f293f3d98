"""ADK's A2A wrapper of a real ADK agent (to_a2a), for the tests: its model is whatever
GOOGLE_GEMINI_BASE_URL serves, its spans go where OTEL_EXPORTER_OTLP_* say (ADK's own setup).

With JOIN_TRACE=1 it does what
OpenTelemetry's ASGI instrumentation does: a request's `traceparent` becomes the parent of the
agent's spans. AGENT_TRACES, if set, names a file that gets a line per POST's `traceparent` and
one per span the agent ended (`span TRACE_ID`).
"""

import os

import uvicorn
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import LlmAgent
from google.adk.telemetry.setup import maybe_set_otel_providers
from opentelemetry import context, propagate, trace
from opentelemetry.sdk.trace import SpanProcessor

RECORD = os.environ.get("AGENT_TRACES")


def note(line: str) -> None:
    if RECORD:
        with open(RECORD, "a") as f:
            f.write(line + "\n")


class JoinTrace:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        note(f"traceparent {headers.get('traceparent', '-')}")
        if os.environ.get("JOIN_TRACE") != "1":
            return await self.app(scope, receive, send)
        token = context.attach(propagate.extract(headers))
        try:
            await self.app(scope, receive, send)
        finally:
            context.detach(token)


class NoteSpans(SpanProcessor):
    def on_end(self, span):
        note(f"span {span.context.trace_id:032x}")


def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "sky": "sunny"}


maybe_set_otel_providers()
trace.get_tracer_provider().add_span_processor(NoteSpans())
port = int(os.environ["PORT"])
agent = LlmAgent(name="weather", model="gemini-2.5-flash", instruction="Answer weather questions.", tools=[get_weather])
app = JoinTrace(to_a2a(agent, host="127.0.0.1", port=port))
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
