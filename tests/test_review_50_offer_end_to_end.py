"""Review of issue 50 (fixed; the first test failed before the fix). The finding (end to end): after the worked example (`kitebase run "handle KITE-142 ..." --approve auto`), the same
run with a report phrased as a real model might (blank line under a bold heading) is offered a batch that includes
KITE-162, a ticket it read and set aside. And a tool_result stored as a list of blocks (held: parsed)."""
from __future__ import annotations

import pytest

from bot.db.models import Run
from bot.runs.intake.fan_out import offer


def not_confirmed(run: Run, desk_kind: str) -> set[str]:
    """What the report names that the batch would not offer (the reviewer's question, on the allow-list)."""
    from bot.desk import ticket_ids_in
    from bot.runs.intake.fan_out import confirmed

    return set(ticket_ids_in(run.answer or "", desk_kind)) - confirmed(run, desk_kind)





def _worked(cli, db):
    code, out, _ = cli("run", "handle KITE-142, and tell me if other customers have hit the same problem",
                       "--approve", "auto")
    assert code == 0
    return out


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_offer_with_a_blank_line_under_the_set_aside_heading(cli, settings, db):
    _worked(cli, db)
    with db.session() as session:
        run = session.get(Run, 1)
        print("\nORIGINAL REPORT:\n" + run.answer)
        print("offer (original):", offer(session, run, "embedded"))
        run.answer = ("Replied to Acme on KITE-142.\n\n**Same problem (open):**\n- KITE-144 Harbor Pine\n"
                      "- KITE-163 Tidewater Analytics\n\n**Set aside**\n\n"
                      "- KITE-162 Quarry Lane Health: AADSTS53000, an Azure policy, not the certificate.\n")
        offered = offer(session, run, "embedded")
        print("offer (blank line under heading):", offered)
    assert "KITE-162" not in offered


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_tool_results_as_lists_of_blocks_are_read(cli, settings, db):
    """Held: a tool_result whose content is a list of text blocks still yields the tiers."""
    _worked(cli, db)
    with db.session() as session:
        run = session.get(Run, 1)
        before = not_confirmed(run, "embedded")
        for m in run.messages:
            if m["role"] == "user" and isinstance(m["content"], list):
                for b in m["content"]:
                    if b.get("type") == "tool_result" and isinstance(b.get("content"), str):
                        b["content"] = [{"type": "text", "text": b["content"]}]
        after = not_confirmed(run, "embedded")
    print("\nnot_confirmed str:", sorted(before), "blocks:", sorted(after))
    assert before == after
