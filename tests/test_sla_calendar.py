"""The embedded desk's reply targets (bot/desk/sla.py) and business hours (bot/desk/calendar.py): across a
daylight-saving change and a holiday, paused while the ticket waits on the customer, next reply after the staff's
last one, stored on the ticket as the desk changes; and a policies file that cannot be used says where and why."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select

from bot.db.models import Customer, Ticket, TicketMessage
from bot.desk import embedded_add, sla
from bot.desk.calendar import Schedule, parse_hours
from bot.desk.embedded import EmbeddedDesk

AMSTERDAM = ZoneInfo("Europe/Amsterdam")
KB_POLICIES = sla.read_policies(Path(__file__).resolve().parents[1] / "kb_data" / "sla.toml")


def _utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def _office(holidays: frozenset = frozenset()) -> Schedule:
    week = {day: parse_hours("09:00-17:30") for day in range(4)} | {4: parse_hours("09:00-17:00")}
    return Schedule(AMSTERDAM, week, holidays)


def test_business_minutes_carry_over_a_weekend_that_changes_the_clocks():
    """Friday 26 March 2027, 16:30 in Amsterdam (15:30 UTC, winter time): 30 minutes left that day; the clocks go
    forward on Sunday, so Monday opens at 09:00 summer time, 07:00 UTC. 240 business minutes end at 12:30 local:
    10:30 UTC. A fixed offset would say 11:30 UTC."""
    start = _utc(2027, 3, 26, 15, 30)
    assert _office().add(start, 240) == _utc(2027, 3, 29, 10, 30)
    assert _office().between(start, _utc(2027, 3, 29, 10, 30)) == 240


def test_business_minutes_across_the_autumn_change_too():
    """Friday 29 October 2027, 16:00 local (14:00 UTC, summer time): 60 minutes that day; the clocks go back on
    Sunday, so Monday 1 November opens at 09:00 winter time, 08:00 UTC: 60 more end at 10:00 local, 09:00 UTC."""
    assert _office().add(_utc(2027, 10, 29, 14, 0), 120) == _utc(2027, 11, 1, 9, 0)


def test_a_holiday_is_skipped_whole():
    """Thursday 24 December 2026, 17:00 local: 30 minutes that day; Friday is Christmas (a holiday), then the
    weekend: the rest runs from Monday 28 December, 09:00 local (08:00 UTC)."""
    christmas = frozenset({datetime(2026, 12, 25).date(), datetime(2026, 12, 26).date()})
    start = _utc(2026, 12, 24, 16, 0)
    assert _office(christmas).add(start, 60) == _utc(2026, 12, 28, 8, 30)
    assert _office().add(start, 60) == _utc(2026, 12, 25, 8, 30)  # the same Friday, were it not a holiday
    assert _office(christmas).between(start, _utc(2026, 12, 28, 8, 30)) == 60


def test_a_start_outside_hours_waits_for_the_next_opening():
    saturday_night = _utc(2027, 1, 9, 22, 0)
    assert _office().add(saturday_night, 15) == _utc(2027, 1, 11, 8, 15)
    assert _office().between(saturday_night, _utc(2027, 1, 11, 8, 0)) == 0


def _ticket(status: str = "open", priority: str = "normal", created: datetime | None = None) -> Ticket:
    when = created or _utc(2026, 12, 24, 16, 0)
    return Ticket(id="KITE-900", customer_id="c", title="t", status=status, priority=priority, created_at=when,
                  updated_at=when)


def _message(role: str, at: datetime, n: int) -> TicketMessage:
    return TicketMessage(id=n, ticket_id="KITE-900", author=role, role=role, body="…", created_at=at)


def test_the_kb_data_policies_by_tier_and_priority():
    created = _utc(2026, 12, 24, 16, 0)
    enterprise = sla.compute(_ticket(priority="urgent"), "Enterprise", [], KB_POLICIES)
    assert enterprise == sla.Due("first_reply", "active", created + timedelta(minutes=30), 30, False)
    business = sla.compute(_ticket(priority="urgent"), "Business", [], KB_POLICIES)
    assert business is not None and business.breach_at == _utc(2026, 12, 28, 8, 30)  # Christmas, then the weekend
    anyone = sla.compute(_ticket(priority="low"), None, [], KB_POLICIES)
    assert anyone is not None and anyone.target_minutes == 960 and anyone.business_hours


def test_next_reply_runs_from_the_customers_first_message_after_the_staffs_last():
    t0 = _utc(2027, 1, 12, 9, 0)  # a Tuesday, 10:00 local
    messages = [_message("customer", t0, 1), _message("staff", t0 + timedelta(minutes=20), 2)]
    replied = sla.compute(_ticket(created=t0), "Enterprise", messages, KB_POLICIES)
    assert replied == sla.Due("first_reply", "achieved")
    messages += [_message("customer", t0 + timedelta(hours=1), 3), _message("customer", t0 + timedelta(hours=2), 4)]
    due = sla.compute(_ticket(created=t0), "Enterprise", messages, KB_POLICIES)
    assert due == sla.Due("next_reply", "active", t0 + timedelta(hours=1, minutes=240), 240, False)
    internal = [*messages, TicketMessage(id=5, ticket_id="KITE-900", author="a", role="internal", body="n",
                                         created_at=t0 + timedelta(hours=3))]
    assert sla.compute(_ticket(created=t0), "Enterprise", internal, KB_POLICIES) == due  # a note is no reply


def test_waiting_on_the_customer_pauses_and_closed_ends_it():
    """As Zendesk's reply metrics: a pending ticket whose customer still waits for a reply keeps its target running
    (pending or on hold stops no reply clock); once staff answered and the ticket is pending, it waits on the
    customer: paused, with no breach, until they write. Closed: nothing is due."""
    created = _utc(2026, 12, 24, 16, 0)
    unanswered = sla.compute(_ticket(status="pending"), "Enterprise", [], KB_POLICIES)
    assert unanswered == sla.Due("first_reply", "active", created + timedelta(minutes=120), 120, False)
    on_hold = sla.compute(_ticket(status="hold"), "Enterprise", [], KB_POLICIES)
    assert on_hold == unanswered
    answered = [_message("customer", created, 1), _message("staff", created + timedelta(minutes=20), 2)]
    paused = sla.compute(_ticket(status="pending"), "Enterprise", answered, KB_POLICIES)
    assert paused == sla.Due("next_reply", "paused", None, 240, False)
    assert sla.compute(_ticket(status="open"), "Enterprise", answered, KB_POLICIES) == \
        sla.Due("first_reply", "achieved")
    assert sla.compute(_ticket(status="closed"), "Enterprise", [], KB_POLICIES) is None
    now = _utc(2026, 12, 24, 16, 30)
    assert sla.describe(paused, now, tier="Enterprise", priority="normal") == \
        "next reply paused while the customer answers · Enterprise · normal"


def test_an_agents_opening_comment_is_not_the_first_reply():
    """A ticket an agent opened for a customer starts with a staff comment: Zendesk's first reply time ends at the
    agent's next public comment, and so does ours."""
    t0 = _utc(2027, 1, 12, 9, 0)
    opened = [_message("staff", t0, 1)]
    assert sla.compute(_ticket(created=t0), "Enterprise", opened, KB_POLICIES) == \
        sla.Due("first_reply", "active", t0 + timedelta(minutes=120), 120, False)
    replied = [*opened, _message("customer", t0 + timedelta(minutes=5), 2), _message("staff", t0 + timedelta(hours=1), 3)]
    assert sla.compute(_ticket(created=t0), "Enterprise", replied, KB_POLICIES) == sla.Due("first_reply", "achieved")


