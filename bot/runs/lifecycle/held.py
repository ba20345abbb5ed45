"""A customer's messages that wait for a person (DESIGN: "a person's word holds"). A run a person stopped, took
from the human queue or closed is not restarted by the customer writing again: the message is shown in the run's
thread and waits, and it goes into the run when a person continues it. Messages that arrive together (while a run
works, or while it waits for a person) continue the run once, all of them in one message."""

from __future__ import annotations

import re

from sqlalchemy import update
from sqlmodel import Session, col, select

from bot import outbox
from bot.db import clock
from bot.db.models import DeskArrival, Escalation, Run, id_of
from bot.db.statements import changed
from bot.desk.mirror import attachments_of
from bot.vocabulary import (
    OPEN_ARRIVALS,
    TERMINAL,
    UNRESOLVED,
    ArrivalKind,
    ArrivalState,
    EscalationStatus,
    RunStatus,
)
from tools.base import truncate

FILES_SHOWN = 5  # of a message's files named in a continuation (the ticket lists them all)
FILE_CHARS = 300  # of a file's name and of its link there
SHOWN_CHARS = 1500  # of a held message in the run's thread (the desk has it whole)
FOR_A_PERSON = "held for a person:"  # an arrival's reason while a person holds its run (the pass skips these)


def person_hold(session: Session, run: Run) -> str | None:
    """What a person did that keeps `run` where it is ("stopped by U0LEAD1", "taken by …", "closed by …"), or
    None. A stop counts however the run then ended (it may have escalated before the stop took effect); a take or
    a close counts while the run still sits where its hand-off left it (a person who continued it since has moved
    it on). An open hand-off nobody has taken is not a person's word: the customer's news may settle it."""
    if run.status not in TERMINAL:
        return None
    if run.status == RunStatus.STOPPED or run.stop_requested_by:
        return f"stopped by {run.stop_requested_by or 'a person'}"
    if run.status == RunStatus.COMPLETED:
        return None
    latest = session.exec(select(Escalation).where(Escalation.run_id == run.id)
                          .order_by(col(Escalation.id).desc())).first()
    if latest is not None and latest.status in (EscalationStatus.CLAIMED, EscalationStatus.CLOSED):
        verb = "taken" if latest.status == EscalationStatus.CLAIMED else "closed"
        return f"{verb} by {latest.claimed_by or 'a person'}"
    return None


def for_a_person(session: Session, ticket_id: str | None, *, chars: int = 300) -> list[dict[str, str]]:
    """The customer's messages on `ticket_id` that wait for a person to continue its run, oldest first, as the
    human queue shows them (author, when, the text cut at `chars`; the desk has it whole)."""
    if not ticket_id:
        return []
    rows = session.exec(select(DeskArrival).where(col(DeskArrival.ticket_id) == ticket_id,
                                                  col(DeskArrival.kind) == ArrivalKind.MESSAGE,
                                                  col(DeskArrival.state) == ArrivalState.NEW,
                                                  col(DeskArrival.reason).startswith(FOR_A_PERSON))
                        .order_by(col(DeskArrival.id))).all()
    return [{"author": m.author or "The customer", "at": m.created_at.isoformat(),
             "body": truncate(" ".join((m.body or "").split()), chars)} for m in rows]


def held_reason(run: Run, hold: str) -> str:
    return f"{FOR_A_PERSON} run #{run.id} was {hold}; it continues only when a person resumes it"


def show(session: Session, run: Run, arrival: DeskArrival, hold: str) -> None:
    """The held message, once, in the run's thread, with who holds the run and how to continue it."""
    how = (f"`kitebase resume {run.id}`" if hold.startswith("closed") else
           f"*Resume run* in the human queue, or `kitebase resume {run.id}`")
    person = re.sub(r"\bby ([UW][A-Z0-9]{2,})\b", r"by <@\1>", hold)  # a Slack user as a mention, in the thread
    shown(session, run, arrival, key=hold.split()[0], why=f"while run #{run.id} is {person}", how=how)
    for escalation in session.exec(select(Escalation.id).where(col(Escalation.run_id) == run.id,
                                                               col(Escalation.status).in_(UNRESOLVED))).all():
        outbox.queue_changed(session, int(escalation or 0))  # the queue item shows the message too


