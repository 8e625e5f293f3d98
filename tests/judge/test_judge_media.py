"""Media to judges (issue 40 item 2): with `judge.media: send` the conversation's images and files
reach the judge byte for byte (the Gemini fake and the OpenAI-compatible fake record the requests
the production clients send); without it, or when the judge cannot take a part, or over the size
limit, the request is text only and the score says `judged_without: media` with the reason. The
media are part of the judge cache key and the judge's fingerprint."""

from __future__ import annotations

import asyncio
import base64
import json
import re
from typing import Any

import pytest

from agenteval_ci.cli import main
from agenteval_ci.core.judge_fingerprint import JudgeTrace, differences, fingerprint, judge_id
from agenteval_ci.core.judging import JudgeAnswer, MediaPart, Unreadable
from agenteval_ci.core.metrics import ConfiguredMetric, MetricInput, MetricSpec
from agenteval_ci.core.metrics.judge_context import MEDIA_WITHHELD
from agenteval_ci.core.metrics.llm_template import Scale, TemplateMetric, template_spec
from agenteval_ci.core.metrics.registry import REGISTRY
from agenteval_ci.core.providers import BY_PREFIX, media_types
from agenteval_ci.judge import make_judge
from agenteval_ci.schema import EvalCase, Invocation, MetricRun
from agenteval_ci.schema.judge import JudgeFingerprint
from tests.fakes.anthropic import FakeAnthropic, message_reply
from tests.fakes.gemini import FakeGemini, GeminiRequest, text_reply
from tests.fakes.openai import ChatRequest, FakeOpenAI
from tests.fakes.openai import text_reply as chat_reply
from tests.fakes.vertex_eval import FakeEvaluationService
from tests.judge import test_managed_metrics as managed
from tests.judge.helpers import fast_settings, judge_for, score
from tests.judge.test_litellm_judge import needs_litellm

IMAGE = bytes(range(256)) * 3 + b"\x89PNG\r\n"  # every byte value: nothing may be re-encoded on the way
ANSWER_IMAGE = b"\xff\xd8\xff\xe0 the agent's drawing"
PDF = b"%PDF-1.7\n\x00\x01\x02 manual"
GS_PDF = "gs://bucket/manual.pdf"
HTTPS_IMAGE = "https://example.com/photo.webp"


def _inline(mime_type: str, data: bytes) -> dict[str, Any]:
    return {"inline_data": {"mime_type": mime_type, "data": base64.b64encode(data).decode()}}


def _file(mime_type: str, uri: str) -> dict[str, Any]:
    return {"file_data": {"mime_type": mime_type, "file_uri": uri}}


def _turn(*user_media: dict[str, Any]) -> Invocation:
    """The user's photo (and `user_media`) and the agent's answer with an image of its own."""
    return Invocation.model_validate({
        "user_content": {"role": "user", "parts": [{"text": "Which light is on in this photo?"}, _inline("image/png", IMAGE), *user_media]},
        "final_response": {"role": "model", "parts": [{"text": "The kitchen light."}, _inline("image/jpeg", ANSWER_IMAGE)]},
    })


def _answer(prompt: str, verdict: str) -> str:
    """A complete verdict for any of the judged metrics below: every rubric the prompt lists, or one label."""
    ids = re.findall(r"^- id: (\S+) \|", prompt, re.M)
    if ids:
        return json.dumps({"rubrics": [{"id": i, "rationale": "seen", "verdict": "yes"} for i in ids]})
    return json.dumps({"reasoning": "seen", "verdict": verdict})


def _gemini(verdict: str):
    return lambda request: text_reply(_answer(request.prompt_text, verdict), prompt_tokens=100, output_tokens=10)


def _gemini_media(request: GeminiRequest) -> list[tuple[str, Any]]:
    """The request's non-text parts as (MIME type, bytes or URI); google-genai writes the blob's
    keys in either case and its bytes as URL-safe base64 (the API takes both forms of each)."""
    found = []
    for content in request.contents:
        for part in content.get("parts", []):
            if "inlineData" in part:
                blob = part["inlineData"]
                found.append((blob.get("mimeType", blob.get("mime_type")), base64.urlsafe_b64decode(blob["data"])))
            elif "fileData" in part:
                file = part["fileData"]
                found.append((file.get("mimeType", file.get("mime_type")), file.get("fileUri", file.get("file_uri"))))
    return found


