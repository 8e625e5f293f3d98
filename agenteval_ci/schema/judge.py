"""What identifies a judge: the fingerprint kept with every judged score (docs/judge.md).

A judged score means something only next to the judge that gave it. The fingerprint says
which: the provider that answered, the model as the eval config asked for it, the model
versions the API reported, a hash of our prompt templates, the sampling settings, and whether
the conversation's images and files were sent with the prompt. Two
scores are comparable only when their fingerprints agree (core/judge_fingerprint.py says when).
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from ._base import StrictModel


class JudgeFingerprint(StrictModel):
    provider: Optional[str] = None  # the endpoint that answered (gemini, openai, azure, ...); None: it could not be resolved
    model: str  # as requested: the criterion's judge_model (or agenteval.yaml's judge.model)
    versions: list[str] = Field(default_factory=list)  # as the API reported them, sorted; empty: none reported
    prompt: str  # hash of the prompt templates the metric fills in
    num_samples: int = 1
    config: Optional[dict[str, Any]] = None  # judge_model_config: temperature and the like, as given
    media: Optional[str] = None  # judge.media: send and its size limit; None: text-only prompts (google-adk's)

    def label(self) -> str:
        """One line for a person: `openai/gpt-4o (gpt-4o-2024-08-06)`, `gpt-4o via openai`."""
        named = self.provider in (None, "gemini") or self.model.startswith(f"{self.provider}/")
        shown = self.model if named else f"{self.model} via {self.provider}"
        return f"{shown} ({', '.join(self.versions)})" if self.versions else shown
