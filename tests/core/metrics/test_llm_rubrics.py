"""Rubric-judged metrics: rubric sources and types, per-rubric votes, micro-averages, breakdowns."""

from __future__ import annotations

import itertools
import json
import re

from agenteval_ci.schema import Status
from tests.fakes.gemini import FakeGemini, text_reply
from tests.judge.helpers import json_reply, judge_for, score, turn

CONCISE = {"rubric_id": "concise", "rubric_content": {"text_property": "The answer is concise."}}
POLITE = {"rubric_id": "polite", "rubric_content": {"text_property": "The answer is polite."}}


def criterion(*rubrics, samples=3, threshold=0.5):
    return {"threshold": threshold, "rubrics": list(rubrics), "judge_model_options": {"num_samples": samples}}


def ids_in(prompt: str) -> list[str]:
    return re.findall(r"- id: (\S+) \|", prompt)


def voting(plan: dict[str, list[str]]):
    """Sample k answers plan[rubric][k] for every rubric the prompt lists."""
    counters: dict[str, itertools.count] = {}

    def respond(request):
        prompt = request.prompt_text
        k = next(counters.setdefault(prompt, itertools.count()))
        entries = [{"id": i, "rationale": f"{i} sample {k}", "verdict": plan[i][k]} for i in ids_in(prompt)]
        return json_reply({"rubrics": entries})

    return respond


def test_majority_per_rubric_with_ties_negative_and_rationale(tmp_path):
    plan = {"concise": ["yes", "no", "yes", "no"], "polite": ["yes", "yes", "no", "yes"]}
    with FakeGemini(responder=voting(plan)) as fake:
        run = score(
            "rubric_based_final_response_quality_v1",
            criterion(CONCISE, POLITE, samples=4),
            [turn("Turn off the light", "Done, the light is off.")],
            judge_for(fake, tmp_path, concurrency=1),
        )
        prompt = fake.requests[0].prompt_text
    assert "Done, the light is off." in prompt and "The answer is polite." in prompt
    verdicts = {v.rubric_id: v for v in run.per_invocation[0].rubric_scores}
    assert verdicts["concise"].score == 0.0  # 2 yes, 2 no: a tie is no
    assert verdicts["polite"].score == 1.0 and verdicts["polite"].rationale.startswith("polite sample")
    assert run.score == 0.5 and run.status == Status.PASSED
    assert {v.rubric_id: v.score for v in run.rubric_scores} == {"concise": 0.0, "polite": 1.0}


def test_case_and_invocation_rubrics_of_the_type_join_and_others_are_warned_about(tmp_path):
    case_rubric = {**POLITE, "type": "FINAL_RESPONSE_QUALITY"}
    wrong_type = {"rubric_id": "tools", "rubric_content": {"text_property": "Uses tools."}, "type": "TOOL_USE_QUALITY"}
    untyped = {"rubric_id": "untyped", "rubric_content": {"text_property": "Something."}}
    first = turn("one", "first answer", rubrics=[untyped])
    second = turn("two", "second answer")
    plan = {"concise": ["yes"] * 3, "polite": ["no"] * 3}
    with FakeGemini(responder=voting(plan)) as fake:
        run = score(
            "rubric_based_final_response_quality_v1",
            criterion(CONCISE),
            [first, second],
            judge_for(fake, tmp_path),
            rubrics=[case_rubric, wrong_type],
        )
        listed = {tuple(ids_in(r.prompt_text)) for r in fake.requests}
    assert listed == {("concise", "polite")}
    # micro-average over 2 turns x 2 rubrics: two yes, two no
    assert run.score == 0.5 and [r.candidate_count for r in fake.requests] == [3, 3]  # one request per turn
    assert "'tools' ignored: it has type 'TOOL_USE_QUALITY'" in run.reason
    assert "'untyped' ignored: it has no type" in run.reason
    assert {v.rubric_id: v.score for v in run.rubric_scores} == {"concise": 1.0, "polite": 0.0}


def test_duplicate_ids_and_missing_rubrics_are_not_evaluated(tmp_path):
    with FakeGemini() as fake:
        judge = judge_for(fake, tmp_path)
        duplicate = score(
            "rubric_based_tool_use_quality_v1",
            criterion(CONCISE),
            [turn("a", "b")],
            judge,
            rubrics=[{**CONCISE, "type": "TOOL_USE_QUALITY"}],
        )
        empty = score("rubric_based_tool_use_quality_v1", criterion(), [turn("a", "b")], judge)
        assert not fake.requests
    assert duplicate.status == Status.NOT_EVALUATED and "rubric_id 'concise'" in duplicate.reason
    assert empty.status == Status.NOT_EVALUATED and "no rubrics" in empty.reason


