"""The Messages API stand-in bills prompt caching by the documented rules (standins/prompt_cache.py), and
the harness marks the breakpoints where the benchmark found they pay (bot/agent/model.py)."""

from __future__ import annotations

from bot.agent.model import with_cache_breakpoints
from standins.prompt_cache import PromptCache, block_tokens, minimum_tokens

MARK = {"type": "ephemeral"}


def text(t: str, mark: bool = False) -> dict:
    return {"type": "text", "text": t, **({"cache_control": MARK} if mark else {})}


def body(*blocks: dict, model: str = "claude-opus-5", system: str = "s" * 4000) -> dict:
    return {"model": model, "system": [text(system, mark=True)],
            "messages": [{"role": "user", "content": list(blocks)}]}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_prefix_is_written_once_then_read_and_the_tail_is_plain_input():
    cache = PromptCache()
    first = cache.bill(body(text("question one")))
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens > 0
    second = cache.bill(body(text("question two")))
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens, "the system prompt, read"
    assert second.cache_creation_input_tokens == 0 and second.input_tokens == block_tokens(text("question two"))
    assert round(second.input_equivalents, 1) == round(second.input_tokens + 0.1 * second.cache_read_input_tokens, 1)


def test_a_growing_history_reads_the_last_write_and_writes_only_what_is_new():
    cache = PromptCache()
    cache.bill(body(text("a" * 400, mark=True)))
    grown = cache.bill(body(text("a" * 400), text("b" * 400, mark=True)))
    assert grown.cache_creation_input_tokens == block_tokens(text("b" * 400))
    assert grown.input_tokens == 0


def test_prompts_under_the_model_minimum_are_not_cached():
    assert minimum_tokens("claude-opus-5") == 512 and minimum_tokens("claude-haiku-4-5-20251001") == 4096
    cache = PromptCache()
    short = cache.bill(body(text("hi"), system="short"))
    assert short.cache_creation_input_tokens == short.cache_read_input_tokens == 0


def test_the_lookback_stops_after_20_blocks_unless_a_breakpoint_sits_on_the_earlier_write():
    cache = PromptCache()
    start = [text(f"block {i} " + "x" * 100) for i in range(3)]
    cache.bill(body(*start[:-1], {**start[-1], "cache_control": MARK}))
    wide = [text(f"new {i}") for i in range(25)]
    missed = cache.bill(body(*start, *wide[:-1], {**wide[-1], "cache_control": MARK}))
    system_only = block_tokens(text("s" * 4000))
    assert missed.cache_read_input_tokens == system_only, "only the system prompt's own entry was in reach"
    found = PromptCache()
    found.bill(body(*start[:-1], {**start[-1], "cache_control": MARK}))
    hit = found.bill(body(*start[:-1], {**start[-1], "cache_control": MARK}, *wide[:-1],
                          {**wide[-1], "cache_control": MARK}))
    assert hit.cache_read_input_tokens == system_only + sum(block_tokens(b) for b in start)


def test_entries_expire_after_five_minutes_unless_read():
    clock = Clock()
    cache = PromptCache(clock=clock)
    cache.bill(body(text("q")))
    clock.now = 299
    assert cache.bill(body(text("q"))).cache_read_input_tokens > 0  # read: alive five more minutes
    clock.now = 299 + 301
    assert cache.bill(body(text("q"))).cache_read_input_tokens == 0


def test_the_harness_marks_tools_system_the_previous_call_and_the_last_block():
    tools = [{"name": "a", "description": "d", "input_schema": {"type": "object"}},
             {"name": "b", "description": "d", "input_schema": {"type": "object"}}]
    messages = [{"role": "user", "content": [text("goal")]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}]
    system, marked_tools, marked = with_cache_breakpoints("system", tools, messages)
    assert system[0]["cache_control"] == MARK and marked_tools[-1]["cache_control"] == MARK
    assert "cache_control" not in marked_tools[0] and "cache_control" not in tools[-1], "copies only"
    assert marked[0]["content"][-1]["cache_control"] == MARK, "where the previous call wrote its entry"
    assert marked[2]["content"][-1]["cache_control"] == MARK
    assert "cache_control" not in marked[1]["content"][0] and "cache_control" not in messages[2]["content"][0]
