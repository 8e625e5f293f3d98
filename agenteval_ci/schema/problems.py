"""pydantic's validation errors as Problems: the file, the JSON path as the user wrote it,
and what was expected there (the keys a model takes, where an unknown key was found)."""

from __future__ import annotations

import json
import types
import typing
from typing import Any

import pydantic
from pydantic import BaseModel

from ..errors import Problem

# pydantic puts the name of the union branch it tried into `loc`; it is not a key in the file.
_UNION_BRANCHES = {"intermediate_data": {"data", "events"}, "user_persona": {"UserPersona", "str"}, "agent": {"name", "remote"}}


def json_path(loc: tuple[Any, ...], prefix: str = "$") -> str:
    out = prefix
    for i, key in enumerate(loc):
        if isinstance(key, int):
            out += f"[{key}]"
        elif i > 0 and key in _UNION_BRANCHES.get(str(loc[i - 1]), ()):
            continue
        else:
            out += f".{key}"
    return out


def _unwrap(annotation: Any) -> list[Any]:
    """The model classes an annotation may hold (through Optional, list, dict, Annotated)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType, list, tuple, dict):
        return [m for arg in typing.get_args(annotation) for m in _unwrap(arg)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return []


def _model_at(root: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model that owns the last key of `loc`, to list what was expected there."""
    current: type[BaseModel] | None = root
    for key in loc[:-1]:
        if current is None or not isinstance(key, str):
            continue
        if key not in current.model_fields:
            continue  # a union label or a dict key
        candidates = _unwrap(current.model_fields[key].annotation)
        if not candidates:
            return None
        # With a union of models, the error path continues through the one that was chosen.
        current = candidates[0] if len(candidates) == 1 else _pick(candidates, loc)
    return current


def _pick(candidates: list[type[BaseModel]], loc: tuple[Any, ...]) -> type[BaseModel]:
    labels = {"data": "IntermediateData", "events": "InvocationEvents"}
    for key in loc:
        name = labels.get(key, key)
        for c in candidates:
            if c.__name__ == name:
                return c
    return candidates[0]


def problems_from(exc: pydantic.ValidationError, file: str, root: type[BaseModel], prefix: str = "$") -> list[Problem]:
    problems = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        where = json_path(loc, prefix)
        if err["type"] == "extra_forbidden":
            owner = _model_at(root, loc)
            expected = ", ".join(owner.model_fields) if owner else "the documented keys"
            name = owner.__name__ if owner else "this object"
            message = f"unknown key {loc[-1]!r} in {name}; expected one of: {expected}"
        elif err["type"] == "missing":
            message = f"required key {loc[-1]!r} is missing"
        elif err["type"] == "value_error":  # our own validators already say what was expected
            message = err["msg"].removeprefix("Value error, ")
        else:
            got = err.get("input")
            shown = json.dumps(got)[:80] if isinstance(got, (str, int, float, bool, type(None))) else type(got).__name__
            message = f"{err['msg']} (got {shown})"
        problems.append(Problem(file, where, message))
    return problems
