"""Review of issue 49 (round 2, reviewer 3): sla.span rounds minutes up for what is still due, then floors the
hours and days from the raw seconds, so in the last minute before two hours (and before two days) the line jumps
down and back up: "due in 2 h", "due in 1 h", "due in 1 h 59 min"; "due in 2 days", "due in 1 days", "due in 47 h"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.desk import sla


def test_a_due_line_never_reads_less_than_the_next_minute_does() -> None:
    assert sla.span(7170, up=True) in ("2 h", "1 h 59 min"), sla.span(7170, up=True)  # 1 h 59 min 30 s left
    assert sla.span(172770, up=True) in ("2 days", "47 h"), sla.span(172770, up=True)  # 47 h 59 min 30 s left


def test_no_line_says_1_days() -> None:
    now = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
    due = sla.Due("first_reply", "active", now + timedelta(hours=48) - timedelta(seconds=30), 3000)
    assert "1 days" not in sla.describe(due, now, tier="Enterprise", priority="low")
