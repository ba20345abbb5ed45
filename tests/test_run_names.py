"""One name for a run (bot/runs/lifecycle/naming.py): a run number as `kitebase runs` shows it, or a ticket that
stands for its live or latest run; on Zendesk a bare number is whichever exists, and asked when both do."""

from __future__ import annotations

import pytest

from bot.db.models import Run, Ticket, utcnow
from bot.runs import BadInput
from bot.runs.lifecycle import naming
from bot.runs.lifecycle.new_run import insert_run


def _run(session, ticket_id: str, status: str = "completed") -> int:
    run_id = insert_run(session, goal=f"handle {ticket_id}", ticket_id=ticket_id, model="m", started_by="cli",
                        origin={"surface": "cli"}, thread_key=None)
    assert run_id is not None
    run = session.get(Run, run_id)
    run.status = status
    session.add(run)
    session.flush()
    return run_id


@pytest.mark.parametrize("name", ["2", "#2", "run 2", " Run #2 ", "RUN2"])
def test_a_run_number_in_the_forms_people_type(db, name):
    with db.session() as session:
        _run(session, "KITE-142")
        _run(session, "KITE-162")
        named = naming.resolve(session, name)
    assert (named.run_id, named.ticket_id, named.customer) == (2, "KITE-162", "Quarry Lane Health")
    assert named.label(start=True) == "Run 2 (KITE-162, Quarry Lane Health)"


def test_a_ticket_stands_for_its_live_run_else_its_latest(db):
    with db.session() as session:
        first = _run(session, "KITE-142")
        second = _run(session, "KITE-142", status="escalated")
        assert naming.resolve(session, "kite 142").run_id == second
        live = _run(session, "KITE-142", status="awaiting_approval")
        assert naming.resolve(session, "KITE-142").run_id == live
        assert naming.resolve(session, "KITE-142", want=naming.WAITING).run_id == live
        assert naming.resolve(session, f"{first}").run_id == first


def test_what_names_no_run_is_a_sentence(db):
    with db.session() as session:
        _run(session, "KITE-142")
        for name, words in (("99", "There is no run 99"), ("0", "There is no run 0"), ("", "Name a run"),
                            ("KITE-162", "No run has worked KITE-162 yet"), ("-1", "names no run"),
                            ("KITE-142 KITE-162", "names 2 tickets"), ("approval 1", "names no run")):
            with pytest.raises(BadInput, match=words):
                naming.resolve(session, name)
        with pytest.raises(BadInput, match="has no draft waiting: it is completed"):
            naming.resolve(session, "1", want=naming.WAITING)
        with pytest.raises(BadInput, match="KITE-142 has no draft waiting: its latest run, run 1"):
            naming.resolve(session, "KITE-142", want=naming.WAITING)


def test_on_zendesk_a_bare_number_is_whichever_exists_and_asked_when_both_do(db):
    with db.session() as session:
        customer = session.get(Ticket, "KITE-142").customer_id
        now = utcnow()
        for ticket_id in ("1", "4821"):
            session.add(Ticket(id=ticket_id, customer_id=customer, title="t", status="open", created_at=now,
                               updated_at=now))
        session.flush()
        run_on_4821 = _run(session, "4821")  # run 1, on ticket 4821
        assert naming.resolve(session, "4821", kind="zendesk").run_id == run_on_4821  # no run 4821: the ticket
        assert naming.resolve(session, "ticket 4821", kind="zendesk").run_id == run_on_4821
        assert naming.resolve(session, "https://acme.zendesk.com/agent/tickets/4821", kind="zendesk").run_id == 1
        _run(session, "1")  # run 2, on ticket 1: now "1" is both run 1 and a ticket with runs
        with pytest.raises(BadInput, match="say `run 1` or `ticket 1`"):
            naming.resolve(session, "1", kind="zendesk")
        assert naming.resolve(session, "run 1", kind="zendesk").run_id == 1
        assert naming.resolve(session, "ticket 1", kind="zendesk").run_id == 2
