"""The bot's WebClient: honours SLACK_API_BASE_URL and retries when Slack says `ratelimited`."""

from __future__ import annotations

import threading
import time

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from bot.config import Settings

DEFAULT_BASE_URL = "https://slack.com/api/"


def make_client(settings: Settings) -> WebClient:
    base_url = settings.slack_api_base_url or DEFAULT_BASE_URL
    if not base_url.endswith("/"):
        base_url += "/"
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    client = WebClient(token=token, base_url=base_url, timeout=30)
    client.retry_handlers.extend([RateLimitErrorRetryHandler(max_retry_count=5), ConnectionErrorRetryHandler()])
    return client


class Pacer:
    """At most one write per channel per `interval` seconds from this process (Slack allows ~1/s)."""

    def __init__(self, interval: float):
        self.interval = interval
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, channel: str) -> None:
        with self._lock:
            now = time.monotonic()
            ready = self._last.get(channel, 0.0) + self.interval
            slot = max(now, ready)
            self._last[channel] = slot
        if slot > now:
            time.sleep(slot - now)