def test_what_a_person_reads():
    due = sla.Due("first_reply", "active", _utc(2027, 1, 12, 9, 14), 30)
    assert sla.describe(due, _utc(2027, 1, 12, 9, 0, 30), tier="Enterprise", priority="urgent") == \
        "first reply due in 14 min · Enterprise · urgent"
    assert sla.describe(due, _utc(2027, 1, 12, 9, 20, 5), tier="Business", priority="high") == \
        "first reply breached 6 min ago · Business · high"
    assert sla.describe(due, _utc(2027, 1, 12, 9, 14, 20)) == "first reply breached just now"
    assert sla.describe(due, _utc(2027, 1, 12, 7, 59, 30)) == "first reply due in 1 h 15 min"
    assert sla.describe(due, _utc(2027, 1, 12, 6, 0)) == "first reply due in 3 h"  # whole hours beyond two
    assert sla.describe(due, _utc(2027, 1, 15, 9, 0)) == "first reply breached 2 days ago"  # never more than there are
    assert sla.describe(None, _utc(2027, 1, 12), tier=None, priority=None) is None
    assert sla.breached(due, _utc(2027, 1, 12, 9, 14)) and not sla.breached(due, _utc(2027, 1, 12, 9, 13))


def test_what_is_due_orders_first_then_priority_then_arrival():
    soon, later = _utc(2027, 1, 1, 9), _utc(2027, 1, 1, 10)
    keys = {"a": sla.order_key(later, "urgent", 1), "b": sla.order_key(soon, "low", 5),
            "c": sla.order_key(None, "urgent", 0), "d": sla.order_key(soon, "high", 9), "e": sla.order_key(soon, "high", 3)}
    assert sorted(keys, key=keys.__getitem__) == ["e", "d", "b", "a", "c"]


