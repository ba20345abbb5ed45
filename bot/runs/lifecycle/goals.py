"""What makes a request workable: a ticket id that exists, a sane length, text the database can store."""

from __future__ import annotations

import re
import unicodedata

from sqlalchemy import bindparam
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from bot.db.models import Run, Ticket, table_of
from bot.desk.ids import EXAMPLE, ticket_ids_in
from bot.runs import BadInput
from bot.vocabulary import LIVE, RunStatus

_TICKETS = table_of(Ticket)
_TICKET_EXISTS = core_select(_TICKETS.c.id, _TICKETS.c.status).where(_TICKETS.c.id == bindparam("id"))
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_text(text: str | None) -> str:
    """Text any database stores: no NUL or other control characters, no lone surrogates (they become �)."""
    text = _CONTROL.sub(" ", text or "")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        text = "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)
    return unicodedata.normalize("NFC", text)


def check_goal(session: Session, goal: str, max_chars: int, kind: str = "embedded") -> str:
    """The ticket a request is about, or BadInput saying what is wrong with the request."""
    ticket_id = goal_ticket(goal, max_chars, kind)
    row = session.connection().execute(_TICKET_EXISTS, {"id": ticket_id}).first()
    if row is None:
        raise BadInput(no_such_ticket(ticket_id, kind))
    if kind == "zendesk" and row.status == "closed":
        raise BadInput(closed_sentence(ticket_id))
    return ticket_id


def closed_on_a_real_desk(session: Session, ticket_id: str, kind: str) -> str | None:
    """The sentence for a ticket a real desk has solved or closed (no run starts on it); None otherwise."""
    if kind != "zendesk":
        return None  # the embedded desk's closed tickets may be worked, as they always could
    row = session.connection().execute(_TICKET_EXISTS, {"id": ticket_id}).first()
    return closed_sentence(ticket_id) if row is not None and row.status == "closed" else None


def closed_sentence(ticket_id: str) -> str:
    return (f"Ticket {ticket_id} is solved or closed in Zendesk, so there is nothing to reply to. "
            "Reopen it in Zendesk first if the customer needs an answer.")


def no_such_ticket(ticket_id: str, kind: str = "embedded") -> str:
    if kind == "zendesk":
        return (f"There is no ticket {ticket_id} in the Zendesk mirror (it may be new, deleted, or of a brand "
                "this account cannot read). `kitebase desk sync` brings new tickets in.")
    return (f"There is no ticket {ticket_id}. Ids look like KITE-142; "
            "`kitebase search tickets WORDS` finds one by its words.")


def goal_ticket(goal: str, max_chars: int, kind: str = "embedded") -> str:
    """The ticket id a request names (not yet checked against the desk), or BadInput."""
    if not goal or not goal.strip():
        raise BadInput('Tell me what to do and which ticket, e.g. "handle KITE-142".')
    if len(goal) > max_chars:
        raise BadInput(f"That request is {len(goal):,} characters; keep it under {max_chars:,} "
                       "(give the ticket id rather than pasting the ticket).")
    ids = ticket_ids_in(goal, kind)
    if not ids:
        raise BadInput(f"I couldn't find a ticket id in that request. Ids look like {EXAMPLE.get(kind, 'KITE-142')}.")
    if len(ids) > 1:
        raise BadInput(several_tickets(ids))
    return ids[0]


def several_tickets(ids: list[str]) -> str:
    """A request naming several tickets is refused, never worked for one of them silently: a run works one ticket,
    and each ticket's reply is decided on its own."""
    named = ", ".join(ids[:-1]) + f" and {ids[-1]}"
    asks = " and ".join(f"`handle {t}`" for t in ids[:3])
    return (f"That request names {len(ids)} tickets ({named}); a run works one ticket, so nothing was started. "
            f"Ask for each on its own: {asks}" + (" …" if len(ids) > 3 else "") + ". To compare tickets, start with "
            "one and follow up in its run; to send one fix to many, approve it on one ticket and use "
            "**Draft for these N** (`kitebase also RUN`).")


def live_run(session: Session, ticket_id: str | None, *, other_than: int | None = None) -> Run | None:
    """The run that works `ticket_id` now (at most one: the database's one-live-run-per-ticket index)."""
    if ticket_id is None:
        return None
    query = select(Run).where(col(Run.ticket_id) == ticket_id, col(Run.status).in_(LIVE))
    if other_than is not None:
        query = query.where(col(Run.id) != other_than)
    return session.exec(query).first()


def live_run_taken(session: Session, ticket_id: str | None) -> BadInput:
    """What a person is told when the live-run index refused their run: which run has the ticket."""
    live = live_run(session, ticket_id)
    return BadInput(live_run_sentence(live) if live else f"{ticket_id} already has a live run.")


def live_run_sentence(run: Run) -> str:
    """Which run already works a ticket, and where to follow up."""
    origin = run.origin or {}
    where = ""
    if origin.get("channel") and origin.get("thread_ts"):
        where = f" in <#{origin['channel']}> (the thread of {origin['thread_ts']})"
    elif origin.get("surface"):
        where = f" (started from the {origin['surface']})"
    who = f" by <@{run.started_by}>" if run.started_by and run.started_by[:1] in "UW" else ""
    head = f"{run.ticket_id} already has a live run: #{run.id}, {run.status.replace('_', ' ')}{where}{who}."
    if origin.get("surface") == "cli" or not origin.get("thread_ts"):
        if run.status == RunStatus.AWAITING_APPROVAL:
            return (f"{head} Its draft waits for a decision: `kitebase approve {run.id}` or `kitebase reject {run.id} "
                    "--reason TEXT` (`kitebase drafts` lists what waits).")
        if run.status == RunStatus.RUNNING and run.lease_owner is None:
            return (f"{head} Nobody works it now (it was interrupted): `kitebase resume {run.id}` continues it, "
                    f"`kitebase stop {run.id}` stops it.")
        return f"{head} It is being worked now: `kitebase stop {run.id}` stops it."
    return f"{head} Follow up in that run's thread, or decide its draft, rather than starting a second one."
