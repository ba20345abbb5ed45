"""Drafts never wait unseen: once a draft has waited KITEBASE_APPROVAL_REMIND_AFTER, one reminder goes to the
run's thread, mentioning the approvers (and the backup approvers, who may decide from then on).

A breach never comes unannounced (issue 49): once the reply target of a waiting draft's ticket has used
KITEBASE_SLA_REMIND_SHARE of its time (0.75: 45 of 60 minutes, judged on the clock from `Ticket.due_at` and the
target's minutes in `Ticket.sla`, or for a Zendesk target, whose length is not served, from when the customer
started waiting), the approvers are told once ("first reply due in 12 min · Enterprise · urgent: this draft still
waits for a decision"). It is folded into the long-wait reminder when both fall due in one pass: one notice with
both reasons, one mention, both recorded. A draft made after that point (its card already shows the due line) is
not announced again: it is only marked as told. When the target breaches while the draft still waits, the
breach is recorded on the run (`Run.breached_at`, the ticket's breach time) and said in its thread.

Idempotent and safe for two processes at once: each reminder is claimed by an atomic UPDATE of the approval's
`reminded_at` (or `due_reminded_at`), a breach by one of the run's `breached_at`, and the outbox row (key
`remind:<approval id>`, `remind-due:<approval id>`, `breach:<run id>`) is written in the same transaction. Times
are the caller's `now`: the database's (the timer's clock).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import col, select

from bot import outbox
from bot.db.models import Approval, Customer, Run, Ticket, TicketMessage, id_of
from bot.db.statements import changed
from bot.desk import sla
from bot.runs.lifecycle.service import RunService
from bot.runs.reports import queries
from bot.vocabulary import ApprovalStatus, RunStatus

logger = logging.getLogger(__name__)
FRESH_CARD = timedelta(minutes=2)  # a card this new is not announced again yet: its approvers just saw it


def due(service: RunService, now: datetime, remind_after_seconds: float) -> list[tuple[Approval, Run]]:
    cutoff = now - timedelta(seconds=remind_after_seconds)
    with service.db.session() as session:
        rows = session.exec(select(Approval, Run).join(Run, col(Run.id) == col(Approval.run_id))
                            .where(col(Approval.status) == ApprovalStatus.PENDING, col(Approval.reminded_at).is_(None),
                                   col(Approval.created_at) < cutoff, col(Run.status) == RunStatus.AWAITING_APPROVAL)
                            .order_by(col(Approval.id))).all()
    return [(a, r) for a, r in rows]


@dataclass(frozen=True)
class Near:
    """A waiting draft whose ticket nears its breach, and what to say."""

    approval: Approval
    run: Run
    said: str  # "first reply due in 12 min · Enterprise · urgent"


def remind_approvals(service: RunService, now: datetime, remind_after_seconds: float) -> list[int]:
    """Remind the approvers of every draft waiting longer than `remind_after_seconds`, and of every draft whose
    ticket nears its breach (one notice when both come in this pass); record a breach while a draft waits.
    Returns the approval ids reminded."""
    near = nearing(service, now)
    reminded = _remind_waited(service, now, remind_after_seconds, near)
    reminded += [a for a in remind_due(service, now, near) if a not in reminded]
    record_breaches(service, now)
    return reminded


def _remind_waited(service: RunService, now: datetime, remind_after_seconds: float,
                   near: dict[int, Near]) -> list[int]:
    """The long-wait reminders; a draft also near its breach gets the due line in the same notice, and its
    reminder before the breach is recorded as done (`due_reminded_at`) in the same transaction."""
    reminded = []
    for approval, run in due(service, now, remind_after_seconds):
        with service.db.session() as session:
            won = _claim(session, approval, col(Approval.reminded_at), now)
            folded = near.get(id_of(approval))
            if won and folded is not None and _claim(session, approval, col(Approval.due_reminded_at), now):
                _write(session, service, approval, run, now, due=folded.said)
            elif won:
                _write(session, service, approval, run, now)
        if won:
            reminded.append(id_of(approval))
    if reminded:
        logger.info("reminded the approvers of drafts %s", reminded)
    return reminded


def _claim(session: Any, approval: Approval, column: Any, now: datetime) -> bool:
    """Set the approval's `column` to `now` if it is pending and the column unset; whether this call did."""
    return changed(session.execute(update(Approval).where(col(Approval.id) == approval.id,
                                                          col(Approval.status) == ApprovalStatus.PENDING,
                                                          column.is_(None))
                                   .values({column.key: now}))) == 1


