"""Review of issue 50: when a ticket only worth a look cannot be read (get_ticket errors), the offline model listed
it under "Set aside (read, and another problem …)", a line that says it was read and judged, neither of which was
true. Now it is not named at all (it was not read), and the report says how many could not be opened."""
from __future__ import annotations

import dataclasses

import pytest

from bench.claims import claim
from tools import REGISTRY, ToolContext
from tools.base import ToolError


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_unreadable_worth_a_look_ticket_is_not_named_as_read(settings, db, monkeypatch):
    real = REGISTRY["get_ticket"]

    def flaky(ctx, ticket_id):
        if ticket_id.upper() == "KITE-164":
            raise ToolError("get_ticket could not reach the desk (timeout). Try again.")
        return real.fn(ctx, ticket_id)

    monkeypatch.setitem(REGISTRY, "get_ticket", dataclasses.replace(real, fn=flaky))
    found = claim(ToolContext(db=db, settings=settings), "KITE-142")
    assert found.report is not None and "KITE-164" not in found.report
    assert "1 more ticket only worth a look could not be opened, so I have not judged it" in found.report
    assert found.set_aside and "KITE-164" not in found.set_aside | found.named
