"""A person asked for something in Slack (a mention, a DM, a slash command): record it in ONE transaction,
before Slack is acknowledged. The delivery key, the queued run (or the follow-up on a thread's run) and what
the thread must show are written together, so an acknowledged request is never lost, whatever dies when,
and a retried or duplicated event changes nothing. Nothing here calls Slack or waits on it."""

from __future__ import annotations

import logging
import re
from contextlib import nullcontext, suppress
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, String, bindparam, cast, exists, insert, literal, null, true, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from bot import outbox
from bot.db.engine import Database, write_gate
from bot.db.models import Delivery, Run, Ticket, id_of, table_of, utcnow
from bot.db.statements import Prepared, insert_ignore
from bot.runs import BadInput
from bot.runs.intake.goals import clean_text, goal_ticket, live_run_sentence, no_such_ticket
from bot.runs.lifecycle.reopen import reopen_in
from bot.vocabulary import LIVE, Allowance, RunStatus, Usage

logger = logging.getLogger(__name__)
MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
ATTEMPTS = 3


@dataclass(frozen=True)
class Intake:
    run_id: int | None = None  # a run to continue now: new, or a thread's run with a follow-up
    duplicate: bool = False  # this message was already recorded (a retry, a duplicate event)
    told: str | None = None  # the sentence the thread gets instead of a run


@dataclass(frozen=True)
class Request:
    """A mention or DM (`ts` is the person's message), or a slash command (`ts` None: the run's thread is the
    "<@lead> asked: …" message the outbox posts first)."""

    text: str
    user: str
    channel: str
    ts: str | None
    thread_ts: str | None = None
    team: str | None = None
    delivery_key: str | None = None

    @property
    def key(self) -> str:
        return (self.delivery_key or f"msg:{self.channel}:{self.ts}")[:200]

    @property
    def reply_ts(self) -> str | None:
        return self.thread_ts or self.ts


def strip_mentions(text: str) -> str:
    return " ".join(MENTION.sub(" ", text or "").split())


def record(db: Database, request: Request, *, model: str, max_goal_chars: int) -> Intake:
    """Record the request; the caller acknowledges Slack after this returns and dispatches `run_id`.

    The first attempt counts on the database's one-live-run-per-ticket index rather than looking first
    (Slack waits for this); when the index refuses, the request is recorded again, looking first, so the
    thread is told which run already works the ticket."""
    if request.ts and request.channel and request.thread_ts in (None, request.ts):  # a new message, not a reply
        run_id = _record_new(db, request, model=model, max_goal_chars=max_goal_chars)
        if run_id is not None:
            return Intake(run_id=run_id)
    for attempt in range(ATTEMPTS):
        try:
            with db.session() as session:
                if not _claim(session, request.key):
                    return Intake(duplicate=True)
                return _record(session, request, model=model, max_goal_chars=max_goal_chars, look_first=attempt > 0)
        except IntegrityError:
            if attempt == ATTEMPTS - 1:
                raise
            logger.info("request %s: its ticket already has a live run; recording it again", request.key)
    raise AssertionError("unreachable")


def _record_new(db: Database, request: Request, *, model: str, max_goal_chars: int) -> int | None:
    """The common request, a new mention or DM that names a known ticket with no live run, recorded at the
    cost of one statement on PostgreSQL (one round trip: the delivery key, the run and its first message as
    one INSERT with data-modifying CTEs, atomic on its own) and of one short transaction on SQLite. Both run
    on the driver's connection (bot/db/statements.Prepared): through SQLAlchemy the same writes cost 1 ms, most
    of a mention's acknowledgement, against 0.15 ms.

    None when anything is out of the ordinary (no ticket named, an unknown ticket, a duplicate delivery, a
    live run on the ticket): nothing was written, and `record` takes the request the careful way."""
    params = _new_run_params(request, model=model, max_goal_chars=max_goal_chars)
    if params is None:
        return None
    with db.engine.connect() as conn:
        try:
            run_id = _write_new_run(db, conn, params, commit=True)
        except conn.dialect.loaded_dbapi.IntegrityError:  # the ticket's live run: the index refused it all
            return None
    if run_id is not None:
        outbox.wake.set()
    return run_id


def _new_run_params(request: Request, *, model: str, max_goal_chars: int) -> dict[str, Any] | None:
    goal = strip_mentions(clean_text(request.text))
    try:
        ticket_id = goal_ticket(goal, max_goal_chars)
    except BadInput:
        return None
    now = utcnow()
    origin = {"surface": "slack", "channel": request.channel, "thread_ts": request.reply_ts, "team": request.team,
              "user": request.user, "ts": request.ts}
    run = {"goal": goal, "ticket_id": ticket_id, "status": RunStatus.QUEUED, "model": model,
           "started_by": request.user, "origin": origin, "thread_key": f"{request.channel}:{request.reply_ts}",
           "messages": [{"role": "user", "content": [{"type": "text", "text": goal}]}],
           "created_at": now, "updated_at": now, **_NEW_RUN}
    first = outbox.first_message(channel=request.channel, thread_ts=request.reply_ts, ticket_id=ticket_id, model=model)
    return {**run, **{f"o_{k}": v for k, v in first.items()}, "d_key": request.key, "known_ticket": ticket_id}


