"""`kitebase desk add FILE`: what arrives on the embedded desk, from JSON lines. Each line is a new ticket
(`{"customer": …, "title": …, "body": …, "tags": […], "priority": …}`; `customer` is a customer's id, or a
customer's name: a name the desk does not know is a new customer) or a customer's message on a ticket the desk
has (`{"ticket_id": "KITE-142", "body": …, "author": …}`).

The whole file is checked first and written in one transaction: a bad line is a sentence naming it, and nothing
of the file is written. A new ticket gets the next KITE-<n> (one more than the highest on the desk); two adds at
once may both take the same number, and the one that commits second fails on the ticket's primary key and is
done again from the start, with the numbers as they are then. With `arrivals`, each ticket and message is also
recorded for the intake rules in the same transaction (bot/desk/arrivals.py), the way a Zendesk arrival is."""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from bot import search
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Customer, Ticket, TicketMessage, get_or_raise, id_of
from bot.desk import arrivals as desk_arrivals
from bot.desk import sla
from bot.desk.base import DeskError
from bot.desk.ids import KITE_ID, normalise_ticket_id

logger = logging.getLogger(__name__)
TICKET_KEYS = ("customer", "title", "body", "tags", "priority")
MESSAGE_KEYS = ("ticket_id", "body", "author")
PRIORITIES = ("low", "normal", "high", "urgent")
MAX_TITLE, MAX_BODY, MAX_NAME, MAX_TAGS = 250, 50_000, 200, 30
ATTEMPTS = 5  # a ticket number taken by another add meanwhile: the whole file again, this many times at most
SHOWN = 5  # bad lines named in the error at most


class BadLines(DeskError):
    """The file cannot be added; the sentence names the lines and what is wrong with them. Nothing was written."""


@dataclass(frozen=True)
class NewTicket:
    line: int
    customer: str
    title: str
    body: str
    tags: tuple[str, ...]
    priority: str


@dataclass(frozen=True)
class NewMessage:
    line: int
    ticket_id: str
    body: str
    author: str | None


Item = NewTicket | NewMessage


@dataclass(frozen=True)
class Added:
    line: int
    kind: str  # "ticket" | "message"
    ticket_id: str
    message_id: int
    author: str
    customer_id: str
    customer: str
    new_customer: bool = False
    title: str | None = None


@dataclass
class AddReport:
    added: list[Added] = field(default_factory=list)
    recorded: bool = False  # recorded for the intake rules

    def count(self, kind: str) -> int:
        return sum(1 for item in self.added if item.kind == kind)

    @property
    def new_customers(self) -> int:
        return sum(1 for item in self.added if item.new_customer)


# --- reading the file ---------------------------------------------------------------------------------------

def parse(text: str, where: str = "the file") -> list[Item]:
    """The items of a JSON-lines text (blank lines skipped), or BadLines naming every bad line (up to SHOWN)."""
    items: list[Item] = []
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            items.append(_item(number, raw))
        except _Bad as exc:
            problems.append(f"line {number}: {exc}")
    if problems:
        raise bad(where, problems)
    if not items:
        raise BadLines(f"{where} has no lines to add. Write one JSON object a line: a new ticket as "
                       '{"customer": "northwind-studio", "title": "…", "body": "…"}, a customer\'s message as '
                       '{"ticket_id": "KITE-142", "body": "…"}.')
    return items


def bad(where: str, problems: list[str]) -> BadLines:
    more = f" (and {len(problems) - SHOWN} more bad lines)" if len(problems) > SHOWN else ""
    return BadLines(f"{where}, " + "; ".join(problems[:SHOWN]) + more +
                    ". Nothing was added: fix the file and add it again (it is added whole or not at all).")


class _Bad(Exception):
    pass


