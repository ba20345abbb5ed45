"""Model doubles for the benchmarks: the offline model with its own thinking time taken out, and the
Messages API stand-in answering like the offline model after a set latency, billing prompt caching."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

from bot.agent.model import ModelResponse
from bot.agent.offline import OfflineModel
from standins.anthropic_server import MessagesAPIServer, reply
from standins.prompt_cache import PromptCache

BENCH_MODEL = "claude-opus-5"  # priced in bot/agent/pricing.py, and listed in the caching documentation


class ZeroLatencyModel:
    """The offline model, answering at once; `spent` is the time it took to think, which the benchmarks
    subtract (a zero-latency model)."""

    name = "kitebase-offline"

    def __init__(self) -> None:
        self.inner = OfflineModel()
        self.spent = 0.0
        self.calls = 0

    def complete(self, **kwargs: Any) -> ModelResponse:
        started = time.perf_counter()
        try:
            return self.inner.complete(**kwargs)
        finally:
            self.spent += time.perf_counter() - started
            self.calls += 1


def without_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_control(v) for v in value]
    return value


def offline_responder(body: dict[str, Any]) -> dict[str, Any]:
    """The stand-in answers as the offline model would, reading the request it was sent; usage is left to the
    stand-in's billing."""
    response = OfflineModel().complete(system="", tools=[], messages=without_cache_control(body["messages"]),
                                       max_tokens=body["max_tokens"])
    return reply(*response.content, stop_reason=response.stop_reason,
                 usage={"output_tokens": response.usage.output_tokens})


def scripted_responder(turns: list[list[dict[str, Any]]]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The k-th assistant turn of every conversation is `turns[k]` (tool ids made unique per conversation)."""
    def respond(body: dict[str, Any]) -> dict[str, Any]:
        k = sum(1 for m in body["messages"] if m["role"] == "assistant")
        content = copy.deepcopy(turns[min(k, len(turns) - 1)])
        for block in content:
            if block.get("type") == "tool_use":
                block["id"] = f"{block['id']}_{len(body['messages'])}"
        return reply(*content)
    return respond


def stand_in(responder: Callable[[dict[str, Any]], Any], latency: float) -> MessagesAPIServer:
    return MessagesAPIServer(responder, latency=latency, billing=PromptCache())


class ScriptModel:
    """In process, at once: the k-th assistant turn of every conversation is `turns[k]`."""

    name = "kitebase-offline"

    def __init__(self, turns: list[list[dict[str, Any]]]):
        self.turns = turns

    def complete(self, *, messages: list[dict[str, Any]], **_: Any) -> ModelResponse:
        k = sum(1 for m in messages if m["role"] == "assistant")
        content = copy.deepcopy(self.turns[min(k, len(self.turns) - 1)])
        for block in content:
            if block.get("type") == "tool_use":
                block["id"] = f"{block['id']}_{len(messages)}"
        stop = "tool_use" if any(b.get("type") == "tool_use" for b in content) else "end_turn"
        return ModelResponse(content=content, stop_reason=stop)
