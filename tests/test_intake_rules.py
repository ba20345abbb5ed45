"""The intake rules file (bot/runs/intake/rules.py) and one intake pass over arrivals (bot/runs/intake/arrivals.py)
on the embedded desk: which rule takes a ticket and why, caps and the backlog, skips with reasons, follow-ups."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from bot.db.models import Customer, DeskArrival, IntakeRule, Outbox, Run, Ticket, TicketMessage, utcnow
from bot.desk import arrivals as desk_arrivals
from bot.runs.execution.desk_work import intake
from bot.runs.intake import arrivals
from bot.runs.intake.rules import Rule, RulesError, parse
from bot.vocabulary import ArrivalState, RunStatus

GOOD = """\
# urgent SSO trouble first
[[rule]]
name = "urgent-sso"
channel = "C0URGENT"
priorities = ["urgent", "high"]
tags = ["sso"]
max_per_hour = 20

[[rule]]
name = "everything-else"
channel = "C0REST"
statuses = ["new"]
max_usd_per_day = 5.0
follow_ups = false
"""


def test_a_good_file_gives_its_rules_in_order() -> None:
    rules = parse(GOOD)
    assert [r.name for r in rules] == ["urgent-sso", "everything-else"]
    assert rules[0].priorities == ("urgent", "high") and rules[0].tags == ("sso",) and rules[0].max_per_hour == 20
    assert rules[1].follow_ups is False and rules[1].max_usd_per_day == 5.0 and rules[1].line == 9


@pytest.mark.parametrize(("text", "line", "words"), [
    (GOOD.replace('max_per_hour = 20', 'max_per_hour = "many"'), 7, "max_per_hour is a whole number"),
    (GOOD.replace('channel = "C0REST"', 'channel = "#general"'), 11, "Slack channel id"),
    (GOOD.replace('statuses = ["new"]', 'statuses = ["nieuw"]'), 12, "statuses 'nieuw' is not one of"),
    (GOOD.replace('follow_ups = false', 'follow_up = false'), 14, "unknown key 'follow_up'"),
    (GOOD.replace('name = "everything-else"', 'name = "urgent-sso"'), 9, "a second rule named 'urgent-sso'"),
    (GOOD.replace('tags = ["sso"]', 'tags = ["sso"'), 7, "not valid TOML"),
])
def test_a_bad_file_is_one_sentence_naming_its_line(text: str, line: int, words: str) -> None:
    with pytest.raises(RulesError) as caught:
        parse(text, "rules.toml")
    assert f"line {line}" in str(caught.value) and words in str(caught.value)


def test_a_rule_says_why_it_takes_a_ticket_and_the_first_match_wins() -> None:
    rules = parse(GOOD)
    urgent = {"status": "new", "priority": "urgent", "tags": ["sso", "billing"]}
    assert rules[0].why(urgent) == ["urgent", "tagged sso"]
    assert rules[0].why({**urgent, "tags": ["billing"]}) is None
    assert rules[1].why({"status": "new", "priority": None}) == ["new"]
    assert Rule(name="all", channel="C0ALL").why({"status": "open"}) == ["any new ticket"]


# --- one pass ------------------------------------------------------------------------------------------------

def _rules(**first: Any) -> list[Rule]:
    return [Rule(name="urgent-sso", channel="C0URGENT", priorities=("urgent",), tags=("sso",), **first),
            Rule(name="rest", channel="C0REST", statuses=("new",))]


def _new_ticket(db: Any, number: int, *, priority: str = "urgent", tags: tuple[str, ...] = ("sso",),
                status: str = "new", answered: bool = False) -> str:
    """A ticket new on the desk, recorded for the intake as `desk add` and the Zendesk mirror record one
    (`answered`: a person has already replied publicly)."""
    ticket_id = f"KITE-{900 + number}"
    with db.session() as session:
        customer = session.exec(select(Customer.id)).first()
        now = utcnow()
        session.add(Ticket(id=ticket_id, customer_id=customer, title=f"SSO loop {number}", status="open",
                           priority=priority, tags=list(tags), created_at=now, updated_at=now))
        session.add(TicketMessage(ticket_id=ticket_id, author="Dana", role="customer", body="SSO loops", created_at=now))
        if answered:
            session.add(TicketMessage(ticket_id=ticket_id, author="Sam (support)", role="staff",
                                      body="Looking at it", created_at=now))
        session.flush()
        desk_arrivals.ticket_arrived(session, key=f"ticket:{ticket_id}", ticket_id=ticket_id,
                                     fields={"status": status, "priority": priority, "tags": list(tags)})
    return ticket_id


def _pass(db: Any, settings: Any, rules: list[Rule]) -> list[int]:
    dispatched: list[int] = []
    intake(db, settings, rules, dispatched.append)
    return dispatched


def _arrival(db: Any, ticket_id: str) -> DeskArrival:
    with db.session() as session:
        row = session.exec(select(DeskArrival).where(DeskArrival.ticket_id == ticket_id)
                           .order_by(col(DeskArrival.id).desc())).first()
        assert row is not None
        session.expunge(row)
        return row


def test_a_matching_arrival_becomes_one_run_in_the_rules_channel(db: Any, settings: Any) -> None:
    rules = _rules()
    arrivals.standing(db, rules)  # the rules come into force before the ticket arrives
    ticket = _new_ticket(db, 1)
    started = _pass(db, settings, rules)
    assert len(started) == 1 and _pass(db, settings, rules) == []  # a second pass starts nothing more
    with db.session() as session:
        run = session.get(Run, started[0])
        assert run is not None
        assert run.goal == f"handle {ticket} (picked up by rule 'urgent-sso': urgent, tagged sso)"
        assert run.ticket_id == ticket and run.status == RunStatus.QUEUED
        assert (run.origin or {})["rule"] == "urgent-sso" and (run.origin or {})["channel"] == "C0URGENT"
        first = session.exec(select(Outbox).where(Outbox.key == f"request:{run.id}")).one()
        assert first.channel == "C0URGENT" and (first.payload or {})["intake"]["why"] == ["urgent", "tagged sso"]
    assert _arrival(db, ticket).state == ArrivalState.STARTED


def test_arrivals_long_before_a_rule_is_in_force_and_unmatched_ones_start_nothing(db: Any, settings: Any) -> None:
    """A rule takes what arrived after it came into force and in the RECENT (24 h) before (a ticket recorded a
    moment before a rule was added or renamed is its), nothing older."""
    early = _new_ticket(db, 2)
    old = _new_ticket(db, 4)
    with db.session() as session:
        session.execute(update(DeskArrival).where(col(DeskArrival.ticket_id) == old)
                        .values(created_at=utcnow() - arrivals.RECENT - timedelta(minutes=5)))
    rules = _rules()
    arrivals.standing(db, rules)
    other = _new_ticket(db, 3, priority="low", tags=("billing",), status="open")
    assert len(_pass(db, settings, rules)) == 1
    assert _arrival(db, early).state == ArrivalState.STARTED
    assert (_arrival(db, old).state, _arrival(db, old).reason) == (ArrivalState.IGNORED, "no rule takes it")
    assert (_arrival(db, other).state, _arrival(db, other).reason) == (ArrivalState.IGNORED, "no rule takes it")


def test_over_the_hourly_cap_arrivals_wait_and_start_oldest_first_when_the_hour_allows(db: Any,
                                                                                     settings: Any) -> None:
    rules = _rules(max_per_hour=2)
    arrivals.standing(db, rules)
    tickets = [_new_ticket(db, n) for n in range(10, 15)]
    assert len(_pass(db, settings, rules)) == 2
    states = [_arrival(db, t).state for t in tickets]
    assert states == [ArrivalState.STARTED] * 2 + [ArrivalState.WAITING] * 3
    assert "over max_per_hour = 2" in (_arrival(db, tickets[2]).reason or "")
    with db.session() as session:  # one notice in the rule's channel about its backlog, however many passes
        assert len(session.exec(select(Outbox).where(col(Outbox.key).startswith("intake-backlog:"))).all()) == 1
    assert _pass(db, settings, rules) == []
    with db.session() as session:  # an hour passes for the two that started
        session.execute(update(DeskArrival).where(col(DeskArrival.state) == ArrivalState.STARTED)
                        .values(decided_at=utcnow() - timedelta(hours=1, seconds=1)))
        session.execute(update(Run).values(status=RunStatus.COMPLETED))
    assert len(_pass(db, settings, rules)) == 2
    assert [_arrival(db, t).state for t in tickets] == [ArrivalState.STARTED] * 4 + [ArrivalState.WAITING]


def test_pause_holds_new_runs_and_resume_continues_the_backlog(db: Any, settings: Any) -> None:
    rules = _rules()
    arrivals.standing(db, rules)
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "urgent-sso").values(paused=True))
    first, second = _new_ticket(db, 20), _new_ticket(db, 21)
    assert _pass(db, settings, rules) == []
    assert "paused" in (_arrival(db, first).reason or "")
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "urgent-sso").values(paused=False))
    started = _pass(db, settings, rules)
    with db.session() as session:
        assert [session.get(Run, r).ticket_id for r in started] == [first, second]  # type: ignore[union-attr]


def test_skips_say_why(db: Any, settings: Any) -> None:
    rules = _rules()
    arrivals.standing(db, rules)
    on_hold = _new_ticket(db, 30, status="hold")
    answered = _new_ticket(db, 31)
    with db.session() as session:
        session.add(TicketMessage(ticket_id=answered, author="Sam (support)", role="staff", body="Looking at it",
                                  created_at=utcnow()))
    assert _pass(db, settings, rules) == []
    assert (_arrival(db, on_hold).state, _arrival(db, on_hold).reason) == (ArrivalState.SKIPPED,
                                                                           "the ticket is hold")
    assert _arrival(db, answered).state == ArrivalState.SKIPPED
    assert "Sam (support) answered it publicly" in (_arrival(db, answered).reason or "")


def test_a_customer_message_continues_an_ended_run_once_and_waits_for_a_live_one(db: Any, settings: Any) -> None:
    rules = _rules()
    arrivals.standing(db, rules)
    ticket = _new_ticket(db, 40)
    [run_id] = _pass(db, settings, rules)
    with db.session() as session:
        desk_arrivals.message_arrived(session, key="message:x1", ticket_id=ticket, author="Dana", body="Still broken")
    assert _pass(db, settings, rules) == []  # the run is still queued: held
    assert (_arrival(db, ticket).state, _arrival(db, ticket).reason) == (ArrivalState.NEW,
                                                                         f"held until run #{run_id} ends")
    with db.session() as session:
        session.execute(update(Run).where(col(Run.id) == run_id).values(status=RunStatus.COMPLETED))
    assert _pass(db, settings, rules) == [run_id]
    assert _pass(db, settings, rules) == []
    with db.session() as session:
        run = session.get(Run, run_id)
        assert run is not None and run.status == RunStatus.QUEUED
        assert "Still broken" in str((run.messages or [])[-1])


def test_over_the_daily_spend_arrivals_wait_for_the_next_utc_day(db: Any, settings: Any) -> None:
    rules = _rules(max_usd_per_day=1.0)
    arrivals.standing(db, rules)
    first = _new_ticket(db, 50)
    [run_id] = _pass(db, settings, rules)
    with db.session() as session:  # the run's own recorded cost passes the rule's day
        session.execute(update(Run).where(col(Run.id) == run_id).values(cost_usd=1.5, status=RunStatus.COMPLETED))
    second = _new_ticket(db, 51)
    assert _pass(db, settings, rules) == []
    assert (_arrival(db, second).state, _arrival(db, second).reason) == (
        ArrivalState.WAITING, "over max_usd_per_day = 1 ($1.50 spent today, UTC)")
    with db.session() as session:  # a new UTC day: what was spent counts for the day it was spent
        day_before = utcnow().replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(seconds=1)
        session.execute(update(DeskArrival).where(col(DeskArrival.ticket_id) == first)
                        .values(decided_at=day_before))
    [started] = _pass(db, settings, rules)
    with db.session() as session:
        assert session.get(Run, started).ticket_id == second  # type: ignore[union-attr]


def test_a_ticket_a_person_already_has_a_run_on_is_skipped(db: Any, settings: Any) -> None:
    from bot.runs.lifecycle.service import RunService

    rules = _rules()
    arrivals.standing(db, rules)
    ticket = _new_ticket(db, 60)
    person = RunService(db, settings).start(f"handle {ticket}", started_by="ULEAD")  # a lead got there first
    assert _pass(db, settings, rules) == []
    assert (_arrival(db, ticket).state, _arrival(db, ticket).reason) == (ArrivalState.SKIPPED,
                                                                         f"run #{person} already works it")
    with db.session() as session:
        assert [run.id for run in session.exec(select(Run).where(col(Run.ticket_id) == ticket)).all()] == [person]
