"""The Zendesk desk: searches over the mirror, one ticket read live, writes through the desk queue."""

from __future__ import annotations

import logging
import threading
from typing import Any

from bot import search
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Customer as CustomerRow
from bot.db.models import HelpSection, Ticket
from bot.desk import links, problems, sla
from bot.desk import mirror as shared
from bot.desk.base import (
    Customer,
    DeskError,
    DeskRefused,
    Message,
    NoSuchTicket,
    Section,
    TicketView,
    WriteReceipt,
)
from bot.desk.ids import TicketIds
from bot.desk.zendesk import mirror, people, writes
from bot.desk.zendesk.client import Forbidden, ZendeskClient
from bot.desk.zendesk.sync import TICKET_INCLUDE, fetch_comments, filled
from bot.desk.zendesk.tiers import tiers_of

logger = logging.getLogger(__name__)
_clients: dict[tuple[str, str | None], ZendeskClient] = {}
_senders: dict[int, writes.DeskSender] = {}
_lock = threading.Lock()


def client_for(settings: Settings) -> ZendeskClient:
    """One client (one connection pool) per account per process."""
    if not settings.zendesk_url:
        raise DeskError("KITEBASE_DESK=zendesk needs ZENDESK_URL (the account's address, e.g. "
                        "https://acme.zendesk.com).")
    key = (settings.zendesk_url, settings.zendesk_email)
    with _lock:
        client = _clients.get(key)
        if client is None:
            token = settings.zendesk_api_token.get_secret_value() if settings.zendesk_api_token else None
            oauth = settings.zendesk_oauth_token.get_secret_value() if settings.zendesk_oauth_token else None
            client = _clients[key] = ZendeskClient(settings.zendesk_url, email=settings.zendesk_email, token=token,
                                                   oauth_token=oauth, timeout=settings.zendesk_timeout_seconds)
        return client


def sender_for(db: Database, settings: Settings) -> writes.DeskSender:
    """The process's sender of desk writes for this database (started on first use)."""
    client = client_for(settings)
    with _lock:
        sender = _senders.get(id(db))
        if sender is None:
            sender = _senders[id(db)] = writes.DeskSender(db, client)
    return sender


