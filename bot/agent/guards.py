"""The guards: one typed object checked before every model call."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bot.agent.errors import GuardTripped
from bot.agent.history import tool_uses
from bot.config import Settings
from bot.vocabulary import RunState


@dataclass(frozen=True)
class Limits:
    max_steps: int = 15
    token_budget: int = 400_000
    cost_budget_usd: float = 2.0
    deadline_seconds: float = 300.0
    max_repeats: int = 2

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(settings.max_steps, settings.token_budget, settings.cost_budget_usd, settings.deadline_seconds,
                   settings.max_repeats)

    def check(self, state: RunState, active_seconds: float) -> None:
        """Raise GuardTripped naming the first limit reached, before the next model call is made."""
        if state.allowance.segment_steps >= self.max_steps:
            raise GuardTripped("max_steps", state.allowance.segment_steps, self.max_steps,
                               f"step limit reached: {state.allowance.segment_steps} of {self.max_steps} model calls "
                               "(KITEBASE_MAX_STEPS) and the agent had not finished")
        if state.allowance.segment_tokens >= self.token_budget:
            raise GuardTripped("token_budget", state.allowance.segment_tokens, self.token_budget,
                               f"token budget spent: {state.allowance.segment_tokens:,} of {self.token_budget:,} tokens "
                               "incl. cache reads and writes (KITEBASE_TOKEN_BUDGET)")
        if state.allowance.segment_cost_usd >= self.cost_budget_usd:
            raise GuardTripped("cost_budget", state.allowance.segment_cost_usd, self.cost_budget_usd,
                               f"dollar budget spent: ${state.allowance.segment_cost_usd:.4f} of ${self.cost_budget_usd:.2f} "
                               "(KITEBASE_COST_BUDGET_USD)")
        if active_seconds >= self.deadline_seconds:
            raise GuardTripped("deadline", active_seconds, self.deadline_seconds,
                               self.deadline_message(active_seconds))
        name, count = self.most_repeated(state)
        if count > self.max_repeats + 1:
            raise GuardTripped("repetition", count, self.max_repeats,
                               f"repetition: {name} was called {count} times with the same arguments, "
                               f"again after a warning (KITEBASE_MAX_REPEATS={self.max_repeats})")

    def deadline_message(self, active_seconds: float, during_call: bool = False) -> str:
        cut = "; the model call under way was cut short" if during_call else ""
        return f"deadline passed: {active_seconds:.1f}s of {self.deadline_seconds:g}s (KITEBASE_DEADLINE_SECONDS){cut}"

    def repeat_count(self, state: RunState, name: str, arguments: dict[str, Any]) -> int:
        """How often this exact call appears in the current allowance's history (the current turn included)."""
        return call_counts(state.messages[state.allowance.segment_first_message:])[_key(name, arguments)]

    def most_repeated(self, state: RunState) -> tuple[str, int]:
        counts = call_counts(state.messages[state.allowance.segment_first_message:])
        if not counts:
            return "", 0
        key, count = counts.most_common(1)[0]
        return key.split("\x00", 1)[0], count


def _key(name: str, arguments: dict[str, Any]) -> str:
    return name + "\x00" + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def call_counts(messages: list[dict[str, Any]]) -> Counter[str]:
    return Counter(_key(u.get("name", ""), u.get("input") or {})
                   for m in messages if m.get("role") == "assistant" for u in tool_uses(m))
