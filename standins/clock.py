"""Time for the stand-ins: the real clock by default, or a manual one that tests move themselves.

A stand-in that refills a rate-limit bucket, dates a reset header or waits out a latency asks its clock, never
`time` directly. Under a manual clock nothing refills or expires while the machine is merely slow: a test that
drains a bucket in eleven requests finds it drained however long those requests took, and its waits are the
clock's `sleep`, which moves the clock at once and keeps a record of what was waited."""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    def __call__(self) -> float:
        """Monotonic seconds: what buckets, latencies and timeouts are measured in."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch: what dated headers (a limit's reset time) show."""
        ...

    def sleep(self, seconds: float) -> None: ...


class RealClock:
    def __call__(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class ManualClock:
    """Time that moves only when told: `advance(seconds)`, or `sleep(seconds)` from whoever waits (recorded in
    `slept`). Thread-safe."""

    def __init__(self, wall_start: float = 1_800_000_000.0) -> None:
        self._now = 0.0
        self._wall_start = wall_start
        self._lock = threading.Lock()
        self.slept: list[float] = []

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def wall(self) -> float:
        with self._lock:
            return self._wall_start + self._now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.slept.append(seconds)
            self._now += max(0.0, seconds)