def _item(number: int, raw: str) -> Item:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise _Bad(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise _Bad("not JSON we can read (nested too deeply)") from None
    if not isinstance(data, dict):
        raise _Bad("not a JSON object; each line is one {…}")
    if "ticket_id" in data:
        unknown = [k for k in data if k not in MESSAGE_KEYS]
        if unknown:
            raise _Bad(f"unknown key '{unknown[0]}' (a message on a ticket has {', '.join(MESSAGE_KEYS)})")
        ticket_id = normalise_ticket_id(_text(data, "ticket_id", MAX_NAME), "embedded")
        if ticket_id is None:
            raise _Bad(f"ticket_id {data['ticket_id']!r} is not a ticket id; ids look like KITE-142")
        author = _text(data, "author", MAX_NAME) if data.get("author") is not None else None
        return NewMessage(number, ticket_id, _text(data, "body", MAX_BODY), author)
    unknown = [k for k in data if k not in TICKET_KEYS]
    if unknown:
        raise _Bad(f"unknown key '{unknown[0]}' (a new ticket has {', '.join(TICKET_KEYS)}; a message on a "
                   f"ticket has {', '.join(MESSAGE_KEYS)})")
    priority = data.get("priority", "normal")
    if not isinstance(priority, str) or priority.strip().lower() not in PRIORITIES:
        raise _Bad(f"priority {priority!r} is not one of {', '.join(PRIORITIES)}")
    return NewTicket(number, _text(data, "customer", MAX_NAME), _text(data, "title", MAX_TITLE),
                     _text(data, "body", MAX_BODY), _tags(data.get("tags")), priority.strip().lower())


def _text(data: dict[str, Any], key: str, limit: int) -> str:
    value = data.get(key)
    if value is None:
        raise _Bad(f"`{key}` is missing")
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"`{key}` must be a non-empty string")
    if len(value.strip()) > limit:
        raise _Bad(f"`{key}` is {len(value.strip())} characters; keep it under {limit}")
    if "\x00" in value:  # no database stores it in text (PostgreSQL refuses it; SQLite would cut there)
        raise _Bad(f"`{key}` holds a NUL character (\\u0000) at position {value.index(chr(0)) + 1}; remove it")
    return value.strip()


def _tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or any(not isinstance(t, str) or not t.strip() for t in value):
        raise _Bad('`tags` is a list of words, like ["sso", "login"]')
    if len(value) > MAX_TAGS:
        raise _Bad(f"{len(value)} tags; keep it to {MAX_TAGS}")
    return tuple(dict.fromkeys(t.strip().lower() for t in value))


# --- writing it -----------------------------------------------------------------------------------------------

