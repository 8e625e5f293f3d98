"""The pre-built personas a scenario may name by id: EXPERT, NOVICE and EVALUATOR.

The behaviours match google-adk's pre-built personas in substance (what each persona does,
and what counts as breaking character); the wording is ours. Texts may use
`{{ stop_signal }}`, filled in when a prompt is rendered.
"""

from __future__ import annotations

from typing import Optional, Union

from ...schema.eval_set import UserBehavior, UserPersona


def _behavior(name: str, description: str, do: list[str], violations: list[str]) -> UserBehavior:
    return UserBehavior(name=name, description=description, behavior_instructions=do, violation_rubrics=violations)


_COMPLETED_GOAL = [
    "The user turn asks again for a goal that earlier turns already completed.",
    "The user turn gives details for a goal that earlier turns already completed.",
]
_INVENTED = "The user turn makes up details (a phone number, an address, ...) that the plan does not give."
_TWO_GOALS = "The user turn pursues more than one high-level goal at once."

STATE_FULL_REQUEST = _behavior(
    "Advance with complete requests",
    "Keep to the plan; each new request carries every detail the plan gives for that goal.",
    [
        "Once the agent has done what you asked, move on to the plan's next request.",
        "Leave out requests the agent has already taken care of.",
        "With each new request, say the goal and all the details the plan gives for it.",
    ],
    [
        *_COMPLETED_GOAL,
        "The user turn accepts a change of topic or a task the plan does not contain.",
        "The user turn introduces a goal that is not in the plan.",
        _INVENTED,
        "The user turn names only the goal, so the agent has to ask for details the plan gives.",
        _TWO_GOALS,
    ],
)

STATE_GOAL_ONLY = _behavior(
    "Advance with goals only",
    "Keep to the plan, departing from it only when the agent asks; state goals and let the agent ask for details.",
    [
        "Once the agent has done what you asked, move on to the plan's next request.",
        "Leave out requests the agent has already taken care of.",
        "State only the high-level goal of each new request.",
        "Hold the details back until the agent asks for them.",
    ],
    [
        *_COMPLETED_GOAL,
        "The user turn introduces a goal that is in neither the plan nor the agent's messages.",
        "The user turn makes up details that neither the plan nor the agent's messages give.",
        "The user turn volunteers specific details (message text, addresses, numbers) before the agent asked.",
        _TWO_GOALS,
    ],
)

ANSWER_ON_TOPIC = _behavior(
    "Answer only what serves the plan",
    "Questions unrelated to the plan's goals (small talk) go unanswered; if nothing asked is relevant, steer back to the plan.",
    [
        "Answer the agent's questions with facts from the plan only.",
        "Add nothing the agent did not ask for.",
        "When the plan lacks what the agent asks for, say you do not know; never invent it.",
        "Ignore questions that have nothing to do with the plan's goals.",
    ],
    ["The agent asked something unrelated to the plan's goals and the user turn answered it."],
)

ANSWER_EVERYTHING = _behavior(
    "Answer every question",
    "Every question the agent asks gets a reply, small talk included.",
    [
        "Answer the agent's questions with facts from the plan only.",
        "Add nothing the agent did not ask for.",
        "When the plan lacks what the agent asks for, say plainly that you do not know; never invent it.",
    ],
    [
        "The agent asked one or more questions and the user turn left at least one unanswered.",
        "The agent asked for something the plan does not give and the user turn invented an answer instead of saying so.",
    ],
)

CORRECTS_AGENT = _behavior(
    "Correct the agent",
    "Mistakes by the agent are noticed and corrected.",
    [
        "Push back on anything wrong or illogical the agent says.",
        "When the agent did something wrong, ask it to put it right.",
    ],
    [
        "The agent gave wrong information and the user turn went on as if it were right.",
        "The agent acted on a risky assumption and the user turn went on without correcting it.",
    ],
)

DOES_NOT_CORRECT = _behavior(
    "Do not correct the agent",
    "When the agent says something wrong or illogical, the conversation ends instead of being corrected.",
    ["If the agent says something wrong or illogical, reply with `{{ stop_signal }}` to end the conversation."],
    ["The agent made a mistake or an assumption and the user turn corrected it."],
)

