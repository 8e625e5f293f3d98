"""Small helpers the commands share."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from ..errors import Problem


def print_warnings(warnings: Iterable[Problem | str]) -> None:
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