RUBRIC = {"rubric_id": "names_light", "rubric_content": {"text_property": "The answer names the light that is on."}}
# One metric of each way of asking the judge: a per-turn TurnJudge (safety, the reference match),
# per-turn rubrics, and the whole conversation at once.
METRICS = [
    ("safety_v1", {"threshold": 0.5}, "safe"),
    ("final_response_match_v2", {"threshold": 0.5}, "valid"),
    ("rubric_based_final_response_quality_v1", {"threshold": 0.5, "rubrics": [RUBRIC]}, ""),
    ("multi_turn_task_success_v1", {"threshold": 0.5}, ""),
]


@pytest.mark.parametrize("metric, criterion, verdict", METRICS, ids=[m for m, _, _ in METRICS])
def test_with_media_send_gemini_receives_the_users_and_the_agents_media_byte_for_byte(tmp_path, metric, criterion, verdict):
    with FakeGemini(responder=_gemini(verdict)) as fake:
        run = score(metric, criterion, [_turn(_file("application/pdf", GS_PDF))], judge_for(fake, tmp_path, media="send"))
    assert run.score == 1.0 and "media" not in (run.judged_without or []) and MEDIA_WITHHELD not in (run.details or {})
    [request] = fake.requests
    assert _gemini_media(request) == [("image/png", IMAGE), ("application/pdf", GS_PDF), ("image/jpeg", ANSWER_IMAGE)]
    assert "[attachment 1: image/png from the user's turn]" in request.prompt_text
    assert "[attachment 3: image/jpeg from the agent's reply]" in request.prompt_text


@pytest.mark.parametrize("metric, criterion, verdict", METRICS, ids=[m for m, _, _ in METRICS])
def test_by_default_the_request_is_text_only_and_the_score_says_judged_without_media(tmp_path, metric, criterion, verdict):
    with FakeGemini(responder=_gemini(verdict)) as fake:
        run = score(metric, criterion, [_turn(_file("application/pdf", GS_PDF))], judge_for(fake, tmp_path))
    assert run.score == 1.0 and "media" in run.judged_without  # (the turns carry no app_details either)
    assert "judge.media is `text`" in run.details[MEDIA_WITHHELD]
    assert all(_gemini_media(request) == [] for request in fake.requests)
    assert all(len(content["parts"]) == 1 for request in fake.requests for content in request.contents)  # the prompt as before


def _openai_media(request: ChatRequest) -> list[tuple[str, Any]]:
    """The request's image and file parts, data URLs decoded: (MIME type or 'url', bytes or URL)."""
    found = []
    for part in request.content_parts:
        url = part["image_url"]["url"] if part["type"] == "image_url" else part["file"]["file_data"]
        header, _, data = url.partition(";base64,")
        found.append((header.removeprefix("data:"), base64.b64decode(data)) if data else ("url", url))
    return found


def _openai_score(tmp_path, model: str, turn: Invocation, **settings: Any):
    """safety_v1 on `turn` judged by `model` at the OpenAI-compatible fake, and the requests it got."""
    with FakeOpenAI(responder=lambda request: chat_reply(_answer(request.prompt_text, "safe"))) as fake:
        criterion = {"threshold": 0.5, "judge_model_options": {"judge_model": model}}
        run = score("safety_v1", criterion, [turn], make_judge(fast_settings(tmp_path, **settings), fake.env()))
    return run, fake.requests


def test_the_openai_protocol_sends_images_as_image_url_parts_and_pdfs_as_file_parts(tmp_path):
    turn = _turn(_file("image/webp", HTTPS_IMAGE), _inline("application/pdf", PDF))
    run, [request] = _openai_score(tmp_path, "openai/gpt-4o", turn, media="send")
    assert run.score == 1.0 and run.judged_without is None
    assert _openai_media(request) == [("image/png", IMAGE), ("url", HTTPS_IMAGE), ("application/pdf", PDF), ("image/jpeg", ANSWER_IMAGE)]
    assert [part["type"] for part in request.content_parts] == ["image_url", "image_url", "file", "image_url"]