def shown(session: Session, run: Run, arrival: DeskArrival, *, key: str, why: str, how: str) -> None:
    """A customer's message no automatic path continues the run with, once, in the run's thread: why, and how a
    person continues it (the message goes with that)."""
    body = " ".join((arrival.body or "").split())
    body = outbox.plain(body if len(body) <= SHOWN_CHARS else body[: SHOWN_CHARS - 1] + "…")
    who = outbox.plain(arrival.author or "The customer")
    outbox.in_thread(session, run, key=f"held:{arrival.id}:{key}",
                     text=f"{who} wrote again on {arrival.ticket_id} {why}:\n> {body}\n"
                          f"Nothing was drafted: the run goes on only when a person continues it ({how}), and this "
                          "message goes with it.")


def open_messages(session: Session, ticket_id: str | None) -> list[DeskArrival]:
    """The ticket's customer messages not yet answered by any run, oldest first."""
    if not ticket_id:
        return []
    return list(session.exec(select(DeskArrival).where(col(DeskArrival.ticket_id) == ticket_id,
                                                       col(DeskArrival.kind) == ArrivalKind.MESSAGE,
                                                       col(DeskArrival.state).in_(OPEN_ARRIVALS))
                             .order_by(col(DeskArrival.id))).all())


def continuation(ticket_id: str, messages: list[DeskArrival], limit: int) -> str:
    """The user message that continues a run with the customer's new messages, oldest first (the form the offline
    model reads back: bot/agent/offline.py CUSTOMER_AGAIN). Like a tool result (KITEBASE_TOOL_RESULT_MAX_CHARS),
    each message is cut at `limit` characters and marked, and all of them together stay within about `limit`: the
    newest are kept and the earlier ones counted (every message stays whole on the ticket)."""
    who = ", ".join(dict.fromkeys(m.author or "the customer" for m in messages))
    kept: list[str] = []
    for message in reversed(messages):
        files = files_line(message)
        body = _cut(message.body or "", max(limit - len(files), limit // 2)) + files
        if kept and sum(map(len, kept)) + len(body) > limit:
            break
        kept.insert(0, body)
    earlier = len(messages) - len(kept)
    if len(messages) == 1:
        body = kept[0]
    else:
        body = "\n\n".join(f"({n}) {b}" for n, b in enumerate(kept, earlier + 1))
        if earlier:
            body = (f"({earlier} earlier message{' is' if earlier == 1 else 's are'} on the ticket, not repeated "
                    "here)\n\n" + body)
    return (f"The customer ({who}) wrote again on ticket {ticket_id}:\n\n{body}\n\nRead the ticket's new "
            f"message{'s' if len(messages) > 1 else ''} and continue: draft a reply for the customer if one is "
            "needed (it waits for a person's approval, as before).")


def files_line(message: DeskArrival) -> str:
    """The files the customer attached to the message, as facts (never their content): the model is told they
    are there, so it asks for none it already has, and a person opens them from the ticket."""
    files = attachments_of((message.fields or {}).get("attachments"))
    if not files:
        return ""
    shown = [truncate(a.line(), FILE_CHARS) + (f" {a.url[:FILE_CHARS]}" if a.url else "") for a in files[:FILES_SHOWN]]
    more = f"; and {len(files) - FILES_SHOWN} more on the ticket" if len(files) > FILES_SHOWN else ""
    return "\n[Attached (not read; open them on the ticket): " + "; ".join(shown) + more + "]"


def _cut(body: str, limit: int) -> str:
    if len(body) <= limit:
        return body
    return truncate(body, limit) + " (the whole message is on the ticket)"


def taken_into(session: Session, run: Run, messages: list[DeskArrival], reason: str) -> None:
    """These messages went into `run` (each once: a pass deciding one at the same moment loses)."""
    for message in messages:
        changed(session.execute(update(DeskArrival).where(col(DeskArrival.id) == message.id,
                                                          col(DeskArrival.state).in_(OPEN_ARRIVALS))
                                .values(state=ArrivalState.STARTED, reason=reason, run_id=id_of(run),
                                        decided_at=clock.now())))
