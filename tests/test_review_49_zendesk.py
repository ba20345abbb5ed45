"""Review of issue 49 (reviewer 1): Zendesk's due times and tiers as the mirror keeps them (no network needed)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.db.models import Ticket
from bot.desk import sla
from bot.desk.zendesk import mirror
from bot.desk.zendesk.tiers import Tiers

TIERS = Tiers("support_plan", {"enterprise": "Enterprise", "business": "Business"})


def test_a_tier_field_renamed_in_zendesk_keeps_what_was_known_or_says_so() -> None:
    """An admin renames the organization field (support_plan → plan_level) or deletes it: every organization read
    from then on comes without the key, and each customer's stored tier is replaced by none, silently (no log
    line, nothing in `kitebase desk status`). Every card loses its tier and App Home's figures fall into "no
    tier". An organization whose field is present but empty has no tier (documented); one without the field at
    all should keep the stored tier (and the log say the field is missing), as a failed lookup already does."""
    ticket = {"id": 1, "organization_id": 7}
    renamed = {7: {"id": 7, "organization_fields": {"plan_level": "enterprise"}}}
    assert mirror.tier_of(ticket, renamed, TIERS, "Enterprise") == "Enterprise"


def test_slas_left_out_keeps_and_a_solved_ticket_drops_what_is_due(db: Any) -> None:
    """Held: a read without `slas` keeps what is stored; one with it replaces it; a solved ticket without it has
    nothing due."""
    breach = "2027-01-12T10:00:00+00:00"
    with db.session() as session:
        row = session.get(Ticket, "KITE-142")
        assert row is not None
        sla.store(session, row, sla.Due("first_reply", "active", datetime.fromisoformat(breach)))
    for ticket, kept in (({"id": "KITE-142", "status": "open"}, True),
                         ({"id": "KITE-142", "status": "pending"}, True),
                         ({"id": "KITE-142", "status": "solved"}, False)):
        with db.session() as session:
            row = session.get(Ticket, "KITE-142")
            assert row is not None
            sla.store(session, row, sla.Due("first_reply", "active", datetime.fromisoformat(breach)))
        with db.session() as session:
            mirror.store_dues(session, [ticket])
        with db.session() as session:
            row = session.get(Ticket, "KITE-142")
            assert row is not None and (row.due_at is not None) is kept, ticket
