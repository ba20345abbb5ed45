"""Due lines follow the clock: "first reply due in 14 min" becomes "due in 13 min", then "breached 1 min ago",
on the messages people keep looking at: waiting approval cards, batch cards, queue items, intake pick-up messages
and App Home.

A timer's pass (every minute) judges every such kept message by the database's clock and bumps the outbox rows
whose due line would now read differently than the one the renderer last drew (kept in the row's `state["due"]`:
bot/runs/reports/due_shown.py decides, for both, what each message shows). The one sender draws them again, as it
does any other update; nothing here calls Slack (DESIGN.md: only the sender does, for a run).

Bounded: only rows whose line changed, never a row already waiting for the sender, and at most MOST_MESSAGES
chat.update (fewer while answers to people wait for the sender) and MOST_HOMES views.publish a pass (Slack allows
chat.update about 50 times a minute for the whole workspace, and decisions need that too). The bumps go at
background priority, after any decision's answer. Which rows a pass bumps: the ones drawn longest ago first
(`Outbox.sent_at`: the line that has been wrong longest), then the nearest breach; a row drawn now waits behind
the others, so with N changed rows every line is drawn again within N / MOST_MESSAGES passes. Two processes
running it at once bump a row once (the bump needs the row sent)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, func, select

from bot.db.engine import Database
from bot.db.models import Approval, Escalation, Outbox, Run
from bot.outbox.writers import ANSWER, refreshed
from bot.runs.reports import due, due_shown, queries
from bot.vocabulary import LIVE, UNRESOLVED, ApprovalStatus, OutboxKind, OutboxStatus

logger = logging.getLogger(__name__)
MOST_MESSAGES = 20  # chat.update a pass (Tier 3: about 50 a minute for the workspace)
MOST_HOMES = 50  # views.publish a pass (Tier 4: about 100 a minute)
EVERY_SECONDS = 60  # the lines are in whole minutes


@dataclass(frozen=True)
class Shown:
    row_id: int
    was: Any  # what the row's message shows (state["due"])
    now: Any  # what it would show now
    due_at: datetime | None  # the breach nearest: who goes first among lines drawn at the same time
    drawn_at: datetime | None = None  # when the sender last drew the message (the row's sent_at)


def refresh(db: Database) -> int:
    """One pass: bump the kept messages whose due line reads differently now; returns how many."""
    with db.session() as session:
        at = due.now(session)
        allowed = max(0, MOST_MESSAGES - _answers_waiting(session))
        messages = _changed(_cards(session, at) + _queue_items(session, at) + _batches(session, at)
                            + _pick_ups(session, at), at)[:allowed]
        homes = _changed(_homes(session), at)[:MOST_HOMES]
        bumped = refreshed(session, [s.row_id for s in messages + homes])
    if bumped:
        logger.info("due lines changed: %s kept messages drawn again", bumped)
    return bumped


def _answers_waiting(session: Session) -> int:
    """Answers to people waiting for the sender: each needs a Slack call before any refresh does."""
    return int(session.exec(select(func.count()).select_from(Outbox).where(
        col(Outbox.status) == OutboxStatus.PENDING, col(Outbox.priority) == ANSWER)).one())


def _changed(found: list[Shown], at: datetime) -> list[Shown]:
    """The rows whose line reads differently now: drawn longest ago first, then the nearest breach."""
    def key(s: Shown) -> tuple[datetime, float]:
        nearness = abs((due.aware(s.due_at) - at).total_seconds()) if s.due_at else float("inf")
        return (due.aware(s.drawn_at) if s.drawn_at else _NEVER, nearness)
    return sorted((s for s in found if s.was != s.now), key=key)


_NEVER = datetime.min.replace(tzinfo=UTC)


def _kept(kind: OutboxKind) -> tuple[Any, ...]:
    """Rows of `kind` whose message Slack shows as last drawn (none waiting for the sender)."""
    return col(Outbox.kind) == kind, col(Outbox.status) == OutboxStatus.SENT, col(Outbox.ts).is_not(None)


def _was(row: Outbox) -> Any:
    return (row.state or {}).get("due")


def _shown(row: Outbox, now: due.TicketDue) -> Shown:
    return Shown(int(row.id or 0), _was(row), now.line, now.due_at, row.sent_at)


def _cards(session: Session, at: datetime) -> list[Shown]:
    rows = session.exec(select(Outbox, Approval, Run).where(*_kept(OutboxKind.CARD))
                        .join(Approval, col(Approval.id) == col(Outbox.ref_id))
                        .join(Run, col(Run.id) == col(Approval.run_id))
                        .where(col(Approval.status) == ApprovalStatus.PENDING)).all()
    lines = due_shown.prefetched(session, [due_shown.approval_ticket(a, r) for _, a, r in rows], at)
    return [_shown(row, due_shown.card(approval, run, lines)) for row, approval, run in rows]


def _queue_items(session: Session, at: datetime) -> list[Shown]:
    rows = session.exec(select(Outbox, Escalation, Run).where(*_kept(OutboxKind.QUEUE))
                        .join(Escalation, col(Escalation.id) == col(Outbox.ref_id))
                        .join(Run, col(Run.id) == col(Escalation.run_id))
                        .where(col(Escalation.status).in_(UNRESOLVED))).all()
    lines = due_shown.prefetched(session, [r.ticket_id for _, _, r in rows], at)
    return [_shown(row, due_shown.queue_item(escalation, run, lines)) for row, escalation, run in rows]


def _pick_ups(session: Session, at: datetime) -> list[Shown]:
    """Intake pick-up messages of live runs (a run that ends takes its line away itself: bot/outbox/writers.py)."""
    rows = session.exec(select(Outbox, Run).where(*_kept(OutboxKind.REQUEST)).join(Run, col(Run.id) == col(Outbox.run_id))
                        .where(col(Run.status).in_(LIVE))).all()
    intake = [(row, run) for row, run in rows if (row.payload or {}).get("intake")]  # a slash command's shows none
    lines = due_shown.prefetched(session, [r.ticket_id for _, r in intake], at)
    return [_shown(row, due_shown.pick_up(run, lines)) for row, run in intake]


def _batches(session: Session, at: datetime) -> list[Shown]:
    live = select(Run.batch_id).where(col(Run.batch_id).is_not(None), col(Run.status).in_(LIVE))
    rows = session.exec(select(Outbox).where(*_kept(OutboxKind.BATCH), col(Outbox.ref_id).in_(live))).all()
    found = []
    for row in rows:
        children = due_shown.batch(session, int(row.ref_id or 0), at)
        nearest = min((d.due_at for d in children.values() if d.due_at), default=None, key=due.aware)
        found.append(Shown(int(row.id or 0), _was(row), due_shown.batch_lines(children), nearest, row.sent_at))
    return found


def _homes(session: Session) -> list[Shown]:
    """Every App Home shows the same lists: judged once (the homes drawn longest ago go first: _changed)."""
    rows = session.exec(select(Outbox).where(col(Outbox.kind) == OutboxKind.HOME,
                                             col(Outbox.status) == OutboxStatus.SENT)).all()
    if not rows:
        return []
    waiting, drafts = queries.queue(session), queries.waiting_approvals(session)
    lines = due_shown.home_lines(waiting, drafts)
    nearest = min((datetime.fromisoformat(i["due_at"]) for i in waiting + drafts if i.get("due_at")), default=None,
                  key=due.aware)
    return [Shown(int(row.id or 0), _was(row), lines, nearest, row.sent_at) for row in rows]