def _write(session: Any, service: RunService, approval: Approval, run: Run, now: datetime, *,
           due: str | None = None, waited: bool = True) -> None:
    """The reminder in the run's thread: of a long wait (`waited`), with what is due on the ticket (`due`) when it
    nears its breach too; or (`waited` False) only the one before a breach, which changes nobody's right to decide
    (backup approvers decide once the KITEBASE_APPROVAL_REMIND_AFTER one went)."""
    settings = service.settings
    where = outbox.thread_of(run)
    if waited:
        outbox.card_changed(session, id_of(approval))  # the card now says backup approvers may decide
    if where is None:  # a CLI run: nobody to mention in Slack
        return
    arguments = approval.tool_input or {}
    ticket_id = str(arguments.get("ticket_id") or run.ticket_id or "-")
    approvers = sorted(settings.approvers) or ([run.started_by] if run.started_by else [])
    backups = sorted(settings.backup_approvers) if waited or approval.reminded_at else []
    reminder = {"ticket_id": ticket_id, "customer": queries.customer_name(session, ticket_id),
                "tool": approval.tool_name, "waited_seconds": (now - approval.created_at).total_seconds(),
                "expires_at": (approval.created_at + timedelta(seconds=settings.approval_ttl_seconds)).isoformat(),
                "approvers": approvers, "backups": backups}
    if due is not None:
        reminder |= {"due": due, "waited": waited}
    outbox.reminder(session, approval_id=id_of(approval), run_id=id_of(run), where=where, reminder=reminder,
                    key=None if waited else f"remind-due:{id_of(approval)}")


# --- what is due: before a breach, and the breach ----------------------------------------------------------------
def waiting_on_due(service: RunService, *, breached: bool, now: datetime) -> list[tuple[Approval, Run, Ticket]]:
    """Pending drafts of runs that wait for a decision whose ticket has a breach time: before it (`breached`
    False, not yet reminded) or past it (True, the run's breach not yet recorded)."""
    query = (select(Approval, Run, Ticket).join(Run, col(Run.id) == col(Approval.run_id))
             .join(Ticket, col(Ticket.id) == col(Run.ticket_id))
             .where(col(Approval.status) == ApprovalStatus.PENDING, col(Run.status) == RunStatus.AWAITING_APPROVAL,
                    col(Ticket.due_at).is_not(None)))
    if breached:
        query = query.where(col(Ticket.due_at) <= now, col(Run.breached_at).is_(None))
    else:
        query = query.where(col(Ticket.due_at) > now, col(Approval.due_reminded_at).is_(None))
    with service.db.session() as session:
        rows = session.exec(query.order_by(col(Ticket.due_at), col(Approval.id))).all()
        for row in rows:
            for part in row:
                session.expunge(part)
    return [(a, r, t) for a, r, t in rows]


def near_breach(ticket: Ticket, now: datetime, share: float, length: timedelta | None) -> bool:
    """`share` of the ticket's active target (`length` long) is used by `now`, and it has not breached. Measured
    on the clock back from the breach: with the target's business minutes as its length, a business-hours target
    across closed hours is announced late, never early; with a Zendesk target's clock length (target_length) it
    can be early instead."""
    point = remind_point(ticket, share, length)
    return point is not None and ticket.due_at is not None and point <= _aware(now) < _aware(ticket.due_at)


def remind_point(ticket: Ticket, share: float, length: timedelta | None) -> datetime | None:
    """When `share` of the ticket's active target (`length` long) is used; None without a breach or a length."""
    if ticket.due_at is None or length is None or length <= timedelta(0):
        return None
    return _aware(ticket.due_at) - length * (1 - share)


