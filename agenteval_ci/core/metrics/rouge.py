"""response_match_score: ROUGE-1 F-measure with stemming, as ADK 2.13's RougeEvaluator.

The tokenizer reproduces ADK's Unicode-aware one (NFKC, lowercase, CJK per character,
Thai/Lao/Khmer/Myanmar by grapheme, non-ASCII words unstemmed, ASCII words through
rouge-score's Porter stemmer). Stemming is memoized: ADK builds a new scorer per pair
and stems every word again, which dominates its cost. Scores are bit-identical
(tests/core/metrics/test_differential.py).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import types
import unicodedata
from collections import Counter
from functools import lru_cache
from itertools import chain

from rouge_score import tokenize as rouge_tokenize

from ...schema import MetricRun, text_of
from .base import MetricInput, score_turns


def _porter_module_alone() -> types.ModuleType:
    """nltk.stem.porter, loaded under bare stand-ins for its two parent packages."""
    spec = importlib.util.find_spec("nltk")
    if spec is None or spec.submodule_search_locations is None:
        raise ImportError("nltk is not installed")
    roots = list(spec.submodule_search_locations)
    for name, paths in (("nltk", roots), ("nltk.stem", [f"{root}/stem" for root in roots])):
        sys.modules[name] = types.ModuleType(name)
        sys.modules[name].__path__ = paths
    return importlib.import_module("nltk.stem.porter")


def _porter_class_alone() -> type | None:
    before = set(sys.modules)
    try:
        porter: type = _porter_module_alone().PorterStemmer
        return porter
    except Exception:
        return None
    finally:
        for name in set(sys.modules) - before:
            if name == "nltk" or name.startswith("nltk."):
                del sys.modules[name]


def _porter_stemmer() -> object:
    """nltk's PorterStemmer, the one rouge-score's DefaultTokenizer builds.

    `import nltk` runs the package's __init__, which loads corpora readers, numpy and
    more: a quarter of a second, most of `agenteval score`'s start-up. porter.py needs
    none of it. The stand-ins are dropped afterwards, so a later `import nltk` (by an
    agent, say) gets the real package; should a future porter.py need more of it, the
    plain import is the fallback, as it is when nltk is loaded already.
    """
    stemmer_class = None if "nltk" in sys.modules else _porter_class_alone()
    if stemmer_class is None:
        from nltk.stem import porter

        stemmer_class = porter.PorterStemmer
    return stemmer_class()


_stemmer = _porter_stemmer()


@lru_cache(maxsize=65536)
def _ascii_word_tokens(word: str) -> tuple[str, ...]:
    """rouge-score's tokenize() (DefaultTokenizer(use_stemmer=True) calls just this)."""
    return tuple(rouge_tokenize.tokenize(word, _stemmer))


def _is_cjk(code: int) -> bool:
    return 0x4E00 <= code <= 0x9FFF or 0x3040 <= code <= 0x30FF or 0xAC00 <= code <= 0xD7AF


def _is_non_spaced(code: int) -> bool:
    return 0x0E00 <= code <= 0x0EFF or 0x1780 <= code <= 0x17FF or 0x1000 <= code <= 0x109F


def _is_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


_ASCII_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    if text.isascii():  # fast path, same words: NFKC leaves ASCII alone; ASCII alnum is [a-z0-9]
        return _ASCII_WORD.findall(text.lower())
    text = unicodedata.normalize("NFKC", text).lower()
    chars: list[str] = []
    for char in text:
        code = ord(char)
        if _is_cjk(code):
            chars.extend((" ", char, " "))
        elif _is_non_spaced(code):
            # A combining mark stays on its base consonant; a base starts a new cluster.
            chars.append(char if _is_mark(char) else " " + char)
        elif char.isalnum() or _is_mark(char):
            chars.append(char)
        else:
            chars.append(" ")
    return "".join(chars).split()


@lru_cache(maxsize=8192)
def tokenize(text: str) -> tuple[str, ...]:
    if text.isascii():  # every word stems; map and chain keep the per-word loop in C
        return tuple(chain.from_iterable(map(_ascii_word_tokens, _words(text))))
    tokens: list[str] = []
    for word in _words(text):
        if word.isascii():
            tokens.extend(_ascii_word_tokens(word))
        else:
            tokens.append(word)
    return tuple(tokens)


def rouge1_fmeasure(candidate: str, reference: str) -> float:
    """rouge-score's rouge1 F-measure, same arithmetic (empty vs empty is 0.0). The overlap
    is an integer sum, so adding it up over the shared tokens in C changes nothing."""
    target_tokens, prediction_tokens = tokenize(reference), tokenize(candidate)
    target, prediction = Counter(target_tokens), Counter(prediction_tokens)
    shared = target.keys() & prediction.keys()
    overlap = sum(map(min, map(target.__getitem__, shared), map(prediction.__getitem__, shared)))
    precision = overlap / max(len(prediction_tokens), 1)
    recall = overlap / max(len(target_tokens), 1)
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def evaluate(inp: MetricInput) -> MetricRun:
    return score_turns(
        inp, lambda actual, expected: rouge1_fmeasure(text_of(actual.final_response), text_of(expected.final_response))
    )
