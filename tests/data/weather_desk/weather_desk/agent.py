import os

from google.adk.agents import Agent

from weather_desk.tools import forecast

# The key is passed on explicitly, so a missing one fails here, at import.
API_KEY = os.environ["GEMINI_API_KEY"]

root_agent = Agent(
    name="weather_desk",
    model="gemini-2.5-flash",
    instruction="You answer questions about the weather with the forecast tool.",
    tools=[forecast],
)
