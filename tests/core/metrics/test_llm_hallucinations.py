"""hallucinations_v1 and safety_v1 against the fake Gemini server."""

from __future__ import annotations

import json
import re

from agenteval_ci.schema import Status
from tests.fakes.gemini import FakeGemini, text_reply
from tests.judge.helpers import json_reply, judge_for, score, turn

EVENTS = {
    "invocation_events": [
        {"author": "home", "content": {"parts": [{"text": "Let me check the thermostat."}]}},
        {"author": "home", "content": {"parts": [{"function_call": {"name": "get_temp", "args": {}}}]}},
        {"author": "home", "content": {"parts": [{"function_response": {"name": "get_temp", "response": {"celsius": 21}}}]}},
    ]
}


def judge_sentences(request):
    """Split on '. '; label a sentence supported when its number appears in the context."""
    prompt = request.prompt_text
    if "Split the text below" in prompt:
        text = prompt.split("### Text\n", 1)[1].split("\n\nAnswer with", 1)[0]
        return json_reply({"sentences": [s for s in re.split(r"(?<=\.) ", text.strip())]})
    context = prompt.split("### Context\n", 1)[1].split("### Sentences", 1)[0]
    sentences = re.findall(r"^\d+\. (.*)$", prompt.split("### Sentences\n", 1)[1], re.M)
    labels = []
    for sentence in sentences:
        numbers = re.findall(r"\d+", sentence)
        label = "not_applicable" if not numbers else "supported" if all(n in context for n in numbers) else "unsupported"
        labels.append({"sentence": sentence, "label": label, "rationale": "checked"})
    return json_reply({"sentences": labels})


def test_share_of_supported_and_not_applicable_sentences(tmp_path):
    actual = [turn("How warm is it?", "It is 21 degrees. Tomorrow it will be 30 degrees. Anything else?", intermediate_data=EVENTS)]
    with FakeGemini(responder=judge_sentences) as fake:
        run = score("hallucinations_v1", {"threshold": 0.7}, actual, judge_for(fake, tmp_path))
        contexts = [r.prompt_text for r in fake.requests if "### Context" in r.prompt_text]
    assert abs(run.score - 2 / 3) < 1e-12 and run.status == Status.FAILED
    labels = [s["label"] for s in run.per_invocation[0].details["sentences"]]
    assert labels == ["supported", "unsupported", "not_applicable"]
    assert '"celsius": 21' in contexts[0] and "How warm is it?" in contexts[0]


def test_intermediate_texts_are_steps_of_their_own(tmp_path):
    actual = [turn("How warm is it?", "It is 21 degrees.", intermediate_data=EVENTS)]
    criterion = {"threshold": 0.5, "evaluate_intermediate_nl_responses": True}
    with FakeGemini(responder=judge_sentences) as fake:
        run = score("hallucinations_v1", criterion, actual, judge_for(fake, tmp_path))
        contexts = [r.prompt_text for r in fake.requests if "### Context" in r.prompt_text]
    assert run.score == 1.0 and len(contexts) == 2
    first = next(c for c in contexts if "Let me check" in c.split("### Sentences")[1])
    assert '"celsius": 21' not in first  # judged against what came before it only


def test_a_failed_step_leaves_the_turn_not_evaluated(tmp_path):
    def broken(request):
        if "Split the text below" in request.prompt_text:
            return json_reply({"sentences": ["It is 21 degrees."]})
        return text_reply("label: supported")

    with FakeGemini(responder=broken) as fake:
        run = score("hallucinations_v1", {"threshold": 0.5}, [turn("q", "It is 21 degrees.")], judge_for(fake, tmp_path))
    assert run.status == Status.NOT_EVALUATED and "sentence labels" in run.reason and "unreadable judge reply" in run.reason


def test_safety_scores_each_turn_safe_or_unsafe(tmp_path):
    def moderator(request):
        unsafe = "how to pick a lock" in request.prompt_text.split("### The agent's reply", 1)[1]
        return json_reply({"reasoning": "r", "verdict": "unsafe" if unsafe else "safe"})

    actual = [turn("hi", "Hello!"), turn("locks?", "Here is how to pick a lock: ...")]
    with FakeGemini(responder=moderator) as fake:
        run = score("safety_v1", {"threshold": 0.8}, actual, judge_for(fake, tmp_path))
        assert len(fake.requests) == 2  # one sample per turn by default
    assert [t.score for t in run.per_invocation] == [1.0, 0.0]
    assert run.score == 0.5 and run.status == Status.FAILED
    assert json.dumps(run.model_dump())  # serializable into the results file


def test_labels_read_whole_or_not_at_all():
    from agenteval_ci.core.metrics.llm_hallucinations import labels_reader, read_sentences
    from agenteval_ci.judge import Unreadable

    def why(value):
        return value.why if isinstance(value, Unreadable) else value

    read = labels_reader(2)
    two = [{"sentence": "a", "label": "Supported"}, {"sentence": "b", "label": "not_applicable"}]
    assert [e["label"] for e in read(json.dumps({"sentences": two}))] == ["supported", "not_applicable"]
    assert why(read(json.dumps({"sentences": two[:1]}))) == "1 labelled sentence(s) for the 2 asked about"
    assert why(read(json.dumps({"sentences": [two[0], {"sentence": "b", "label": "probably"}]}))).startswith("sentence 2 is labelled 'probably', not one of")
    assert why(read_sentences('{"sentences": []}')) == []  # nothing to check is an answer
    assert why(read_sentences('{"sentences": "It is."}')) == 'no "sentences" list of str items'
