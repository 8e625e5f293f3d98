"""A user turn's parts (text, inline data, file data, each with its mime type) as each agent kind
receives them, so none is dropped on the way: a kind that cannot carry a part refuses the turn,
naming it (docs/agents.md, "What each agent kind receives and reports")."""

from __future__ import annotations

import base64
import re
from typing import Any

from ..schema import Content, Part
from ..schema.content import inline_bytes

TEXT, INLINE_DATA, FILE_DATA = "text", "inline_data", "file_data"
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


class PartNotCarried(ValueError):
    """The turn holds a part the agent kind has no way to send: the run fails with this reason."""


def kind_of(part: Part) -> str:
    """The field a part is made of (`text`, `inline_data`, `file_data`, `function_call`, ...)."""
    fields = part.model_dump(exclude_none=True)
    fields.pop("thought", None)
    return next(iter(fields), TEXT)


def _snake(value: Any) -> Any:
    """A blob's keys as google-genai writes them in Python (`mime_type`), whichever spelling the file used."""
    if isinstance(value, dict):
        return {_CAMEL.sub(r"_\1", key).lower(): item for key, item in value.items()}
    return value


def decoded(data: Any, where: str) -> bytes:
    """An inline_data's `data` as its bytes (schema's `inline_bytes`: the judges read them the same way)."""
    try:
        return inline_bytes(data)
    except ValueError as exc:
        raise PartNotCarried(f"{where}: {exc}") from None


def as_json(part: Part, where: str) -> dict[str, Any]:
    """One part as JSON (snake_case keys; inline data as standard base64): what the JSON contract sends."""
    kind = kind_of(part)
    if kind == TEXT:
        return {TEXT: part.text or ""}
    value = _snake(getattr(part, kind))
    if kind == INLINE_DATA and isinstance(value, dict):
        value = {**value, "data": base64.b64encode(decoded(value.get("data"), where)).decode("ascii")}
    return {kind: value}


def as_python(part: Part, where: str) -> dict[str, Any]:
    """One part as a Python callable receives it: as_json, but inline data as `bytes`."""
    out = as_json(part, where)
    blob = out.get(INLINE_DATA)
    if isinstance(blob, dict):
        out[INLINE_DATA] = {**blob, "data": decoded(blob["data"], where)}
    return out


def turn_parts(content: Content, shape: Any = as_json) -> list[dict[str, Any]]:
    return [shape(part, f"user part {index}") for index, part in enumerate(content.parts or [])]


def refuse_beyond(content: Content, carried: tuple[str, ...], kind: str) -> None:
    """Fail the turn when it holds a part `kind` cannot carry, rather than send it without."""
    for index, part in enumerate(content.parts or []):
        found = kind_of(part)
        if found not in carried:
            raise PartNotCarried(f"the user turn's part {index} is {found}, which {kind} cannot carry (it carries {', '.join(carried)})")
