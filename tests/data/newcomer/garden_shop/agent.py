from google.adk.agents import Agent

from garden_shop.tools import check_order, store_hours  # absolute imports, as adk-samples write them

root_agent = Agent(
    name="garden_shop",
    model="gemini-2.5-flash",
    instruction="You help the customers of a garden shop: look up their orders and the shops' opening hours.",
    tools=[check_order, store_hours],
)
