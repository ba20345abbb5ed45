"""Caps that hold and rules that do not wait on each other (issue 48, items 4 and 5): a paused or capped rule's
backlog, however large, never delays another rule's tickets; the dollar cap holds under a burst in one pass (a
started run counts at an expected cost until its own is known)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlmodel import col, select

from bot.db.models import DeskArrival, IntakeRule, Run, utcnow
from bot.runs.intake import arrivals
from bot.runs.intake.rules import Rule
from bot.vocabulary import ArrivalState, RunStatus
from tests.test_intake_rules import _arrival, _new_ticket, _pass


def test_a_paused_rules_backlog_larger_than_a_pass_never_delays_another_rule(db: Any, settings: Any) -> None:
    rules = [Rule(name="sso", channel="C0SSO", tags=("sso",)), Rule(name="billing", channel="C0BILL", tags=("billing",))]
    arrivals.standing(db, rules)
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "sso").values(paused=True, paused_by="cli"))
    backlog = [_new_ticket(db, n, tags=("sso",)) for n in range(arrivals.BATCH + 50)]
    assert _pass(db, settings, rules) == []
    assert _pass(db, settings, rules) == [], "the whole backlog waits"
    billing = _new_ticket(db, 999, tags=("billing",))
    started = _pass(db, settings, rules)
    assert len(started) == 1, "the other rule's new ticket starts in the very next pass"
    assert _arrival(db, billing).state == ArrivalState.STARTED
    assert all(_arrival(db, t).state == ArrivalState.WAITING for t in backlog[:3])


def test_a_rule_over_its_hourly_cap_never_delays_another_rule(db: Any, settings: Any) -> None:
    rules = [Rule(name="sso", channel="C0SSO", tags=("sso",), max_per_hour=1),
             Rule(name="billing", channel="C0BILL", tags=("billing",))]
    arrivals.standing(db, rules)
    flood = [_new_ticket(db, n, tags=("sso",)) for n in range(arrivals.BATCH + 20)]
    assert len(_pass(db, settings, rules)) == 1
    while _pass(db, settings, rules):  # the flood settles into the backlog
        pass
    billing = _new_ticket(db, 999, tags=("billing",))
    assert len(_pass(db, settings, rules)) == 1 and _arrival(db, billing).state == ArrivalState.STARTED
    assert sum(_arrival(db, t).state == ArrivalState.WAITING for t in flood) == len(flood) - 1


def _history(db: Any, cost: float, runs: int = 5) -> None:
    """Runs the rule started yesterday and that finished, each costing `cost`: what its runs are expected to cost."""
    from datetime import timedelta

    with db.session() as session:
        for n in range(runs):
            run = Run(goal=f"handle KITE-{100 + n}", ticket_id=f"KITE-{100 + n}", status=RunStatus.COMPLETED,
                      cost_usd=cost, model="m", origin={"rule": "sso"}, finished_at=utcnow())
            session.add(run)
            session.flush()
            session.add(DeskArrival(key=f"ticket:old-{n}", kind="ticket", ticket_id=f"KITE-{100 + n}", rule="sso",
                                    state=ArrivalState.STARTED, run_id=run.id,
                                    decided_at=utcnow() - timedelta(days=1)))


def test_the_dollar_cap_holds_under_a_burst_in_one_pass(db: Any, settings: Any) -> None:
    rules = [Rule(name="sso", channel="C0SSO", tags=("sso",), max_usd_per_day=1.0)]
    arrivals.standing(db, rules)
    _history(db, 0.40)
    burst = [_new_ticket(db, n, tags=("sso",)) for n in range(15)]
    started = _pass(db, settings, rules)
    assert len(started) == 3, "0.40 expected each: $0, $0.40, $0.80 spent before each start; then over $1"
    waiting = [_arrival(db, t) for t in burst if _arrival(db, t).state == ArrivalState.WAITING]
    assert len(waiting) == 12 and "max_usd_per_day = 1" in (waiting[0].reason or "")
    assert "expected" in (waiting[0].reason or "")


def test_without_history_a_run_is_expected_to_cost_its_budget(db: Any, settings: Any) -> None:
    rules = [Rule(name="sso", channel="C0SSO", tags=("sso",), max_usd_per_day=3.0)]
    arrivals.standing(db, rules)
    for n in range(5):
        _new_ticket(db, n, tags=("sso",))
    assert len(_pass(db, settings, rules)) == 2, "KITEBASE_COST_BUDGET_USD ($2.00) each: $0 and $2 before each"
    with db.session() as session:
        assert len(session.exec(select(DeskArrival).where(DeskArrival.state == ArrivalState.WAITING)).all()) == 3


def test_messages_held_on_working_runs_never_delay_a_message_whose_run_ended(db: Any, settings: Any,
                                                                           monkeypatch: Any) -> None:
    """A message held while its run works is not read again until the run ends, so any number of them (here more
    than a pass reads) leaves room for a message that can continue its run now."""
    from bot.desk import arrivals as desk_arrivals

    monkeypatch.setattr(arrivals, "BATCH", 3)
    rules = [Rule(name="sso", channel="C0SSO", tags=("sso",))]
    arrivals.standing(db, rules)
    tickets = [_new_ticket(db, n, tags=("sso",)) for n in range(5)]
    runs = _pass(db, settings, rules) + _pass(db, settings, rules)
    assert len(runs) == 5
    with db.session() as session:  # the last ticket's run ended; the others still work
        session.execute(update(Run).where(col(Run.id) == runs[-1]).values(status=RunStatus.COMPLETED))
        for n, ticket in enumerate(tickets):
            desk_arrivals.message_arrived(session, key=f"message:busy{n}", ticket_id=ticket, author="Dana",
                                          body=f"news {n}")
    assert _pass(db, settings, rules) == [], "the first pass reads the oldest three: all held on working runs"
    assert _pass(db, settings, rules) == [runs[-1]], "the next reads past them to the message that can go on"
    assert str(_arrival(db, tickets[0]).reason) == f"held until run #{runs[0]} ends"
