"""Review of issue 49 (reviewer 2, "shown"): the Messages tab's list of drafts is not ordered by what is due."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bot.db import clock
from bot.db.models import Approval, Run, Ticket
from bot.desk import sla
from bot.runs.intake.suggestions import drafts_for
from bot.vocabulary import RunStatus


def _anyone(user: str, started_by: str | None, reminded: bool = False) -> bool:
    return True


def test_the_messages_tab_lists_a_lead_s_drafts_what_is_due_first_with_its_line(db: Any) -> None:
    """Not held: the Messages tab's "waiting for my approval" answer (suggestions.drafts_for) lists drafts oldest
    first, without a due line, and cuts at MAX_DRAFTS (20) oldest first: with 25 drafts waiting, one that
    breaches in 5 minutes but was drafted last is in "… and 5 more", while App Home and `kitebase drafts` put it
    on top."""
    with db.session() as session:
        base = session.get(Ticket, "KITE-144")
        now = clock.read_now(session)
        for n, minutes in enumerate((90, 5)):  # drafted first: due in 90 min; drafted next: due in 5
            ticket_id = f"KITE-M{n}"
            ticket = Ticket(id=ticket_id, customer_id=base.customer_id, title="t", status="open", priority="urgent",
                            created_at=now, updated_at=now)
            sla.store(session, ticket, sla.Due("first_reply", "active", now + timedelta(minutes=minutes), 120))
            session.add(ticket)
            run = Run(goal=f"handle {ticket_id}", ticket_id=ticket_id, model="m", started_by="ULEAD",
                      status=RunStatus.AWAITING_APPROVAL)
            session.add(run)
            session.flush()
            session.add(Approval(run_id=int(run.id or 0), tool_use_id=f"m{n}", tool_name="reply_to_customer",
                                 tool_input={"ticket_id": ticket_id, "message": "Hi"}, fingerprint="f"))
    with db.session() as session:
        drafts = drafts_for(session, "ULEAD", _anyone)
    assert [d["ticket_id"] for d in drafts] == ["KITE-M1", "KITE-M0"], \
        f"listed {[d['ticket_id'] for d in drafts]}: oldest first, not what is due first"
    assert all(d.get("due") for d in drafts), "no due line in the Messages tab's answer"
