"""Estimated cost of judge calls: the shared price table (core/prices.py), which settings may override."""

from __future__ import annotations

from ..core.prices import BUILTIN_PRICES, estimate_usd, price_for

__all__ = ["BUILTIN_PRICES", "CHARS_PER_TOKEN", "estimate_prompt_tokens", "estimate_usd", "price_for"]

CHARS_PER_TOKEN = 4  # a rough average for English text and JSON


def estimate_prompt_tokens(prompt: str) -> int:
    """Prompt tokens when the endpoint does not report usage: the whole prompt counts
    (instructions and tool declarations can be most of it), so it is never priced as free."""
    return -(-len(prompt) // CHARS_PER_TOKEN)
