"""The LLM-backed simulated user: turn 1 is the scenario's starting prompt, every later
turn is generated from the plan, the persona and the conversation so far.

It asks its model through the Judge (one bound, retries, deadline and cache for every
model call of a run) and never imports google.genai itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...errors import ServiceError
from ...schema import Content, Invocation
from ...schema.eval_config import UserSimulatorConfig
from ...schema.eval_set import ConversationScenario
from ..judging import Judge
from .personas import resolve_persona
from .prompts import STOP_SIGNAL, conversation_history, simulator_prompt

JUDGE_METRIC = "user_simulator"  # the name its model calls are counted under in the judge's stats


class SimulationFailed(ServiceError):
    """The simulated user's model gave no next turn; the run fails with this reason (the runner
    catches it: it never ends a command)."""


@dataclass
class SimulatedUser:
    scenario: ConversationScenario
    config: UserSimulatorConfig
    judge: Judge

    async def next_turn(self, so_far: list[Invocation]) -> Optional[Content]:
        """The next user message, or None when the conversation is over."""
        limit = self.config.max_allowed_invocations
        if 0 <= limit <= len(so_far):  # the starting prompt counts; -1 means no limit
            return None
        if not so_far:
            return Content.from_text(self.scenario.starting_prompt, "user")
        text = await self._generate(so_far)
        if STOP_SIGNAL.lower() in text.lower():
            return None
        return Content.from_text(text, "user")

    async def _generate(self, so_far: list[Invocation]) -> str:
        prompt = simulator_prompt(
            self.scenario.conversation_plan,
            conversation_history(so_far, self.config.include_function_calls),
            resolve_persona(self.scenario.user_persona),
            self.config.custom_instructions,
        )
        answer = await self.judge.ask(JUDGE_METRIC, self.config.model, self.config.model_configuration, prompt, 0)
        if answer.error:
            raise SimulationFailed(f"the simulated user's model gave no turn: {answer.error}")
        if not (answer.text or "").strip():
            raise SimulationFailed("the simulated user's model returned an empty message")
        return answer.text or ""
