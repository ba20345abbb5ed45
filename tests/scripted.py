"""A scripted model for loop tests: a list of responses (or a function of the messages), recording
exactly what the loop sent on every call."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from bot.agent.model import ModelResponse
from bot.vocabulary import Usage

_ids = iter(range(1, 1_000_000))


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(name: str, id: str | None = None, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": id or f"toolu_s{next(_ids):04d}", "name": name, "input": arguments}


def respond(*content: dict[str, Any], stop: str | None = None, usage: Usage | None = None) -> ModelResponse:
    stop = stop or ("tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn")
    return ModelResponse(content=list(content), stop_reason=stop, usage=usage or Usage(input_tokens=100, output_tokens=20))


class ScriptedModel:
    def __init__(self, script: list[ModelResponse] | Callable[[list[dict[str, Any]]], ModelResponse],
                 name: str = "kitebase-offline"):
        self.name = name
        self.script = script
        self.sent: list[list[dict[str, Any]]] = []

    def complete(self, *, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]],
                 max_tokens: int, timeout: float | None = None) -> ModelResponse:
        self.sent.append(copy.deepcopy(messages))
        if callable(self.script):
            return self.script(messages)
        if len(self.sent) > len(self.script):
            raise AssertionError(f"the loop made call {len(self.sent)} but the script has {len(self.script)}")
        entry = self.script[len(self.sent) - 1]
        return entry(messages) if callable(entry) else copy.deepcopy(entry)