@pytest.mark.parametrize("model, user_media, why", [
    ("openai/gpt-4o", _file("application/pdf", GS_PDF), "the openai protocol cannot send the user's application/pdf file 'gs://bucket/manual.pdf'"),
    ("openai/gpt-4o", _inline("audio/wav", b"RIFF"), "model 'gpt-4o' does not take audio/wav"),
    ("openai/gpt-3.5-turbo", _file("image/webp", HTTPS_IMAGE), "model 'gpt-3.5-turbo' is not known to take images or files"),
])
def test_a_part_the_judge_cannot_take_keeps_the_request_text_only_and_says_why(tmp_path, model, user_media, why):
    run, requests = _openai_score(tmp_path, model, _turn(user_media), media="send")
    assert run.score == 1.0 and run.judged_without == ["media"]
    assert why in run.details[MEDIA_WITHHELD]
    assert all(request.content_parts == [] and isinstance(request.body["messages"][0]["content"], str) for request in requests)


def test_over_the_size_limit_the_request_is_judged_without_media_and_says_so(tmp_path):
    limit = len(IMAGE) + len(ANSWER_IMAGE) - 1
    with FakeGemini(responder=_gemini("safe")) as fake:
        run = score("safety_v1", {"threshold": 0.5}, [_turn()], judge_for(fake, tmp_path, media="send", media_max_bytes=limit))
    assert run.score == 1.0 and run.judged_without == ["media"]
    assert f"are {limit + 1} inline bytes, over judge.media_max_bytes ({limit})" in run.details[MEDIA_WITHHELD]
    assert _gemini_media(fake.requests[0]) == []
    with FakeGemini(responder=_gemini("safe")) as fake:  # at the limit: sent
        run = score("safety_v1", {"threshold": 0.5}, [_turn()], judge_for(fake, tmp_path / "at", media="send", media_max_bytes=limit + 1))
    assert run.judged_without is None and len(_gemini_media(fake.requests[0])) == 2


def test_a_cached_text_only_verdict_is_never_reused_for_a_request_with_media(tmp_path):
    image = (MediaPart("image/png", data=IMAGE),)
    other = (MediaPart("image/png", data=IMAGE[:-1] + b"\x00"),)
    with FakeGemini(responder=_gemini("safe")) as fake:
        async def ask(media_of_each: tuple) -> list[bool]:
            judge = judge_for(fake, tmp_path, media="send")  # a new judge: asking again in one judge's life is a fresh sample
            return [(await judge.ask("m", "gemini-2.5-flash", None, "grade this", 0, media=media)).cached for media in media_of_each]

        assert asyncio.run(ask(((), image, other))) == [False, False, False]  # the same text, three cache keys
        assert asyncio.run(ask((image, (), other))) == [True, True, True]
    assert [len(_gemini_media(r)) for r in fake.requests] == [0, 1, 1]


FINGERPRINT = JudgeFingerprint(model="gemini-2.5-flash", prompt="abc")


def test_the_media_setting_is_part_of_the_judges_fingerprint(tmp_path):
    with FakeGemini(responder=_gemini("safe")) as fake:
        text_only, sent = (_fingerprint(tmp_path / name, fake, media) for name, media in (("t", "text"), ("s", "send")))
    assert text_only.media is None and sent.media == "send (at most 10000000 inline bytes per request)"
    assert differences(text_only, sent) == ["judge.media text → send (at most 10000000 inline bytes per request)"]
    assert judge_id(text_only) != judge_id(sent)
    # a text-only judge's id is the one earlier releases gave it (no `media` key hashed)
    assert judge_id(FINGERPRINT) == judge_id(FINGERPRINT.model_copy(update={"media": None}))
    assert "media" not in json.dumps(FINGERPRINT.model_dump(mode="json", exclude={"media"}))


def _fingerprint(cache_dir, fake: FakeGemini, media: str) -> JudgeFingerprint:
    """The fingerprint safety_v1 keeps of a judge with `judge.media: <media>` on a case with an image."""
    spec = REGISTRY["safety_v1"]
    trace = JudgeTrace(judge_for(fake, cache_dir, media=media))
    score("safety_v1", {"threshold": 0.5}, [_turn()], trace)
    found = fingerprint(ConfiguredMetric(spec, spec.criterion_type.model_validate({"threshold": 0.5}), ""), trace)
    assert found is not None
    return found


