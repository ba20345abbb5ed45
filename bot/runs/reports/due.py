"""What is due on a ticket, as a person reads it: one line ("first reply due in 14 min · Enterprise · urgent"),
from the ticket's stored target (bot/desk/sla.py) judged against the database's clock, never a process's; and
the order in which waiting work is listed (what breaches first, then priority, then arrival).

Every surface (the approval card, the batch card, the queue item, App Home, the intake pick-up message, the
timeline's header, `kitebase drafts`, `queue` and `approve`) takes its line from here, and the due-refresh job
(bot/runs/execution/due_refresh.py) asks the same functions whether a shown line now reads differently."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from bot.db import clock
from bot.db.models import Customer, Ticket
from bot.desk import sla


@dataclass(frozen=True)
class TicketDue:
    line: str | None  # None: nothing to say (no target, no tier, no priority)
    due_at: datetime | None  # the breach time while the target runs: what orders the lists
    priority: str | None

    def order(self, arrived: int) -> tuple[datetime, int, int]:
        return sla.order_key(self.due_at, self.priority, arrived)


NOTHING = TicketDue(None, None, None)


def now(session: Session) -> datetime:
    """The database's time: what every "due in" is judged against."""
    return clock.read_now(session)


def aware(value: datetime) -> datetime:
    """A stored time with its zone (SQLite gives UTC back without one)."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def of_tickets(session: Session, ticket_ids: list[str | None], at: datetime) -> dict[str, TicketDue]:
    """Each ticket's line at `at` (one query for the tickets, one for their customers)."""
    wanted = sorted({t for t in ticket_ids if t})
    if not wanted:
        return {}
    tickets = session.exec(select(Ticket).where(col(Ticket.id).in_(wanted))).all()
    customers = {t.customer_id for t in tickets}
    tiers = dict(session.exec(select(Customer.id, Customer.tier).where(col(Customer.id).in_(customers))).all())
    return {t.id: describe(t, tiers.get(t.customer_id), at) for t in tickets}


def of_ticket(session: Session, ticket_id: str | None, at: datetime) -> TicketDue:
    return of_tickets(session, [ticket_id], at).get(ticket_id or "", NOTHING)


def describe(ticket: Ticket, tier: str | None, at: datetime) -> TicketDue:
    line = sla.line_of(ticket, tier, at)
    return TicketDue(line, ticket.due_at, ticket.priority)


LANGUAGES = {"ar": "Arabic", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek", "en": "English",
             "es": "Spanish", "fi": "Finnish", "fr": "French", "he": "Hebrew", "hi": "Hindi", "hu": "Hungarian",
             "id": "Indonesian", "it": "Italian", "ja": "Japanese", "ko": "Korean", "nb": "Norwegian",
             "nl": "Dutch", "no": "Norwegian", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian",
             "sv": "Swedish", "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "vi": "Vietnamese", "zh": "Chinese"}


def triage_line(triage: dict[str, Any] | None) -> str | None:
    """An intake run's triage in one short line: "triage: billing · German · frustrated · suggests urgent" (the
    language is stored as its ISO 639-1 code: a code not in LANGUAGES is shown as it is)."""
    if not isinstance(triage, dict):
        return None
    language = str(triage.get("language") or "").strip()
    parts = [str(triage.get("intent") or "").strip().replace("_", " "), LANGUAGES.get(language.lower(), language),
             str(triage.get("sentiment") or "").strip()]
    if triage.get("priority"):
        parts.append(f"suggests {str(triage['priority']).strip()}")
    parts = [p for p in parts if p]
    return "triage: " + " · ".join(parts) if parts else None
