"""Business hours, the one place that does arithmetic on them (DESIGN.md convention 22).

A schedule is opening hours per weekday in one time zone (one or more windows a day, `24:00` for the end of the
day, so a night shift is the evening of one day and the morning of the next), and holidays (whole local days off).
Times go in and come out as aware datetimes; the walk is done day by day in local time and each window is turned
into UTC by `zoneinfo`, so a daylight-saving change moves the windows' UTC hours and never adds or loses a
business minute. A window that a change falls inside (a shop open across 02:00) counts the minutes that really
pass."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
END_OF_DAY = 24 * 60
_LONGEST_WALK = 3660  # days: a schedule with no open day at all is refused when it is read, so this is a guard

Window = tuple[int, int]  # minutes from local midnight: opens, closes (closes up to 24:00)


@dataclass(frozen=True)
class Schedule:
    zone: ZoneInfo
    hours: dict[int, tuple[Window, ...]] = field(default_factory=dict)  # weekday (Monday 0) → its windows
    holidays: frozenset[date] = frozenset()

    def _windows(self, day: date) -> list[tuple[datetime, datetime]]:
        """The day's opening hours in UTC, none on a closed day or a holiday."""
        if day in self.holidays:
            return []
        return [(self._at(day, opens), self._at(day, closes)) for opens, closes in self.hours.get(day.weekday(), ())]

    def _at(self, day: date, minute: int) -> datetime:
        if minute >= END_OF_DAY:
            return datetime.combine(day + timedelta(days=1), time(0), self.zone).astimezone(UTC)
        return datetime.combine(day, time(minute // 60, minute % 60), self.zone).astimezone(UTC)

    def add(self, start: datetime, minutes: float) -> datetime:
        """The moment `minutes` business minutes after `start` have passed."""
        left = timedelta(minutes=minutes)
        cursor = _aware(start)
        day = cursor.astimezone(self.zone).date()
        for _ in range(_LONGEST_WALK):
            for opens, closes in self._windows(day):
                begin = max(cursor, opens)
                if begin < closes:
                    if begin + left <= closes:
                        return begin + left
                    left -= closes - begin
            day += timedelta(days=1)
        raise ValueError("the schedule has no business hours within ten years")

    def between(self, start: datetime, end: datetime) -> float:
        """Business minutes from `start` to `end` (negative when `end` is earlier)."""
        start, end = _aware(start), _aware(end)
        if end < start:
            return -self.between(end, start)
        total = timedelta(0)
        day = start.astimezone(self.zone).date() - timedelta(days=1)  # a window may reach past its day's midnight
        last = end.astimezone(self.zone).date()
        while day <= last:
            for opens, closes in self._windows(day):
                begin, finish = max(start, opens), min(end, closes)
                if begin < finish:
                    total += finish - begin
            day += timedelta(days=1)
        return total.total_seconds() / 60


def parse_hours(value: object) -> tuple[Window, ...]:
    """`"09:00-17:30"`, or several: `["00:00-06:00", "22:00-24:00"]` (a night shift: the morning and the evening
    of each day); a sentence naming the value when it is not that."""
    parts = value if isinstance(value, list) else [value]
    windows = sorted(_window(str(part)) for part in parts)
    for (_, closes), (opens, _) in zip(windows, windows[1:], strict=False):
        if opens < closes:
            raise ValueError(f"hours {value!r} overlap")
    return tuple(windows)


def _window(value: str) -> Window:
    try:
        opens, closes = (_minute(part.strip()) for part in value.split("-", 1))
    except ValueError:
        raise ValueError(f"hours '{value}' are not 'HH:MM-HH:MM' (24:00 ends the day)") from None
    if closes <= opens:
        raise ValueError(f"hours '{value}' close before they open; a night shift is two windows a day, the morning "
                         "and the evening: [\"00:00-06:00\", \"22:00-24:00\"]")
    return opens, closes


def _minute(text: str) -> int:
    if text == "24:00":
        return END_OF_DAY
    parsed = time.fromisoformat(text)
    return parsed.hour * 60 + parsed.minute


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)