@pytest.mark.parametrize("text, says", [
    ("[schedule]\ntime_zone = \"Mars/Olympus\"\nhours = { mon = \"09:00-17:00\" }", "not an IANA time zone"),
    ("[schedule]\ntime_zone = \"UTC\"\nhours = { mon = \"17:00-09:00\" }", "close before they open"),
    ("[schedule]\ntime_zone = \"UTC\"\nhours = { funday = \"09:00-17:00\" }", "unknown day 'funday'"),
    ("[[policy]]\nbusiness_hours = true\nfirst_reply = { normal = 60 }", "has no [schedule]"),
    ("[[policy]]\nfirst_reply = { critical = 60 }", "priority 'critical'"),
    ("[[policy]]\nfirst_reply = { normal = 0 }", "above 0"),
    ("[[policy]\n", "cannot be read as TOML"),
])
def test_a_policies_file_that_cannot_be_used_says_where_and_why(tmp_path, text, says):
    path = tmp_path / "sla.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(sla.PoliciesUnusable, match=str(path).replace("\\", "\\\\")) as caught:
        sla.read_policies(path)
    assert says in str(caught.value)


def test_no_policies_file_means_nothing_is_due(tmp_path):
    assert sla.read_policies(tmp_path / "absent.toml") is sla.NO_POLICIES
    assert sla.compute(_ticket(), "Enterprise", [], sla.NO_POLICIES) is None


def test_the_embedded_desk_keeps_the_due_on_the_ticket_as_it_changes(db, settings):
    """A new ticket is due by its customer's tier and its priority; the staff's reply meets it (the first reply's
    breach time is kept for the figures); pending pauses the next one; the customer's answer starts it."""
    desk = EmbeddedDesk(db, settings)
    [added] = embedded_add.add(db, [embedded_add.NewTicket(1, "Harbor Pine", "Board export times out", "It hangs.",
                                                           (), "urgent")], arrivals=False, policies=desk.policies).added
    with db.session() as session:
        ticket = session.get(Ticket, added.ticket_id)
        tier = session.get(Customer, ticket.customer_id).tier
        assert tier == "Enterprise"
        due = sla.Due.from_json(ticket.sla)
        assert due is not None and (due.metric, due.stage, due.target_minutes) == ("first_reply", "active", 30)
        assert ticket.due_at is not None and sla._aware(ticket.due_at) == due.breach_at
        assert due.breach_at - sla._aware(ticket.created_at) == timedelta(minutes=30)
        first_due = ticket.sla["first_reply_due"]

    desk.reply(added.ticket_id, "We are on it.", run_id=None, tool_use_id=None)
    desk.update(added.ticket_id, status="pending", assignee=None, note=None, run_id=None, tool_use_id=None)
    with db.session() as session:
        ticket = session.get(Ticket, added.ticket_id)
        assert ticket.due_at is None and (ticket.sla["metric"], ticket.sla["stage"]) == ("next_reply", "paused")
        assert ticket.sla["first_reply_due"] == first_due  # kept after the reply

    embedded_add.add(db, [embedded_add.NewMessage(2, added.ticket_id, "Still hangs.", None)], arrivals=False,
                     policies=desk.policies)
    with db.session() as session:
        ticket = session.get(Ticket, added.ticket_id)
        answer = session.exec(select(TicketMessage).where(TicketMessage.ticket_id == added.ticket_id)
                              .order_by(TicketMessage.id.desc())).first()
        assert ticket.status == "open" and ticket.sla["metric"] == "next_reply" and ticket.sla["stage"] == "active"
        assert sla._aware(ticket.due_at) == sla._aware(answer.created_at) + timedelta(minutes=60)


def test_the_terminal_names_an_unusable_policies_file_before_anything_runs(tmp_path, monkeypatch, capsys):
    from bot.cli import main

    bad = tmp_path / "sla.toml"
    bad.write_text("[[policy]]\nfirst_reply = { whenever = 5 }\n", encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'k.db'}")
    monkeypatch.setenv("KITEBASE_SLA_POLICIES", str(bad))
    assert main(["drafts"]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"kitebase: the reply targets in {bad}: policy 1: first_reply names priority 'whenever'")
    assert "Traceback" not in said and not (tmp_path / "k.db").exists()  # nothing was opened
