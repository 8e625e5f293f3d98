"""Judge metrics from the user's prompt template (core/metrics/llm_template.py): the fields a
template may name, the scale its answers map to, and the reply rule."""

from __future__ import annotations

import pytest

from agenteval_ci.core.judging import Unreadable
from agenteval_ci.core.metrics.llm_template import REPLY_FORMAT, Scale, TemplateMetric, render, template_fields


def test_fields_are_named_in_braces_and_literal_braces_are_doubled():
    template = 'Q: {prompt}\nA: {response}\nJSON like {{"a": 1}}; again {prompt}'
    assert template_fields(template) == ["prompt", "response"]
    assert render(template, {"prompt": "hi", "response": "hello {x}"}) == 'Q: hi\nA: hello {x}\nJSON like {"a": 1}; again hi'


@pytest.mark.parametrize("template, wrong", [
    ("{answer}", "names the field {answer}"),
    ("{prompt.__class__}", "names the field {prompt.__class__}"),
    ("a { b", "brace that opens or closes no field"),
    ("a } b", "brace that opens or closes no field"),
])
def test_a_template_naming_what_we_do_not_fill_is_refused(template, wrong):
    with pytest.raises(ValueError, match=wrong.replace("{", r"\{").replace(".", r"\.")):
        template_fields(template)


def test_labels_and_ratings_read_from_the_reply():
    labels = Scale.of_labels({"Pass": 1, "fail": 0})
    assert labels.read('{"rating": "PASS", "explanation": "fine"}') == (1.0, "fine")
    assert labels.binary and (labels.low, labels.high) == (0.0, 1.0)
    unreadable = labels.read('{"rating": "maybe"}')
    assert isinstance(unreadable, Unreadable) and "not one of pass, fail" in unreadable.why
    ratings = Scale.of_ratings({"1": "poor", "3": "fair", "5": "great"})
    assert ratings.read('{"rating": 5}') == (5.0, "") and ratings.read('```json\n{"rating": "3.0"}\n```')[0] == 3.0
    assert isinstance(ratings.read('{"rating": 4}'), Unreadable) and isinstance(ratings.read('{"rating": true}'), Unreadable)
    assert not ratings.binary and (ratings.low, ratings.high) == (1.0, 5.0)


def test_the_fingerprint_follows_the_template_and_the_scale():
    base = TemplateMetric("polite", "Is {response} polite?", Scale.of_labels({"yes": 1, "no": 0}))
    assert base.prompt_hash == TemplateMetric("polite", "Is {response} polite?", Scale.of_labels({"no": 0, "yes": 1})).prompt_hash
    assert base.prompt_hash != TemplateMetric("polite", "Is {response} kind?", base.scale).prompt_hash
    assert base.prompt_hash != TemplateMetric("polite", base.template, Scale.of_labels({"yes": 1, "no": 0.5})).prompt_hash
    prompt = base.prompt({"response": "thanks!"})
    assert prompt.startswith("Is thanks! polite?") and '"yes", "no"' in prompt and REPLY_FORMAT.split("$")[0] in prompt
    assert not base.needs_expected and TemplateMetric("m", "{reference}", base.scale).needs_expected
