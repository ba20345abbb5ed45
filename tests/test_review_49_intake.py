"""Review of issue 49 (reviewer 1): intake order and due_within, through real intake passes on both databases."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import col

from bot.db.models import IntakeRule
from bot.runs.intake import arrivals, control
from bot.vocabulary import ArrivalState
from tests.test_due_order import _an_hour_passes, _due, _rule, _tickets_of
from tests.test_intake_rules import _arrival, _new_ticket, _pass


def test_due_within_does_not_lift_the_cap_for_a_whole_backlog(db: Any, settings: Any) -> None:
    """max_per_hour = 2 and due_within = 30 min. The lead pauses the rule over lunch; twelve tickets wait, all
    already breached or due within half an hour (an ordinary backlog after a pause, or after a cap held it for
    hours). On resume one pass starts all twelve "past the cap": twelve runs and twelve pick-up messages at once, the
    hourly cap (the lead's guard on cost and attention) does nothing, and for the ten that are already breached
    starting them past the cap cannot prevent a breach ("so a cap never makes a breach")."""
    rules = [_rule(max_per_hour=2, due_within=timedelta(minutes=30))]
    arrivals.standing(db, rules)
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "sso").values(paused=True, paused_by="cli"))
    waiting = []
    for n in range(12):
        ticket = _new_ticket(db, n, priority="normal")
        _due(db, ticket, -60 + 5 * n)  # from breached an hour ago to due in 0-... minutes
        waiting.append(ticket)
    assert _pass(db, settings, rules) == []
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "sso").values(paused=False))
    started = _tickets_of(db, _pass(db, settings, rules))
    with db.session() as session:
        [status] = control.figures(session, rules).rules
    assert len(started) <= 4, (f"one pass started {len(started)} tickets under max_per_hour = 2 "
                               f"({status.past_cap_hour} past the cap)")


def test_a_ticket_whose_due_moves_while_it_waits_is_ordered_by_the_new_time(db: Any, settings: Any) -> None:
    """Held: the backlog is read by the ticket's due_at at each pass, so a due that changes while waiting counts."""
    rules = [_rule(max_per_hour=1)]
    arrivals.standing(db, rules)
    first = _new_ticket(db, 1)
    assert _tickets_of(db, _pass(db, settings, rules)) == [first]
    a, b = _new_ticket(db, 2), _new_ticket(db, 3)
    _due(db, a, 30)
    _due(db, b, 300)
    assert _pass(db, settings, rules) == []
    _due(db, b, 10)  # b's priority was raised on the desk: now due before a
    _an_hour_passes(db)
    assert _tickets_of(db, _pass(db, settings, rules)) == [b]
    assert _arrival(db, a).state == ArrivalState.WAITING


def test_a_due_within_the_intake_cannot_use_is_refused_when_the_file_is_read() -> None:
    """`due_within = "99999999d"` (or 1e12) passes `intake check` and `serve`'s start, then every intake pass that
    meets a ticket with a due time fails with OverflowError (now + due_within is past year 9999); 1e18 is a
    traceback at the terminal instead of the file's sentence."""
    from datetime import UTC, datetime

    from bot.runs.intake.rules import RulesError, parse

    for value in ('"99999999d"', "1e18"):
        text = f'[[rule]]\nname = "sso"\nchannel = "C0SSO"\nmax_per_hour = 2\ndue_within = {value}\n'
        try:
            [rule] = parse(text)
        except RulesError:
            continue
        arrivals.due_soon(rule, datetime(2027, 1, 1, tzinfo=UTC), datetime(2026, 12, 7, tzinfo=UTC))


def test_intake_status_lists_the_backlog_in_the_order_it_will_start(db: Any, settings: Any) -> None:
    """`kitebase intake status` (and /kitebase intake status) lists a backlog "waiting, oldest first", the first 20,
    without due times, while the backlog starts what is due first. With 25 waiting, the one about to breach
    (the 25th to arrive) is not listed at all: the lead who looks cannot see what starts next or what is
    breaching in the backlog."""
    rules = [_rule(max_per_hour=1)]
    arrivals.standing(db, rules)
    first = _new_ticket(db, 0)
    assert _tickets_of(db, _pass(db, settings, rules)) == [first]
    made = [_new_ticket(db, n) for n in range(1, 26)]
    for n, ticket in enumerate(made):
        _due(db, ticket, 600 - 20 * n)  # the last to arrive is due first (in 120 min)
    assert _pass(db, settings, rules) == []
    with db.session() as session:
        [status] = control.figures(session, rules).rules
    listed = [w.ticket_id for w in status.oldest]
    assert listed and listed[0] == made[-1], f"listed first: {listed[:3]}; next to start: {made[-1]}"
