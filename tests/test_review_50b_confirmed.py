"""Second review of issue 50 (fixed; each test failed before the fix): what fan_out.confirmed() counts.

1. A like-ticket search on ANOTHER ticket than the run's (the model checked KITE-162's own cluster): its
   "likely" hits (KITE-166: AADSTS53003, an Azure policy, not KITE-142's certificate problem) become offerable
   for KITE-142's fix, though nobody judged them against KITE-142.
2. Zendesk: a get_ticket of a ticket with a short id (e.g. "42") never counts as read (ticket_ids_in drops bare
   numbers under 3 digits), so a ticket the run read and confirmed is not offered."""
from __future__ import annotations

import pytest

from bot.db.models import Run
from bot.runs.intake.fan_out import confirmed
from tools import REGISTRY, ToolContext, execute


def _run(results: list[tuple[str, dict, str]], answer: str, ticket: str = "KITE-142") -> Run:
    messages = [{"role": "user", "content": [{"type": "text", "text": f"handle {ticket}"}]}]
    for i, (name, args, text) in enumerate(results):
        messages += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": name, "input": args}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": text}]}]
    return Run(id=1, goal=f"handle {ticket}", ticket_id=ticket, status="completed", answer=answer,
               messages=messages, model="m")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_likely_hits_of_a_search_like_another_ticket_are_not_confirmed_for_this_one(settings, db):
    ctx = ToolContext(db=db, settings=settings)
    mine = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142"})
    theirs = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-162"})
    assert '"id": "KITE-166"' in theirs.text.split('"worth_a_look"')[0]  # likely for KITE-162
    answer = ("Same problem: KITE-144 and KITE-163.\n"
              "KITE-162 and KITE-166 look like an Azure policy block instead (AADSTS5300x), not the certificate.\n")
    run = _run([("search_tickets", {"like_ticket_id": "KITE-142"}, mine.text),
                ("search_tickets", {"like_ticket_id": "KITE-162"}, theirs.text)], answer)
    got = confirmed(run, "embedded")
    print("confirmed:", sorted(got))
    assert "KITE-166" not in got, "KITE-166 is KITE-162's problem, never judged against KITE-142"
