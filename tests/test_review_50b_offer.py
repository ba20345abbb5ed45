"""Second review of issue 50 (fixed; each test failed before the fix): the offer (bot/runs/intake/fan_out.py confirmed/set_aside/offer) on the offline
model's own reports.

1. A confirmed ticket whose *title* says "Another problem ..." (quoted in the offline report's positive list)
   makes set_aside() treat the line as a set-aside heading, and every list item under it too: the run offers
   nothing, and `kitebase also` says the report "names no other open ticket".
2. After `kitebase follow-up 1 "what about KITE-164?"` (a ticket the report read and SET ASIDE), the offer is
   exactly that set-aside ticket, and the two confirmed ones are gone.
3. Phrasings a real model uses for "read and judged another problem" that the generous parse misses: the read
   ticket is offered."""
from __future__ import annotations

import pytest

from bot.db.models import Run, Ticket
from bot.runs.intake.fan_out import confirmed, offer, set_aside

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_confirmed_tickets_title_saying_another_problem_holds_back_the_whole_list(cli, settings, db):
    with db.session() as session:
        row = session.get(Ticket, "KITE-144")
        row.title = "Another problem since our Okta certificate and domain change: nobody can sign in"
        session.add(row)
    code, out, _ = cli("run", GOAL, "--approve", "auto")
    assert code == 0
    print(out[out.find("Final answer"):])
    with db.session() as session:
        run = session.get(Run, 1)
        print("confirmed:", sorted(confirmed(run, "embedded")), "set_aside:", sorted(set_aside(run.answer, "embedded")))
        offered = offer(session, run, "embedded")
    code, out, err = cli("also", "1", "--approve", "auto")
    print("also:", code, (out + err)[:300])
    assert offered == ["KITE-144", "KITE-163"], offered


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_follow_up_about_a_set_aside_ticket_turns_the_offer_into_that_ticket(cli, settings, db):
    code, out, _ = cli("run", GOAL, "--approve", "auto")
    assert code == 0 and "KITE-164 Silverline Legal" in out[out.find("Set aside"):]
    with db.session() as session:
        before = offer(session, session.get(Run, 1), "embedded")
    code, out, _ = cli("follow-up", "1", "what about KITE-164?", "--approve", "auto")
    print(out[out.find("Final answer"):])
    with db.session() as session:
        after = offer(session, session.get(Run, 1), "embedded")
    print("offer before the follow-up:", before, "after:", after)
    assert before == ["KITE-144", "KITE-163"]
    assert "KITE-164" not in after, "KITE-164 was read and set aside, yet the batch offers it"


SAME = "Same problem: KITE-144 (Harbor Pine), KITE-163 (Tidewater).\n"
MISSED = {
    "different root cause": "KITE-162 has a different root cause (AADSTS53000, an Azure policy).",
    "unrelated": "KITE-162 looks unrelated: AADSTS53000 is an Azure conditional-access block.",
    "ruled out": "Ruled out: KITE-162 (Azure conditional access).",
    "not the same SSO problem": "KITE-162 is not the same SSO problem: it's an Azure policy.",
    "a separate issue": "KITE-162 is a separate issue (Azure policy).",
    "not the same (bold)": "**Read, not the same:** KITE-162 (Azure)",
}
OVERCAUGHT = {
    "contrast in the positive part": "Same problem: KITE-144 and KITE-163. Unlike the other problem we saw last "
                                     "week, this one is the certificate.",
    "customer's first guess": "KITE-144 has the same cause. KITE-163 too, although its customer first suspected "
                              "a different cause.",
}


def _read_and_judged(like_text: str, answer: str) -> Run:
    """A run on KITE-142 that searched like it, read KITE-162 (only worth a look) and reported `answer`."""
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "handle KITE-142"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search_tickets",
                                           "input": {"like_ticket_id": "KITE-142"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": like_text}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "g1", "name": "get_ticket",
                                           "input": {"ticket_id": "KITE-162"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "g1", "content": "{}"}]},
        {"role": "assistant", "content": [{"type": "text", "text": answer}]}]
    return Run(id=1, goal="handle KITE-142", ticket_id="KITE-142", status="completed", answer=answer,
               messages=messages, model="m")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("phrasing", list(MISSED))
def test_a_read_ticket_the_report_calls_another_problem_is_not_confirmed(phrasing, settings, db):
    """A ticket only worth a look counts as confirmed only where the report names it without saying it is another
    problem (the first version parsed a set-aside list and let every other phrasing through)."""
    from tools import REGISTRY, ToolContext, execute

    like = execute(REGISTRY, ToolContext(db=db, settings=settings), "search_tickets", {"like_ticket_id": "KITE-142"})
    assert '"id": "KITE-162"' in like.text.split('"worth_a_look"')[1]
    got = confirmed(_read_and_judged(like.text, SAME + MISSED[phrasing]), "embedded")
    assert "KITE-162" not in got and {"KITE-144", "KITE-163"} <= got, phrasing
    positive = confirmed(_read_and_judged(like.text, SAME + "KITE-162 too: I read it, the same certificate."),
                         "embedded")
    assert "KITE-162" in positive  # read and named as the same problem


@pytest.mark.parametrize("phrasing", list(OVERCAUGHT))
def test_a_confirmed_ticket_the_parse_sets_aside(phrasing):
    assert not {"KITE-144", "KITE-163"} & set_aside(OVERCAUGHT[phrasing], "embedded"), phrasing
