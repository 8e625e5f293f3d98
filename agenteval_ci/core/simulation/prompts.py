"""The simulated user's prompts: our protocol, the persona variant, custom instructions
(jinja templates with ADK's documented variables) and the turn-quality check.

Templates render in jinja's sandbox: custom instructions come from the repository under test.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any, Optional

from ...schema import Invocation, InvocationEvents, Part, text_of
from ...schema.eval_set import IntermediateData, UserPersona

STOP_SIGNAL = "</finished>"
REQUIRED_PLACEHOLDERS = ("stop_signal", "conversation_plan", "conversation_history")


@lru_cache(maxsize=None)
def _environment() -> Any:
    # jinja2 loads on first use: every command imports the metric registry, few simulate users.
    from jinja2 import pass_context
    from jinja2.sandbox import SandboxedEnvironment

    @pass_context
    def fill(context: Any, text: str) -> str:
        """Persona texts may use the template's variables themselves (`{{ stop_signal }}`)."""
        return _compiled(text).render(context.get_all()) if text else ""

    env = SandboxedEnvironment(keep_trailing_newline=True)
    env.filters["fill"] = fill
    return env


@lru_cache(maxsize=None)
def _template_text(name: str) -> str:
    return resources.files(__package__).joinpath("templates", f"{name}.md.j2").read_text(encoding="utf-8")


@lru_cache(maxsize=256)
def _compiled(source: str) -> Any:
    """Compiling is ~30x the cost of rendering, and the same few templates render every turn."""
    return _environment().from_string(source)


def _render(source: str, **variables: Any) -> str:
    rendered: str = _compiled(source).render(**variables)
    return rendered.strip()


def missing_placeholders(template: str, with_persona: bool = False) -> list[str]:
    """The documented variables a custom-instructions template does not use (all of
    them when it is not valid jinja)."""
    from jinja2 import TemplateSyntaxError, meta

    required = [*REQUIRED_PLACEHOLDERS, *(["persona"] if with_persona else [])]
    try:
        used = meta.find_undeclared_variables(_environment().parse(template))
    except TemplateSyntaxError:
        return required
    return [name for name in required if name not in used]


def simulator_prompt(
    plan: str, history: str, persona: Optional[UserPersona] = None, custom_instructions: Optional[str] = None
) -> str:
    """What the simulated user's model is asked for its next turn."""
    if custom_instructions is not None:
        source = custom_instructions
    else:
        source = _template_text("simulated_user_persona" if persona else "simulated_user")
    variables: dict[str, Any] = dict(stop_signal=STOP_SIGNAL, conversation_plan=plan, conversation_history=history)
    if persona is not None:
        variables["persona"] = persona
    return _render(source, **variables)


def turn_quality_prompt(plan: str, history: str, candidate: str, stop_signal: str, persona: Optional[UserPersona]) -> str:
    """The judge's question for per_turn_user_simulator_quality_v1: is `candidate` a valid next user turn."""
    return _render(
        _template_text("turn_quality"),
        conversation_plan=plan,
        conversation_history=history,
        generated_user_response=candidate,
        stop_signal=stop_signal,
        persona=persona,
    )


def conversation_history(invocations: list[Invocation], include_function_calls: bool = False) -> str:
    """The dialogue as the simulated user sees it: who said what (thoughts left out),
    and the agent's tool calls and results when `include_function_calls`."""
    lines = []
    for invocation in invocations:
        lines.append(f"user: {text_of(invocation.user_content)}")
        for author, part in _steps(invocation):
            lines.extend(_describe(author, part, include_function_calls))
        if final := text_of(invocation.final_response):
            lines.append(f"agent: {final}")
    return "\n\n".join(line for line in lines if line)


def _steps(invocation: Invocation) -> list[tuple[str, Part]]:
    """What happened between the user turn and the final response, in order."""
    data = invocation.intermediate_data
    if isinstance(data, InvocationEvents):
        return [(e.author, p) for e in data.invocation_events if e.content for p in e.content.parts or []]
    if isinstance(data, IntermediateData):
        steps = [("agent", Part(function_call=c)) for c in data.tool_uses]
        steps += [("agent", Part(function_response=r)) for r in data.tool_responses]
        return steps + [(author, p) for author, parts in data.intermediate_responses for p in parts]
    return []


def _describe(author: str, part: Part, include_function_calls: bool) -> list[str]:
    if part.text and not part.thought and author != "user":
        return [f"{author}: {part.text}"]
    if include_function_calls and part.function_call:
        return [f"{author} called tool {part.function_call.name!r} with args {part.function_call.args or {}}"]
    if include_function_calls and part.function_response:
        return [f"tool {part.function_response.name!r} returned {part.function_response.response}"]
    return []