def add(db: Database, items: list[Item], *, arrivals: bool, where: str = "the file",
        policies: sla.Policies | None = None) -> AddReport:
    """Write the items in one transaction (see the module's docstring); BadLines when a line names a ticket the
    desk does not have or that is closed, with nothing written."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            with db.session() as session:
                report = _write(session, items, arrivals=arrivals, where=where)
                if policies is not None:  # what is due on each, stored with the change (bot/desk/sla.py)
                    sla.refresh(session, sorted({a.ticket_id for a in report.added}), policies)
                return report
        except IntegrityError:  # another add took a ticket number or a customer id meanwhile: again, afresh
            logger.info("desk add: an id was taken meanwhile (attempt %d of %d); adding the file again", attempt,
                        ATTEMPTS)
    raise DeskError(f"Other adds to the desk kept taking the same ticket numbers ({ATTEMPTS} attempts); nothing "
                    "of this file was added. Add it again.")


def _write(session: Session, items: list[Item], *, arrivals: bool, where: str) -> AddReport:
    problems: list[str] = []
    tickets = _tickets_named(session, [i.ticket_id for i in items if isinstance(i, NewMessage)])
    for item in items:
        if isinstance(item, NewMessage):
            ticket = tickets.get(item.ticket_id)
            if ticket is None:
                problems.append(f"line {item.line}: there is no ticket {item.ticket_id}")
            elif ticket.status == "closed":
                problems.append(f"line {item.line}: {item.ticket_id} is closed; a customer writing after that is a "
                                "new ticket (add it as one)")
    if problems:
        raise bad(where, problems)
    report = AddReport(recorded=arrivals)
    now = clock.read_now(session)
    customers: dict[str, tuple[Customer, bool]] = {}
    number = _highest_number(session)
    for item in items:
        if isinstance(item, NewTicket):
            number += 1
            report.added.append(_add_ticket(session, item, f"KITE-{number}", customers, now, arrivals))
        else:
            report.added.append(_add_message(session, item, tickets[item.ticket_id], now, arrivals))
    search.index_tickets(session, sorted({a.ticket_id for a in report.added}))  # the search's analysis, stored too
    return report


def _tickets_named(session: Session, ids: list[str]) -> dict[str, Ticket]:
    if not ids:
        return {}
    return {t.id: t for t in session.exec(select(Ticket).where(col(Ticket.id).in_(sorted(set(ids))))).all()}


def _highest_number(session: Session) -> int:
    ids = session.exec(select(Ticket.id).where(col(Ticket.id).like("KITE-%"))).all()
    return max((int(m.group(1)) for m in map(KITE_ID.fullmatch, ids) if m), default=0)


def _add_ticket(session: Session, item: NewTicket, ticket_id: str, customers: dict[str, tuple[Customer, bool]],
                now: Any, arrivals: bool) -> Added:
    known = customers.get(item.customer.casefold())
    customer, created = (known[0], False) if known else _customer(session, item.customer)
    customers[item.customer.casefold()] = (customer, created)
    session.add(Ticket(id=ticket_id, customer_id=customer.id, title=item.title, status="open",
                       priority=item.priority, tags=list(item.tags), created_at=now, updated_at=now))
    session.flush()  # the ticket before its message (a foreign key)
    author = customer.contact_name or customer.name
    message = TicketMessage(ticket_id=ticket_id, author=author, role="customer", body=item.body, created_at=now)
    session.add(message)
    session.flush()
    if arrivals:
        desk_arrivals.ticket_arrived(session, key=f"ticket:{ticket_id}", ticket_id=ticket_id,
                                     fields={"status": "new", "priority": item.priority, "tags": list(item.tags)})
    return Added(item.line, "ticket", ticket_id, id_of(message), author, customer.id, customer.name,
                 new_customer=created, title=item.title)


def _add_message(session: Session, item: NewMessage, ticket: Ticket, now: Any, arrivals: bool) -> Added:
    customer = session.get(Customer, ticket.customer_id)
    name = customer.name if customer is not None else ticket.customer_id
    author = item.author or (customer.contact_name if customer is not None else None) or name
    message = TicketMessage(ticket_id=ticket.id, author=author, role="customer", body=item.body, created_at=now)
    session.add(message)
    if ticket.status == "pending":  # the customer answered what the desk waited for
        ticket.status = "open"
    ticket.updated_at = now
    session.add(ticket)
    session.flush()
    if arrivals:
        desk_arrivals.message_arrived(session, key=f"message:{id_of(message)}", ticket_id=ticket.id, author=author,
                                      body=item.body)
    return Added(item.line, "message", ticket.id, id_of(message), author, ticket.customer_id, name)


def _customer(session: Session, given: str) -> tuple[Customer, bool]:
    """The customer `given` names: by id, else by name (either in any case); else a new customer of that name,
    with an id made from it. True when it is new."""
    wanted = given.casefold()
    rows = session.exec(select(Customer.id, Customer.name).order_by(col(Customer.id))).all()
    key = next((i for i, _ in rows if i.casefold() == wanted), None) or \
        next((i for i, name in rows if name.casefold() == wanted), None)
    if key is not None:
        return get_or_raise(session, Customer, key), False
    plain = unicodedata.normalize("NFKD", given).encode("ascii", "ignore").decode().lower()
    base = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:56] or "customer"
    taken = {i for i, _ in rows}
    key, n = base, 1
    while key in taken:
        n += 1
        key = f"{base}-{n}"
    row = Customer(id=key, name=given, plan="", seats=0)
    session.add(row)
    session.flush()
    return row, True
