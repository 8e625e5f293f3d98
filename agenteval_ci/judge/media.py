"""Which of a request's images and files go to the judge model with the prompt, or why none do.

All or nothing per request: a judge shown part of a conversation's media would give a verdict
that looks informed and is not, so one part the judge cannot take (a MIME type its model does
not read, a URI its protocol cannot carry, more inline bytes than `judge.media_max_bytes`)
keeps the whole request text-only, and the answer says why (`JudgeAnswer.media_withheld`);
the metric then flags its score `judged_without: media`.

What a model takes is a column of the provider table (core/providers.py, `TakesMedia`), or what
agenteval.yaml's `judge.providers.<prefix>.media` declares; what a wire protocol can carry is
`CARRIES` below. docs/judge.md, "Images and files", has both.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Optional, Sequence

from ..core.judging import MediaPart
from ..core.providers import GEMINI_MEDIA, TakesMedia, media_types, provider_of
from ..schema.settings import JudgeSettings
from .routes import Route, split_provider

TEXT_ONLY = "judge.media is `text`: the judge's prompt is text only, as google-adk's (set judge.media: send to show it the media)"
HTTP_URI = re.compile(r"https?://\S+")


@dataclass(frozen=True)
class Carries:
    """What one wire protocol can put in a request: inline bytes and file URIs of which MIME types."""

    inline: str  # MIME types sent as bytes (a regular expression)
    uri: str  # MIME types sent by URI
    uri_schemes: Optional[re.Pattern[str]]  # the URIs it can send; None: any (the API fetches them)
    why: str  # what it carries, in words, for a refusal


_CHAT = Carries(r"image/\S+|application/pdf", r"image/\S+", HTTP_URI,
                "chat-completions content parts carry images (bytes or http(s) URLs) and PDFs (bytes)")
CARRIES: dict[str, Carries] = {
    "gemini": Carries(r"\S+", r"\S+", None, "Gemini takes inline data and file URIs"),
    "openai": _CHAT,
    "azure": _CHAT,
    "litellm": _CHAT,  # OpenAI-style content parts, translated by LiteLLM for its provider
}
# Protocols that are sent no media beside the prompt, and why.
NOT_CARRIED = {
    "vertex_eval": "the Gen AI evaluation service's managed metrics are not documented to judge images or files (their "
                   "instance is sent as agents-cli sends it, whatever it holds)",
}


@dataclass(frozen=True)
class MediaPlan:
    """The parts sent with a request (all of them or none) and, when none, why."""

    send: tuple[MediaPart, ...] = ()
    withheld: Optional[str] = None


def setting(settings: JudgeSettings, route: Route) -> Optional[str]:
    """judge.media as the judge's fingerprint names it (with what agenteval.yaml declares the
    route's provider takes, which decides what is sent too): None for text-only prompts (the default)."""
    if settings.media != "send":
        return None
    own = settings.providers.get(route.provider)
    declared = f"; {route.provider} takes {', '.join(own.media) or 'none'}" if own is not None and own.media is not None else ""
    return f"send (at most {settings.media_max_bytes} inline bytes per request{declared})"


def plan(settings: JudgeSettings, route: Route, parts: Sequence[MediaPart]) -> MediaPlan:
    """The media of one request as the judge sends them, or why it sends none."""
    if not parts:
        return MediaPlan()
    if settings.media != "send":
        return MediaPlan(withheld=TEXT_ONLY)
    why = _refusal(settings, route, parts) or _over_limit(settings, parts)
    return MediaPlan(withheld=why) if why else MediaPlan(send=tuple(parts))


def _refusal(settings: JudgeSettings, route: Route, parts: Sequence[MediaPart]) -> Optional[str]:
    carries = CARRIES.get(route.protocol)
    if carries is None:
        return NOT_CARRIED.get(route.protocol, f"the {route.protocol} judge protocol sends no images or files")
    takes = _declared(settings, route) or media_types(_rows(route), split_provider(route.model)[1])
    for part in parts:
        why = part.problem or _not_taken(part, route, carries, takes)
        if why:
            return why
    return None


def _declared(settings: JudgeSettings, route: Route) -> Optional[str]:
    """The MIME types judge.providers.<prefix>.media declares (a regular expression), if it does."""
    own = settings.providers.get(route.provider)
    if own is None or own.media is None:
        return None
    return "|".join(re.escape(kind).replace(r"\*", r"\S+") for kind in own.media) or "(?!)"  # []: none


def _rows(route: Route) -> tuple[TakesMedia, ...]:
    """The provider table's media rows for a route: its model's row, or Gemini's for a provider of
    agenteval.yaml's own that speaks Gemini's protocol."""
    rows = (provider_of(name) for name in (route.model, f"{route.provider}/{route.model}"))
    found = next((row.media for row in rows if row is not None and row.media), ())
    return found or (GEMINI_MEDIA if route.protocol == "gemini" else ())


def _not_taken(part: MediaPart, route: Route, carries: Carries, takes: Optional[str]) -> Optional[str]:
    named = f"{part.source}'s {part.mime_type} {'file ' + repr(part.uri) if part.uri else 'inline data'}"
    model = f"{route.provider} model {route.model!r}"
    if takes is None:
        return (f"the {model} is not known to take images or files (say which it takes in judge.providers.{route.provider}.media; "
                f"docs/judge.md, \"Images and files\"): the {named} was not sent")
    if not re.fullmatch(takes, part.mime_type):
        return f"the {model} does not take {part.mime_type}: the {named} was not sent"
    if part.uri is not None:
        if not re.fullmatch(carries.uri, part.mime_type) or (carries.uri_schemes and not carries.uri_schemes.fullmatch(part.uri)):
            return f"the {route.protocol} protocol cannot send the {named} ({carries.why})"
    elif not re.fullmatch(carries.inline, part.mime_type):
        return f"the {route.protocol} protocol cannot send the {named} ({carries.why})"
    return None


def _over_limit(settings: JudgeSettings, parts: Sequence[MediaPart]) -> Optional[str]:
    size = sum(len(part.data or b"") for part in parts)
    if size <= settings.media_max_bytes:
        return None
    return f"the request's images and files are {size} inline bytes, over judge.media_max_bytes ({settings.media_max_bytes})"


def digest(parts: Sequence[MediaPart]) -> str:
    """What the judge cache key adds for the media sent: each part's MIME type and its bytes'
    or URI's hash, in order; empty when none are sent (so text-only keys stay as they were)."""
    if not parts:
        return ""
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(f"{part.source}\0{part.mime_type}\0{part.uri or ''}\0".encode())
        hashed.update(hashlib.sha256(part.data or b"").digest())
    return hashed.hexdigest()


def label(part: MediaPart, number: int) -> str:
    """The line before a part in the request, so the judge can tell whose image or file it is."""
    whose = "the user's turn" if part.source == "user" else "the agent's reply"
    return f"[attachment {number}: {part.mime_type} from {whose}]"
