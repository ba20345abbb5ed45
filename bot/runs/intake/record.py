"""A person asked for something in Slack (a mention, a DM, a slash command): record it in ONE transaction,
before Slack is acknowledged. The delivery key, the queued run (or the follow-up on a thread's run) and what
the thread must show are written together, so an acknowledged request is never lost, whatever dies when,
and a retried or duplicated event changes nothing. Nothing here calls Slack or waits on it."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from sqlalchemy import bindparam, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from bot import outbox
from bot.db.engine import Database
from bot.db.models import Delivery, Run, id_of, table_of, utcnow
from bot.db.statements import insert_ignore
from bot.runs import BadInput
from bot.runs.intake import suggestions
from bot.runs.lifecycle.goals import (
    clean_text,
    closed_on_a_real_desk,
    goal_ticket,
    live_run,
    live_run_sentence,
    no_such_ticket,
)
from bot.runs.lifecycle.new_run import insert_run
from bot.runs.lifecycle.reopen import reopen_in
from bot.vocabulary import LIVE

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


def record(db: Database, request: Request, *, model: str, max_goal_chars: int, desk: str = "embedded",
           decides: suggestions.Decides | None = None) -> Intake:
    """Record the request; the caller acknowledges Slack after this returns and dispatches `run_id`.

    The first attempt counts on the database's one-live-run-per-ticket index rather than looking first;
    when the index refuses, the request is recorded again, looking first, so the thread is told which run
    already works the ticket."""
    for attempt in range(ATTEMPTS):
        try:
            with db.session() as session:
                if not _claim(session, request.key):
                    return Intake(duplicate=True)
                return _record(session, request, model=model, max_goal_chars=max_goal_chars, look_first=attempt > 0,
                               desk=desk, decides=decides)
        except IntegrityError:
            if attempt == ATTEMPTS - 1:
                raise
            logger.info("request %s: its ticket already has a live run; recording it again", request.key)
    raise AssertionError("unreachable")


def _claim(session: Session, key: str) -> bool:
    """True for the first claim of `key` (RETURNING tells, on both databases: psycopg's rowcount for a
    skipped ON CONFLICT insert is not reliable)."""
    return insert_ignore(session, _DELIVERY, {"key": key, "run_id": None, "created_at": utcnow()},
                         conflict=("key",), returning="key") is not None


def _record(session: Session, request: Request, *, model: str, max_goal_chars: int, look_first: bool,
            desk: str = "embedded", decides: suggestions.Decides | None = None) -> Intake:
    goal = strip_mentions(clean_text(request.text))
    prompt, thread_run = _suggested(request, goal), _thread_run(session, request)
    if prompt is not None:
        asked = _prompted(session, request, prompt, thread_run, decides)
        if isinstance(asked, Intake):
            return asked
        goal = asked
    elif thread_run is not None:
        return _follow_up(session, thread_run, goal, request)
    try:
        ticket_id = goal_ticket(goal, max_goal_chars, desk)
    except BadInput as exc:
        return _tell(session, request, str(exc))
    closed = closed_on_a_real_desk(session, ticket_id, desk)
    if closed is not None:
        return _tell(session, request, closed)
    if look_first:
        live = live_run(session, ticket_id)
        if live is not None:
            return _tell(session, request, live_run_sentence(live))
    origin = {"surface": "slack", "channel": request.channel, "thread_ts": request.reply_ts, "team": request.team,
              "user": request.user, "ts": request.ts}
    run_id = insert_run(session, goal=goal, ticket_id=ticket_id, model=model, started_by=request.user, origin=origin,
                        thread_key=f"{request.channel}:{request.reply_ts}" if request.reply_ts else None)
    if run_id is None:
        return _tell(session, request, no_such_ticket(ticket_id, desk))
    new = outbox.NewRun(id=run_id, ticket_id=ticket_id, model=model, origin=origin)
    if request.ts is None:
        outbox.request(session, new, goal)
    outbox.timeline(session, new, 1, {"kind": "start"})
    return Intake(run_id=run_id)


def _suggested(request: Request, goal: str) -> suggestions.Prompt | None:
    """The messages tab's suggested prompt this DM is (a message in a direct message with the app), if any."""
    if request.ts is None or not request.channel.startswith("D"):
        return None
    return suggestions.match(goal)


def _thread_run(session: Session, request: Request) -> Run | None:
    """The run whose thread this message replies in (the newest, if several), if any."""
    if not request.thread_ts or request.thread_ts == request.ts:
        return None
    return session.exec(select(Run).where(Run.thread_key == f"{request.channel}:{request.thread_ts}")
                        .order_by(col(Run.id).desc())).first()


def _prompted(session: Session, request: Request, prompt: suggestions.Prompt, thread_run: Run | None,
              decides: suggestions.Decides | None) -> Intake | str:
    """A suggested prompt is answered in its thread; "Handle the oldest urgent ticket" becomes the goal of a run
    on that ticket, recorded like any request naming it (the returned goal)."""
    if prompt.about != "urgent":
        suggestions.answer(session, prompt, key=request.key, channel=request.channel, thread_ts=request.reply_ts,
                           user=request.user, decides=decides)
        return Intake()
    if thread_run is not None:
        return _tell(session, request, f"Send “{prompt.message}” as a new message rather than in run "
                                       f"#{thread_run.id}'s thread: it starts a run of its own.")
    goal, why_not = suggestions.urgent(session)
    return goal if goal is not None else _tell(session, request, why_not or "")


def _follow_up(session: Session, run: Run, goal: str, request: Request) -> Intake:
    if not goal:
        return _tell(session, request, "The follow-up is empty; say what else you need.")
    if run.status in LIVE:
        return _tell(session, request, f"Run #{run.id} is still {run.status.replace('_', ' ')}; wait for it to "
                                       "finish (or decide its draft), then ask again in this thread.")
    other = live_run(session, run.ticket_id, other_than=run.id)
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


_DELIVERY = table_of(Delivery)
_LINK = update(_DELIVERY).where(_DELIVERY.c.key == bindparam("k")).values(run_id=bindparam("r"))


def _link(session: Session, key: str, run_id: int) -> None:
    session.connection().execute(_LINK, {"k": key, "r": run_id})
