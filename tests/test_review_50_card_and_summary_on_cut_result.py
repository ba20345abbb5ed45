"""Review of issue 50 (fixed; the test failed before the fix). The finding: a like-ticket result cut by KITEBASE_TOOL_RESULT_MAX_CHARS (invalid JSON) loses its tiers everywhere:
the card's "similar tickets" shows tickets only worth a look that the run never read, and the handoff summary
lists them as plain search hits."""
from __future__ import annotations

import pytest

from bot.agent.summary import _describe
from bot.runs.lifecycle.citations import retrieved
from tools import REGISTRY, ToolContext, execute
from tools.base import truncate


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_cut_result_on_the_card_and_in_the_summary(settings, db):
    full = execute(REGISTRY, ToolContext(db=db, settings=settings), "search_tickets", {"like_ticket_id": "KITE-142"})
    worth = [h["id"] for h in full.data if h["tier"] == "worth_a_look"]
    cut = truncate(full.text, 3000)
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "handle KITE-142"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search_tickets",
                                           "input": {"like_ticket_id": "KITE-142"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": cut}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "d1", "name": "reply_to_customer",
                                           "input": {"ticket_id": "KITE-142", "message": "Hi"}}]},
    ]
    card = [t["id"] for t in retrieved(messages, "d1")["tickets"] if t.get("tier") != "worth_a_look"]
    use = messages[1]["content"][0]
    summary = _describe(use, messages[2]["content"][0])
    print("\nworth_a_look (never read):", worth)
    print("card 'similar' candidates from the cut result:", card)
    print("summary line:", summary)
    assert not set(worth) & set(card), "unread worth_a_look tickets shown as similar on the card"
