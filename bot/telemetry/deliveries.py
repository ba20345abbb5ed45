"""The outbox sender's deliveries (bot/outbox/sender.py): while a row is delivered, log lines name its run and
thread; when tracing is on, each delivered row is a `kitebase.outbox.deliver` span: the row's kind, the Slack
methods called, the outcome the row recorded (sent | retry | failed | nothing_to_send), and its attempts."""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from sqlalchemy import select
from sqlmodel import col

from bot.db.models import Outbox
from bot.telemetry import conventions as c
from bot.telemetry import tracing
from bot.telemetry.scope import note_run, run_scope, thread_key
from bot.telemetry.spans import fail, guarded
from bot.vocabulary import OutboxStatus

if TYPE_CHECKING:
    from bot.db.engine import Database

_OUTCOME = select(col(Outbox.status), col(Outbox.sent_version), col(Outbox.last_error))
_ERROR = re.compile(r"^(?:looking for an uncertain post: )?(?:[\w.]+: )?([\w.]+)")


class _Sender(Protocol):
    db: Database


S = TypeVar("S", bound=_Sender)


@dataclass
class Delivery:
    started_ns: int
    row_id: int
    kind: str | None = None  # set once the row is claimed
    run_id: int | None = None
    channel: str | None = None
    attempts: int = 0
    version: int = 0
    methods: list[str] = field(default_factory=list)


_current: ContextVar[Delivery | None] = ContextVar("kitebase_delivery", default=None)


def traced_delivery(deliver: Callable[[S, int], None]) -> Callable[[S, int], None]:
    @functools.wraps(deliver)
    def deliver_row(sender: S, row_id: int) -> None:
        delivery = Delivery(time.time_ns(), row_id)
        token = _current.set(delivery)
        try:
            with run_scope():
                deliver(sender, row_id)
        finally:
            _current.reset(token)
            if delivery.kind is not None and tracing.tracer() is not None:
                with guarded("a delivery's span"):
                    _span(sender.db, delivery)

    return deliver_row


def note_outbox_row(row: Any) -> None:
    """The row being delivered, once claimed (its run and thread name the log lines meanwhile)."""
    delivery = _current.get()
    if delivery is None:
        return
    delivery.kind, delivery.run_id, delivery.channel = row.kind, row.run_id, row.channel
    delivery.attempts, delivery.version = row.attempts, row.version
    if row.run_id is not None:
        note_run(row.run_id, thread_key(row.channel, row.thread_ts))


def note_slack_call(method: str) -> None:
    delivery = _current.get()
    if delivery is not None:
        delivery.methods.append(method)


def _span(db: Database, delivery: Delivery) -> None:
    from opentelemetry.trace import SpanKind

    tracer = tracing.tracer()
    if tracer is None:
        return
    outcome, error = _outcome(db, delivery)
    attributes: dict[str, Any] = {c.OUTBOX_ROW: delivery.row_id, c.OUTBOX_KIND: delivery.kind or "",
                                  c.OUTBOX_METHODS: delivery.methods, c.OUTBOX_OUTCOME: outcome,
                                  c.OUTBOX_ATTEMPTS: delivery.attempts}
    if delivery.channel:
        attributes[c.SLACK_CHANNEL] = delivery.channel
    if delivery.run_id is not None:
        attributes.update({c.CONVERSATION_ID: str(delivery.run_id), c.RUN_ID: delivery.run_id})
    span = tracer.start_span(c.SPAN_DELIVER, kind=SpanKind.CLIENT, attributes=attributes,
                             start_time=delivery.started_ns)
    if error is not None:
        fail(span, error)
    span.end()


def _outcome(db: Database, delivery: Delivery) -> tuple[str, str | None]:
    """What the row says now: the outcome of this delivery, and the error type of a failed one."""
    try:
        with db.session() as session:
            row = session.connection().execute(_OUTCOME.where(col(Outbox.id) == delivery.row_id)).first()
    except Exception:
        return "unknown", None
    if row is None:
        return "unknown", None
    status, sent_version, last_error = row
    if status == OutboxStatus.FAILED:
        return "failed", _error_type(last_error)
    if sent_version >= delivery.version:
        return ("sent" if delivery.methods else "nothing_to_send"), None
    return "retry", _error_type(last_error)


def _error_type(last_error: str | None) -> str:
    """The Slack error code (or exception name) of the row's last error: "chat.postMessage: ratelimited ..."."""
    match = _ERROR.match((last_error or "").strip())
    return match.group(1) if match else "_OTHER"
