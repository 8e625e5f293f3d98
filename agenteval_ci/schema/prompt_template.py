"""The fields a judge metric's prompt template may name (core/metrics/llm_template.py fills
them): in braces, as Vertex's and agents-cli's templates write them; `{{` and `}}` are literal."""

from __future__ import annotations

import re

FIELDS: dict[str, str] = {
    "prompt": "the user's message of the turn",
    "response": "the agent's final response to it",
    "reference": "the expected final response (needs an expected conversation)",
    "tool_calls": "the agent's tool calls and their results in the turn, as JSON lines",
    "expected_tool_calls": "the expected tool calls of the turn, as JSON lines (needs an expected conversation)",
    "intermediate_responses": "what the agent (and its sub-agents) said before the final response",
    "conversation": "the conversation up to and including the turn",
    "rubrics": "the case's and the turn's rubrics, one a line",
}
NEEDS_EXPECTED = frozenset({"reference", "expected_tool_calls"})
FIELD_PATTERN = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def template_fields(template: str) -> list[str]:
    """The fields a template names, in order, each once; raises ValueError for a name we do not
    fill or a stray brace (`{{`/`}}` are literal braces)."""
    names: list[str] = []
    for match in FIELD_PATTERN.finditer(template):
        name = match.group(1)
        if name is None:
            continue
        if name not in FIELDS:
            raise ValueError(f"names the field {{{name}}}; the fields are {', '.join('{' + f + '}' for f in FIELDS)}")
        if name not in names:
            names.append(name)
    stray = FIELD_PATTERN.sub("", template)
    if "{" in stray or "}" in stray:
        raise ValueError("has a brace that opens or closes no field (write {{ or }} for a literal brace)")
    return names
