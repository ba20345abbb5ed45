"""The batch card's post whose outcome is unknown (Slack posted it, then the answer was a 500: a timeout, a cut
connection, a process that died) is looked for in the thread by the outbox row its metadata names, and updated
there: the parent's thread never shows two batch cards. Before the fix, `batch` was not among the kinds the
sender looks up (bot/outbox/sender.py VERIFIABLE), and the card was posted a second time."""

from __future__ import annotations

from typing import Any

from standins.slack_harness import Harness
from tests.test_one_fix_for_many import parent_done

CARD_TITLE = "The fix approved on KITE-142"


def test_a_batch_card_posted_but_answered_500_is_found_and_not_posted_again(lead: Harness) -> None:  # noqa: F811
    thread, offer = parent_done(lead)
    answer, failed = lead.slack._handle, []

    def posted_then_500(method: str, *args: Any) -> Any:
        status, body, headers = answer(method, *args)
        if method == "chat.postMessage" and str((body.get("message") or {}).get("text") or "").startswith(
                CARD_TITLE) and not failed:
            failed.append(body["ts"])
            return 500, {"ok": False, "error": "internal_error"}, headers  # applied, but the answer is lost
        return status, body, headers

    lead.slack._handle = posted_then_500  # type: ignore[method-assign]
    lead.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])
    lead.drain()
    assert failed, "the card's first post was answered 500"
    posts = [c for c in lead.slack.calls_to("chat.postMessage") if (c.get("text") or "").startswith(CARD_TITLE)]
    assert len(posts) == 1, [p["text"] for p in posts]
    shown = [m for m in lead.slack.thread("CSUPPORT", thread) if (m.get("text") or "").startswith(CARD_TITLE)]
    assert [m["ts"] for m in shown] == failed, "one card in the thread: the one Slack posted first"
    assert lead.shown_button("approve_batch")["ts"] == failed[0], "and it shows the drafts (updated in place)"
