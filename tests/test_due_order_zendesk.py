"""What is due is worked first on the Zendesk desk too (issue 49), end to end: thirty new tickets in the Zendesk
stand-in, each with the first-reply breach time Zendesk's SLA engine serves in the `slas` side-load (some with no
policy at all), reach the mirror by the poll and by signed webhooks; one intake rule capped at four an hour starts
them, pass after pass, in the order of those breach times (none last), then priority, then arrival. A breach time
Zendesk moves while a ticket waits (earlier, or paused) reorders the backlog at the next poll.

The real HTTP client against standins/zendesk_server.py, the real webhook handler and poll, the real intake pass,
a real database (SQLite and PostgreSQL). The expected order is worked out here from what the test told Zendesk,
not with the product's `sla.order_key`."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update
from sqlmodel import col

from bot.config import Settings
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import DeskArrival, Run, Ticket
from bot.runs.execution import desk_work
from bot.runs.intake import arrivals, control
from bot.runs.intake.rules import Rule, load
from bot.vocabulary import ArrivalState, RunStatus
from standins.zendesk_server import ZendeskServer
from tests.helpers import wait_until
from tests.test_desk_zendesk import signed
from tests.test_intake_zendesk import arrivals_of, desk, zd  # noqa: F401 (fixtures)

CAP = 4
ORDER = {"urgent": 0, "high": 1, "normal": 2, "low": 3, None: 4}  # the oracle's own ranking; no priority last


@pytest.fixture
def capped(desk: tuple[Database, Settings]) -> Iterator[list[Rule]]:  # noqa: F811
    """One rule in the rules file, in force before the tickets arrive: what is tagged sso, at most CAP an hour."""
    db, settings = desk
    assert settings.intake_rules is not None
    settings.intake_rules.write_text(f'[[rule]]\nname = "sso"\nchannel = "C0SSO"\ntags = ["sso"]\n'
                                     f'max_per_hour = {CAP}\n', encoding="utf-8")
    rules = load(settings.intake_rules)
    arrivals.standing(db, rules)
    yield rules


def _breach(minutes: float) -> datetime:
    """A breach time `minutes` from now, on a whole second (Zendesk's times have second precision)."""
    return (datetime.now(UTC) + timedelta(minutes=minutes)).replace(microsecond=0)


def _serve(zd: ZendeskServer, ticket: int, at: datetime) -> datetime:  # noqa: F811
    """Zendesk's SLA engine: the ticket's first reply is due `at` (the `slas` side-load serves it so)."""
    zd.set_sla(ticket, "first_reply_time", stage="active", breach_at=at.timestamp())
    return at


def _intake_pass(db: Database, settings: Settings, rules: list[Rule]) -> list[int]:
    """One intake pass as the service runs it; the tickets of the runs it started, in the order they started."""
    started: list[int] = []
    desk_work.intake(db, settings, rules, started.append)
    with db.session() as session:
        runs = [session.get(Run, run_id) for run_id in started]
        return [int(str(run.ticket_id)) for run in runs if run is not None]


def _an_hour_passes(db: Database) -> None:
    """What started, started more than an hour ago by the database's clock (the hourly cap counts its last hour);
    the runs ended."""
    with db.session() as session:
        now = clock.read_now(session)
        session.execute(update(DeskArrival).where(col(DeskArrival.state) == ArrivalState.STARTED)
                        .values(decided_at=now - timedelta(hours=1, seconds=1)))
        session.execute(update(Run).values(status=RunStatus.COMPLETED))


def _poll(db: Database, settings: Settings) -> None:
    report = desk_work.poll(db, settings)
    assert report is not None and report.caught_up


def _webhook(db: Database, settings: Settings, zd: ZendeskServer, ticket: int) -> None:  # noqa: F811
    """Zendesk's trigger for `ticket`, signed as Zendesk signs it, through the service's webhook handler; waits
    for the background read to record the ticket's arrival."""
    body = json.dumps(zd.ticket_webhook_payload(ticket)).encode()
    assert desk_work.webhook(db, settings, signed(body), body)[0].startswith("202")
    wait_until(lambda: len(arrivals_of(db, ticket)) == 1, f"ticket {ticket} to arrive by webhook")


def _most_due_first(waiting: list[int], breach: dict[int, datetime | None], priority: dict[int, str | None],
                    arrived: list[int]) -> list[int]:
    """The order expected: the breach time Zendesk serves (none last), then priority, then arrival."""
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(waiting, key=lambda t: (breach[t] or far, ORDER[priority[t]], arrived.index(t)))


def _stored_due(db: Database, ticket: int) -> datetime | None:
    with db.session() as session:
        row = session.get(Ticket, str(ticket))
        assert row is not None
        due = row.due_at
    return due.replace(tzinfo=UTC) if due is not None and due.tzinfo is None else due


def test_a_backlog_of_30_zendesk_tickets_drains_by_the_breach_times_zendesk_serves(
        desk: tuple[Database, Settings], zd: ZendeskServer, capped: list[Rule]) -> None:  # noqa: F811
    """The thirty arrive new: the first pass orders them all and starts four; the rest wait, and each later pass
    reads the rule's backlog (one SQL query, most due first) and starts the next four."""
    _drain(desk, zd, capped, paused=False)


def test_a_paused_rules_zendesk_backlog_read_five_at_a_time_drains_by_breach_time_too(
        desk: tuple[Database, Settings], zd: ZendeskServer, capped: list[Rule],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The thirty arrive while the rule is paused and all wait; once resumed, a pass reads only the five most due
    of the backlog (the order is the database's: breach time with none last, priority with none last, arrival),
    so that the SQL order alone decides what starts."""
    monkeypatch.setattr(arrivals, "BATCH", 5)
    _drain(desk, zd, capped, paused=True)


def _drain(desk: tuple[Database, Settings], zd: ZendeskServer, capped: list[Rule],  # noqa: F811
           *, paused: bool) -> None:
    db, settings = desk
    if paused:
        assert control.pause(db, settings, "sso", by="ULEAD")[0].changed
    dana = zd.user_by_email("dana.whitfield@example.com")
    assert dana is not None
    shuffle = random.Random(49)
    # breach times spread over a day (one already breached), three tickets due at the same time, four with no
    # policy at all; in a shuffled order, so that the arrival order is not the breach order
    minutes: list[float | None] = [float(-30 + 55 * k) for k in range(23)] + [None] * 4
    shuffle.shuffle(minutes)
    minutes[7:7] = [90.0, 90.0, 90.0]
    tied_priorities = iter(("low", "urgent", "high"))  # the tie is told apart by priority, against arrival
    breach: dict[int, datetime | None] = {}
    priority: dict[int, str | None] = {}
    tickets: list[int] = []
    for n, due in enumerate(minutes):
        level = next(tied_priorities) if due == 90.0 else shuffle.choice(("urgent", "high", "normal", "low", None))
        ticket = zd.add_ticket(f"SSO loop {n}", f"Sign-in loops ({n}).", dana["id"], status="new", priority=level,
                               tags=["sso"])
        breach[ticket] = None if due is None else _serve(zd, ticket, _breach(due))
        priority[ticket] = level
        tickets.append(ticket)
        if n == 19:
            _poll(db, settings)  # the first twenty come in by the poll, the last ten by webhook, one at a time
        elif n > 19:
            _webhook(db, settings, zd, ticket)

    assert set(priority.values()) == set(ORDER), "every priority, and none, among them"
    assert [len(arrivals_of(db, t)) for t in tickets] == [1] * 30
    # the arrival order is the order the mirror recorded them (a poll's export need not list them as created)
    arrived = sorted(tickets, key=lambda t: arrivals_of(db, t)[0].id or 0)
    assert arrived[20:] == tickets[20:], "the webhook ones, one at a time"
    assert [_stored_due(db, t) for t in tickets] == [breach[t] for t in tickets], "the breach times Zendesk served"
    expected_all = _most_due_first(tickets, breach, priority, arrived)
    if paused:
        for _ in range(7):  # a pass decides at most BATCH new arrivals: 30 at 5 a pass
            assert _intake_pass(db, settings, capped) == [], "the paused rule holds them all"
        assert {(a.state, a.reason) for t in tickets for a in arrivals_of(db, t)} == {
            (ArrivalState.WAITING, "rule 'sso' is paused by <@ULEAD>")}
        assert control.resume(db, settings, "sso", by="ULEAD")[0].changed
    assert expected_all[:CAP] != arrived[:CAP], "the arrival order would start other tickets first"

    started: list[int] = []
    moved: tuple[int, int] | None = None
    for hour in range(9):  # 30 tickets, 4 an hour (one more hour: nothing is left)
        waiting = [t for t in tickets if t not in started]
        if hour == 2:
            # while they wait, Zendesk's engine moves two breach times: the last in line (nothing due) now breaches
            # in five minutes, and the next in line is paused (nothing due); the next poll mirrors both
            expected = _most_due_first(waiting, breach, priority, arrived)
            moved = (expected[-1], expected[0])
            assert breach[moved[0]] is None and breach[moved[1]] is not None
            breach[moved[0]] = _serve(zd, moved[0], _breach(5))
            breach[moved[1]] = None
            zd.set_sla(moved[1], "first_reply_time", stage="paused")
            _poll(db, settings)
            assert (_stored_due(db, moved[0]), _stored_due(db, moved[1])) == (breach[moved[0]], None)
        batch = _intake_pass(db, settings, capped)
        assert batch == _most_due_first(waiting, breach, priority, arrived)[:CAP], f"hour {hour}"
        if hour == 2:
            assert moved is not None and batch[0] == moved[0], "the ticket now due first jumps the backlog"
            assert moved[1] not in batch, "the paused one waits behind those with a breach time"
        started += batch
        assert _intake_pass(db, settings, capped) == [], "the hour is full"
        _an_hour_passes(db)

    assert sorted(started) == sorted(tickets) and len(started) == 30, "each ticket started once"
    assert all([a.state for a in arrivals_of(db, t)] == [ArrivalState.STARTED] for t in tickets)
    assert started != arrived
    # the tie: three due at the same time start the more urgent first, whatever their arrival
    tied = [t for t in started if minutes[tickets.index(t)] == 90.0]
    assert [priority[t] for t in tied] == ["urgent", "high", "low"]
