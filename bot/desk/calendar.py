"""Business hours, the one place that does arithmetic on them (DESIGN.md convention 22).

A schedule is opening hours per weekday in one time zone, and holidays (whole local days off). Times go in and
come out as aware datetimes; the walk is done day by day in local time and each day's window is turned into UTC
by `zoneinfo`, so a daylight-saving change moves the window's UTC hours and never adds or loses a business
minute. A window that a change falls inside (a shop open across 02:00) counts the minutes that really pass."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_LONGEST_WALK = 3660  # days: a schedule with no open day at all is refused when it is read, so this is a guard


@dataclass(frozen=True)
class Schedule:
    zone: ZoneInfo
    hours: dict[int, tuple[time, time]] = field(default_factory=dict)  # weekday (Monday 0) → opens, closes
    holidays: frozenset[date] = frozenset()

    def _window(self, day: date) -> tuple[datetime, datetime] | None:
        """The day's opening hours in UTC, or None on a closed day or a holiday."""
        if day in self.holidays or day.weekday() not in self.hours:
            return None
        opens, closes = self.hours[day.weekday()]
        return (datetime.combine(day, opens, self.zone).astimezone(UTC),
                datetime.combine(day, closes, self.zone).astimezone(UTC))

    def add(self, start: datetime, minutes: float) -> datetime:
        """The moment `minutes` business minutes after `start` have passed."""
        left = timedelta(minutes=minutes)
        cursor = _aware(start)
        day = cursor.astimezone(self.zone).date()
        for _ in range(_LONGEST_WALK):
            window = self._window(day)
            if window is not None:
                begin = max(cursor, window[0])
                if begin < window[1]:
                    if begin + left <= window[1]:
                        return begin + left
                    left -= window[1] - begin
            day += timedelta(days=1)
        raise ValueError("the schedule has no business hours within ten years")

    def between(self, start: datetime, end: datetime) -> float:
        """Business minutes from `start` to `end` (negative when `end` is earlier)."""
        start, end = _aware(start), _aware(end)
        if end < start:
            return -self.between(end, start)
        total = timedelta(0)
        day = start.astimezone(self.zone).date()
        last = end.astimezone(self.zone).date()
        while day <= last:
            window = self._window(day)
            if window is not None:
                begin, finish = max(start, window[0]), min(end, window[1])
                if begin < finish:
                    total += finish - begin
            day += timedelta(days=1)
        return total.total_seconds() / 60


def parse_hours(value: str) -> tuple[time, time]:
    """`09:00-17:30` → (09:00, 17:30); a sentence naming the value when it is not that."""
    try:
        opens, closes = (time.fromisoformat(part.strip()) for part in value.split("-", 1))
    except ValueError:
        raise ValueError(f"hours '{value}' are not 'HH:MM-HH:MM'") from None
    if closes <= opens:
        raise ValueError(f"hours '{value}' close before they open")
    return opens, closes


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)
