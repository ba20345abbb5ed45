"""What the Messages API stand-in answers with: `offline_brain` answers every request as the offline model
would (reading the request it was sent), so a test or a benchmark exercises the real client on the wire."""

from __future__ import annotations

from typing import Any

from bot.agent.offline import OfflineModel
from standins.anthropic_server import redacted_thinking, reply, thinking

THINKING_TOKENS = 400  # what a turn's thinking costs in output tokens (the full thinking, not the summary)
USAGE = {"input_tokens": 900, "output_tokens": 120, "cache_read_input_tokens": 2400, "cache_creation_input_tokens": 300}


def strip_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value


def offline_brain(body: dict[str, Any]) -> dict[str, Any]:
    """The stand-in answers like the offline model would, reading the request it was sent."""
    response = OfflineModel().complete(system="", tools=[], messages=strip_cache_control(body["messages"]),
                                       max_tokens=body["max_tokens"])
    return reply(*response.content, stop_reason=response.stop_reason, usage=USAGE)


def thinking_brain(body: dict[str, Any]) -> dict[str, Any]:
    """The offline model's answer, with the thinking a model asked for adaptive thinking would show first: a
    summary of what it is about to do (signed by the stand-in), and on its third turn a redacted block too."""
    answer = offline_brain(body)
    config = body.get("thinking") or {}
    if config.get("type") not in ("adaptive", "enabled"):
        return answer
    turn = sum(1 for m in body["messages"] if m["role"] == "assistant") + 1
    calls = [b for b in answer["content"] if b["type"] == "tool_use"]
    plan = (f"I should call {', '.join(b['name'] for b in calls)} next." if calls
            else "I have what I need; time to write the answer for the lead.")
    summary = "" if config.get("display") == "omitted" else f"Turn {turn}: {plan}"
    blocks = [thinking(summary)] + ([redacted_thinking()] if turn == 3 else [])
    usage = {**USAGE, "output_tokens": USAGE["output_tokens"] + THINKING_TOKENS}  # billed as output, like the API
    return {**answer, "content": blocks + answer["content"], "usage": usage}