def _write_new_run(db: Database, conn: Connection, params: dict[str, Any], *, commit: bool) -> int | None:
    """The three rows on the driver's connection; rolled back instead of committed when not `commit`."""
    raw = conn.connection.dbapi_connection
    if raw is None:
        return None
    if conn.dialect.name == "postgresql":
        if commit:
            conn.execution_options(isolation_level="AUTOCOMMIT")  # one statement, atomic on its own
        row = _NEW_AT_ONCE.execute(raw, conn.dialect, params)
        if not commit:
            raw.rollback()
        return int(row[0]) if row else None
    gate = write_gate(db.engine)  # SQLite: one transaction, behind this process's write gate
    with gate.held(raw) if gate is not None else nullcontext():
        try:
            row = None
            if _CLAIM_KNOWN.execute(raw, conn.dialect, params) is not None:
                row = _NEW_RUN_IF_KNOWN.execute(raw, conn.dialect, params)
            if row is None:  # a duplicate, or an unknown ticket
                raw.rollback()
                return None
            run_id = int(row[0])
            _INSERT_FIRST.execute(raw, conn.dialect, {**params, "o_run_id": run_id,
                                                      "o_key": outbox.timeline_key(run_id, 1)})
            raw.commit() if commit else raw.rollback()
            return run_id
        except BaseException:
            raw.rollback()
            raise


def _claim(session: Session, key: str) -> bool:
    """True for the first claim of `key` (RETURNING tells, on both databases: psycopg's rowcount for a
    skipped ON CONFLICT insert is not reliable)."""
    return insert_ignore(session, _DELIVERY, {"key": key, "run_id": None, "created_at": utcnow()},
                         conflict=("key",), returning="key") is not None


def _record(session: Session, request: Request, *, model: str, max_goal_chars: int, look_first: bool) -> Intake:
    goal = strip_mentions(clean_text(request.text))
    if request.thread_ts and request.thread_ts != request.ts:
        run = session.exec(select(Run).where(Run.thread_key == f"{request.channel}:{request.thread_ts}")
                           .order_by(col(Run.id).desc())).first()
        if run is not None:
            return _follow_up(session, run, goal, request)
    try:
        ticket_id = goal_ticket(goal, max_goal_chars)
    except BadInput as exc:
        return _tell(session, request, str(exc))
    if look_first:
        live = session.exec(select(Run).where(Run.ticket_id == ticket_id, col(Run.status).in_(LIVE))).first()
        if live is not None:
            return _tell(session, request, live_run_sentence(live))
    now = utcnow()
    values = {"goal": goal, "ticket_id": ticket_id, "status": RunStatus.QUEUED, "model": model, "started_by": request.user,
              "origin": {"surface": "slack", "channel": request.channel, "thread_ts": request.reply_ts,
                         "team": request.team, "user": request.user, "ts": request.ts},
              "thread_key": f"{request.channel}:{request.reply_ts}" if request.reply_ts else None,
              "messages": [{"role": "user", "content": [{"type": "text", "text": goal}]}],
              "created_at": now, "updated_at": now, **_NEW_RUN}
    # One statement: the run, if its ticket exists (the live-run index speaks here too).
    params = {**values, "known_ticket": ticket_id}
    run_id = session.connection().execute(_INSERT_RUN, params).scalar()
    if run_id is None:
        return _tell(session, request, no_such_ticket(ticket_id))
    new = outbox.NewRun(id=run_id, ticket_id=ticket_id, model=model, origin=values["origin"])
    if request.ts is None:
        outbox.request(session, new, goal)
    outbox.timeline(session, new, 1, {"kind": "start"})
    return Intake(run_id=run_id)


def _follow_up(session: Session, run: Run, goal: str, request: Request) -> Intake:
    if not goal:
        return _tell(session, request, "The follow-up is empty; say what else you need.")
    if run.status in LIVE:
        return _tell(session, request, f"Run #{run.id} is still {run.status.replace('_', ' ')}; wait for it to "
                                       "finish (or decide its draft), then ask again in this thread.")
    other = session.exec(select(Run).where(Run.ticket_id == run.ticket_id, col(Run.status).in_(LIVE),
                                           Run.id != run.id)).first()
    if other is not None:
        return _tell(session, request, live_run_sentence(other))
    reopen_in(session, run, goal, opening={"kind": "follow_up", "actor": request.user})
    _link(session, request.key, id_of(run))
    return Intake(run_id=run.id)


def _tell(session: Session, request: Request, sentence: str) -> Intake:
    """The request starts nothing: the thread says why (a slash command answers in its acknowledgement)."""
    if request.ts is not None:
        outbox.notice(session, channel=request.channel, thread_ts=request.reply_ts, text=sentence,
                      key=f"notice:{request.key}")
    return Intake(told=sentence)


