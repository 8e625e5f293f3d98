"""What one call to the judge's model comes back as: no google.genai here, so importing the
judge (and every command that might judge) stays cheap until a call is made. What a metric
makes of a reply (`Unreadable`, `Reader`) is the core's: core/judging.py."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Optional, Union


@dataclass(frozen=True)
class CallFailed:
    """A failed attempt: `status` is the HTTP status (None for transport errors or bad bodies).
    `credentials`: the judge's own credentials failed, so every later call would fail too."""

    message: str
    status: Optional[int] = None
    retry_after: Optional[float] = None
    retryable: bool = False
    credentials: bool = False


@dataclass(frozen=True)
class BadReply:
    """A sample that came back but is not a complete verdict: no text, cut short, blocked, or
    text the metric cannot read in full. `retryable`: another draw of the sample may do better."""

    why: str
    retryable: bool = True


@dataclass(frozen=True)
class Generated:
    """An answered request: each candidate's text (or why it has none) in candidate order, and
    the request's usage: the prompt is billed once, the candidates' output tokens add up.
    The model may return fewer candidates than asked for; `blocked` says why it returned none."""

    candidates: tuple[Union[str, BadReply], ...]
    tokens_in: int
    tokens_out: int
    blocked: Optional[str] = None
    model_version: Optional[str] = None  # the model version the API says answered


CallOutcome = Union[Generated, CallFailed]


@dataclass(frozen=True)
class FinishReasons:
    """A provider's words for how a reply ended: a filter stopped it (the same prompt would be
    stopped again), it hit the output limit, or it finished (anything else did not)."""

    blocked: Collection[str]
    cut_short: str
    finished: Collection[Optional[str]]

    def candidate(self, text: str, reason: Optional[str]) -> Union[str, BadReply]:
        """A candidate's text when the model finished it, or why it is no answer."""
        if reason in self.blocked:
            return BadReply(f"the judge's reply was blocked (finish reason {reason})", retryable=False)
        if reason == self.cut_short:
            return BadReply(f"the judge's reply was cut short (finish reason {reason})")
        if reason not in self.finished:
            return BadReply(f"the judge's reply did not finish (finish reason {reason})")
        return text if text else BadReply("the judge returned no text")
