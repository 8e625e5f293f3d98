"""ADK's A2A wrapper of a real ADK agent (to_a2a), for the tests: its model is whatever
GOOGLE_GEMINI_BASE_URL serves, its spans go where OTEL_EXPORTER_OTLP_* say (ADK's own setup)."""

import os

import uvicorn
from google.adk.agents import LlmAgent
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.telemetry.setup import maybe_set_otel_providers


def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "sky": "sunny"}


maybe_set_otel_providers()
port = int(os.environ["PORT"])
agent = LlmAgent(name="weather", model="gemini-2.5-flash", instruction="Answer weather questions.", tools=[get_weather])
uvicorn.run(to_a2a(agent, host="127.0.0.1", port=port), host="127.0.0.1", port=port, log_level="warning")
