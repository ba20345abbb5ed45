"""Review of issue 50 (fixed: the offer is now an allow-list, fan_out.confirmed; not_confirmed below asks it
which named tickets it holds back). The finding: fan_out.not_confirmed was a block-list (set-aside line parse + unread worth_a_look), not an allow-list
of confirmed tickets. Real report phrasings slip through, and a result it cannot parse lets everything through.

Each test builds the Run a real model would leave (like-ticket search on KITE-142, then a get_ticket of KITE-162
which it read and judged another problem) and asks not_confirmed which tickets it withholds from the offer."""
from __future__ import annotations

import json

import pytest

from bot.db.models import Run
from bot.runs.intake.fan_out import set_aside
from tools import REGISTRY, ToolContext, execute
from tools.base import truncate


def not_confirmed(run: Run, desk_kind: str) -> set[str]:
    """What the report names that the batch would not offer (the reviewer's question, on the allow-list)."""
    from bot.desk import ticket_ids_in
    from bot.runs.intake.fan_out import confirmed

    return set(ticket_ids_in(run.answer or "", desk_kind)) - confirmed(run, desk_kind)


READ_AND_REJECTED = "KITE-162"  # worth_a_look for KITE-142; the model reads it and sets it aside
UNREAD = "KITE-164"             # worth_a_look for KITE-142; never read


def _run(result_content, answer: str, read=(READ_AND_REJECTED,)) -> Run:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "handle KITE-142"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search_tickets",
                                           "input": {"like_ticket_id": "KITE-142"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": result_content}]},
    ]
    for i, t in enumerate(read):
        messages += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"g{i}", "name": "get_ticket",
                                               "input": {"ticket_id": t}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"g{i}", "content": "{}"}]}]
    return Run(id=1, goal="handle KITE-142", ticket_id="KITE-142", status="completed", answer=answer,
               messages=messages, model="m")


@pytest.fixture
def like_text(settings, db):
    r = execute(REGISTRY, ToolContext(db=db, settings=settings), "search_tickets", {"like_ticket_id": "KITE-142"})
    data = json.loads(r.text)
    worth = [h["id"] for h in data["worth_a_look"]]
    assert READ_AND_REJECTED in worth and UNREAD in worth
    return r.text


SAME = "Same problem: KITE-144 (Harbor Pine), KITE-163 (Tidewater).\n"
PHRASINGS = {
    "blank line after heading": SAME + "\n**Set aside**\n\n- KITE-162: AADSTS53000, an Azure policy.\n",
    "markdown heading": SAME + "\n### Tickets I read and set aside\n- KITE-162: AADSTS53000, an Azure policy.\n",
    "numbered list": SAME + "Set aside:\n1. KITE-162: AADSTS53000, an Azure policy.\n",
    "prose": SAME + "I read KITE-162 and set it aside: AADSTS53000 is an Azure conditional-access block.\n",
    "hyphenated": SAME + "Set-aside: KITE-162 (AADSTS53000, Azure policy).\n",
    "different words": SAME + "Not the same problem (read): KITE-162 — AADSTS53000.\n",
    "table": SAME + "| Ticket | Verdict |\n|---|---|\n| KITE-162 | set aside: Azure policy |\n",
    "bold label in bullet list": SAME + "- **Confirmed:** KITE-144, KITE-163\n- **Set aside:** KITE-162\n",
}


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("phrasing", list(PHRASINGS))
def test_a_read_and_set_aside_ticket_is_withheld(like_text, phrasing):
    answer = PHRASINGS[phrasing]
    withheld = not_confirmed(_run(like_text, answer), "embedded")
    print(f"\n[{phrasing}] set_aside={sorted(set_aside(answer, 'embedded'))} withheld={sorted(withheld)}")
    assert READ_AND_REJECTED in withheld, f"{phrasing}: KITE-162 was read and set aside, yet would be offered"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_likely_ticket_mentioned_on_the_set_aside_line_is_held_back_on_the_safe_side(like_text):
    """Kept as found, on purpose: a ticket named on the set-aside line is not offered, even a likely one named as
    a contrast (the parse errs towards offering less; a lead can still name it with --tickets)."""
    answer = SAME + "Set aside: KITE-162 — unlike KITE-144 it shows AADSTS53000 (an Azure policy).\n"
    withheld = not_confirmed(_run(like_text, answer), "embedded")
    assert {"KITE-162", "KITE-144"} <= withheld and "KITE-163" not in withheld


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("limit", [4000, 2000])
def test_a_result_cut_by_tool_result_max_chars_still_withholds_unread(like_text, limit):
    cut = truncate(like_text, limit)  # what tools.base.execute stores under KITEBASE_TOOL_RESULT_MAX_CHARS=limit
    answer = f"Same problem: KITE-144, KITE-163 and {UNREAD} (Silverline).\n"
    withheld = not_confirmed(_run(cut, answer, read=()), "embedded")
    print(f"\nlimit={limit} len(text)={len(like_text)} withheld={sorted(withheld)}")
    assert UNREAD in withheld, f"{UNREAD} was only worth a look and never read, yet would be offered"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_ticket_from_a_keyword_search_named_unread_is_withheld(like_text, settings, db):
    """The model also searched by words and names a hit of that search it never read: not confirmed either."""
    words = execute(REGISTRY, ToolContext(db=db, settings=settings), "search_tickets", {"query": "locked out"})
    other = next(h["id"] for h in words.data if h["id"] not in like_text and h["status"] != "closed")
    answer = f"Same problem: KITE-144, KITE-163 and {other}.\n"
    withheld = not_confirmed(_run(like_text, answer, read=()), "embedded")
    print(f"\nkeyword-only hit {other}: withheld={sorted(withheld)}")
    assert other in withheld, f"{other} was neither likely nor read, yet would be offered"
