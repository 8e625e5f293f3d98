"""Conversation scenarios: a simulated user plays the user's side (see docs/scenarios.md).

    user = SimulatedUser(case.conversation_scenario, simulator_config, judge)
    content = await user.next_turn(invocations_so_far)    # None: the conversation is over

Depends on the schema and jinja2 only; the model is reached through the Judge passed in.
"""

from __future__ import annotations

from .personas import PREBUILT_PERSONAS, resolve_persona
from .prompts import STOP_SIGNAL, conversation_history, missing_placeholders, simulator_prompt, turn_quality_prompt
from .simulator import JUDGE_METRIC, SimulatedUser, SimulationFailed

__all__ = [
    "JUDGE_METRIC",
    "PREBUILT_PERSONAS",
    "STOP_SIGNAL",
    "SimulatedUser",
    "SimulationFailed",
    "conversation_history",
    "missing_placeholders",
    "resolve_persona",
    "simulator_prompt",
    "turn_quality_prompt",
]