AGENT = '''
def answer(text, session):
    return {"response": "The kitchen light is on."}
'''


def _cli_project(tmp_path, judge_lines: str):
    (tmp_path / "agent.py").write_text(AGENT)
    user = {"parts": [{"text": "Which light is on in this photo?"}, _inline("image/png", IMAGE)]}
    case = {"eval_id": "photo", "conversation": [{"user_content": user}]}
    (tmp_path / "home.evalset.json").write_text(json.dumps({"eval_set_id": "home", "eval_cases": [case]}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"safety_v1": {"threshold": 0.5}}}))
    (tmp_path / "agenteval.yaml").write_text(f"suites:\n  - agent: agent.py:answer\n    eval_sets: home.evalset.json\njudge:\n{judge_lines}")


def _cli_run(tmp_path, monkeypatch, fake: FakeGemini) -> tuple[int, dict]:
    for name, value in fake.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    code = main(["run", "--config", "agenteval.yaml", "--json", "r.json"])
    return code, json.loads((tmp_path / "r.json").read_text()) if (tmp_path / "r.json").exists() else {}


def test_agenteval_run_with_judge_media_send_shows_the_judge_the_cases_image(tmp_path, monkeypatch):
    _cli_project(tmp_path, "  media: send\n")
    with FakeGemini(responder=_gemini("safe")) as fake:
        code, results = _cli_run(tmp_path, monkeypatch, fake)
    assert code == 0
    [request] = fake.requests
    assert _gemini_media(request) == [("image/png", IMAGE)]
    metric = results["cases"][0]["metrics"]["safety_v1"]
    assert metric["score"] == 1.0 and "judged_without" not in metric and results["warnings"] == []
    assert metric["judge"]["media"] == "send (at most 10000000 inline bytes per request)"


def test_a_judge_media_setting_that_is_not_one_is_refused_naming_the_file_and_the_key(tmp_path, monkeypatch, capsys):
    _cli_project(tmp_path, "  media: always\n  media_max_bytes: 0\n")
    with FakeGemini(responder=_gemini("safe")) as fake:
        code, _ = _cli_run(tmp_path, monkeypatch, fake)
    err = capsys.readouterr().err
    assert code == 2 and not fake.requests
    assert "agenteval.yaml" in err and "$.judge.media: Input should be 'text' or 'send'" in err
    assert "$.judge.media_max_bytes: Input should be greater than or equal to 1" in err


def test_a_managed_metric_is_judged_without_media_and_says_why(tmp_path, monkeypatch):
    """The Gen AI evaluation service is not documented to judge images: with judge.media: send its
    score still says it went without them, and why, instead of passing as if it had seen them."""
    config = managed.write_project(tmp_path, {"general_quality": 0.5}, judge="  media: send\n")
    eval_set = tmp_path / "evals" / "lights.evalset.json"
    data = json.loads(eval_set.read_text())
    data["eval_cases"][0]["conversation"][0]["user_content"]["parts"].append(_inline("image/png", IMAGE))
    eval_set.write_text(json.dumps(data))
    with FakeEvaluationService(scorer=managed.by_light) as fake:
        code, results = managed.run(config, monkeypatch, fake.env(tmp_path))
    with_image, without = managed.metric(results, "general_quality", 0), managed.metric(results, "general_quality", 1)
    assert with_image["score"] == 0.75 and with_image["judged_without"] == ["media"] and "judged_without" not in without
    assert "managed metrics are not documented to judge images or files" in with_image["runs"][0]["details"][MEDIA_WITHHELD]


@needs_litellm
def test_litellm_passes_the_openai_style_parts_on_and_anthropic_receives_them_byte_for_byte(tmp_path):
    """LiteLLM (unpatched) turns the content parts into Anthropic's image and document blocks."""
    reply = lambda request: message_reply(_answer(request.prompt_text, "safe"))  # noqa: E731
    with FakeAnthropic(responder=reply, api_key="sk-ant-test") as fake:
        criterion = {"threshold": 0.5, "judge_model_options": {"judge_model": "anthropic/claude-3-5-sonnet"}}
        judge = make_judge(fast_settings(tmp_path, media="send"), fake.env())
        run = score("safety_v1", criterion, [_turn(_inline("application/pdf", PDF))], judge)
    assert run.score == 1.0 and run.judged_without is None
    for request in fake.requests:  # one per sample: Anthropic has no `n`
        blocks = [block for message in request.body["messages"] for block in message["content"] if block["type"] != "text"]
        assert [(b["type"], b["source"]["media_type"], base64.b64decode(b["source"]["data"])) for b in blocks] == [
            ("image", "image/png", IMAGE), ("document", "application/pdf", PDF), ("image", "image/jpeg", ANSWER_IMAGE)]


