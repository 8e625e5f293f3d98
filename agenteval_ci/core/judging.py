"""What a metric or the simulated user asks of the judge, and gets back: the Judge protocol.

The judge itself (judge/: the model client, batching, cache, retries, rate limits, cost) is
an edge; the core only sees this protocol, so scoring stays testable without a model. A
metric hands the judge a reader that finds a complete verdict in a reply or says why there
is none (`Unreadable`); the judge applies it to every sample it draws and every cache entry
it reads, and a failed sample comes back as `JudgeAnswer.error`, never as an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Optional, Protocol, TypeVar, Union

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
class MediaPart:
    """An image or a file of the conversation, as a judge request may carry it beside the prompt:
    the bytes of an `inline_data` part or the URI of a `file_data` part, with its MIME type."""

    mime_type: str
    data: Optional[bytes] = None  # inline_data, decoded
    uri: Optional[str] = None  # file_data
    source: Literal["user", "agent"] = "user"  # whose turn it came from
    problem: Optional[str] = None  # why it cannot be sent at all (no MIME type, bytes that are not base64)


@dataclass(frozen=True)
class JudgeAnswer:
    text: Optional[str] = None
    verdict: Any = None  # what the metric's reader made of `text`
    error: Optional[str] = None  # why there is no verdict: the sample is not evaluated
    cached: bool = False
    provider: Optional[str] = None  # the endpoint the model was asked at (gemini, openai, azure, ...)
    model_version: Optional[str] = None  # as the API reported it for this sample, when it did
    media_withheld: Optional[str] = None  # the request had media the judge was not shown, and why
    media_setting: Optional[str] = None  # judge.media as the fingerprint names it: None for text-only prompts


class Judge(Protocol):
    """Samples of one prompt, each read whole by the asking metric's reader. `media`: the
    conversation's images and files the prompt is about; the judge sends them with it or says
    why not (`JudgeAnswer.media_withheld`)."""

    async def ask(
        self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, sample: int, read: Reader[Any] = any_text,
        media: Sequence[MediaPart] = (),
    ) -> JudgeAnswer:
        """Sample number `sample` of `prompt`, as `read` reads it."""
        ...

    async def ask_many(
        self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, count: int, read: Reader[Any] = any_text,
        media: Sequence[MediaPart] = (),
    ) -> list[JudgeAnswer]:
        """Samples 0 .. count-1 of `prompt`, as `read` reads them."""
        ...
