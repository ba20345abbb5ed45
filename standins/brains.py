"""What the Messages API stand-in answers with: `offline_brain` answers every request as the offline model
would (reading the request it was sent), so a test or a benchmark exercises the real client on the wire."""

from __future__ import annotations

from typing import Any

from bot.agent.offline import OfflineModel
from standins.anthropic_server import reply

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
