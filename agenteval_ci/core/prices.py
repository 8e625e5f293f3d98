"""What the agent's and the judge's model calls cost: the shipped price table, the table a
project's `prices:` puts over it, and the cost of one run (pure).

A model with no known price is never counted as free: its run has no cost (None) and says
which model lacked one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..schema import Invocation, RunRecord, UsageMetadata
from ..schema.eval_set import InvocationEvents
from ..schema.settings import ModelPrice

# USD per million tokens, the Gemini API's paid Standard tier for text, as
# https://ai.google.dev/gemini-api/docs/pricing listed them in November 2025 (PRICES_TAKEN).
# Output prices include thinking tokens; where a model's prices rise for prompts over 200k
# tokens, the long-prompt prices are given too. Context caching's lower rate for cached
# tokens, batch discounts and audio input prices are not modelled (cached tokens are
# priced as input: an estimate on the high side).
PRICES_TAKEN = "2025-11"
BUILTIN_PRICES: dict[str, ModelPrice] = {
    "gemini-3-pro": ModelPrice(input=2.00, output=12.00, long_prompt_input=4.00, long_prompt_output=18.00),
    "gemini-2.5-pro": ModelPrice(input=1.25, output=10.00, long_prompt_input=2.50, long_prompt_output=15.00),
    "gemini-2.5-flash": ModelPrice(input=0.30, output=2.50),
    "gemini-2.5-flash-lite": ModelPrice(input=0.10, output=0.40),
    "gemini-2.0-flash": ModelPrice(input=0.10, output=0.40),
    "gemini-2.0-flash-lite": ModelPrice(input=0.075, output=0.30),
    # OpenAI API list prices, standard tier (an OpenAI-compatible judge, an agent through LiteLLM).
    "gpt-4o": ModelPrice(input=2.50, output=10.0),
    "gpt-4o-mini": ModelPrice(input=0.15, output=0.60),
    "gpt-4.1": ModelPrice(input=2.0, output=8.0),
    "gpt-4.1-mini": ModelPrice(input=0.40, output=1.60),
    "gpt-4.1-nano": ModelPrice(input=0.10, output=0.40),
    "o3-mini": ModelPrice(input=1.10, output=4.40),
    "o4-mini": ModelPrice(input=1.10, output=4.40),
}
UNREPORTED_MODEL = "<model not reported>"  # a call with usage but no model name: it cannot be priced


def _unprefixed(name: str) -> str:
    """A model as the API takes it: `openai/gpt-4o` is `gpt-4o` (Gemini's `models/` stays, removed below)."""
    return name.split("/", 1)[-1] if "/" in name and not name.startswith("models/") else name


def price_for(model: str, overrides: Mapping[str, ModelPrice]) -> ModelPrice | None:
    """The exact model name first, else the longest known prefix ("gemini-2.5-flash-001").
    `model` is as the API takes it (no provider prefix); `prices` may name it either way."""
    table = {**BUILTIN_PRICES, **{_unprefixed(name): price for name, price in overrides.items()}}
    name = model.removeprefix("models/")
    if name in table:
        return table[name]
    prefixes = [known for known in table if name.startswith(known)]
    return table[max(prefixes, key=len)] if prefixes else None


def call_usd(price: ModelPrice, tokens_in: int, tokens_out: int) -> float:
    """One call: a prompt longer than the tier boundary pays the long-prompt prices."""
    long = tokens_in > price.long_prompt_tokens
    per_in = price.long_prompt_input if long and price.long_prompt_input is not None else price.input
    per_out = price.long_prompt_output if long and price.long_prompt_output is not None else price.output
    return (tokens_in * per_in + tokens_out * per_out) / 1_000_000


def estimate_usd(model: str, tokens_in: int, tokens_out: int, overrides: Mapping[str, ModelPrice]) -> float | None:
    price = price_for(model, overrides)
    return None if price is None else call_usd(price, tokens_in, tokens_out)


@dataclass(frozen=True)
class RunCost:
    usd: float | None  # None: some call could not be priced, or no call reported its usage
    unpriced: tuple[str, ...] = ()  # the models without a known price


def _calls(invocation: Invocation) -> Iterable[tuple[str, UsageMetadata]]:
    """(model, usage) of each model call that reported its usage."""
    if not isinstance(invocation.intermediate_data, InvocationEvents):
        return ()
    return [(e.model_version or UNREPORTED_MODEL, e.usage_metadata) for e in invocation.intermediate_data.invocation_events if e.usage_metadata]


def run_cost(invocations: list[Invocation], overrides: Mapping[str, ModelPrice]) -> RunCost:
    """The run's model calls priced one by one (tokens counted as token_usage_v1 counts them:
    input with tool-use prompts, output with thinking)."""
    total, unpriced, calls = 0.0, set(), 0
    for invocation in invocations:
        for model, usage in _calls(invocation):
            calls += 1
            price = None if model == UNREPORTED_MODEL else price_for(model, overrides)
            if price is None:
                unpriced.add(model)
                continue
            tokens_in = (usage.prompt_token_count or 0) + (usage.tool_use_prompt_token_count or 0)
            tokens_out = (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
            total += call_usd(price, tokens_in, tokens_out)
    if unpriced or not calls:
        return RunCost(None, tuple(sorted(unpriced)))
    return RunCost(total)


def priced(run: RunRecord, overrides: Mapping[str, ModelPrice]) -> RunRecord:
    """The run with its cost recorded (results-format.md: `cost_usd`, `unpriced_models`)."""
    cost = run_cost(run.invocations, overrides)
    return run.model_copy(update={"cost_usd": cost.usd, "unpriced_models": list(cost.unpriced) or None})
