"""One name for a run: what a person types to say which run they mean. The run's number as `kitebase runs` shows
it (`12`, `#12`, `run 12`), or a ticket (`KITE-142`, on Zendesk `ticket 4821` or the ticket's URL) that stands for
that ticket's one live run, else its latest. On Zendesk a bare `4821` is whichever of run and ticket exists. An approval's or an outbox row's own id is never asked of a
person. What cannot be told apart is refused with a sentence listing the candidates."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlmodel import Session, col, select

from bot.db.models import Approval, Customer, Run, Ticket, id_of
from bot.desk.ids import HOW, ticket_ids_in
from bot.runs import BadInput
from bot.vocabulary import LIVE, ApprovalStatus, RunStatus

_RUN_NUMBER = re.compile(r"\s*(?:run\s*)?#?\s*(\d{1,12})\s*", re.IGNORECASE)
_SAID_RUN = re.compile(r"\s*run\b", re.IGNORECASE)
_SAID_TICKET = re.compile(r"\s*(?:ticket\b|.*/tickets/)", re.IGNORECASE)

ANY, LIVE_FIRST, WAITING = "any", "live", "waiting"


@dataclass(frozen=True)
class NamedRun:
    run_id: int
    ticket_id: str | None
    status: str
    customer: str | None  # the ticket's customer, for sentences

    def label(self, *, start: bool = False) -> str:
        """`run 3 (KITE-162, Acme Corp)`: the words every wait and decision names a run by (`Run 3 …` to start
        a sentence)."""
        about = ", ".join(x for x in (self.ticket_id, self.customer) if x)
        return ("Run" if start else "run") + f" {self.run_id}" + (f" ({about})" if about else "")


def resolve(session: Session, name: str, *, kind: str = "embedded", want: str = ANY) -> NamedRun:
    """The run `name` means, or BadInput saying why not and what to type instead.

    `want`: ANY (a ticket stands for its live run, else its latest), LIVE_FIRST (the same), WAITING (a ticket stands
    for its run with a draft waiting; a run number must have one)."""
    text = (name or "").strip()
    if not text:
        raise BadInput("Name a run: its number as `kitebase runs` shows it (12), or its ticket (KITE-142).")
    number = _RUN_NUMBER.fullmatch(text)
    said_run = bool(_SAID_RUN.match(text))
    tickets = [] if said_run else ticket_ids_in(text, kind)
    if kind == "zendesk" and number and not said_run and not _SAID_TICKET.match(text):
        return _number_or_ticket(session, int(number.group(1)), kind, want)
    if number and (said_run or kind != "zendesk"):
        return _by_number(session, int(number.group(1)), want)
    if len(tickets) == 1:
        return _by_ticket(session, tickets[0], want)
    if len(tickets) > 1:
        raise BadInput(f"{text!r} names {len(tickets)} tickets ({', '.join(tickets)}); name one run at a time.")
    raise BadInput(f"{text!r} names no run. Give the run's number as `kitebase runs` shows it (12), or its ticket. "
                   + HOW.get(kind, HOW["embedded"]))


def _number_or_ticket(session: Session, number: int, kind: str, want: str) -> NamedRun:
    """On Zendesk a bare number may be a run's or a ticket's: the one that exists, or a question."""
    run = session.get(Run, number)
    ticket = session.get(Ticket, str(number))
    has_runs = ticket is not None and session.exec(select(Run.id).where(Run.ticket_id == str(number))).first()
    if run is not None and has_runs:
        raise BadInput(f"{number} is both run {number} ({run.ticket_id}) and Zendesk ticket {number}: "
                       f"say `run {number}` or `ticket {number}`.")
    if run is None and ticket is not None:
        return _by_ticket(session, str(number), want)
    return _by_number(session, number, want)


def _by_number(session: Session, number: int, want: str) -> NamedRun:
    run = session.get(Run, number)
    if run is None:
        raise BadInput(f"There is no run {number}. `kitebase runs` lists the runs, `kitebase drafts` the drafts "
                       "that wait.")
    named = _named(session, run)
    if want == WAITING and run.status != RunStatus.AWAITING_APPROVAL:
        raise BadInput(f"{named.label(start=True)} has no draft waiting: it is {_status_words(run)}. "
                       "`kitebase drafts` lists the drafts that wait.")
    return named


def _by_ticket(session: Session, ticket_id: str, want: str) -> NamedRun:
    runs = list(session.exec(select(Run).where(Run.ticket_id == ticket_id).order_by(col(Run.id).desc())).all())
    if not runs:
        raise BadInput(f"No run has worked {ticket_id} yet. `kitebase run \"handle {ticket_id}\"` starts one.")
    live = [r for r in runs if r.status in LIVE]
    if len(live) > 1:  # the database allows one; said plainly should that ever change
        raise BadInput(f"{ticket_id} has {len(live)} live runs ({', '.join(f'run {r.id}' for r in live)}); "
                       "name the run by its number.")
    if want == WAITING:
        waiting = [r for r in runs if r.status == RunStatus.AWAITING_APPROVAL]
        if not waiting:
            latest = _named(session, runs[0])
            raise BadInput(f"{ticket_id} has no draft waiting: its latest run, {latest.label()}, is "
                           f"{_status_words(runs[0])}. `kitebase drafts` lists the drafts that wait.")
        return _named(session, waiting[0])
    return _named(session, live[0] if live else runs[0])


def _named(session: Session, run: Run) -> NamedRun:
    ticket = session.get(Ticket, run.ticket_id) if run.ticket_id else None
    customer = session.get(Customer, ticket.customer_id) if ticket else None
    return NamedRun(id_of(run), run.ticket_id, str(run.status), customer.name if customer else None)


def _status_words(run: Run) -> str:
    return str(run.status).replace("_", " ")


def pending_approvals(session: Session, run_id: int) -> list[Approval]:
    """The run's drafts and other gated calls that wait for a person, oldest first."""
    return list(session.exec(select(Approval).where(Approval.run_id == run_id,
                                                    Approval.status == ApprovalStatus.PENDING)
                             .order_by(col(Approval.id))).all())
