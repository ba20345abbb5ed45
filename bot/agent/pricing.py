"""Per-model prices in USD per million tokens, cache writes and reads included.

Sources: Anthropic's pricing page (checked 2026-11-29). Cache writes are the 5-minute rate, which is
what `cache_control: {"type": "ephemeral"}` buys. A model not in the table is priced at the most
expensive row, so an unknown model can only make the dollar guard trip early, never late.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cache_write: float
    cache_read: float


PRICES: dict[str, Price] = {
    "claude-fable-5-1": Price(10.0, 50.0, 12.5, 0.25),
    "claude-fable-5": Price(10.0, 50.0, 12.5, 1.0),
    "claude-opus-5-5": Price(4.0, 20.0, 5.0, 0.20),
    "claude-opus-5": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-8": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-7": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-6": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-5": Price(5.0, 25.0, 6.25, 0.50),
    "claude-sonnet-5-5": Price(2.0, 10.0, 2.5, 0.10),
    "claude-sonnet-5": Price(2.0, 10.0, 2.5, 0.20),
    "claude-sonnet-4-6": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-5": Price(3.0, 15.0, 3.75, 0.30),
    "claude-haiku-5-5": Price(0.10, 0.50, 0.125, 0.01),
    "claude-haiku-4-5": Price(1.0, 5.0, 1.25, 0.10),
    "kitebase-offline": Price(0.0, 0.0, 0.0, 0.0),
}
FALLBACK = max(PRICES.values(), key=lambda p: p.output)


def price_for(model: str) -> Price:
    if model in PRICES:
        return PRICES[model]
    for name, price in PRICES.items():  # dated ids such as claude-haiku-4-5-20251001
        if model.startswith(name + "-"):
            return price
    logger.warning("no price for model %r; using the most expensive known price", model)
    return FALLBACK


def cost_usd(model: str, *, input_tokens: int, output_tokens: int, cache_read_tokens: int = 0,
             cache_write_tokens: int = 0) -> float:
    p = price_for(model)
    return (input_tokens * p.input + output_tokens * p.output + cache_write_tokens * p.cache_write
            + cache_read_tokens * p.cache_read) / 1_000_000
