"""What the loop reports, as events on the segment's span: guard trips, approvals requested, escalations; and
an `execute_tool` span for each call the loop answered without running it (bot/telemetry/tool_calls.py traces
the calls that ran). Attached by the run layer beside the other observers; the loop is not touched."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.agent.observer import Observer
from bot.redact import redact
from bot.telemetry import conventions as c
from bot.telemetry import tracing
from bot.telemetry.tool_calls import abandoned, answered_without_running
from bot.vocabulary import RunStatus

if TYPE_CHECKING:
    from bot.telemetry.segment import Segment
    from bot.vocabulary import PendingCall, RunState, StepRecord


class TracingObserver(Observer):
    def __init__(self, segment: Segment):
        self.segment = segment

    def on_tool_result(self, state: RunState, call: dict[str, Any]) -> None:
        if call.get("status") == "held":
            return  # not run yet: on_approval_needed says so
        if str(call.get("id") or "") not in self.segment.executed:
            answered_without_running(self.segment, call)
        elif call.get("is_error"):
            abandoned(self.segment, call)

    def on_step(self, state: RunState, step: StepRecord) -> None:
        if step.kind == "guard":
            self.segment.event(c.EVENT_GUARD, {c.GUARD_REASON: redact(step.text or ""), c.RUN_STEPS: state.steps})

    def on_approval_needed(self, state: RunState, calls: list[PendingCall]) -> None:
        for call in calls:
            self.segment.event(c.EVENT_APPROVAL_REQUESTED, {
                c.TOOL_NAME: call.name, c.TOOL_CALL_ID: call.tool_use_id, c.TICKET_ID: _ticket(call.input),
                c.APPROVAL_OTHER_TICKET: call.other_ticket})

    def on_finished(self, state: RunState) -> None:
        if state.status != RunStatus.ESCALATED:
            return
        reason = redact(state.reason or "") if tracing.content() else None
        self.segment.event(c.EVENT_ESCALATED, {c.ESCALATION_KIND: state.stop_kind or "escalated",
                                               c.RUN_REASON: reason})


def _ticket(arguments: dict[str, Any]) -> str | None:
    ticket = arguments.get("ticket_id")
    return ticket if isinstance(ticket, str) else None
