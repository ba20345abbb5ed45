"""The offline model works every ticket in the desk end to end, without keys or network."""

from __future__ import annotations

import json

import pytest

from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk
from bot.desk import open_desk
from bot.runs.lifecycle.service import RunService
from tests.helpers import approvals_of, assert_well_formed, staff_replies

TICKETS = [t["id"] for t in json.loads((Settings().data_dir / "tickets.json").read_text())]
REFUND_REQUESTS = {"KITE-178", "KITE-217"}  # "Please refund the duplicate", "Can I get that money back?"


@pytest.fixture(scope="module")
def desk(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('desk') / 'desk.db'}"
    settings = Settings(database_url=url)
    db = Database.from_url(url)
    create_schema(db.engine)
    seed_desk(db, settings.data_dir)
    yield db, settings
    db.engine.dispose()


@pytest.mark.parametrize("ticket_id", TICKETS)
def test_every_ticket_is_handled_offline(desk, ticket_id):
    db, settings = desk
    service = RunService(db, settings)
    run_id = service.start(f"handle {ticket_id}, and tell me if other customers have hit the same problem")
    state = service.resume(run_id)
    if ticket_id in REFUND_REQUESTS:  # money is a person's decision: handed over, nothing drafted
        assert state.status == "escalated" and "refunds are a person's decision" in state.reason
        assert approvals_of(db, run_id) == [] and staff_replies(db, ticket_id) == []
        return
    assert state.status == "awaiting_approval", state.reason
    [approval] = approvals_of(db, run_id)
    draft = approval.tool_input["message"]
    assert approval.tool_input["ticket_id"] == ticket_id and "[" in draft and "#" in draft, "the draft cites a section"
    service.decide(approval.id, action="approve", actor="test-lead")
    state = service.resume(run_id)
    assert state.status == "completed" and state.answer.startswith("Replied to ")
    assert_well_formed(state.messages)
    sent = open_desk(settings, db).customer_text(draft.strip())  # citations read as the sections' titles
    assert [m.body for m in staff_replies(db, ticket_id)][-1] == sent


def test_seeding_is_idempotent(desk):
    db, settings = desk
    again = seed_desk(db, settings.data_dir)
    assert not again.loaded and again.tickets >= 60 and again.customers >= 12 and again.sections >= 15
