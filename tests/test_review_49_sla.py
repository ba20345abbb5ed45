"""Review of issue 49 (reviewer 1): the embedded desk's reply targets and business hours. Each test states what
a lead or a customer would see; a failing one is a finding."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.db.models import Ticket, TicketMessage
from bot.desk import sla
from bot.desk.calendar import Schedule, parse_hours

AMSTERDAM = ZoneInfo("Europe/Amsterdam")


def _utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def _ticket(status: str, created: datetime, priority: str = "high") -> Ticket:
    return Ticket(id="KITE-990", customer_id="c", title="t", status=status, priority=priority, created_at=created,
                  updated_at=created)


def _policies(tmp_path: Path, text: str) -> sla.Policies:
    (tmp_path / "sla.toml").write_text(text, encoding="utf-8")
    return sla.read_policies(tmp_path / "sla.toml")


CLOCK = '[[policy]]\nfirst_reply = { high = 60 }\nnext_reply = { high = 60 }\n'


def test_a_pending_spell_is_hidden_but_still_counted(tmp_path: Path) -> None:
    """docs/sla.md said "a pending ticket waits on the customer: its target is paused". A ticket created at 10:00
    with a 60-minute first reply set pending at 10:10 with no public reply was shown "paused" (sorted last, no
    reminder) and due at 11:00 once reopened, as if never paused. Fixed as Zendesk's reply metrics work: pending
    stops no reply clock, so its breach stays shown throughout; only a ticket whose staff answered last and that
    waits on the customer is "paused"."""
    policies = _policies(tmp_path, CLOCK)
    created = _utc(2027, 1, 12, 10, 0)
    pending = sla.compute(_ticket("pending", created), None, [], policies)
    assert pending == sla.Due("first_reply", "active", created + timedelta(minutes=60), 60, False)
    reopened = sla.compute(_ticket("open", created), None, [], policies)
    assert reopened == pending


def test_a_desk_open_around_the_clock_loses_no_minute_at_midnight() -> None:
    """A 24-hour desk on business hours (weekdays, weekends off) could only write "00:00-23:59" and lost a minute
    every midnight; "24:00" now ends the day. 60 business minutes from Tuesday 23:30 local end Wednesday 00:30."""
    with_24h = Schedule(AMSTERDAM, {d: parse_hours("00:00-24:00") for d in range(5)})
    start = datetime(2027, 1, 12, 23, 30, tzinfo=AMSTERDAM)
    assert with_24h.add(start, 60) == datetime(2027, 1, 13, 0, 30, tzinfo=AMSTERDAM)


def test_a_night_shift_cannot_be_written() -> None:
    """A desk open 22:00-06:00 was refused with "close before they open" and no way to write it. Now the refusal
    says how, and a day may have several windows: the morning and the evening."""
    try:
        parse_hours("22:00-06:00")
    except ValueError as exc:
        assert '["00:00-06:00", "22:00-24:00"]' in str(exc)
    else:
        raise AssertionError("a window that closes before it opens was read")
    night = Schedule(AMSTERDAM, {d: parse_hours(["00:00-06:00", "22:00-24:00"]) for d in range(7)})
    start = datetime(2027, 1, 12, 23, 30, tzinfo=AMSTERDAM)
    assert night.add(start, 60) == datetime(2027, 1, 13, 0, 30, tzinfo=AMSTERDAM)
    assert night.add(start, 7 * 60) == datetime(2027, 1, 13, 22, 30, tzinfo=AMSTERDAM)  # 06:00 to 22:00 closed
    assert night.between(start, datetime(2027, 1, 13, 22, 30, tzinfo=AMSTERDAM)) == 7 * 60


def test_a_holiday_on_the_day_the_clocks_change_is_skipped() -> None:
    """Held: Sunday 28 March 2027 (clocks forward) as a working day and a holiday."""
    week = {d: parse_hours("09:00-17:00") for d in range(7)}
    holiday = Schedule(AMSTERDAM, week, frozenset({datetime(2027, 3, 28).date()}))
    saturday_evening = datetime(2027, 3, 27, 16, 30, tzinfo=AMSTERDAM)
    assert holiday.add(saturday_evening, 60) == datetime(2027, 3, 29, 9, 30, tzinfo=AMSTERDAM)
    plain = Schedule(AMSTERDAM, week)
    assert plain.add(saturday_evening, 60) == datetime(2027, 3, 28, 9, 30, tzinfo=AMSTERDAM)
    assert plain.between(saturday_evening, datetime(2027, 3, 28, 9, 30, tzinfo=AMSTERDAM)) == 60


def test_a_stricter_policies_file_rewrites_history_of_first_replies(tmp_path: Path) -> None:
    """The first reply was made at 11:30 against a 120-minute target (due 12:00): met, by 30 minutes. The lead then
    tightens the targets (120 → 60) in sla.toml; every desk open refreshes every open ticket, and the stored
    first_reply_due (what `kitebase stats` judges the past by) becomes 11:00: the reply made under the old target
    now counts as breached by 30 minutes. A priority change after the reply does the same."""
    created = _utc(2027, 1, 12, 10, 0)
    ticket = _ticket("open", created)
    messages = [TicketMessage(id=1, ticket_id=ticket.id, author="c", role="customer", body="…", created_at=created),
                TicketMessage(id=2, ticket_id=ticket.id, author="s", role="staff", body="…",
                              created_at=created + timedelta(minutes=90))]
    loose = _policies(tmp_path, '[[policy]]\nfirst_reply = { high = 120 }\n')
    sla.store(_Session(), ticket, sla.compute(ticket, None, messages, loose),
              first_reply_due=sla.first_reply_due(ticket, None, loose))
    before = (ticket.sla or {})["first_reply_due"]
    strict = _policies(tmp_path, '[[policy]]\nfirst_reply = { high = 60 }\n')
    sla.store(_Session(), ticket, sla.compute(ticket, None, messages, strict),
              first_reply_due=sla.first_reply_due(ticket, None, strict))
    assert (ticket.sla or {})["first_reply_due"] == before, "a reply already made is judged by the target it had"


def test_an_unknown_tier_in_a_policy_is_not_reported() -> None:
    """Held or not: tiers compare case-folded ('enterprise' in the file matches 'Enterprise')."""
    policies = sla.Policies((sla.Policy(frozenset({"enterprise"}), {"high": 30}, {}, False),), None)
    assert policies.policy_for("Enterprise") is not None and policies.policy_for("ENTERPRISE") is not None


class _Session:
    def add(self, _row: object) -> None:
        pass


SCHEDULE = '[schedule]\ntime_zone = "Europe/Amsterdam"\nhours = { mon = "09:00-17:00", fri = "09:00-17:00" }\n'


def test_a_misspelt_key_in_the_policies_file_is_named_not_ignored(tmp_path: Path) -> None:
    """The rules file refuses a key it does not know; the policies file drops it silently. `holiday = [...]` (for
    holidays) and Christmas counts as business time; `first_replies` or `[[policies]]` and nothing is due on any
    ticket, with no word at the terminal or in the log. Each should be a PoliciesUnusable naming the key."""
    for text in (SCHEDULE + 'holiday = ["2026-12-25"]\n[[policy]]\nbusiness_hours = true\nfirst_reply = { normal = 60 }\n',
                 '[[policy]]\nfirst_replies = { normal = 60 }\n',
                 '[[policies]]\nfirst_reply = { normal = 60 }\n',
                 '[[policy]]\nfirst_reply = { normal = 60 }\nbuisness_hours = true\n'):
        try:
            read = _policies(tmp_path, text)
        except sla.PoliciesUnusable:
            continue
        raise AssertionError(f"read without a word: {read.policies}, holidays "
                             f"{read.schedule.holidays if read.schedule else None}\n{text}")


def test_business_hours_written_as_a_string_is_refused(tmp_path: Path) -> None:
    """`business_hours = "false"` turns business hours on (bool("false") is True)."""
    try:
        read = _policies(tmp_path, SCHEDULE + '[[policy]]\nbusiness_hours = "false"\nfirst_reply = { normal = 60 }\n')
    except sla.PoliciesUnusable:
        return
    assert not read.policies[0].business_hours
