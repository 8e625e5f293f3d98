"""A Gemini-platform evaluation dataset (agents-cli's `tests/eval/datasets/*.json`) as an EvalSet.

A case is either a single `prompt` (one turn, `reference.response` its expected answer) or
`agent_data.turns` whose events end with the user's message. User-only events become one turn
each, as agents-cli's live mode sends them; prior agent events would have to be seeded into the
agent's session, which no agent kind does yet, so such a case is refused rather than replayed
with different answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import pydantic

from ...errors import InputError, Problem
from ...schema import EvalSet, Invocation
from ...schema.content import Content
from ...schema.eval_set import AgentDetails, AppDetails, EvalCase, InvocationEvent, InvocationEvents
from ...schema.problems import problems_from

if TYPE_CHECKING:  # the dataset's models are built when a dataset is read (_dataset), not by every score
    from ...schema.gemini_dataset import AgentEvent, DatasetCase, EvaluationDataset

FORMAT_NAME = "a Gemini-platform evaluation dataset (agents-cli)"
_CASE_KEYS = {"eval_case_id", "evalCaseId", "prompt", "agent_data", "agentData"}


def recognises(data: Any) -> bool:
    """An object without `eval_set_id` whose `eval_cases` hold any key only this format has."""
    if not isinstance(data, dict) or "eval_set_id" in data or "evalSetId" in data:
        return False
    cases = data.get("eval_cases", data.get("evalCases"))
    return isinstance(cases, list) and any(isinstance(c, dict) and _CASE_KEYS & c.keys() for c in cases)


def _dataset(name: str, data: Any) -> EvaluationDataset:
    from ...schema.gemini_dataset import EvaluationDataset

    try:
        return EvaluationDataset.model_validate(data)
    except pydantic.ValidationError as exc:
        raise InputError([_as_read(p) for p in problems_from(exc, name, EvaluationDataset)]) from None


def read(name: str, data: Any) -> tuple[EvalSet, list[Problem]]:
    dataset = _dataset(name, data)
    problems: list[Problem] = []
    cases = []
    for i, case in enumerate(dataset.eval_cases):
        at = f"$.eval_cases[{i}]"
        try:
            cases.append(EvalCase(eval_id=_case_id(case, i), conversation=_turns(name, at, case)))
        except InputError as exc:
            problems += exc.problems
    if problems:
        raise InputError(problems)
    return EvalSet(eval_set_id=name, name=name, eval_cases=cases), _warnings(name, dataset)


def _case_id(case: DatasetCase, index: int) -> str:
    """The case's id; without one, its place, named as agents-cli's optimizer names it."""
    return case.eval_case_id or f"case_{index}"


def _as_read(problem: Problem) -> Problem:
    return Problem(problem.file, problem.json_path, f"{problem.message} (read as {FORMAT_NAME})")


def _turns(name: str, at: str, case: DatasetCase) -> list[Invocation]:
    events = [e for turn in (case.agent_data.turns if case.agent_data else []) for e in turn.events]
    if case.prompt is not None and events:
        raise InputError(_problem(name, at, "has both `prompt` and `agent_data.turns`; give one (agents-cli refuses both too)"))
    if case.prompt is not None:
        reference = case.reference.response if case.reference else None
        return [_invocation(case.prompt, reference)]
    if not events:
        raise InputError(_problem(name, at, "needs `prompt` (one user message) or `agent_data.turns` ending with a user message"))
    if events[-1].author != "user" or events[-1].content is None:
        raise InputError(_problem(name, f"{at}.agent_data.turns", "must end with a user event carrying content"))
    seeded = next((e for e in events if e.author != "user"), None)
    if seeded is not None:
        raise InputError(_problem(name, f"{at}.agent_data.turns", f"holds prior events of {seeded.author!r}: seeding an agent's earlier replies into its session is not supported yet; give user-only turns (each is sent as its own turn)"))
    turns = [_invocation(e.content) for e in events if e.content is not None]
    if case.reference and case.reference.response is not None:
        turns[-1] = _invocation(turns[-1].user_content, case.reference.response)
    return turns


def _invocation(prompt: Content, reference: Content | None = None) -> Invocation:
    return Invocation(user_content=prompt.model_copy(update={"role": prompt.role or "user"}), final_response=reference)


def _problem(name: str, at: str, message: str) -> Problem:
    return Problem(name, at, f"{message} (read as {FORMAT_NAME})")


def _warnings(name: str, dataset: EvaluationDataset) -> list[Problem]:
    warnings = [Problem(name, f"$.{key}", f"unknown key in {FORMAT_NAME}; ignored") for key in dataset.model_extra or {}]
    for i, case in enumerate(dataset.eval_cases):
        warnings += [Problem(name, f"$.eval_cases[{i}].{key}", f"unknown key in {FORMAT_NAME}; ignored") for key in case.model_extra or {}]
    return warnings


def read_traces(name: str, data: Any) -> dict[str, list[Invocation]]:
    """What `agents-cli eval generate` wrote: each case's eval_case_id -> the agent's turns. A
    user event (or the case's `prompt`) opens a turn; the agent's events after it are that turn's
    steps, the last one with text and no tool call its final response."""
    dataset = _dataset(name, data)
    traces = {}
    for i, case in enumerate(dataset.eval_cases):
        turns = _traced_turns(case)
        if not turns:
            raise InputError(_problem(name, f"$.eval_cases[{i}]", "holds no user message (`prompt` or a user event) to score a turn of"))
        traces[_case_id(case, i)] = turns
    return traces


def _traced_turns(case: DatasetCase) -> list[Invocation]:
    opened: list[tuple[Content, list[AgentEvent]]] = [(case.prompt, [])] if case.prompt is not None else []
    for event in (e for turn in (case.agent_data.turns if case.agent_data else []) for e in turn.events):
        if event.author == "user" and event.content is not None:
            opened.append((event.content, []))
        elif opened and event.content is not None:
            opened[-1][1].append(event)
    details = _app_details(case.agent_data.agents if case.agent_data else None)
    return [_traced_invocation(prompt, events).model_copy(update={"app_details": details}) for prompt, events in opened]


def _app_details(agents: Any) -> Optional[AppDetails]:
    """agent_data.agents (each agent's instruction and tools) as ADK's app details, which the
    judges read and agents-cli's metrics see again in their instance."""
    if not isinstance(agents, dict) or not agents:
        return None
    return AppDetails(agent_details={
        str(name): AgentDetails(name=str(name), instructions=str(agent.get("instruction") or ""), tool_declarations=list(agent.get("tools") or []))
        for name, agent in agents.items() if isinstance(agent, dict)
    })


def _traced_invocation(prompt: Content, events: list[AgentEvent]) -> Invocation:
    final = next((e for e in reversed(events) if _is_final_response(e)), None)
    steps = [InvocationEvent(author=e.author or "", content=e.content) for e in events if e is not final]
    return Invocation(
        user_content=prompt.model_copy(update={"role": prompt.role or "user"}),
        final_response=final.content if final else None,
        intermediate_data=InvocationEvents(invocation_events=steps),
    )


def _is_final_response(event: AgentEvent) -> bool:
    parts = (event.content.parts if event.content else None) or []
    return any(p.text for p in parts) and not any(p.function_call or p.function_response for p in parts)


# ---- an EvalSet written in this format (`agenteval convert --to gemini`)

def from_eval_set(eval_set: EvalSet) -> tuple[dict[str, Any], list[str]]:
    """The dataset of `eval_set` as agents-cli reads it, and what of the EvalSet it cannot hold,
    case by case: a fixed conversation's user messages and its last expected response map; the
    expected tool calls, earlier turns' expected responses, the session, rubrics and
    user-simulation scenarios do not."""
    cases: list[dict[str, Any]] = []
    lost: list[str] = []
    for case in eval_set.eval_cases:
        turns = case.conversation or []
        if not turns:
            lost.append(f"{case.eval_id}: left out: a user-simulation scenario has no form in this dataset")
            continue
        cases.append(_dataset_case(case.eval_id, turns))
        lost += [f"{case.eval_id}: {what}" for what in _unmapped(case, turns)]
    return {"eval_cases": cases}, lost


def _dataset_case(eval_id: str, turns: list[Invocation]) -> dict[str, Any]:
    def content(value: Content) -> dict[str, Any]:
        return value.model_dump(mode="json", exclude_none=True)

    case: dict[str, Any] = {"eval_case_id": eval_id}
    if len(turns) == 1:
        case["prompt"] = content(turns[0].user_content)
    else:  # user-only turns: agenteval sends each as its own turn, as agents-cli's live mode does
        case["agent_data"] = {"turns": [{"turn_index": i, "turn_id": f"turn_{i}", "events": [{"author": "user", "content": content(t.user_content)}]}
                                        for i, t in enumerate(turns)]}
    if turns[-1].final_response is not None:
        case["reference"] = {"response": content(turns[-1].final_response)}
    return case


def _unmapped(case: EvalCase, turns: list[Invocation]) -> list[str]:
    found = []
    if any(turn.tool_calls for turn in turns):
        found.append("its expected tool calls are dropped (the dataset has no field for them)")
    if any(turn.final_response is not None for turn in turns[:-1]):
        found.append("the expected responses of turns before the last are dropped (only the last turn has a reference)")
    if case.session_input is not None:
        found.append("its session_input (app, user, initial state) is dropped")
    if case.rubrics or any(turn.rubrics for turn in turns):
        found.append("its rubrics are dropped (give them to a managed rubric metric in agents-cli)")
    return found
