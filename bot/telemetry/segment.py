"""Work on one run, as a span: `invoke_agent kitebase` for a run segment (one RunService.resume that runs the
loop), `kitebase.run.escalate` for a sweep that hands a run to a person.

The span starts lazily, at the first model call, tool call or loop event, with the time the work began, so a
resume that finds the run held elsewhere or still waiting makes no span. Chat and tool spans are its children
(explicit parents: tools run on other threads). `on_run` also names the run in the log lines meanwhile."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

from bot.redact import redact
from bot.telemetry import conventions as c
from bot.telemetry import tracing
from bot.telemetry.lookups import RunLabel, run_label
from bot.telemetry.scope import RunScope, run_scope
from bot.telemetry.spans import error_type, fail, guarded
from bot.vocabulary import RunStatus

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Tracer

    from bot.db.engine import Database

P = ParamSpec("P")
R = TypeVar("R")

_current: ContextVar[Segment | None] = ContextVar("kitebase_segment", default=None)
_active: dict[int, tuple[RunScope, Segment | None]] = {}  # runs this process works on now (tool threads find them)
_active_lock = threading.Lock()


class _Service(Protocol):
    db: Database
    owner: str


S = TypeVar("S", bound=_Service)


def current_segment() -> Segment | None:
    return _current.get()


def active(run_id: int) -> tuple[RunScope, Segment | None] | None:
    """The log scope and the segment (None when tracing is off) of a run this process is working on."""
    return _active.get(run_id)


@contextmanager
def _working(run_id: int, scope: RunScope, segment: Segment | None) -> Iterator[None]:
    mine = (scope, segment)
    with _active_lock:
        _active[run_id] = mine
    try:
        yield
    finally:
        with _active_lock:
            if _active.get(run_id) is mine:
                del _active[run_id]


def on_run(operation: str) -> Callable[[Callable[Concatenate[S, int, P], R]], Callable[Concatenate[S, int, P], R]]:
    """Decorate a RunService method whose first argument is the run id: its log lines name the run, and when
    tracing is on its work is one span (`operation`: c.INVOKE_AGENT or c.SPAN_ESCALATE)."""

    def decorate(method: Callable[Concatenate[S, int, P], R]) -> Callable[Concatenate[S, int, P], R]:
        @functools.wraps(method)
        def work_on_run(service: S, run_id: int, /, *args: P.args, **kwargs: P.kwargs) -> R:
            label = run_label(service.db, run_id)
            with run_scope(run_id, label.thread, label.ticket) as scope:
                tracer = tracing.tracer()
                if tracer is None:
                    with _working(run_id, scope, None):
                        return method(service, run_id, *args, **kwargs)
                segment = Segment(tracer, operation, scope, label, worker=service.owner)
                token = _current.set(segment)
                try:
                    with _working(run_id, scope, segment):
                        result = method(service, run_id, *args, **kwargs)
                    with guarded("a run's span"):
                        segment.finish(result)
                    return result
                except BaseException as exc:
                    with guarded("a run's span"):
                        segment.failed(exc)
                    raise
                finally:
                    _current.reset(token)
                    with guarded("a run's span"):
                        segment.end()

        return work_on_run

    return decorate


class Segment:
    def __init__(self, tracer: Tracer, operation: str, scope: RunScope, label: RunLabel, *, worker: str):
        self.tracer, self.operation, self.scope, self.label, self.worker = tracer, operation, scope, label, worker
        self.started_ns = time.time_ns()
        self.executed: set[str] = set()  # tool calls whose function ran (their spans come from bot/telemetry/tool_calls)
        self.open_tools: dict[str, Span] = {}
        self.usage = {c.INPUT_TOKENS: 0, c.OUTPUT_TOKENS: 0, c.CACHE_READ_TOKENS: 0, c.CACHE_CREATION_TOKENS: 0}
        self.chats = 0
        self._span: Span | None = None
        self._lock = threading.Lock()

    @property
    def run_id(self) -> int:
        return self.label.run_id

    def span(self) -> Span:
        with self._lock:
            if self._span is None:
                self._span = self._start()
            return self._span

    def started(self) -> Span | None:
        """The span if some work already made it (log lines in the run's own thread point at it)."""
        return self._span

    def _start(self) -> Span:
        from opentelemetry.trace import SpanKind

        agent = self.operation == c.INVOKE_AGENT
        attributes: dict[str, Any] = {c.CONVERSATION_ID: str(self.run_id), c.RUN_ID: self.run_id,
                                      c.WORKER: self.worker}
        if agent:
            attributes.update({c.OPERATION: c.INVOKE_AGENT, c.PROVIDER_NAME: c.PROVIDER, c.AGENT: c.AGENT_NAME})
            if self.label.model:
                attributes[c.REQUEST_MODEL] = self.label.model
        if self.scope.ticket:
            attributes[c.TICKET_ID] = self.scope.ticket
        if self.scope.thread:
            attributes[c.SLACK_THREAD] = self.scope.thread
        name = f"{c.INVOKE_AGENT} {c.AGENT_NAME}" if agent else self.operation
        return self.tracer.start_span(name, kind=SpanKind.INTERNAL, attributes=attributes,
                                      start_time=self.started_ns)

    def context(self) -> Context:
        """The parent of this segment's chat and tool spans."""
        from opentelemetry.trace import set_span_in_context

        return set_span_in_context(self.span())

    def event(self, name: str, attributes: dict[str, Any]) -> None:
        self.span().add_event(name, {k: v for k, v in attributes.items() if v is not None})

    def add_usage(self, usage: dict[str, int]) -> None:
        with self._lock:
            self.chats += 1
            for key, value in usage.items():
                self.usage[key] += value

    def finish(self, result: object) -> None:
        """The method returned: a RunState (resume; None when the run was held elsewhere) or a bool (sweeps)."""
        status = getattr(result, "status", None)
        if status is None or (self._span is None and status != RunStatus.FAILED):
            return
        span = self.span()
        span.set_attribute(c.RUN_STATUS, str(status))
        span.set_attribute(c.RUN_STEPS, int(getattr(result, "steps", 0)))
        stop_kind = getattr(result, "stop_kind", None)
        if stop_kind:
            span.set_attribute(c.STOP_KIND, stop_kind)
        if self.chats:
            span.set_attributes(self.usage)
        reason = getattr(result, "reason", None)
        if reason and tracing.content():
            span.set_attribute(c.RUN_REASON, redact(reason))
        if status == RunStatus.FAILED:
            fail(span, stop_kind or "run_failed")

    def failed(self, exc: BaseException) -> None:
        fail(self.span(), error_type(exc))

    def end(self) -> None:
        with self._lock:
            if self._span is not None:
                self._span.end()
