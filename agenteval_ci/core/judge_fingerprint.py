"""The judge's fingerprint of a judged score, and when two judges are the same (docs/judge.md).

A metric asks the judge through a `JudgeTrace`, which notes what answered: the provider and
the model versions the API reported, and whether it was sent the conversation's media
(`judge.media`). With the model as requested, our prompt templates' hash and the sampling
settings, that is the fingerprint kept with the score. Two fingerprints name
the same judge when all of it agrees; model versions count only when both sides know theirs
(a reply cached before versions were recorded knows none).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Optional, Sequence

from ..schema import BaseCriterion, JudgeModelOptions
from ..schema.judge import JudgeFingerprint
from .judging import Judge, JudgeAnswer, MediaPart, Reader, any_text
from .metrics.base import ConfiguredMetric


@lru_cache(maxsize=None)
def prompt_hash(paths: tuple[str, ...]) -> str:
    """Hash of the files (under agenteval_ci/core) a metric's prompts are made from."""
    digest = hashlib.sha256()
    root = resources.files(__package__)
    for path in paths:
        digest.update(path.encode())
        digest.update(root.joinpath(path).read_bytes())
    return digest.hexdigest()[:16]


def judge_options(criterion: BaseCriterion) -> Optional[JudgeModelOptions]:
    options = getattr(criterion, "judge_model_options", None)
    return options if isinstance(options, JudgeModelOptions) else None


class JudgeTrace:
    """The judge as one metric on one case sees it, noting who answered. A Judge itself."""

    def __init__(self, judge: Judge | None):
        self.judge = judge
        self.providers: set[str] = set()
        self.versions: set[str] = set()
        self.media: set[str] = set()

    def _note(self, answers: Iterable[JudgeAnswer]) -> None:
        for answer in answers:
            if answer.provider:
                self.providers.add(answer.provider)
            if answer.model_version:
                self.versions.add(answer.model_version)
            if answer.media_setting:
                self.media.add(answer.media_setting)

    async def ask(
        self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, sample: int, read: Reader[Any] = any_text,
        media: Sequence[MediaPart] = (),
    ) -> JudgeAnswer:
        assert self.judge is not None  # metrics never ask a trace without a judge
        answer = await self.judge.ask(metric, model, config, prompt, sample, read, media)
        self._note([answer])
        return answer

    async def ask_many(
        self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, count: int, read: Reader[Any] = any_text,
        media: Sequence[MediaPart] = (),
    ) -> list[JudgeAnswer]:
        assert self.judge is not None
        answers = await self.judge.ask_many(metric, model, config, prompt, count, read, media)
        self._note(answers)
        return answers


USER_METRIC = "your metric's code"  # the "model" of a user's metric: its code is what judges (core/metrics/user.py)


def fingerprint(metric: ConfiguredMetric, trace: JudgeTrace | None) -> Optional[JudgeFingerprint]:
    """The fingerprint of a judged metric's scores on one case (None for other metrics). A
    user's metric is fingerprinted like a judge, its code's hash as the prompt: an edit of it is
    then a changed judge, and the baseline's recorded outputs are scored again (core/judge_change.py)."""
    interval = metric.spec.user_interval
    if metric.spec.user_code_hash and not metric.spec.judged:
        return JudgeFingerprint(model=USER_METRIC, prompt=metric.spec.user_code_hash, config={"interval": list(interval)} if interval else None)
    if not metric.spec.judged:  # asked first: most metrics are not, and the criterion's getattr is slow
        return None
    options = judge_options(metric.criterion)
    if options is None:
        return None
    providers = sorted(trace.providers) if trace else []
    return JudgeFingerprint(
        provider=", ".join(providers) or None,
        model=options.judge_model,
        versions=sorted(trace.versions) if trace else [],
        prompt=metric.spec.user_code_hash or prompt_hash(metric.spec.prompts),  # a judge from the user's template: its hash
        num_samples=options.num_samples,
        config={**(options.judge_model_config or {}), "interval": list(interval)} if interval else options.judge_model_config,
        media=", ".join(sorted(trace.media)) or None if trace else None,
    )


def merged(first: Optional[JudgeFingerprint], second: Optional[JudgeFingerprint]) -> Optional[JudgeFingerprint]:
    """One metric's fingerprint over two rounds of runs of a case: the versions of both."""
    if first is None or second is None:
        return first or second
    providers = sorted({p for f in (first, second) if f.provider for p in f.provider.split(", ")})
    return second.model_copy(update={"provider": ", ".join(providers) or None, "versions": sorted({*first.versions, *second.versions})})


def judge_id(judge: JudgeFingerprint) -> str:
    """A short name for a fingerprint: the key of the baseline's `judges` table."""
    # A text-only judge leaves `media` out, so its id stays the one earlier releases gave it.
    data = json.dumps(judge.model_dump(mode="json", exclude={"media"} if judge.media is None else None), sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()[:12]


def tolerance_scale(judge: Optional[JudgeFingerprint]) -> float:
    """What the gate's tolerance is multiplied by for a metric: the width of a user's metric's
    declared interval (a 1-to-5 metric moves in steps a 0-to-1 tolerance would call noise-free),
    1 for every other metric."""
    interval = (judge.config or {}).get("interval") if judge is not None else None  # a user's metric or template judge's
    return float(interval[1]) - float(interval[0]) if isinstance(interval, list) and len(interval) == 2 else 1.0


def differences(old: JudgeFingerprint, new: JudgeFingerprint) -> list[str]:
    """What differs between two judges, in words; empty when they are the same judge."""
    found = []
    if old.provider and new.provider and old.provider != new.provider:  # unknown (None) on either side: not a difference
        found.append(f"provider {old.provider} → {new.provider}")
    if old.model != new.model:
        found.append(f"model {old.model} → {new.model}")
    if old.versions and new.versions and old.versions != new.versions:
        found.append(f"model version {', '.join(old.versions)} → {', '.join(new.versions)}")
    if old.prompt != new.prompt:
        found.append("the metric's code changed" if new.model == USER_METRIC else "prompt templates changed")
    if old.num_samples != new.num_samples:
        found.append(f"num_samples {old.num_samples} → {new.num_samples}")
    if old.media != new.media:
        found.append(f"judge.media {old.media or 'text'} → {new.media or 'text'}")
    if (old.config or {}) != (new.config or {}):
        found.append("the metric's declared interval changed" if new.model == USER_METRIC else "judge_model_config changed")
    return found
