"""A google-adk LlmAgent with two tools, in ADK's folder layout (`adk eval` reads it too).

It needs a Gemini endpoint: a real one (GOOGLE_API_KEY), or the project's loopback fake
(tests/fakes/gemini.py) via GOOGLE_GEMINI_BASE_URL, as the tests do.
"""

from google.adk.agents import LlmAgent


def get_weather(city: str) -> dict:
    """Returns the current weather in a city."""
    return {"city": city, "forecast": "sunny", "celsius": 24}


def get_local_time(city: str) -> dict:
    """Returns the local time in a city."""
    return {"city": city, "time": "10:30"}


root_agent = LlmAgent(
    name="travel_helper",
    model="gemini-2.5-flash",
    instruction="Answer questions about a city's weather and local time. Use the tools; never guess.",
    tools=[get_weather, get_local_time],
)