def target_length(session: Any, ticket: Ticket, due: sla.Due) -> timedelta | None:
    """How long the ticket's running target is: its minutes (the embedded desk's), else, for a Zendesk target
    whose length is not served, from when the customer started waiting (`sla.window_start`) to its breach."""
    if due.target_minutes:
        return timedelta(minutes=due.target_minutes)
    if ticket.due_at is None:
        return None
    messages = session.exec(select(TicketMessage).where(col(TicketMessage.ticket_id) == ticket.id)).all()
    window = sla.window_start(ticket, list(messages))
    if window is None or window[0] != due.metric:
        return None
    return _aware(ticket.due_at) - window[1]


def nearing(service: RunService, now: datetime) -> dict[int, Near]:
    """The waiting drafts, by approval id, whose ticket's reply target has used KITEBASE_SLA_REMIND_SHARE of its
    time by `now` and who were not yet told."""
    share = service.settings.sla_remind_share
    found = {}
    for approval, run, ticket in waiting_on_due(service, breached=False, now=now):
        due = sla.Due.from_json(ticket.sla)
        if due is None or due.stage != "active":
            continue
        with service.db.session() as session:
            length = target_length(session, ticket, due)
            if not near_breach(ticket, now, share, length):
                continue
            if _aware(now) - _aware(approval.created_at) < FRESH_CARD:  # its card was posted a moment ago
                continue
            said = _said(session, ticket, due, now) or "the reply target nears its breach"
            found[id_of(approval)] = Near(approval, run, said)
    return found


def remind_due(service: RunService, now: datetime, near: dict[int, Near] | None = None) -> list[int]:
    """Each draft whose ticket's reply target has used KITEBASE_SLA_REMIND_SHARE of its time (`near`, else read
    now): announced again to the approvers, once (`Approval.due_reminded_at`), with a mention the card does not
    carry; not in the first FRESH_CARD after the card was posted (however late in its target the draft came, or
    however its target changed since). Returns the approval ids announced."""
    reminded: list[int] = []
    for approval_id, item in (nearing(service, now) if near is None else near).items():
        with service.db.session() as session:
            if _claim(session, item.approval, col(Approval.due_reminded_at), now):
                _write(session, service, item.approval, item.run, now, due=item.said, waited=False)
                reminded.append(approval_id)
    if reminded:
        logger.info("told the approvers that the tickets of drafts %s near their breach", reminded)
    return reminded


def record_breaches(service: RunService, now: datetime) -> list[int]:
    """Each run whose ticket's reply target breached while its draft waited for a decision: the breach time on the
    run (`Run.breached_at`, once) and a sentence in its thread. A draft made after the breach did not wait
    through it: not recorded. Returns the run ids."""
    recorded = []
    for approval, run, ticket in waiting_on_due(service, breached=True, now=now):
        due = sla.Due.from_json(ticket.sla)
        if ticket.due_at is None or _aware(approval.created_at) > _aware(ticket.due_at):
            continue
        with service.db.session() as session:
            won = changed(session.execute(update(Run).where(col(Run.id) == run.id, col(Run.breached_at).is_(None))
                                          .values(breached_at=ticket.due_at))) == 1
            where = outbox.thread_of(run)
            if won and where is not None:
                said = _said(session, ticket, due, now) or "the reply target breached"
                outbox.notice(session, channel=where.channel, thread_ts=where.thread_ts, run_id=id_of(run),
                              key=f"breach:{run.id}",
                              text=f"{said[0].upper()}{said[1:]}, while this draft waits for a decision (the card is "
                                   "above in this thread). Nothing is sent until someone decides.")
        if won:
            recorded.append(id_of(run))
    if recorded:
        logger.info("recorded the breach of runs %s while their drafts waited", recorded)
    return recorded


def _said(session: Any, ticket: Ticket, due: sla.Due | None, now: datetime) -> str | None:
    """"first reply due in 12 min · Enterprise · urgent", by the desk's figures and `now`."""
    tier = session.exec(select(Customer.tier).where(col(Customer.id) == ticket.customer_id)).first()
    return sla.describe(due, now, tier=tier, priority=ticket.priority)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
