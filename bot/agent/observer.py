"""What the loop tells its observers (the CLI printer, the Slack app, tests). All methods are optional."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.agent.model import ModelResponse
    from bot.vocabulary import PendingCall, RunState, StepRecord


class Observer:
    def on_model_call(self, state: RunState) -> None:
        """A model call is about to go out: the process will wait on it (a time to load what the tools need)."""

    def on_model_response(self, state: RunState, response: ModelResponse) -> None:
        """The model answered (its text, stop reason and usage); tools have not run yet."""

    def on_tool_result(self, state: RunState, call: dict[str, Any]) -> None:
        """One tool call finished (or was held / refused); `call` is the step-log record of it."""

    def on_step(self, state: RunState, step: StepRecord) -> None:
        """A step was stored."""

    def on_approval_needed(self, state: RunState, calls: list[PendingCall]) -> None:
        """The run now waits for a person to decide on these calls."""

    def on_finished(self, state: RunState) -> None:
        """The run ended: completed, escalated or failed."""


class Observers(Observer):
    """Fan one event out to several observers; one failing observer never stops the run."""

    def __init__(self, *observers: Observer):
        self._observers = [o for o in observers if o is not None]

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("on_"):
            def fan_out(*args: Any) -> None:
                for observer in object.__getattribute__(self, "_observers"):
                    try:
                        getattr(observer, name)(*args)
                    except Exception:
                        logging.getLogger(__name__).exception("observer %s failed on %s", observer, name)
            return fan_out
        return object.__getattribute__(self, name)
