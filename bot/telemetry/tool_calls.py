"""Tool calls carry the run. `traced_execute` wraps tools/base.py `execute`, the one function every tool call
of a run goes through (on the loop's tool threads, and for approved calls; the run layer hands the wrapped
function to the loop it builds, so `tools/` knows nothing of telemetry): it runs in the log scope of the
run being worked on in this process (ToolContext.run_id), and when tracing is on inside an
`execute_tool {name}` span under that run's segment: its real start and end, the call id, and an error status
when the result is is_error. Calls the loop answers without executing them (a guard refused them) get a
span of no length from the observer (`answered_without_running`)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.telemetry import conventions as c
from bot.telemetry import tracing
from bot.telemetry.scope import entered
from bot.telemetry.segment import active
from bot.telemetry.spans import content_json, fail, guarded

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from bot.telemetry.segment import Segment
    from tools import Execute, Tool, ToolContext, ToolResult


def traced_execute(execute: Execute) -> Execute:
    @functools.wraps(execute)
    def execute_for_run(registry: dict[str, Tool], ctx: ToolContext, name: str, args: Any) -> ToolResult:
        work = active(ctx.run_id) if ctx.run_id is not None else None
        if work is None:
            return execute(registry, ctx, name, args)
        scope, segment = work
        with entered(scope):
            if segment is None:
                return execute(registry, ctx, name, args)
            return _traced(segment, lambda: execute(registry, ctx, name, args), name, ctx.tool_use_id, args)

    return execute_for_run


def _traced(segment: Segment, run: Callable[[], ToolResult], name: str, call_id: str | None, args: Any) -> ToolResult:
    from opentelemetry.trace import use_span

    span: Span | None = None
    with guarded("starting an execute_tool span"):
        span = _start(segment, name, call_id, args)
    if span is None:
        return run()
    try:
        with use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
            result = run()
        with guarded("an execute_tool span"):
            _result(span, result)
        return result
    finally:
        with guarded("an execute_tool span"):
            segment.open_tools.pop(call_id or "", None)
            span.end()


def _start(segment: Segment, name: str, call_id: str | None, args: Any) -> Span:
    from opentelemetry.trace import SpanKind

    span = segment.tracer.start_span(f"{c.EXECUTE_TOOL} {name}", context=segment.context(), kind=SpanKind.INTERNAL,
                                     attributes=_attributes(segment, name, call_id, args, "ran"))
    if call_id:
        segment.executed.add(call_id)
        segment.open_tools[call_id] = span
    return span


def _attributes(segment: Segment, name: str, call_id: str | None, args: Any, status: str) -> dict[str, Any]:
    attributes: dict[str, Any] = {c.OPERATION: c.EXECUTE_TOOL, c.TOOL_NAME: name, c.TOOL_TYPE: "function",
                                  c.TOOL_STATUS: status, c.CONVERSATION_ID: str(segment.run_id)}
    if call_id:
        attributes[c.TOOL_CALL_ID] = call_id
    if tracing.content():
        attributes[c.TOOL_CALL_ARGUMENTS] = content_json(args)
    return attributes


def _result(span: Span, result: ToolResult) -> None:
    if result.is_error:  # what the model reads is content: the text goes on the span only on request
        fail(span, "tool_error", result.text if tracing.content() else None)
    elif tracing.content():
        span.set_attribute(c.TOOL_CALL_RESULT, content_json(result.text))


def answered_without_running(segment: Segment, call: dict[str, Any]) -> None:
    """A call the loop answered without executing it (a guard refused it): a span of no length."""
    from opentelemetry.trace import SpanKind

    name, call_id, now = str(call.get("name") or ""), str(call.get("id") or ""), time.time_ns()
    span = segment.tracer.start_span(f"{c.EXECUTE_TOOL} {name}", context=segment.context(), kind=SpanKind.INTERNAL,
                                     attributes=_attributes(segment, name, call_id, call.get("input"), "refused"),
                                     start_time=now)
    if call.get("is_error"):
        fail(span, "tool_error", str(call.get("result") or "") if tracing.content() else None)
    span.end(end_time=now)


def abandoned(segment: Segment, call: dict[str, Any]) -> None:
    """The loop gave up waiting for a call that still runs (KITEBASE_TOOL_TIMEOUT_SECONDS): its span says so."""
    span = segment.open_tools.get(str(call.get("id") or ""))
    if span is not None:
        fail(span, "timeout")
