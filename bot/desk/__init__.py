"""The desk the agent works: tickets, customers, help sections, and the writes that reach a customer.

`open_desk(settings, db)` gives the configured one: the embedded desk (our tables, loaded from kb_data/; the
default) or Zendesk (KITEBASE_DESK=zendesk: mirrored into our tables for search, read live, written through a
durable queue). Tools and the run layer reach tickets only through a Desk."""

from __future__ import annotations

from bot.config import Settings
from bot.db.engine import Database
from bot.desk.base import (
    Customer,
    Desk,
    DeskError,
    DeskRefused,
    DeskUnavailable,
    Message,
    NoSuchTicket,
    Section,
    TicketView,
    WriteReceipt,
)
from bot.desk.ids import EXAMPLE, ticket_ids_in


def open_desk(settings: Settings, db: Database) -> Desk:
    if settings.desk == "zendesk":
        from bot.desk.zendesk.desk import ZendeskDesk

        return ZendeskDesk(db, settings)
    from bot.desk.embedded import EmbeddedDesk

    return EmbeddedDesk(db, settings)


def id_example(settings: Settings) -> str:
    """How a ticket id looks on the configured desk, for sentences: KITE-142 or 4821."""
    return EXAMPLE.get(settings.desk, "KITE-142")


__all__ = ["Customer", "Desk", "DeskError", "DeskRefused", "DeskUnavailable", "Message", "NoSuchTicket", "Section",
           "TicketView", "WriteReceipt", "id_example", "open_desk", "ticket_ids_in"]