class ZendeskDesk(TicketIds):
    kind = "zendesk"

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db, self.settings = db, settings
        self.client = client_for(settings)

    # --- reads ---------------------------------------------------------------------------------------------
    def ticket(self, ticket_id: str) -> TicketView:
        """The ticket as Zendesk has it now, with what is due on it and the customer's tier (the mirror is
        refreshed with it on the way)."""
        ticket_id = self.normalise_ticket_id(ticket_id)
        try:
            body = self.client.get(f"/api/v2/tickets/{ticket_id}.json", {"include": TICKET_INCLUDE})
        except NoSuchTicket:
            with self.db.session() as session:
                mirror.remove_ticket(session, ticket_id)
            raise NoSuchTicket(f"Zendesk has no ticket {ticket_id} (it may have been deleted). Use search_tickets "
                               "to find a ticket by its words.") from None
        except Forbidden:
            raise DeskRefused(f"This Zendesk account may not read ticket {ticket_id} (another brand or a "
                              "restricted group). Ask a lead who can see it to handle it.") from None
        ticket = body["ticket"]
        if ticket.get("status") == "deleted":
            raise NoSuchTicket(f"Ticket {ticket_id} was deleted in Zendesk.")
        users = {u["id"]: u for u in body.get("users") or []}
        orgs = {o["id"]: o for o in body.get("organizations") or []}
        comments = fetch_comments(self.client, ticket_id, users)
        try:
            people.complete(self.client, [ticket], [comments], users, orgs)
            looked_up = True
        except DeskError as exc:  # the ticket itself was read: its people are unknown, never guessed
            logger.warning("zendesk: ticket %s: the lookup of its users and organization failed: %s", ticket_id, exc)
            looked_up = False
        # What the mirror sees first here (a customer's comment read by a run before its webhook or the poll) is
        # an arrival as it would be there: recorded, or the intake would never see it.
        arrivals = self.settings.intake_rules is not None and filled(self.db)
        incidents_now = self._incidents_now(ticket)
        with self.db.session() as session:
            mirror.upsert_ticket(session, ticket, comments, users, orgs, arrivals=arrivals,
                                 tiers=tiers_of(self.settings))
            mirrored = session.get(Ticket, ticket_id)
            due = sla.Due.from_json(mirrored.sla) if mirrored is not None else None
            stored = session.get(CustomerRow, mirror.customer_id(ticket))
            tier = stored.tier if stored is not None else None
            live = mirror.mark_incidents(session, ticket_id, incidents_now) if incidents_now is not None else None
            problem, incidents = problems.links_of(
                session, ticket_id, str(ticket["problem_id"]) if ticket.get("problem_id") is not None else None)
            incidents = live if live is not None else incidents
        requester = users.get(ticket.get("requester_id") or 0) or {}
        org = orgs.get(ticket.get("organization_id") or 0) or {}
        assignee = users.get(ticket.get("assignee_id") or 0) or {}
        customer = Customer(id=mirror.customer_id(ticket),
                            name=org.get("name") or requester.get("name") or "unknown (not found in Zendesk)",
                            plan=str((org.get("organization_fields") or {}).get("plan") or "") or None,
                            contact_name=requester.get("name"), contact_email=requester.get("email"),
                            notice=_people_notice(ticket, users, orgs, looked_up), tier=tier)
        conversation = []
        for comment in comments:
            row = mirror.message(ticket_id, comment, users, ticket.get("requester_id"))
            conversation.append(Message(author=row["author"], role=row["role"], at=row["created_at"], body=row["body"],
                                        attachments=shared.attachments_of(row["attachments"])))
        return TicketView(id=ticket_id, title=ticket.get("subject") or "(no subject)", status=ticket.get("status") or "",
                          priority=ticket.get("priority"), assignee=assignee.get("name"),
                          tags=list(ticket.get("tags") or []), created_at=mirror.zendesk_time(ticket.get("created_at")),
                          updated_at=mirror.zendesk_time(ticket.get("updated_at")), customer=customer,
                          conversation=conversation, link=self.client.agent_link(ticket_id),
                          type=ticket.get("type") or None, problem=problem, incidents=incidents, due=due)

    def _incidents_now(self, ticket: dict[str, Any]) -> list[dict[str, Any]] | None:
        """A problem's incidents as Zendesk lists them now (None: not a problem, or the list could not be read:
        the mirror's are shown)."""
        if ticket.get("type") != "problem" and not ticket.get("has_incidents"):
            return None
        try:
            return [t for page in self.client.pages(f"/api/v2/tickets/{int(ticket['id'])}/incidents.json", {},
                                                    "tickets") for t in page]
        except DeskError as exc:
            logger.warning("zendesk: ticket %s: its incidents could not be listed: %s", ticket["id"], exc)
            return None

    def search_help(self, query: str, limit: int) -> list[tuple[Section, search.Hit]]:
        return shared.search_help(self.db, query, limit)

    def search_tickets(self, query: str, *, limit: int, status: str | None, exclude: str | None,
                       like: str | None) -> list[dict[str, Any]]:
        if like:
            self._ensure_mirrored(like)
        return shared.search_tickets(self.db, query, limit=limit, status=status, exclude=exclude, like=like,
                                     example="4821")

    def incidents(self, problem_id: str) -> list[dict[str, Any]]:
        """The problem's incidents as the mirror has them (links people make in Zendesk arrive with the sync)."""
        problem_id = self.normalise_ticket_id(problem_id)
        self._ensure_mirrored(problem_id)
        with self.db.session() as session:
            return problems.incidents_of(session, problem_id, "4821")

    def _ensure_mirrored(self, ticket_id: str) -> None:
        with self.db.session() as session:
            known = session.get(Ticket, ticket_id) is not None
        if not known:
            self.ticket(ticket_id)

    def customer_text(self, message: str) -> str:
        return links.customer_text(self.db, message, _section_link)

    # --- writes --------------------------------------------------------------------------------------------
    def check_reply(self, ticket_id: str, message: str) -> None:
        links.refuse_internal(self.db, message)
        ticket = self.ticket(ticket_id)
        if ticket.status == "closed":
            raise DeskRefused(f"Ticket {ticket.id} is closed in Zendesk, and a closed ticket cannot be updated. "
                              "Create a follow-up ticket in Zendesk instead.")

    def reply(self, ticket_id: str, message: str, *, run_id: int | None, tool_use_id: str | None) -> WriteReceipt:
        ticket_id = self.normalise_ticket_id(ticket_id)
        links.refuse_internal(self.db, message)  # also when the reply is not gated (KITEBASE_APPROVAL_TOOLS)
        return self._queue(ticket_id, "reply", self.customer_text(message.strip()), True, {}, run_id, tool_use_id)

    def update(self, ticket_id: str, *, status: str | None, assignee: str | None, note: str | None,
               run_id: int | None, tool_use_id: str | None, tags: tuple[str, ...] = (),
               replacing: tuple[str, ...] = ()) -> WriteReceipt:
        ticket_id = self.normalise_ticket_id(ticket_id)
        fields: dict[str, Any] = {}
        changes = []
        if status is not None:
            fields["status"] = status
            changes.append(f"status → {writes.ZENDESK_STATUS.get(status, status)}")
        if assignee is not None:
            handle = assignee.strip()
            if handle and not handle.isdigit():
                raise DeskError("On Zendesk give the assignee as their Zendesk user id (a number), or an empty "
                                "string to unassign.")
            fields["assignee_id"] = int(handle) if handle else None
            changes.append(f"assignee → {handle or 'unassigned'}")
        if tags:  # added to the ticket's own (Zendesk's additional_tags)
            fields["additional_tags"] = list(dict.fromkeys(tags))
            changes.append(f"tagged {', '.join(fields['additional_tags'])}")
        if replacing:  # the ticket's other tags of these prefixes, as the sender reads them (remove_tags)
            fields["replacing"] = list(dict.fromkeys(replacing))
            changes.append(f"other {', '.join(p + '*' for p in fields['replacing'])} tags removed")
        body = note.strip() if note and note.strip() else None
        if body:
            changes.append("internal note added")
        receipt = self._queue(ticket_id, "update", body, False, fields, run_id, tool_use_id)
        return WriteReceipt(ticket_id, receipt.state, {**receipt.detail, "changes": changes})

    def link_incidents(self, problem_id: str, incident_ids: list[str], *, run_id: int | None,
                       key: str | None) -> WriteReceipt:
        """One desk write per ticket, recorded together after every check: the problem's `type: problem` first,
        then each incident's `type: incident` and `problem_id` (each waits for the problem's write). `key` (the
        decision's id) makes a replayed call find its rows."""
        problem_id = self.normalise_ticket_id(problem_id)
        wanted = list(dict.fromkeys(self.normalise_ticket_id(i) for i in incident_ids))
        closed = [view.id for view in (self.ticket(t) for t in [problem_id, *wanted])  # live: mirror refreshed
                  if view.status == "closed"]
        if closed:
            raise DeskRefused(f"Ticket(s) {', '.join(closed)} are closed in Zendesk, and a closed ticket cannot be "
                              "updated: leave them out of the link.")
        rows = []
        with self.db.session() as session:
            plan = problems.plan_link(session, problem_id, wanted, "4821")
            first, created = writes.record(session, ticket_id=problem_id, kind="link", body=None, public=False,
                                           fields={"type": "problem"}, run_id=run_id,
                                           tool_use_id=f"{key}:problem" if key else None)
            rows.append((first.id, created))
            for incident in plan.incidents:
                row, created = writes.record(
                    session, ticket_id=incident.id, kind="link", body=None, public=False,
                    fields={"type": "incident", "problem_id": int(problem_id)}, run_id=run_id,
                    tool_use_id=f"{key}:incident:{incident.id}" if key else None, waits_for=first.id)
                rows.append((row.id, created))
        running = _senders.get(id(self.db))
        if running is not None:
            running.nudge()
        return WriteReceipt(problem_id, "queued" if any(c for _, c in rows) else "duplicate",
                            {"problem_id": problem_id, "incident_ids": [t.id for t in plan.incidents],
                             "write_ids": [i for i, _ in rows],
                             "changes": [f"{problem_id} is a problem"] +
                                        [f"{t.id} is an incident of {problem_id}" for t in plan.incidents]})

    def _queue(self, ticket_id: str, kind: str, body: str | None, public: bool, fields: dict[str, Any],
               run_id: int | None, tool_use_id: str | None) -> WriteReceipt:
        self._ensure_mirrored(ticket_id)  # before the transaction: no HTTP while it is open
        with self.db.session() as session:
            row, created = writes.record(session, ticket_id=ticket_id, kind=kind, body=body, public=public,
                                         fields=fields, run_id=run_id, tool_use_id=tool_use_id)
            write_id, status = row.id, row.status
        running = _senders.get(id(self.db))
        if running is not None:  # this process sends desk writes (serve, worker, kitebase run): at once
            running.nudge()
        return WriteReceipt(ticket_id, "queued" if created else "duplicate",
                            {"ticket_id": ticket_id, "write_id": write_id, "status": status})


def _section_link(row: HelpSection) -> str | None:
    return row.url


def _people_notice(ticket: dict[str, Any], users: dict[int, Any], orgs: dict[int, Any], looked_up: bool) -> str | None:
    """What the reader of a ticket must know about a requester or organization Zendesk could not give."""
    requester, org = ticket.get("requester_id"), ticket.get("organization_id")
    if not looked_up and ((requester and requester not in users) or (org and org not in orgs)):
        return ("Zendesk did not answer the lookup of this ticket's requester and organization: who they are is "
                "unknown for now (read the ticket again later). A reply still goes on the ticket.")
    said = []
    if requester and requester not in users:
        said.append(f"Zendesk could not find user {requester}, the ticket's requester (the user may have been "
                    "deleted): their name and email are unknown. A reply still goes on the ticket.")
    if org and org not in orgs:
        said.append(f"Zendesk could not find organization {org}, the ticket's organization (it may have been "
                    "deleted): its name and plan are unknown.")
    return " ".join(said) or None
