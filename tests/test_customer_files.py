"""A customer's files reach the agent and the people who decide (issue 48): as name, type, size and link, never
their content. On the card (Slack, through the Bolt app and the stand-ins) and at the terminal, under the ticket;
in the continuation a customer's new message starts, after its text. Zendesk's attachment objects as its API
documents them (file_name, content_type, size, content_url, inline) come from the Zendesk stand-in."""

from __future__ import annotations

import io
from typing import Any

from sqlmodel import select

from bot.cli_decide import drafts_of, show
from bot.db.models import Approval
from bot.desk.base import Attachment, size_of
from bot.desk.zendesk import writes as desk_writes
from bot.desk.zendesk.desk import client_for
from bot.runs.intake import arrivals
from bot.runs.intake.rules import load
from bot.runs.lifecycle import naming
from bot.vocabulary import ArrivalKind
from tests.helpers import intake_through, run_row, wait_until
from tests.test_intake_zendesk import arrivals_of, desk, post_webhook, zd  # noqa: F401  (fixtures)

TRACE = {"file_name": "saml-trace.log", "content_type": "text/plain", "size": 15156}
SHOT = {"file_name": "login-loop.png", "content_type": "image/png", "size": 2_202_009}


def test_a_files_size_reads_as_people_write_it() -> None:
    assert [size_of(n) for n in (812, 15156, 2_202_009, None, -1)] == ["812 bytes", "14.8 KB", "2.1 MB", None, None]
    assert Attachment("a.log", "text/plain", 15156, None, inline=True).line() == "a.log (text/plain, 14.8 KB), inline"
    assert Attachment("b", None, None, None).line() == "b"


def test_files_show_on_the_card_and_in_the_continuation_and_are_never_fetched(desk: Any, zd: Any) -> None:  # noqa: F811
    from standins.slack_harness import start_harness

    db, settings = desk
    rules = load(settings.intake_rules)
    arrivals.standing(db, rules)
    harness, stop = start_harness(settings, db)
    try:
        def intake_pass() -> list[int]:
            return intake_through(db, settings, rules, harness)

        dana = zd.user_by_email("dana.whitfield@example.com")
        ticket = zd.add_ticket("SSO loop after our IdP change", "Everyone signing in through Okta is sent back to "
                               "the login page.", dana["id"], status="new", priority="urgent", tags=["sso"])
        trace = zd.add_comment(ticket, "Here is the SAML trace.", author_id=dana["id"], attachments=[TRACE])
        [trace_url] = [c["attachments"][0]["content_url"] for c in zd.comments_of(ticket) if c["id"] == trace]
        assert post_webhook(harness.url, ticket, zd)[0] == 202
        wait_until(lambda: len(arrivals_of(db, ticket)) == 1, "the ticket to be recorded")
        [run_id] = intake_pass()

        card = harness.approval_card()
        text = str(card["call"]["blocks"])
        assert "Files from the customer" in text and f"<{trace_url}|saml-trace.log (text/plain, 14.8 KB)>" in text
        terminal = io.StringIO()
        with db.session() as session:
            named = naming.resolve(session, f"run {run_id}", kind="zendesk")
        [draft] = drafts_of(harness.ctx.service, named)
        show(draft, settings, terminal)
        assert f"File from the customer (not read by the agent): saml-trace.log (text/plain, 14.8 KB) {trace_url}" \
            in terminal.getvalue()

        harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
        harness.drain()
        assert desk_writes.DeskSender(db, client_for(settings)).drain(timeout=30)
        shot = zd.add_comment(ticket, "Still looping; a screenshot is attached.", author_id=dana["id"],
                              attachments=[SHOT])
        [shot_url] = [c["attachments"][0]["content_url"] for c in zd.comments_of(ticket) if c["id"] == shot]
        assert post_webhook(harness.url, ticket, zd)[0] == 202
        wait_until(lambda: len(arrivals_of(db, ticket, ArrivalKind.MESSAGE)) == 1, "the customer's message")
        [message] = arrivals_of(db, ticket, ArrivalKind.MESSAGE)
        assert (message.fields or {})["attachments"][0]["name"] == "login-loop.png"
        assert intake_pass() == [run_id]
        continued = str(run_row(db, run_id).messages)
        assert ("Still looping; a screenshot is attached.\\n[Attached (not read; open them on the ticket): "
                f"login-loop.png (image/png, 2.1 MB) {shot_url}]") in continued
        assert zd.requests_to("GET", "/attachments/") == [], "no file is ever fetched"
        with db.session() as session:
            assert session.exec(select(Approval)).first() is not None
    finally:
        stop()
