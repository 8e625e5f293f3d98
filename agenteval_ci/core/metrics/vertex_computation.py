"""Vertex AI's computation-based metrics, per turn against the expected turn, averaged over the case.

Text metrics read each turn's final response and the expected one (their text parts joined as
`text_of` joins them): `exact_match` compares the strings unchanged; the ROUGE metrics are
rouge-score's F-measure with its default tokenizer (lowercase, anything not a-z/0-9 a space)
and no stemmer, as Vertex's RougeSpec defaults (`use_stemmer`, `split_summaries` false);
`rouge_l_sum` splits on newlines. `bleu` is sacrebleu's sentence BLEU (its 13a tokenizer, exp
smoothing, effective order off as Vertex's BleuSpec defaults), over 100: sacrebleu is the
optional `vertex` extra, and without it `bleu` is not evaluated. Tool-call metrics read the turn's tool calls against the
expected ones, paired by position. Every choice Vertex leaves open is in docs/metrics.md.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ...schema import FunctionCall, MetricRun, text_of
from .base import MetricInput, not_evaluated, score_turns

Calls = list[FunctionCall]

_ROUGE_TYPES = {"rouge_1": "rouge1", "rouge_2": "rouge2", "rouge_l": "rougeL", "rouge_l_sum": "rougeLsum"}


@lru_cache(maxsize=None)
def _rouge_scorer(rouge_type: str) -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer([rouge_type], use_stemmer=False)


def exact_match(predicted: str, reference: str) -> float:
    return 1.0 if predicted == reference else 0.0


def rouge(rouge_type: str) -> Callable[[str, str], float]:
    def score(predicted: str, reference: str) -> float:
        return float(_rouge_scorer(rouge_type).score(reference, predicted)[rouge_type].fmeasure)

    return score


@lru_cache(maxsize=None)
def _bleu_scorer() -> Any:
    from sacrebleu.metrics.bleu import BLEU

    return BLEU(effective_order=False)


def bleu(predicted: str, reference: str) -> float:
    return float(_bleu_scorer().sentence_score(predicted, [reference]).score) / 100


def _sacrebleu_missing() -> str:
    from importlib.util import find_spec

    return "" if find_spec("sacrebleu") else "bleu needs sacrebleu, an optional extra: pip install 'agenteval-ci[vertex]'"


def tool_call_valid(predicted: Calls, reference: Calls) -> float:
    """1 when the turn made a call and every call names a tool and passes an object (or no) args."""
    return 1.0 if predicted and all(c.name and isinstance(c.args or {}, dict) for c in predicted) else 0.0


def tool_name_match(predicted: Calls, reference: Calls) -> float:
    """1 when the turn's tool names are the expected ones, in order (no call expected: none made)."""
    return 1.0 if [c.name for c in predicted] == [c.name for c in reference] else 0.0


def tool_parameter_key_match(predicted: Calls, reference: Calls) -> float:
    """Share of the expected calls' argument names that the call in the same place also passes."""
    return _share(predicted, reference, lambda key, value, args: key in args)


def tool_parameter_kv_match(predicted: Calls, reference: Calls) -> float:
    """Share of the expected calls' arguments that the call in the same place passes with an equal
    value (`1 == 1.0`, as the trajectory metrics)."""
    return _share(predicted, reference, lambda key, value, args: key in args and args[key] == value)


def _share(predicted: Calls, reference: Calls, matches: Callable[[str, Any, dict[str, Any]], bool]) -> float:
    expected = [(i, key, value) for i, call in enumerate(reference) for key, value in (call.args or {}).items()]
    if not expected:  # nothing to match: perfect when the agent passed nothing either
        return 1.0 if not any(call.args for call in predicted) else 0.0
    args = [call.args or {} for call in predicted]
    found = sum(1 for i, key, value in expected if i < len(args) and matches(key, value, args[i]))
    return found / len(expected)


TEXT_SCORERS: dict[str, Callable[[str, str], float]] = {
    "exact_match": exact_match,
    "bleu": bleu,
    **{name: rouge(rouge_type) for name, rouge_type in _ROUGE_TYPES.items()},
}
CALL_SCORERS: dict[str, Callable[[Calls, Calls], float]] = {
    "tool_call_valid": tool_call_valid,
    "tool_name_match": tool_name_match,
    "tool_parameter_key_match": tool_parameter_key_match,
    "tool_parameter_kv_match": tool_parameter_kv_match,
}


def metric(name: str) -> Callable[[MetricInput], MetricRun]:
    """The evaluate function of one computation-based Vertex metric."""
    missing = _sacrebleu_missing() if name == "bleu" else ""
    if missing:
        return lambda inp: not_evaluated(missing)
    if name in TEXT_SCORERS:
        score_text = TEXT_SCORERS[name]
        return lambda inp: score_turns(inp, lambda actual, expected: score_text(text_of(actual.final_response), text_of(expected.final_response)))
    score_calls = CALL_SCORERS[name]
    return lambda inp: score_turns(inp, lambda actual, expected: score_calls(actual.tool_calls, expected.tool_calls))
