"""A Python process started with this folder on PYTHONPATH and CLOCK_AHEAD_SECONDS set reads the wall clock that
many seconds off the true time, as a host whose clock is wrong does: time.time(), time.time_ns() and
datetime.now()/utcnow()/today(). Intervals (time.monotonic, sleeps, timed waits) are untouched.

Why not faketime (Debian's package, libfaketime 0.9.10): it moves time.time(), but it moves CLOCK_MONOTONIC too,
and Python 3.11 waits on locks and events with sem_clockwait(CLOCK_MONOTONIC, deadline), which libfaketime does
not intercept: every timed wait of a thread lasts the offset (20 minutes). With FAKETIME_DONT_FAKE_MONOTONIC=1
the waits work but time.sleep() fails with EINVAL (libfaketime subtracts the epoch from clock_nanosleep's
monotonic deadline). A worker is all threads and sleeps."""

from __future__ import annotations

import datetime as _datetime
import os
import time as _time

_AHEAD = float(os.environ.get("CLOCK_AHEAD_SECONDS") or 0)

if _AHEAD:
    _real_datetime, _real_time, _real_time_ns = _datetime.datetime, _time.time, _time.time_ns
    _offset = _datetime.timedelta(seconds=_AHEAD)

    def _time_ahead() -> float:
        return _real_time() + _AHEAD

    def _time_ns_ahead() -> int:
        return _real_time_ns() + int(_AHEAD * 1_000_000_000)

    class _DatetimeAhead(_real_datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[no-untyped-def,override]
            return _real_datetime.now(tz) + _offset

        @classmethod
        def utcnow(cls):  # type: ignore[no-untyped-def,override]
            return _real_datetime.now(_datetime.UTC).replace(tzinfo=None) + _offset

        @classmethod
        def today(cls):  # type: ignore[no-untyped-def,override]
            return _real_datetime.now() + _offset

    _time.time, _time.time_ns = _time_ahead, _time_ns_ahead
    _datetime.datetime = _DatetimeAhead  # type: ignore[misc]
