"""A person's decision on a gated call (bot/runs/lifecycle/approvals.py `decide`, from a Slack button or the CLI): its
log lines name the run, and when tracing is on it is a `kitebase.approval.decide` span (a child of the Slack
request's span when it came from Slack) with a `kitebase.approval.decided` event: who, and how long the
draft waited."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

from bot.telemetry import conventions as c
from bot.telemetry import tracing
from bot.telemetry.lookups import ApprovalLabel, approval_label
from bot.telemetry.scope import note_run, run_scope
from bot.telemetry.spans import error_type, fail, guarded
from bot.vocabulary import DECIDED_BY_PEOPLE

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from bot.db.engine import Database

P = ParamSpec("P")
DECIDED = frozenset(DECIDED_BY_PEOPLE)


class _Decision(Protocol):
    @property
    def outcome(self) -> str: ...


D = TypeVar("D", bound=_Decision)


def traced_decision(decide: Callable[Concatenate[Database, int, P], D]) -> Callable[Concatenate[Database, int, P], D]:
    @functools.wraps(decide)
    def decide_on_run(db: Database, approval_id: int, /, *args: P.args, **kwargs: P.kwargs) -> D:
        label = approval_label(db, approval_id)
        if label is None:  # no such approval: decide says so
            return decide(db, approval_id, *args, **kwargs)
        note_run(label.run.run_id)  # the Slack request it came in (if any) names the run too
        with run_scope(label.run.run_id, label.run.thread, label.run.ticket):
            tracer = tracing.tracer()
            if tracer is None:
                return decide(db, approval_id, *args, **kwargs)
            started = time.time_ns()
            try:
                decision = decide(db, approval_id, *args, **kwargs)
            except BaseException as exc:
                with guarded("a decision's span"):
                    _span(tracer, approval_id, label, started, kwargs, None, exc)
                raise
            with guarded("a decision's span"):
                _span(tracer, approval_id, label, started, kwargs, decision.outcome, None)
            return decision

    return decide_on_run


def _span(tracer: Tracer, approval_id: int, label: ApprovalLabel, started: int, kwargs: dict[str, Any],
          outcome: str | None, exc: BaseException | None) -> None:
    actor = str(kwargs.get("actor") or "")
    created = label.created_at if label.created_at.tzinfo else label.created_at.replace(tzinfo=UTC)
    waited = round((datetime.now(UTC) - created).total_seconds(), 3)
    attributes: dict[str, Any] = {c.CONVERSATION_ID: str(label.run.run_id), c.RUN_ID: label.run.run_id,
                                  c.APPROVAL_ID: approval_id, c.TOOL_NAME: label.tool_name,
                                  c.TOOL_CALL_ID: label.tool_use_id, c.APPROVAL_DECIDED_BY: actor,
                                  c.APPROVAL_WAITED: waited}
    if label.run.ticket:
        attributes[c.TICKET_ID] = label.run.ticket
    if outcome:
        attributes[c.APPROVAL_OUTCOME] = outcome
    span = tracer.start_span(c.SPAN_DECIDE, attributes=attributes, start_time=started)
    if outcome in DECIDED:
        span.add_event(c.EVENT_APPROVAL_DECIDED, {c.APPROVAL_OUTCOME: outcome, c.APPROVAL_DECIDED_BY: actor,
                                                  c.APPROVAL_WAITED: waited})
    if exc is not None:
        fail(span, error_type(exc))
    span.end()