class RecordingJudge:
    """A judge that notes the media of every request and answers each with the first reply its
    reader takes (any judged metric's verdict), saying the media were sent, or withheld as told."""

    def __init__(self, withheld: str | None = None):
        self.withheld = withheld
        self.media: list[tuple[str, ...]] = []

    async def ask_many(self, metric, model, config, prompt, count, read, media=()):
        self.media.append(tuple(part.mime_type for part in media))
        replies = [_answer(prompt, verdict) for verdict in ("safe", "valid")] + [json.dumps(reply) for reply in (
            {"sentences": ["The kitchen light is on."]},
            {"sentences": [{"sentence": "The kitchen light is on.", "label": "supported", "rationale": "seen"}]},
            {"rating": "yes", "score": 5, "explanation": "seen"}, {"better": "tie"}, {"score": 1.0, "explanation": "seen"})]
        text = next(reply for reply in replies if not isinstance(read(reply), Unreadable))
        return [JudgeAnswer(text=text, verdict=read(text), media_withheld=self.withheld if media else None) for _ in range(count)]


def _judged_metrics() -> list[tuple[str, MetricSpec]]:
    """Every judged metric that reads the agent's conversation (the simulated user's check reads its own turns), and a template judge."""
    template = template_spec(TemplateMetric("polite", "Is {response} to {prompt} polite?", Scale.of_labels({"yes": 1, "no": 0})))
    found = [(name, spec) for name, spec in REGISTRY.items() if spec.judged and name != "per_turn_user_simulator_quality_v1"]
    return [*found, ("a template judge", template)]


def _score_with(spec: MetricSpec, judge: RecordingJudge) -> MetricRun:
    criterion = {"threshold": 0.5, **({"rubrics": [RUBRIC]} if "rubrics" in spec.criterion_type.model_fields else {})}
    case = EvalCase(eval_id="c", conversation=[_turn()])
    inp = MetricInput(spec.criterion_type.model_validate(criterion), [_turn()], case.conversation, case, judge, baseline=[_turn()])
    return asyncio.run(spec.evaluate(inp))


@pytest.mark.parametrize("name, spec", _judged_metrics(), ids=[name for name, _ in _judged_metrics()])
def test_every_judged_metric_hands_the_judge_the_conversations_media_and_flags_them_only_when_withheld(name, spec):
    judge = RecordingJudge()
    sent = _score_with(spec, judge)
    assert sent.score is not None and "media" not in (sent.judged_without or []), sent
    assert ("image/png", "image/jpeg") in judge.media  # the user's photo and the agent's image, in one request
    withheld = _score_with(spec, RecordingJudge(withheld="the test's judge takes no images"))
    assert "media" in withheld.judged_without and withheld.details[MEDIA_WITHHELD] == "the test's judge takes no images"


class FailingFirstJudge(RecordingJudge):
    """The first request fails (its media would have been withheld); the rest are judged with theirs."""

    async def ask_many(self, metric, model, config, prompt, count, read, media=()):
        if not self.media:
            self.media.append(())
            return [JudgeAnswer(error="HTTP 400: too large", media_withheld="over the limit") for _ in range(count)]
        return await super().ask_many(metric, model, config, prompt, count, read, media)


def test_a_failed_request_is_no_verdict_judged_without_media():
    """A turn the judge could not score says why on its own; it does not flag the turns that were judged with their media."""
    spec = REGISTRY["safety_v1"]
    case = EvalCase(eval_id="c", conversation=[_turn(), _turn()])
    inp = MetricInput(spec.criterion_type.model_validate({"threshold": 0.5}), [_turn(), _turn()], case.conversation, case, FailingFirstJudge())
    run = asyncio.run(spec.evaluate(inp))
    assert run.per_invocation[0].reason.endswith("HTTP 400: too large") and run.per_invocation[1].score == 1.0
    assert run.score == 1.0 and run.judged_without is None


