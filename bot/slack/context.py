"""What every Slack handler and reporter needs, built once in app.build_app."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from slack_sdk import WebClient

from bot.config import Settings
from bot.db.engine import Database
from bot.runs.service import RunService
from bot.slack.client import Pacer

logger = logging.getLogger(__name__)


@dataclass
class SlackContext:
    settings: Settings
    db: Database
    client: WebClient
    service: RunService
    pacer: Pacer
    dispatch: Callable[[int, str | None], None] = lambda run_id, note=None: None
    home_viewers: set[str] = field(default_factory=set)
    streaming_ok: bool = True
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def post(self, channel: str, text: str, blocks: list[dict] | None = None, thread_ts: str | None = None) -> str:
        """Post (paced per channel) and return the message ts."""
        self.pacer.wait(channel)
        response = self.client.chat_postMessage(channel=channel, text=text, blocks=blocks, thread_ts=thread_ts,
                                                unfurl_links=False, unfurl_media=False)
        return response["ts"]

    def update(self, channel: str, ts: str, text: str, blocks: list[dict] | None = None) -> None:
        self.pacer.wait(channel)
        self.client.chat_update(channel=channel, ts=ts, text=text, blocks=blocks)

    def ephemeral(self, channel: str, user: str, text: str, thread_ts: str | None = None) -> None:
        try:
            self.client.chat_postEphemeral(channel=channel, user=user, text=text, thread_ts=thread_ts)
        except Exception:
            logger.exception("could not post an ephemeral message to %s in %s", user, channel)
