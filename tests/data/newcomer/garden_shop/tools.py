"""The shop's back office, as plain functions the agent calls as tools."""

ORDERS = {
    "A12": {"status": "shipped", "eta_days": 2},
    "B7": {"status": "being packed", "eta_days": 5},
}
HOURS = {"portland": "8am to 6pm", "austin": "9am to 7pm"}


def check_order(order_id: str) -> dict:
    """Looks up an order by its id."""
    order = ORDERS.get(order_id.upper())
    if order is None:
        return {"error": f"no order {order_id}"}
    return {"order_id": order_id.upper(), **order}


def store_hours(city: str) -> dict:
    """Opening hours of the shop in a city."""
    hours = HOURS.get(city.lower())
    return {"city": city, "hours": hours} if hours else {"error": f"no shop in {city}"}