_RUN, _TICKET, _DELIVERY = table_of(Run), table_of(Ticket), table_of(Delivery)
_NEW_RUN = {"steps": 0, "cost_usd": 0.0, **Usage().model_dump(), **Allowance().model_dump()}
# What a new run's row says; its other columns start NULL. Kept short on purpose: psycopg parses a statement
# of at most 50 parameters and 4 kB once per connection, and a longer one on every execution.
_RUN_COLUMNS = [_RUN.c[name] for name in ("goal", "ticket_id", "status", "model", "started_by", "origin", "thread_key",
                                          "messages", "created_at", "updated_at", *_NEW_RUN)]
_FIRST_COLUMNS = [outbox.OUTBOX.c[name] for name in ("kind", "priority", "channel", "thread_ts", "payload", "version",
                                                     "sent_version", "status", "attempts", "next_attempt_at",
                                                     "created_at", "updated_at")]
_INSERT_RUN = insert(_RUN).from_select(
    [c.name for c in _RUN_COLUMNS],
    select(*[bindparam(c.name, type_=c.type) for c in _RUN_COLUMNS]).where(
        exists().where(_TICKET.c.id == bindparam("known_ticket")))).returning(_RUN.c.id)
_NEW_RUN_IF_KNOWN = Prepared(_INSERT_RUN)


def _claim_if_known(dialect_insert: Any) -> Any:
    """INSERT the delivery key if the ticket exists and the key is new; RETURNING the key (no row otherwise)."""
    return dialect_insert(_DELIVERY).from_select(
        ["key", "run_id", "created_at"],
        select(bindparam("d_key", type_=_DELIVERY.c.key.type), null(),
               bindparam("created_at", type_=_DELIVERY.c.created_at.type))
        .where(exists().where(_TICKET.c.id == bindparam("known_ticket")))).on_conflict_do_nothing(
        index_elements=["key"]).returning(_DELIVERY.c.key)


_CLAIM_KNOWN = Prepared(_claim_if_known(sqlite_insert))
_INSERT_FIRST = Prepared(insert(outbox.OUTBOX).values({c.name: bindparam(f"o_{c.name}", type_=c.type) for c in
                                                       [*_FIRST_COLUMNS, outbox.OUTBOX.c.key, outbox.OUTBOX.c.run_id]}))


def _new_at_once() -> Any:
    """PostgreSQL: claim the delivery key (if the ticket exists), insert the run (if claimed) and its first
    message (if inserted), as one statement; it returns the run's id, or no row."""
    claim = _claim_if_known(postgresql.insert).cte("claim")
    new_run = insert(_RUN).from_select(
        [c.name for c in _RUN_COLUMNS],
        select(*[bindparam(c.name, type_=c.type) for c in _RUN_COLUMNS]).select_from(claim)
    ).returning(_RUN.c.id).cte("new_run")
    first = insert(outbox.OUTBOX).from_select(
        ["run_id", "key", *[c.name for c in _FIRST_COLUMNS]],
        select(new_run.c.id, literal("timeline:") + cast(new_run.c.id, String) + literal(":1"),
               *[bindparam(f"o_{c.name}", type_=c.type) for c in _FIRST_COLUMNS]).select_from(new_run)
    ).returning(outbox.OUTBOX.c.id).cte("first_message")
    return select(new_run.c.id).select_from(new_run.join(first, true()))


_NEW_AT_ONCE = Prepared(_new_at_once())
_LINK = update(_DELIVERY).where(_DELIVERY.c.key == bindparam("k")).values(run_id=bindparam("r"))


def _link(session: Session, key: str, run_id: int) -> None:
    session.connection().execute(_LINK, {"k": key, "r": run_id})


def warm_up(db: Database, *, model: str, max_goal_chars: int, connections: int = 1) -> None:
    """Record a request in transactions that are rolled back: the statements Slack's acknowledgement waits on
    are compiled before the first real request, and `connections` pooled connections (one per thread that
    answers Slack) have opened and prepared them (a new PostgreSQL connection's first use of the tables costs
    several ms). Nothing is written."""
    with Session(db.engine) as session:
        ticket = session.connection().execute(select(_TICKET.c.id).limit(1)).scalar()
        if ticket is None:
            return
        request = Request(text=f"handle {ticket}", user="U0WARMUP", channel="C0WARMUP", ts="0.0")
        _claim(session, "warm-up")
        _record(session, request, model=model, max_goal_chars=max_goal_chars, look_first=True)
        session.rollback()
    params = _new_run_params(request, model=model, max_goal_chars=max_goal_chars)
    opened = [db.engine.connect() for _ in range(connections)]  # all at once: each its own connection
    try:
        for conn in opened:
            with suppress(conn.dialect.loaded_dbapi.IntegrityError):  # a live run on that ticket: still warm
                if params is not None:
                    _write_new_run(db, conn, params, commit=False)
    finally:
        for conn in opened:
            conn.close()
