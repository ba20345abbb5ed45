"""The batch card's pure builder: what a lead reads on it in each state, and that Slack accepts it (the stand-in's
Block Kit checks) even with ten tickets and long drafts."""

from __future__ import annotations

import json
from typing import Any

from bot.slack_ui.batch import build_batch_card, shortened_diff
from standins.slack_server import message_block_errors

REFERENCE = ("Hi Dana,\n\nThanks for letting us know, and sorry for the trouble with “Customer locked out after SSO "
             "change”.\n\nA workspace owner can use “Trouble with SSO?” → “Email me an owner bypass link” on the "
             "sign-in page, then update Settings → Security → Single sign-on. [account-recovery#2]\n\nBest regards,"
             "\nKitebase Support")


def draft_for(name: str, title: str) -> str:
    return REFERENCE.replace("Dana", name).replace("Customer locked out after SSO change", title)


def child(n: int, state: str, **extra: Any) -> dict[str, Any]:
    approval = {"id": 100 + n, "fingerprint": f"fp{n}", "status": "pending", "message": draft_for("Marcus", "SSO"),
                "decided_by": None, "decided_at": None, "reason": None, "result": None,
                "sources": {"cited": [{"id": "account-recovery#2"}], "problems": []}}
    return {"run_id": n, "ticket_id": f"KITE-{n}", "ticket": {"customer": f"Customer {n}", "title": "SSO <broken>",
                                                               "contact": "Marcus Oyelaran"},
            "run_status": "awaiting_approval", "reason": None, "linked": False, "declined": None, "state": state,
            "approval": approval if state != "declined" else None, **extra}


def view(children: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": 7, "parent_run_id": 1, "problem": "KITE-142", "requested_by": "ULEAD",
            "reference": {"message": REFERENCE, "sources": [["account-recovery#2", "Locked out of your account"]]},
            "skipped": [], "children": children, "working": sum(c["state"] == "working" for c in children),
            "pending": [c["approval"] for c in children if c["state"] == "draft"],
            "done": all(c["state"] in ("sent", "declined") for c in children), **extra}


def test_the_draft_shows_what_differs_from_the_approved_reply_in_bold_and_keeps_its_paragraphs() -> None:
    shown = shortened_diff(draft_for("Marcus", "Nobody can sign in after our Okta change"), REFERENCE)
    assert shown.startswith("Hi *Marcus,*\nThanks for letting us know")
    assert "with *“Nobody can sign in* after *our Okta* change”." in shown, "only the changed words in bold"
    assert "Dana" not in shown and "…" in shown, "the unchanged middle is cut to its ends"
    assert shortened_diff("<!channel> *bold*", "") == "*&lt;!channel&gt; bold*", "escaped; no marker breaks the bold"


def test_a_card_with_drafts_offers_approve_all_only_when_no_child_still_works() -> None:
    text, blocks = build_batch_card(view([child(144, "draft"), child(163, "working")]))
    raw = json.dumps(blocks)
    assert "approve_batch" not in raw and "1 still working" in raw and raw.count("approve_reply") == 1
    assert "SSO &lt;broken&gt;" in raw, "ticket text escaped"
    text, blocks = build_batch_card(view([child(144, "draft"), child(163, "draft"),
                                          child(166, "declined", declined="another cause: conditional access")]))
    raw = json.dumps(blocks, ensure_ascii=False)
    assert "Approve all 2" in raw and "Declined*: another cause: conditional access" in raw
    value = json.loads(next(e["value"] for b in blocks if b["type"] == "actions" for e in b["elements"]
                            if e["action_id"] == "approve_batch"))
    assert value == {"batch_id": 7, "approvals": {"244": "fp144", "263": "fp163"}}, "exactly the drafts shown"
    assert message_block_errors(blocks) == []
    assert text.startswith("The fix approved on KITE-142, for 3 more tickets: KITE-144 draft waiting")


def test_ten_tickets_with_long_drafts_fit_on_one_card_and_the_end_says_what_each_got() -> None:
    long = child(1, "draft")
    long["approval"]["message"] = "word " * 2000
    kids = [long, *[child(n, "draft") for n in range(2, 11)]]
    _, blocks = build_batch_card(view(kids))
    assert message_block_errors(blocks) == [] and len(blocks) <= 50
    sent = {"status": "approved", "decided_by": "ULEAD", "result": {"text": "ok", "is_error": False}}
    done = [child(144, "sent", linked=True), child(166, "declined", declined="another cause")]
    done[0]["approval"].update(sent)
    _, blocks = build_batch_card(view(done, skipped=[{"ticket_id": "KITE-139", "reason": "it is closed"}]))
    raw = json.dumps(blocks, ensure_ascii=False)
    assert "Done: KITE-144 replied; KITE-166 declined. 1 not drafted." in raw
    assert "Linked as an incident" in raw and "KITE-139 (it is closed)" in raw
    assert "approve_reply" not in raw and "approve_batch" not in raw