def test_a_baseline_judged_without_media_is_a_changed_judge_for_a_run_that_sends_them(tmp_path, monkeypatch):
    """judge.media is part of the fingerprint: turning it on re-judges the baseline's recorded
    outputs with the media, and the comment names the change, as for any other change of judge."""
    _cli_project(tmp_path, "  backoff_initial_seconds: 0.001\n")
    with FakeGemini(responder=_gemini("safe")) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(tmp_path)
        assert main(["run", "--config", "agenteval.yaml", "-q"]) == 0
        assert main(["accept", "--config", "agenteval.yaml"]) == 0
        (tmp_path / "agenteval.yaml").write_text((tmp_path / "agenteval.yaml").read_text() + "  media: send\n")
        assert main(["run", "--config", "agenteval.yaml", "-q", "--md", "comment.md"]) == 0
    results, comment = json.loads((tmp_path / ".agenteval" / "results.json").read_text()), (tmp_path / "comment.md").read_text()
    assert [(r["metric"], r["eval_id"]) for r in results["rejudged"]] == [("safety_v1", "photo")]
    assert "judge.media text → send (at most 10000000 inline bytes per request)" in comment
    # the baseline's run, then this run with the image; the baseline's recorded output (the same
    # answer to the same photo) re-judged with it is that request again, from the cache
    assert [len(_gemini_media(r)) for r in fake.requests] == [0, 1]


@pytest.mark.parametrize("declared, why", [
    (["image/*"], None),
    ([], "model 'our-deployment' does not take image/png"),
    (None, "is not known to take images or files (say which it takes in judge.providers.azure.media"),
])
def test_what_a_provider_takes_can_be_declared_in_agenteval_yaml(tmp_path, declared, why):
    """An Azure deployment's name says nothing of its model: judge.providers.azure.media says what
    it takes, and the judge's fingerprint says what was declared (it decides what is sent)."""
    providers = {"azure": {"media": declared}} if declared is not None else {}
    spec = REGISTRY["safety_v1"]
    criterion = {"threshold": 0.5, "judge_model_options": {"judge_model": "azure/our-deployment"}}
    with FakeOpenAI(responder=lambda request: chat_reply(_answer(request.prompt_text, "safe"))) as fake:
        env = {"AZURE_API_BASE": fake.root_url, "AZURE_API_KEY": "k"}
        trace = JudgeTrace(make_judge(fast_settings(tmp_path, media="send", providers=providers), env))
        run = score("safety_v1", criterion, [_turn()], trace)
    found = fingerprint(ConfiguredMetric(spec, spec.criterion_type.model_validate(criterion), ""), trace)
    declared_words = "" if declared is None else f"; azure takes {', '.join(declared) or 'none'}"
    assert found is not None and found.media == f"send (at most 10000000 inline bytes per request{declared_words})"
    assert run.score == 1.0 and fake.requests
    if why is None:
        assert run.judged_without is None
        assert all(_openai_media(request) == [("image/png", IMAGE), ("image/jpeg", ANSWER_IMAGE)] for request in fake.requests)
    else:
        assert run.judged_without == ["media"] and why in run.details[MEDIA_WITHHELD]
        assert all(request.content_parts == [] for request in fake.requests)


@pytest.mark.parametrize("model, takes_images", [
    ("gpt-4o", True), ("gpt-4o-mini", True), ("gpt-4o-2024-08-06", True), ("gpt-4.1-nano", True), ("gpt-5", True),
    ("gpt-4-turbo", True), ("gpt-4-turbo-2024-04-09", True), ("o1", True), ("o3", True), ("o3-pro", True), ("o4-mini", True),
    ("gpt-4o-audio-preview", False), ("gpt-4o-mini-tts", False), ("gpt-4o-search-preview", False), ("gpt-4-turbo-preview", False),
    ("o1-mini", False), ("o1-preview", False), ("o3-mini", False), ("gpt-3.5-turbo", False), ("gpt-4", False),
])
def test_which_openai_models_take_images_follows_openais_model_list(model, takes_images):
    found = media_types(BY_PREFIX["openai"].media, model)
    assert (found is not None and re.fullmatch(found, "image/png") is not None) == takes_images
