"""Prompt caching as the Messages API bills it, for the local stand-in (`MessagesAPIServer(billing=PromptCache())`).

The rules, from Anthropic's prompt-caching documentation (platform.claude.com/docs/en/build-with-claude/
prompt-caching, sections "How automatic prefix checking works", "Cache limitations", "Tracking cache
performance" and "Pricing"; read 2026-12-02):

- The prompt is `tools`, then `system`, then `messages`, in that order; each tool, system block and content
  block is one block. A `cache_control` breakpoint on a block marks the prefix through that block.
- A write happens only at a breakpoint: one entry, keyed by the whole prefix through that block (any change
  before it gives another key). Nothing is written at earlier positions.
- A read looks for entries earlier requests wrote: from each breakpoint it checks at most 20 positions
  backwards (the breakpoint itself first), then resumes at the next earlier breakpoint. The longest prefix
  found is read.
- A prefix shorter than the model's minimum cacheable length is not cached (no error; both counts stay 0).
- At most 4 breakpoints (the stand-in's request validation refuses a fifth, as the API does).
- An entry lives 5 minutes (`"ttl": "1h"`: an hour), refreshed by every read.
- Usage: `cache_read_input_tokens` are the tokens up to the hit, `cache_creation_input_tokens` the tokens
  after it through the last breakpoint written, `input_tokens` the rest (after the last breakpoint).
- Price: 5-minute writes cost 1.25x the base input price, 1-hour writes 2x, reads 0.1x.

Tokens are estimated as the stand-in always has: about four characters of JSON per token, per block.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

LOOKBACK = 20
WRITE_MULTIPLIER = {"5m": 1.25, "1h": 2.0}
READ_MULTIPLIER = 0.1
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}

# Minimum cacheable prompt length per model, from the documentation's "Cache limitations" (Claude API).
MINIMUM_TOKENS = {
    "claude-opus-5": 512, "claude-fable-5": 512, "claude-mythos-5": 512,
    "claude-opus-4-7": 2048,
    "claude-opus-4-6": 4096, "claude-opus-4-5": 4096,
    "claude-opus-4-8": 1024, "claude-sonnet-5": 1024, "claude-sonnet-4-6": 1024, "claude-sonnet-4-5": 1024,
    "claude-opus-4-1": 1024, "claude-opus-4": 1024, "claude-sonnet-4": 1024,
    "claude-haiku-4-5": 4096, "claude-haiku-3-5": 2048,
}
UNLISTED_MINIMUM = 1024  # a model the documentation we read does not list


def minimum_tokens(model: str) -> int:
    for name in sorted(MINIMUM_TOKENS, key=len, reverse=True):  # dated ids: claude-haiku-4-5-20251001
        if model == name or model.startswith(name + "-"):
            return MINIMUM_TOKENS[name]
    return UNLISTED_MINIMUM


def block_tokens(block: Any) -> int:
    """About four characters of JSON per token (the stand-in's estimate), without the cache_control."""
    if isinstance(block, dict) and "cache_control" in block:
        block = {k: v for k, v in block.items() if k != "cache_control"}
    return max(1, len(json.dumps(block, ensure_ascii=False, sort_keys=True)) // 4)


@dataclass
class Block:
    tokens: int
    key: str  # hash of the prefix through this block
    ttl: str | None  # set when the block carries a breakpoint


def prompt_blocks(body: dict[str, Any]) -> list[Block]:
    """The request as the cache sees it: tools, system, messages, one entry per block, with prefix hashes."""
    items: list[tuple[str, Any]] = [("tool", t) for t in body.get("tools") or []]
    system = body.get("system")
    items += [("system", b) for b in ([{"type": "text", "text": system}] if isinstance(system, str) else system or [])]
    for message in body.get("messages") or []:
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        items += [(str(message.get("role")), part) for part in parts]
    digest = hashlib.sha256(str(body.get("model")).encode())
    blocks = []
    for where, item in items:
        control = item.get("cache_control") if isinstance(item, dict) else None
        plain = {k: v for k, v in item.items() if k != "cache_control"} if isinstance(item, dict) else item
        digest.update(json.dumps([where, plain], ensure_ascii=False, sort_keys=True).encode())
        ttl = (control.get("ttl") or "5m") if isinstance(control, dict) else None
        blocks.append(Block(block_tokens(plain), digest.copy().hexdigest(), ttl))
    return blocks


@dataclass
class Bill:
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    write_ttl: str = "5m"

    def usage(self) -> dict[str, int]:
        return {"input_tokens": self.input_tokens, "cache_creation_input_tokens": self.cache_creation_input_tokens,
                "cache_read_input_tokens": self.cache_read_input_tokens}

    @property
    def input_equivalents(self) -> float:
        """What the input costs, in base-price input tokens."""
        return (self.input_tokens + WRITE_MULTIPLIER[self.write_ttl] * self.cache_creation_input_tokens
                + READ_MULTIPLIER * self.cache_read_input_tokens)


@dataclass
class PromptCache:
    """The cache of one workspace: entries written by earlier requests, and the bill of each request."""

    clock: Callable[[], float] = time.monotonic
    entries: dict[str, float] = field(default_factory=dict)  # prefix key -> expiry
    bills: list[Bill] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def bill(self, body: dict[str, Any]) -> Bill:
        blocks = prompt_blocks(body)
        breakpoints = [i for i, b in enumerate(blocks) if b.ttl is not None]
        minimum = minimum_tokens(str(body.get("model", "")))
        prefix = [0]
        for block in blocks:
            prefix.append(prefix[-1] + block.tokens)
        with self._lock:
            now = self.clock()
            hit = self._longest_hit(blocks, breakpoints, now)
            written = [i for i in breakpoints if i > hit and prefix[i + 1] >= minimum]
            for i in ([hit] if hit >= 0 else []) + written:
                self.entries[blocks[i].key] = now + TTL_SECONDS[blocks[i].ttl or "5m"]
            last = written[-1] if written else hit
            read = prefix[hit + 1] if hit >= 0 else 0
            created = prefix[last + 1] - read if written else 0
            ttl = blocks[written[-1]].ttl or "5m" if written else "5m"
            bill = Bill(prefix[-1] - read - created, created, read, ttl)
            self.bills.append(bill)
        return bill

    def _longest_hit(self, blocks: list[Block], breakpoints: list[int], now: float) -> int:
        """The furthest position whose prefix an earlier request wrote, within each breakpoint's lookback."""
        for expired in [k for k, until in self.entries.items() if until <= now]:
            del self.entries[expired]
        for point in reversed(breakpoints):
            for i in range(point, max(-1, point - LOOKBACK), -1):
                if blocks[i].key in self.entries:
                    return i
        return -1
