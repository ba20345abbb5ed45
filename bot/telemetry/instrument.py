"""The run layer's one call when it builds a loop (bot/runs/lifecycle/service.py `_loop`): the model client and the
observer the loop gets. With tracing on (a segment is being worked on), a `chat` span per model call and the
loop's reports as events; otherwise both unchanged. Tool calls: bot/telemetry/tool_calls.py `traced_execute`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.agent.observer import Observer, Observers
from bot.telemetry.chat import TracedModel
from bot.telemetry.loop_events import TracingObserver
from bot.telemetry.segment import current_segment

if TYPE_CHECKING:
    from bot.agent.model import ModelClient


def instrument(model: ModelClient, observer: Observer | None) -> tuple[ModelClient, Observer | None]:
    segment = current_segment()
    if segment is None:
        return model, observer
    tracing = TracingObserver(segment)
    return TracedModel(model, segment), Observers(observer, tracing) if observer else tracing
