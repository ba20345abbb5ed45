"""What is due is worked first (issue 49): a rule's backlog drains by the ticket's breach time, then priority, then
arrival; a rule's `due_within` lets a ticket about to breach start past a full hourly cap, counted and shown by
`intake status` (text, --json, the slash command), while pause and the others still hold. Real intake passes on
both databases; due times are set on the ticket rows as the desk stores them (`sla.store`), against the
database's clock."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from bot.cli import main
from bot.db import clock
from bot.db.models import DeskArrival, IntakeRule, Run, Ticket
from bot.desk import sla
from bot.runs.intake import arrivals, check, control
from bot.runs.intake.rules import RulesError, load, parse
from bot.vocabulary import ArrivalState, RunStatus
from standins.slack_harness import start_harness
from tests.test_intake_rules import _arrival, _new_ticket, _pass

ORDER = {"urgent": 0, "high": 1, "normal": 2, "low": 3}  # the oracle's own ranking (not the product's)


def _due(db: Any, ticket_id: str, minutes: float | None, priority: str | None = None, *,
         since: datetime | None = None) -> None:
    """The ticket's first reply due `minutes` from now by the database's clock (or from `since`; None: nothing
    due), as the desk stores it."""
    with db.session() as session:
        ticket = session.get(Ticket, ticket_id)
        assert ticket is not None
        if priority is not None:
            ticket.priority = priority
        now = since or clock.read_now(session)
        due = None if minutes is None else sla.Due("first_reply", "active", now + timedelta(minutes=minutes), 60)
        sla.store(session, ticket, due)


def _tickets_of(db: Any, run_ids: list[int]) -> list[str]:
    with db.session() as session:
        return [str(session.get(Run, r).ticket_id) for r in run_ids]


def _an_hour_passes(db: Any) -> None:
    """What started, started more than an hour ago (the hourly cap counts the database's last hour); runs ended."""
    with db.session() as session:
        now = clock.read_now(session)
        session.execute(update(DeskArrival).where(col(DeskArrival.state) == ArrivalState.STARTED)
                        .values(decided_at=now - timedelta(hours=1, seconds=1)))
        session.execute(update(Run).values(status=RunStatus.COMPLETED))


def _backlog(db: Any, settings: Any, rules: list[Any], count: int) -> list[tuple[str, float | None, str]]:
    """`count` tickets waiting in the (paused) first rule's backlog, with mixed targets: breach times spread over
    a day in a shuffled order, ties on the breach time told apart by priority and then by arrival, and some with
    nothing due. Returns (ticket, minutes, priority) in arrival order."""
    arrivals.standing(db, rules)
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == rules[0].name).values(paused=True))
    shuffle = random.Random(49)
    minutes: list[float | None] = [float(m) for m in range(-30, 1440, 60)][: count - 6] + [None] * 3
    minutes += [90.0, 90.0, 90.0]  # three due at the same time
    shuffle.shuffle(minutes)
    made = []
    with db.session() as session:
        now = clock.read_now(session)
    for n, due in enumerate(minutes):
        priority = shuffle.choice(("urgent", "high", "normal", "low"))
        ticket = _new_ticket(db, n, priority=priority)
        _due(db, ticket, due, priority, since=now)
        made.append((ticket, due, priority))
    assert _pass(db, settings, rules) == [], "the paused rule holds them all"
    assert all(_arrival(db, t).state == ArrivalState.WAITING for t, _, _ in made)
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == rules[0].name).values(paused=False))
    return made


def _most_due_first(made: list[tuple[str, float | None, str]]) -> list[str]:
    """The order expected: breach time (nothing due last), then priority, then arrival."""
    ranked = sorted(enumerate(made), key=lambda item: (item[1][1] is None, item[1][1] or 0.0, ORDER[item[1][2]],
                                                         item[0]))
    return [ticket for _, (ticket, _, _) in ranked]


