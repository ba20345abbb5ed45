"""What every Slack listener needs, built once in app.build_app. It holds no database session: the Slack
side reads and writes runs only through the run layer (`service` and bot/runs/reports/for_slack.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient

from bot.config import Settings
from bot.db.engine import Database
from bot.runs.lifecycle.service import RunService
from bot.slack.groups import GroupCache


@dataclass
class SlackContext:
    settings: Settings
    service: RunService
    client: WebClient  # for views.open only (a trigger_id lives 3 s); everything else goes through the outbox
    dispatch: Callable[[int], object] = lambda run_id: None
    identity: Any = None  # bot.slack.identity.BotIdentity, set by build_app

    @property
    def groups(self) -> GroupCache:
        """The user groups' members the run layer's rule reads (bot/runs/lifecycle/people.py); a timer refreshes them."""
        return self.service.people.groups

    @property
    def db(self) -> Database:
        return self.service.db

    def tell(self, channel: str | None, user: str | None, text: str, thread_ts: str | None = None) -> None:
        """A message only `user` sees, delivered by the outbox sender."""
        if channel and user:
            self.service.tell(channel=channel, user=user, text=text, thread_ts=thread_ts)
