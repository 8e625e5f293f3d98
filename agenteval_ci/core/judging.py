"""What a metric or the simulated user asks of the judge, and gets back: the Judge protocol.

The judge itself (judge/: the model client, batching, cache, retries, rate limits, cost) is
an edge; the core only sees this protocol, so scoring stays testable without a model. A
metric hands the judge a reader that finds a complete verdict in a reply or says why there
is none (`Unreadable`); the judge applies it to every sample it draws and every cache entry
it reads, and a failed sample comes back as `JudgeAnswer.error`, never as an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional, Protocol, TypeVar, Union

T = TypeVar("T")


@dataclass(frozen=True)
class Unreadable:
    """What a metric's reader says of a reply that is not a complete verdict, and why."""

    why: str


# A metric's reader: the verdict in a reply's text, all of it, or why there is none.
Reader = Callable[[str], Union[T, Unreadable]]


def any_text(text: str) -> Union[str, Unreadable]:
    """The reader of free text (the simulated user's turns): anything but nothing."""
    return text if text.strip() else Unreadable("an empty reply")


@dataclass(frozen=True)
class JudgeAnswer:
    text: Optional[str] = None
    verdict: Any = None  # what the metric's reader made of `text`
    error: Optional[str] = None  # why there is no verdict: the sample is not evaluated
    cached: bool = False
    provider: Optional[str] = None  # the endpoint the model was asked at (gemini, openai, azure, ...)
    model_version: Optional[str] = None  # as the API reported it for this sample, when it did


class Judge(Protocol):
    """Samples of one prompt, each read whole by the asking metric's reader."""

    async def ask(
        self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, sample: int, read: Reader[Any] = any_text
    ) -> JudgeAnswer:
        """Sample number `sample` of `prompt`, as `read` reads it."""
        ...

    async def ask_many(
        self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, count: int, read: Reader[Any] = any_text
    ) -> list[JudgeAnswer]:
        """Samples 0 .. count-1 of `prompt`, as `read` reads them."""
        ...