def test_a_backlog_of_30_drains_by_breach_time_under_a_cap(db: Any, settings: Any) -> None:
    rules = [_rule(max_per_hour=4)]
    made = _backlog(db, settings, rules, 30)
    expected = _most_due_first(made)
    assert expected != [t for t, _, _ in made], "the arrival order differs from what is due"
    started: list[str] = []
    for _hour in range(8):  # 30 tickets, 4 an hour
        batch = _tickets_of(db, _pass(db, settings, rules))
        assert len(batch) == min(4, 30 - len(started)), "the cap holds"
        started += batch
        assert _pass(db, settings, rules) == [], "the hour is full"
        _an_hour_passes(db)
    assert started == expected
    # the ties: same breach time, the more urgent first, then the one that arrived first
    tied = [(t, p) for t in started for (u, due, p) in made if u == t and due == 90.0]
    assert [ORDER[p] for _, p in tied] == sorted(ORDER[p] for _, p in tied)


def test_the_most_due_of_a_backlog_larger_than_a_pass_reads_start_first(db: Any, settings: Any,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass reads at most BATCH of a backlog: the most due of it (the database orders them), not the oldest."""
    rules = [_rule()]
    made = _backlog(db, settings, rules, 30)
    monkeypatch.setattr(arrivals, "BATCH", 5)
    first = _tickets_of(db, _pass(db, settings, rules))
    assert first == _most_due_first(made)[:5]


def test_due_within_lets_a_ticket_about_to_breach_past_a_full_cap_and_counts_it(db: Any, settings: Any) -> None:
    rules = [_rule(max_per_hour=1, due_within=timedelta(minutes=30))]
    arrivals.standing(db, rules)
    routine = _new_ticket(db, 1, priority="normal")
    assert _tickets_of(db, _pass(db, settings, rules)) == [routine], "the cap is full now"
    with db.session() as session:  # `intake check` says what a full cap still lets through, and its bounds
        [would] = check.judge(session, settings, rules).rules
    assert would.hold == ("over max_per_hour = 1 (a ticket due within 30 min, not one already breached, would start "
                          "past it: due_within, at most 1 an hour)")
    soon, later = _new_ticket(db, 2), _new_ticket(db, 3)
    _due(db, soon, 20)
    _due(db, later, 180)
    assert _tickets_of(db, _pass(db, settings, rules)) == [soon]
    assert _arrival(db, soon).past_cap is True and "past its max_per_hour" in (_arrival(db, soon).reason or "")
    assert (_arrival(db, later).state, _arrival(db, later).reason) == (ArrivalState.WAITING, "over max_per_hour = 1")
    assert _arrival(db, routine).past_cap is False
    # the later one waits in the backlog of a capped rule; within the window now, it waits still: the one start
    # past the cap that due_within allows an hour (max_per_hour) is used
    assert _pass(db, settings, rules) == []
    _due(db, later, 29)
    assert _pass(db, settings, rules) == []
    assert _arrival(db, later).state == ArrivalState.WAITING
    with db.session() as session:
        [status] = control.figures(session, rules).rules
        [would] = check.judge(session, settings, rules).rules
    assert (status.past_cap_hour, status.past_cap_today, status.due_within_minutes) == (1, 1, 30)
    assert status.taken == 2, "past-cap starts are taken tickets too"
    assert would.hold == ("over max_per_hour = 1 (due_within's 1 start(s) past it this hour are used too: a ticket "
                          "due within 30 min waits as well)")
    _an_hour_passes(db)
    assert _tickets_of(db, _pass(db, settings, rules)) == [later] and _arrival(db, later).past_cap is False
    third = _new_ticket(db, 4)
    _due(db, third, 15)
    assert _tickets_of(db, _pass(db, settings, rules)) == [third] and _arrival(db, third).past_cap is True


def test_due_within_at_most_doubles_the_cap_and_a_breached_ticket_waits_its_turn_first(db: Any,
                                                                                      settings: Any) -> None:
    """max_per_hour = 2, due_within = 30m: of a backlog of eight, four already breached and four about to, one
    pass starts the two most breached (the cap) and two about to breach (past it); the other breached two wait,
    and start first when the hour frees."""
    rules = [_rule(max_per_hour=2, due_within=timedelta(minutes=30))]
    arrivals.standing(db, rules)
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "sso").values(paused=True))
    made = [_new_ticket(db, n, priority="normal") for n in range(8)]
    for ticket, minutes in zip(made, (-50, 25, -40, 20, -30, 15, -20, 10), strict=True):
        _due(db, ticket, minutes)
    assert _pass(db, settings, rules) == []
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "sso").values(paused=False))
    started = _tickets_of(db, _pass(db, settings, rules))
    assert started == [made[0], made[2], made[7], made[5]], "the cap by breach time, then two about to breach"
    assert [_arrival(db, t).past_cap for t in started] == [False, False, True, True]
    assert _pass(db, settings, rules) == [], "cap and past-cap allowance both used this hour"
    assert _arrival(db, made[4]).reason == "over max_per_hour = 2"
    with db.session() as session:
        [status] = control.figures(session, rules).rules
    assert [w.ticket_id for w in status.oldest] == [made[4], made[6], made[3], made[1]], "the order they start"
    dues = [w.due or "" for w in status.oldest]
    assert dues[0].startswith("first reply breached 30 min ago · ") and dues[0].endswith(" · normal"), dues
    assert dues[1].startswith("first reply breached 20 min ago · ") and dues[3].startswith("first reply due in 25 min")
    assert all(w.due_at for w in status.oldest), "each with its breach time (--json: due_at)"
    _an_hour_passes(db)
    assert _tickets_of(db, _pass(db, settings, rules)) == [made[4], made[6], made[3], made[1]], (
        "the breached two first, by the cap; then the two due soon past it")


def test_due_within_skips_only_the_hourly_cap(db: Any, settings: Any) -> None:
    """A pause holds a ticket about to breach (and so does the dollar cap)."""
    rules = [_rule(max_per_hour=1, due_within=timedelta(minutes=30), max_usd_per_day=1.0)]
    arrivals.standing(db, rules)
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "sso").values(paused=True, paused_by="cli"))
    paused = _new_ticket(db, 1)
    _due(db, paused, 5)
    assert _pass(db, settings, rules) == []
    assert "is paused" in (_arrival(db, paused).reason or "")
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "sso").values(paused=False))
    assert _tickets_of(db, _pass(db, settings, rules)) == [paused], "no cap was full: a plain start"
    assert _arrival(db, paused).past_cap is False
    over = _new_ticket(db, 2)  # the first run is expected to cost the per-run budget ($2): over $1 a day
    _due(db, over, 5)
    assert _pass(db, settings, rules) == []
    assert "max_usd_per_day" in (_arrival(db, over).reason or "")


def test_the_rules_file_reads_due_within() -> None:
    text = '[[rule]]\nname = "sso"\nchannel = "C0SSO"\nmax_per_hour = 2\ndue_within = "{}"\n'
    assert parse(text.format("30m"))[0].due_within == timedelta(minutes=30)
    assert parse(text.format("2h"))[0].due_within == timedelta(hours=2)
    assert parse(text.format("45"))[0].due_within == timedelta(minutes=45), "a bare number is minutes"
    assert parse(text.replace('"{}"', "{}").format(15))[0].due_within == timedelta(minutes=15)
    assert parse(text.replace('due_within = "{}"\n', ""))[0].due_within is None
    assert parse(text.format("7d"))[0].due_within == timedelta(days=7), "the longest window"
    for bad in ('"soon"', '"-5m"', "0", "true", '"8d"', "10081", '"99999999d"', "1e12", "1e18", '"inf"', "nan",
                '"1e400"'):
        with pytest.raises(RulesError) as caught:
            parse(text.replace('"{}"', "{}").format(bad), "rules.toml")
        assert str(caught.value) == ("rules.toml, line 5: rule 'sso': due_within is a window such as \"30m\", "
                                     "\"2h\" or 45 (minutes), above 0 and at most 7 days."), bad


RULES = """\
[[rule]]
name = "sso"
channel = "C0SSO"
tags = ["sso"]
max_per_hour = 1
due_within = "30m"
"""


def test_intake_status_shows_what_passed_the_cap(db: Any, settings: Any, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(RULES, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(path))
    rules = load(path)
    settings = settings.model_copy(update={"intake_rules": path, "approvers": frozenset({"ULEAD"})})
    arrivals.standing(db, rules)
    yesterday = _new_ticket(db, 1)
    _due(db, yesterday, 10)
    assert len(_pass(db, settings, rules)) == 1
    plain, later = _new_ticket(db, 2), _new_ticket(db, 3)
    soon = _new_ticket(db, 4)
    _due(db, soon, 10)
    assert _tickets_of(db, _pass(db, settings, rules)) == [soon], "past the full cap; the others wait"
    with db.session() as session:  # another past-cap start, yesterday: not counted
        now = clock.read_now(session)
        session.execute(update(DeskArrival).where(col(DeskArrival.ticket_id) == yesterday)
                        .values(decided_at=now - timedelta(days=1, minutes=1), past_cap=True))
    _due(db, later, 120)  # the later arrival is due first: the backlog lists (and starts) it first
    assert main(["intake", "status"]) == 0
    out = capsys.readouterr().out
    shown = ("  due within 30 min (not yet breached) starts past the hourly cap, at most 1 an hour: 1 in the last "
             "hour, 1 today")
    assert shown in out
    assert f"  waiting, in the order they start:\n    {later} · first reply due in " in out, out
    assert f"\n    {plain} · " in out.split(later, 1)[1] and "\n  why: over max_per_hour = 1" in out
    assert main(["intake", "status", "--json"]) == 0
    [rule] = json.loads(capsys.readouterr().out)["rules"]
    assert (rule["past_cap_hour"], rule["past_cap_today"], rule["due_within_minutes"]) == (1, 1, 30)
    assert [w["ticket_id"] for w in rule["oldest"]] == [later, plain]
    assert rule["oldest"][0]["due"].startswith("first reply due in ") and rule["oldest"][0]["due_at"]
    assert rule["oldest"][1]["due_at"] is None and "due" not in (rule["oldest"][1]["due"] or "")
    harness, stop = start_harness(settings, db)
    try:
        status, body = harness.send.command("intake status", user="ULEAD")
        assert status == 200
        assert "\n" + shown.strip() in body
        with db.session() as session:  # the service drew the due lines again from the desk's policies when it came up
            order = [w.ticket_id for w in control.figures(session, rules).rules[0].oldest]
        assert sorted(order) == sorted([later, plain])
        assert (f"\nwaiting, in the order they start (over max_per_hour = 1):\n• *{order[0]}* · first reply due in "
                in body), body
        assert f"\n• *{order[1]}* · first reply due in " in body.split(order[0], 1)[1], body
    finally:
        stop()


def _rule(**limits: Any) -> Any:
    from bot.runs.intake.rules import Rule

    return Rule(name="sso", channel="C0SSO", tags=("sso",), **limits)


def test_a_ticket_with_nothing_due_still_starts_in_arrival_order(db: Any, settings: Any) -> None:
    """New arrivals keep working as before: with nothing due, the oldest first."""
    rules = [_rule(max_per_hour=2)]
    arrivals.standing(db, rules)
    tickets = [_new_ticket(db, n, priority="normal") for n in range(4)]
    assert _tickets_of(db, _pass(db, settings, rules)) == tickets[:2]
    with db.session() as session:
        assert [a.state for a in session.exec(select(DeskArrival).order_by(col(DeskArrival.id))).all()] == \
            [ArrivalState.STARTED] * 2 + [ArrivalState.WAITING] * 2


def test_the_benchmark_drains_the_same_tickets_both_ways() -> None:
    """bench/due_order.py at a tiny size (docs/performance.md, "What is due first"): both orders start every
    ticket, at the cap an hour, through the real intake pass; the figures add up."""
    from bench.due_order import measure

    result = measure(count=12, cap=4, reply_minutes=10, seed=3)
    for name in ("arrival_order", "breach_order"):
        figures = result[name]
        assert (figures["tickets"], figures["hours_to_drain"]) == (12, 3), name
        assert figures["met"] + figures["breached"] == 12, name
    assert result["arrival_order"] != result["breach_order"], "the order changes which targets are met"


def test_the_reload_log_writes_due_within_as_the_file_reads_it() -> None:
    """A changed due_within is logged in the file's own form, so what the log says can be written back."""
    from bot.runs.intake.reload import differences

    text = '[[rule]]\nname = "sso"\nchannel = "C0SSO"\nmax_per_hour = 2\ndue_within = {}\n'
    for value, shown in (("30", "30m"), ('"2h"', "2h"), ("90", "90m"), ('"1d"', "1d"), ('"45s"', "45s"),
                         ("45.5", "2730s")):
        [old], [new] = parse(text.format('"7d"')), parse(text.format(value))
        assert differences([old], [new]) == [f"rule 'sso' changed: due_within 7d → {shown}"], value
        assert parse(text.format(f'"{shown}"'))[0].due_within == new.due_within, shown
