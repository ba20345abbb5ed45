"""Second review of issue 50 (fixed; each test failed before the fix): bot/desk/mirror.py _GREETING strips up to 40 characters and the first , . or !
after "Hi/Hey/Hello/Dear/...": a short staff note that opens with a greeting and a dash/colon/semicolon loses its
cause, so staff_latest shows "reply just now: " with nothing, or only the tail."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.db.models import TicketMessage
from tools import REGISTRY, ToolContext, execute

CASES = {
    "Hey there — your IdP cert rotated.": "IdP cert rotated",
    "Hi all - known bug in 4.2, fixed in 4.3.": "known bug",
    "Dear Mr Lee; the cert expired. Re-upload it.": "cert expired",
    "Hi Sam – root cause: the Okta cert. Upload it.": "Okta cert",
}


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("body", list(CASES))
def test_a_greeting_never_eats_the_cause(settings, db, body):
    with db.session() as session:
        session.add(TicketMessage(ticket_id="KITE-144", author="Priya", role="staff", body=body,
                                  created_at=datetime.now(UTC)))
    result = execute(REGISTRY, ToolContext(db=db, settings=settings), "search_tickets", {"like_ticket_id": "KITE-142"})
    hit = next(h for h in result.data if h["id"] == "KITE-144")
    print(f"\n{body!r} -> staff_latest={hit['staff_latest']!r}")
    assert CASES[body] in (hit["staff_latest"] or "")