def test_a_sample_that_never_reads_whole_makes_the_turn_not_evaluated(tmp_path):
    replies = itertools.chain([json_reply({"rubrics": [{"id": "concise", "verdict": "yes"}]}), text_reply("Verdict: yes")],
                              itertools.repeat(json_reply({"rubrics": []})))
    with FakeGemini(responder=lambda r: next(replies)) as fake:
        run = score("rubric_based_final_response_quality_v1", criterion(CONCISE), [turn("a", "b")], judge_for(fake, tmp_path, concurrency=1, max_retries=2))
        assert [r.candidate_count for r in fake.requests] == [3, 2, 2]  # the two unreadable samples, drawn twice more
    assert run.score is None and run.status == Status.NOT_EVALUATED
    assert "sample 2 of 3: unreadable judge reply (no verdict on rubric(s) 'concise'): '{\"rubrics\": []}' (after 3 draws)" in run.reason
    assert len(list(tmp_path.rglob("*.json"))) == 1  # the one complete sample only


def test_tool_use_prompt_shows_the_calls(tmp_path):
    calls = {"tool_uses": [{"name": "set_light", "args": {"room": "kitchen"}}], "tool_responses": [{"name": "set_light", "response": {"ok": True}}]}
    rubric = {"rubric_id": "right_tool", "rubric_content": {"text_property": "Calls set_light."}}
    with FakeGemini(responder=voting({"right_tool": ["yes"] * 3})) as fake:
        run = score("rubric_based_tool_use_quality_v1", criterion(rubric), [turn("kitchen light", "ok", intermediate_data=calls)], judge_for(fake, tmp_path))
        prompt = fake.requests[0].prompt_text
    assert run.score == 1.0
    assert '{"call": "set_light", "args": {"room": "kitchen"}}' in prompt and '"result": {"ok": true}' in prompt


def test_multi_turn_metrics_judge_the_whole_conversation_at_the_last_turn(tmp_path):
    conversation = [turn("book a table", "For how many?"), turn("two people", "Booked for two.")]
    trajectory_rubric = {"rubric_id": "asked", "rubric_content": {"text_property": "Asks for the party size."}, "type": "TRAJECTORY_QUALITY"}
    plan = {"asked": ["yes"] * 3, "goals_achieved": ["yes"] * 3, "confirmed_outcome": ["no"] * 3}
    with FakeGemini(responder=voting(plan)) as fake:
        judge = judge_for(fake, tmp_path)
        rubric_run = score("rubric_based_multi_turn_trajectory_quality_v1", criterion(), conversation, judge, rubrics=[trajectory_rubric])
        success = score("multi_turn_task_success_v1", {"threshold": 0.5, "judge_model_options": {"num_samples": 3}}, conversation, judge)
        prompt = fake.requests[0].prompt_text
    assert "[turn 1] USER: book a table" in prompt and "[turn 2] AGENT: Booked for two." in prompt
    for run in (rubric_run, success):
        assert [t.status for t in run.per_invocation][0] == Status.NOT_EVALUATED
        assert run.per_invocation[1].score == run.score
    assert rubric_run.score == 1.0 and success.score == 0.5 and success.status == Status.PASSED


def _read(reply) -> object:
    from agenteval_ci.core.metrics.llm_rubrics import rubric_reader
    from agenteval_ci.schema import Rubric

    rubrics = [Rubric.model_validate(r) for r in (CONCISE, POLITE)]
    value = rubric_reader(rubrics)(reply if isinstance(reply, str) else json.dumps(reply))
    return getattr(value, "why", value)


def test_a_rubric_reply_reads_whole_or_not_at_all():
    both = [{"id": "concise", "verdict": "**Yes**", "rationale": "short"}, {"property": "the answer is POLITE", "verdict": False}]
    assert _read({"rubrics": both}) == {"concise": (1.0, "short"), "polite": (0.0, "")}  # by id, else by its text
    assert _read({"rubrics": [*both, {"id": "other", "verdict": "maybe"}]}) == {"concise": (1.0, "short"), "polite": (0.0, "")}
    assert _read({"rubrics": both[:1]}) == "no verdict on rubric(s) 'polite'"
    assert _read({"rubrics": [both[0], {**both[1], "verdict": "maybe"}]}) == "the verdict on rubric 'polite' is 'maybe', not one of yes, true, no, false"
    assert _read({"rubrics": [both[0], {**both[1], "verdict": None}]}) == "the verdict on rubric 'polite' is missing, not one of yes, true, no, false"
    assert _read({"rubrics": [*both, both[0]]}) == "rubric 'concise' is answered twice"
    assert _read({"rubrics": "yes"}) == 'no "rubrics" list of dict items'
    assert _read('{"rubrics": [') == "no JSON object"
    assert _read('{"rubrics": [}') .startswith("malformed JSON")
    assert _read("Sorry, I hit my output limit") == "no JSON object"
