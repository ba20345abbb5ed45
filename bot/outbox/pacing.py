"""How fast the outbox sender may call each Slack method, as Slack publishes it, and Retry-After.

Slack's limits (api.slack.com/apis/rate-limits): posting a message is about one per second per channel (short
bursts allowed); other methods are limited per method per workspace by tier: Tier 2 20+/min, Tier 3 50+/min,
Tier 4 100+/min. The streaming methods publish no tier; we treat appending and stopping as Tier 4 and
starting a stream as posting a message. A `ratelimited` answer blocks the same bucket for its Retry-After.

Pacing is a virtual-scheduling (GCRA) bucket per key: `post:<channel>` for posts, `method:<name>` for the rest.
It never sleeps: the sender asks when a bucket is ready and sends something else meanwhile."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

POSTS = frozenset({"chat.postMessage", "chat.startStream", "files.completeUploadExternal"})
PER_MINUTE = {  # published tiers (per method, per workspace)
    "chat.update": 50, "chat.appendStream": 100, "chat.stopStream": 100, "chat.postEphemeral": 100,
    "chat.getPermalink": 100, "views.publish": 100, "files.getUploadURLExternal": 100,
    "conversations.replies": 50, "conversations.history": 50, "assistant.threads.setSuggestedPrompts": 100,
    "agents.sessions.setStatus": 50, "agents.sessions.rename": 50,  # Tier 3 (as the Rust SDKs pace them)
}
DEFAULT_PER_MINUTE = 50
POST_BURST = 3


@dataclass
class Bucket:
    interval: float  # seconds per call on average
    burst: int  # calls allowed back to back
    tat: float = 0.0  # theoretical arrival time of the next call
    blocked_until: float = 0.0  # Retry-After

    def ready_at(self, now: float) -> float:
        earliest = max(self.tat - self.interval * (self.burst - 1), self.blocked_until)
        return max(now, earliest)

    def take(self, now: float) -> None:
        self.tat = max(self.tat, now) + self.interval


class Pacing:
    def __init__(self, post_interval: float, rate_scale: float = 1.0, clock: Callable[[], float] = time.monotonic):
        self.post_interval, self.rate_scale, self.clock = post_interval, rate_scale, clock
        self._buckets: dict[str, Bucket] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(method: str, channel: str | None) -> str:
        return f"post:{channel}" if method in POSTS else f"method:{method}"

    def _bucket(self, key: str) -> Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            if key.startswith("post:"):
                bucket = Bucket(self.post_interval, POST_BURST)
            else:
                per_minute = PER_MINUTE.get(key.split(":", 1)[1], DEFAULT_PER_MINUTE) * self.rate_scale
                bucket = Bucket(60.0 / per_minute, max(1, int(per_minute // 5)))
            self._buckets[key] = bucket
        return bucket

    def ready_at(self, key: str) -> float:
        with self._lock:
            return self._bucket(key).ready_at(self.clock())

    def try_take(self, key: str) -> bool:
        """Use one call of `key` now if its bucket allows it; never waits."""
        with self._lock:
            now = self.clock()
            bucket = self._bucket(key)
            if bucket.ready_at(now) > now:
                return False
            bucket.take(now)
            return True

    def block(self, key: str, seconds: float) -> None:
        """Slack said `ratelimited`: nothing more on this bucket for `seconds`."""
        with self._lock:
            bucket = self._bucket(key)
            bucket.blocked_until = max(bucket.blocked_until, self.clock() + seconds)
