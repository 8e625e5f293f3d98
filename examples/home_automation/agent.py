"""An offline, deterministic home-automation agent: a plain Python function.

agenteval calls `handle(text, session)` once per user turn. It "calls tools" (functions
below) and returns the response, its steps (each call with what the tool returned; it writes
no text between calls) and its app_details (instructions and tool declarations), so the
judges see what they would see of an ADK agent.
No model and no network: the same input always gives the same output.
"""

from __future__ import annotations

import re
from typing import Any

DEFAULT_STATE = {"lights": {"kitchen": False, "living room": False, "bedroom": False}, "thermostat": 21}


def set_light(state: dict[str, Any], room: str, on: bool) -> dict[str, Any]:
    if room not in state["lights"]:
        return {"error": f"no light in the {room}"}
    state["lights"][room] = on
    return {"room": room, "on": on}


def set_thermostat(state: dict[str, Any], temperature: int) -> dict[str, Any]:
    state["thermostat"] = temperature
    return {"temperature": temperature}


def get_device_status(state: dict[str, Any], device: str) -> dict[str, Any]:
    if device == "thermostat":
        return {"device": device, "temperature": state["thermostat"]}
    return {"device": device, "on": state["lights"].get(device, False)}


def _declaration(name: str, description: str, **parameters: str) -> dict[str, Any]:
    properties = {param: {"type": kind} for param, kind in parameters.items()}
    return {"name": name, "description": description, "parameters_json_schema": {"type": "object", "properties": properties, "required": list(parameters)}}


# What the judged metrics show their judge about this agent (google-adk's AppDetails shape;
# an ADK agent has it recorded for it). Without it, the judge is told it was not recorded.
APP_DETAILS = {
    "agent_details": {
        "home": {
            "name": "home",
            "instructions": "You control the lights and the thermostat of one home. Confirm every change in one short sentence.",
            "tool_declarations": [{"function_declarations": [
                _declaration("set_light", "Turns a room's light on or off.", room="string", on="boolean"),
                _declaration("set_thermostat", "Sets the thermostat, in degrees Celsius.", temperature="integer"),
                _declaration("get_device_status", "Reads a light's or the thermostat's state.", device="string"),
            ]}],
        }
    }
}


def handle(text: str, session: Any) -> dict[str, Any]:
    state = session.state
    state.setdefault("lights", dict(DEFAULT_STATE["lights"]))
    state.setdefault("thermostat", DEFAULT_STATE["thermostat"])
    steps: list[dict[str, Any]] = []

    def call(tool: Any, **args: Any) -> dict[str, Any]:
        result = tool(state, **args)
        steps.append({"name": tool.__name__, "args": args, "response": dict(result)})
        return result

    request = text.lower().strip()
    if match := re.search(r"turn (on|off) the ([a-z ]+?) lights?\b", request):
        result = call(set_light, room=match[2], on=match[1] == "on")
        response = result.get("error") or f"The {match[2]} light is now {match[1]}."
    elif match := re.search(r"set the thermostat to (\d+)", request):
        call(set_thermostat, temperature=int(match[1]))
        response = f"The thermostat is set to {match[1]} degrees."
    elif match := re.search(r"\b(warmer|cooler)\b", request):
        current = call(get_device_status, device="thermostat")["temperature"]
        target = current + (2 if match[1] == "warmer" else -2)
        call(set_thermostat, temperature=target)
        response = f"The thermostat is set to {target} degrees."
    elif match := re.search(r"is the ([a-z ]+?) light on", request):
        on = call(get_device_status, device=match[1])["on"]
        response = f"The {match[1]} light is {'on' if on else 'off'}."
    else:
        response = "Sorry, I can only control the lights and the thermostat."
    return {"response": response, "steps": steps, "app_details": APP_DETAILS}
