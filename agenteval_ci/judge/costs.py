"""Estimated cost of judge calls: a small built-in price table that settings may override."""

from __future__ import annotations

from typing import Mapping, Optional

from ..schema.settings import ModelPrice

# USD per million tokens (Gemini API list prices, standard tier, prompts up to 200k tokens).
BUILTIN_PRICES: dict[str, ModelPrice] = {
    "gemini-2.5-pro": ModelPrice(input=1.25, output=10.0),
    "gemini-2.5-flash": ModelPrice(input=0.30, output=2.50),
    "gemini-2.5-flash-lite": ModelPrice(input=0.10, output=0.40),
    "gemini-2.0-flash": ModelPrice(input=0.10, output=0.40),
    "gemini-2.0-flash-lite": ModelPrice(input=0.075, output=0.30),
    # OpenAI API list prices, standard tier.
    "gpt-4o": ModelPrice(input=2.50, output=10.0),
    "gpt-4o-mini": ModelPrice(input=0.15, output=0.60),
    "gpt-4.1": ModelPrice(input=2.0, output=8.0),
    "gpt-4.1-mini": ModelPrice(input=0.40, output=1.60),
    "gpt-4.1-nano": ModelPrice(input=0.10, output=0.40),
    "o3-mini": ModelPrice(input=1.10, output=4.40),
    "o4-mini": ModelPrice(input=1.10, output=4.40),
}


CHARS_PER_TOKEN = 4  # a rough average for English text and JSON


def estimate_prompt_tokens(prompt: str) -> int:
    """Prompt tokens when the endpoint does not report usage: the whole prompt counts
    (instructions and tool declarations can be most of it), so it is never priced as free."""
    return -(-len(prompt) // CHARS_PER_TOKEN)


def price_for(model: str, overrides: Mapping[str, ModelPrice]) -> Optional[ModelPrice]:
    """The exact model name first, else the longest known prefix ("gemini-2.5-flash-001").
    `model` is as the API takes it (no provider prefix); `judge.prices` may name it either way."""
    table = {**BUILTIN_PRICES, **{name.split("/", 1)[-1] if "/" in name and not name.startswith("models/") else name: price
                                  for name, price in overrides.items()}}
    name = model.removeprefix("models/")
    if name in table:
        return table[name]
    prefixes = [known for known in table if name.startswith(known)]
    return table[max(prefixes, key=len)] if prefixes else None


def estimate_usd(model: str, tokens_in: int, tokens_out: int, overrides: Mapping[str, ModelPrice]) -> Optional[float]:
    price = price_for(model, overrides)
    if price is None:
        return None
    return (tokens_in * price.input + tokens_out * price.output) / 1_000_000