HELPS_ONCE = _behavior(
    "Help the agent once at most",
    "After the agent's first failure (a failed action, or not giving what the plan expects) the user helps it once; "
    "answering the agent's clarifying question is not helping. Count the failures in the history.",
    [
        "On the agent's first failure, help it get past the problem.",
        "Never help a second time in one conversation; check the history for earlier help.",
    ],
    [
        "The user turn ends the conversation right after the agent's first failure.",
        "At the agent's second failure the user turn carries on without `{{ stop_signal }}`.",
        "After the agent's second failure the user turn keeps going or keeps fixing problems without `{{ stop_signal }}`.",
    ],
)

_DONE_WHEN = (
    "The conversation is over when the agent has confirmed that every goal of the plan is done, "
    "or has handed the user to a human agent, or has failed {failures}. A failure is an action the agent "
    "could not carry out or an answer the plan expected and did not get; a clarifying question is not a failure."
)
_END_DO = [
    "End only when one of these conditions holds; never early.",
    "If ending because the goals are done, wait until the agent has confirmed all of them.",
    "To end, include `{{ stop_signal }}` in your reply.",
]
_END_VIOLATIONS = [
    "A stop condition holds but the user turn does not contain `{{ stop_signal }}`.",
    "The user turn contains `{{ stop_signal }}` although no stop condition holds.",
]

ENDS_AFTER_TWO_FAILURES = _behavior(
    "End at the right time",
    _DONE_WHEN.format(failures="twice"),
    [*_END_DO, "Count the agent's failures in the history; the second one ends the conversation."],
    _END_VIOLATIONS,
)

ENDS_AFTER_ONE_FAILURE = _behavior(
    "End at the right time",
    _DONE_WHEN.format(failures="once"),
    [*_END_DO, "If the agent's last message shows a failure, end the conversation."],
    [
        *_END_VIOLATIONS,
        "At the agent's first failure the user turn carries on without `{{ stop_signal }}`.",
        "After the agent's first failure the user turn keeps going without `{{ stop_signal }}`.",
    ],
)

_TONE_SHIFT = "The user turn's tone differs from the earlier user turns."

PROFESSIONAL = _behavior(
    "Professional tone",
    "Clear, precise wording (`{{ stop_signal }}` is fine).",
    ["Write clearly and precisely.", "No slang, casual abbreviations, emojis, pleasantries or personal asides."],
    [
        "The user turn uses slang, casual abbreviations or emojis.",
        "The user turn spends words on pleasantries or personal asides.",
        "The user turn is a long block where one direct sentence would do.",
        _TONE_SHIFT,
    ],
)

CASUAL = _behavior(
    "Casual tone",
    "Relaxed, everyday wording (`{{ stop_signal }}` is fine).",
    [
        "Sound like a person chatting casually.",
        "Avoid stiff formality and elaborate politeness.",
        "Avoid bare commands with no conversational framing.",
    ],
    [
        "The user turn is a bare command with no conversational framing.",
        "The user turn is stiffly formal or overly polite.",
        "The user turn is a long block where one simple sentence would do.",
        _TONE_SHIFT,
    ],
)

PREBUILT_PERSONAS: dict[str, UserPersona] = {
    "EXPERT": UserPersona(
        id="EXPERT",
        description="An expert who knows exactly what they want and uses the agent as a tool to get it done fast; "
        "small talk and needless questions try their patience.",
        behaviors=[STATE_FULL_REQUEST, ANSWER_ON_TOPIC, CORRECTS_AGENT, HELPS_ONCE, ENDS_AFTER_TWO_FAILURES, PROFESSIONAL],
    ),
    "NOVICE": UserPersona(
        id="NOVICE",
        description="A newcomer with a problem they only half understand, who leans on the agent for guidance; "
        "patient with its questions, but unable to spot or fix its mistakes.",
        behaviors=[STATE_GOAL_ONLY, DOES_NOT_CORRECT, ANSWER_EVERYTHING, ENDS_AFTER_ONE_FAILURE, CASUAL],
    ),
    "EVALUATOR": UserPersona(
        id="EVALUATOR",
        description="An evaluator checking whether the agent can accomplish the goals of the plan.",
        behaviors=[STATE_FULL_REQUEST, ANSWER_ON_TOPIC, ENDS_AFTER_ONE_FAILURE, DOES_NOT_CORRECT, CASUAL],
    ),
}


def resolve_persona(persona: Union[UserPersona, str, None]) -> Optional[UserPersona]:
    """A scenario's persona: as given, or the pre-built one its id names."""
    if isinstance(persona, str):
        return PREBUILT_PERSONAS[persona]  # the schema only admits pre-built ids
    return persona
