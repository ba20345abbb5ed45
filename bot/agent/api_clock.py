"""The Messages API's clock as this process reads it (DESIGN.md convention 16: an outside service's times are
compared with that service's own clock).

The API says when each rate-limit bucket is full again (anthropic-ratelimit-*-reset, a time by its clock); how
far off that is must be measured from the API's "now", not ours, which may be minutes off. Every answer carries
the API's time in its Date header, in whole seconds: the API answered at some moment in [Date, Date + 1), and
that moment lies between our sending the request and our reading the answer. Each answer thus bounds the
offset between its clock and ours; the bounds of all answers together narrow it to about the round trip.
Our clock only measures the time since, on itself."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC
from email.utils import parsedate_to_datetime


class ApiClock:
    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock  # this process's clock: only differences of its readings count
        self._low, self._high = -math.inf, math.inf  # the API's clock minus ours lies between these
        self._lock = threading.Lock()

    def observe(self, headers: Mapping[str, str], *, sent_at: float | None = None,
                received_at: float | None = None) -> float | None:
        """Learn from an answer's Date header (sent and received by our clock); the API's time now, or None
        while no answer said it."""
        date = _date(headers.get("date"))
        received = self.clock() if received_at is None else received_at
        sent = received if sent_at is None else sent_at
        if date is not None:
            low, high = date - received, date + 1.0 - sent
            with self._lock:
                if low > self._high or high < self._low:  # one of the clocks was set meanwhile: start again
                    self._low, self._high = low, high
                else:
                    self._low, self._high = max(self._low, low), min(self._high, high)
        return self.now()

    def now(self) -> float | None:
        """The API's time now, as seconds since 1970 (None while unknown)."""
        with self._lock:
            if math.isinf(self._high) or math.isinf(self._low):
                return None
            offset = (self._low + self._high) / 2
        return self.clock() + offset


def _date(value: str | None) -> float | None:
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()  # HTTP dates are GMT
