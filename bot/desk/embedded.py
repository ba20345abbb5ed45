"""The embedded desk: tickets, customers and help sections are our own tables, loaded from kb_data/ on first
start. A reply is a row the customer's conversation shows; nothing leaves the process."""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any

from sqlmodel import select

from bot import search
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Customer as CustomerRow
from bot.db.models import HelpSection, Ticket, TicketMessage, get_or_raise, utcnow
from bot.desk import links, mirror, problems, sla
from bot.desk.base import Section, TicketView, WriteReceipt
from bot.desk.ids import TicketIds

SUPPORT_AUTHOR = "Kitebase Support"
_REFRESHED: weakref.WeakKeyDictionary[Database, str] = weakref.WeakKeyDictionary()  # database → policies it is up to date with
AGENT_AUTHOR = "Kitebase agent"


class EmbeddedDesk(TicketIds):
    kind = "embedded"

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db, self.settings = db, settings
        self.policies = sla.read_policies(settings.sla_policies_path)
        if _REFRESHED.get(db) != self.policies.fingerprint:  # what is due on every open ticket: once for each
            with db.session() as session:  # database a process opens (and again when the policies file changes)
                sla.refresh(session, None, self.policies)
            _REFRESHED[db] = self.policies.fingerprint

    # --- reads -------------------------------------------------------------------------------------------
    def ticket(self, ticket_id: str) -> TicketView:
        ticket_id = self.normalise_ticket_id(ticket_id)
        with self.db.session() as session:
            view = mirror.mirrored_ticket(session, ticket_id)
            row = get_or_raise(session, Ticket, ticket_id)
            problem, incidents = problems.links_of(session, ticket_id, row.problem_id)
            return dataclasses.replace(view, type=row.type, problem=problem, incidents=incidents)

    def incidents(self, problem_id: str) -> list[dict[str, Any]]:
        with self.db.session() as session:
            return problems.incidents_of(session, self.normalise_ticket_id(problem_id), "KITE-142")

    def search_help(self, query: str, limit: int) -> list[tuple[Section, search.Hit]]:
        return mirror.search_help(self.db, query, limit)

    def search_tickets(self, query: str, *, limit: int, status: str | None, exclude: str | None,
                       like: str | None) -> list[dict[str, Any]]:
        return mirror.search_tickets(self.db, query, limit=limit, status=status, exclude=exclude, like=like)

    def _section_link(self, row: HelpSection) -> str | None:
        return links.embedded_link(self.settings.help_center_url, row)

    def customer_text(self, message: str) -> str:
        return links.customer_text(self.db, message, self._section_link)

    # --- writes ------------------------------------------------------------------------------------------
    def check_reply(self, ticket_id: str, message: str) -> None:
        self.ticket(ticket_id)
        links.refuse_internal(self.db, message)

    def reply(self, ticket_id: str, message: str, *, run_id: int | None, tool_use_id: str | None) -> WriteReceipt:
        ticket_id = self.normalise_ticket_id(ticket_id)
        links.refuse_internal(self.db, message)  # also when the reply is not gated (KITEBASE_APPROVAL_TOOLS)
        body = self.customer_text(message.strip())
        with self.db.session() as session:
            ticket = session.get(Ticket, ticket_id)
            if ticket is None:
                raise mirror.no_such_ticket(ticket_id)
            customer = get_or_raise(session, CustomerRow, ticket.customer_id)  # a foreign key
            detail = {"ticket_id": ticket.id, "customer": customer.name}
            if tool_use_id:
                sent = session.exec(select(TicketMessage).where(TicketMessage.run_id == run_id,
                                                                TicketMessage.tool_use_id == tool_use_id)).first()
                if sent is not None:  # this very call already ran: never send twice
                    return WriteReceipt(ticket.id, "duplicate", {**detail, "message_id": sent.id})
            now = utcnow()
            row = TicketMessage(ticket_id=ticket.id, author=SUPPORT_AUTHOR, role="staff", body=body,
                                created_at=now, run_id=run_id, tool_use_id=tool_use_id)
            session.add(row)
            ticket.updated_at = now
            session.add(ticket)
            session.flush()
            sla.refresh(session, [ticket.id], self.policies)  # the reply meets its target
            search.index_ticket(session, ticket.id)  # the search's analysis, stored with the change
            return WriteReceipt(ticket.id, "sent", {**detail, "message_id": row.id})

    def update(self, ticket_id: str, *, status: str | None, assignee: str | None, note: str | None,
               run_id: int | None, tool_use_id: str | None, tags: tuple[str, ...] = (),
               replacing: tuple[str, ...] = ()) -> WriteReceipt:
        ticket_id = self.normalise_ticket_id(ticket_id)
        with self.db.session() as session:
            ticket = session.get(Ticket, ticket_id)
            if ticket is None:
                raise mirror.no_such_ticket(ticket_id)
            changes = []
            if status is not None and status != ticket.status:
                changes.append(f"status {ticket.status} → {status}")
                ticket.status = status
            if assignee is not None:
                new = assignee.strip() or None
                if new != ticket.assignee:
                    changes.append(f"assignee {ticket.assignee or 'unassigned'} → {new or 'unassigned'}")
                    ticket.assignee = new
            if note and note.strip():
                already = tool_use_id and session.exec(
                    select(TicketMessage).where(TicketMessage.run_id == run_id,
                                                TicketMessage.tool_use_id == tool_use_id)).first()
                if not already:
                    session.add(TicketMessage(ticket_id=ticket.id, author=AGENT_AUTHOR, role="internal",
                                              body=note.strip(), created_at=utcnow(), run_id=run_id,
                                              tool_use_id=tool_use_id))
                changes.append("internal note added")
            changes += _retag(ticket, tags, replacing)
            ticket.updated_at = utcnow()
            session.add(ticket)
            session.flush()
            sla.refresh(session, [ticket.id], self.policies)  # pending pauses the target; closed ends it
            search.index_ticket(session, ticket.id)  # the search's analysis, stored with the change
            return WriteReceipt(ticket.id, "sent", {"ticket_id": ticket.id, "status": ticket.status,
                                                    "assignee": ticket.assignee, "changes": changes})

    def link_incidents(self, problem_id: str, incident_ids: list[str], *, run_id: int | None,
                       key: str | None) -> WriteReceipt:
        """Our own columns, set in one transaction after every check: linking again changes nothing (so no key
        is needed to make a replayed call harmless)."""
        problem_id = self.normalise_ticket_id(problem_id)
        wanted = [self.normalise_ticket_id(i) for i in incident_ids]
        with self.db.session() as session:
            plan = problems.plan_link(session, problem_id, wanted, "KITE-142")
            changes, now = [], utcnow()
            if plan.problem.type != "problem":
                changes.append(f"{problem_id} is a problem")
                plan.problem.type, plan.problem.updated_at = "problem", now
                session.add(plan.problem)
            for row in plan.incidents:
                if row.type != "incident" or row.problem_id != problem_id:
                    was = f" (was of {row.problem_id})" if row.problem_id else ""
                    changes.append(f"{row.id} is an incident of {problem_id}{was}")
                    row.type, row.problem_id, row.updated_at = "incident", problem_id, now
                    session.add(row)
            session.flush()
            return WriteReceipt(problem_id, "sent", {"problem_id": problem_id,
                                                     "incident_ids": [row.id for row in plan.incidents],
                                                     "changes": changes})


def _retag(ticket: Ticket, tags: tuple[str, ...], replacing: tuple[str, ...]) -> list[str]:
    """`tags` added to the ticket's own and the other tags of the `replacing` prefixes removed, in the caller's
    transaction; what changed, in words."""
    new = list(dict.fromkeys(tags))
    old = list(ticket.tags or [])
    removed = [t for t in old if t.startswith(replacing) and t not in new] if replacing else []
    added = [t for t in new if t not in old]
    if not (added or removed):
        return []
    ticket.tags = [*(t for t in old if t not in removed), *added]
    return ([f"tagged {', '.join(added)}"] if added else []) + ([f"untagged {', '.join(removed)}"] if removed else [])
