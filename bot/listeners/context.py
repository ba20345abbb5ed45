"""What every Slack listener needs, built once in app.build_app. It holds no database: the Slack side reads and
writes runs only through the run layer (`service`, and bot/runs/asks.py taking it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient

from bot.config import Settings
from bot.runs.lifecycle.service import RunService
from bot.slack.groups import GroupSync


@dataclass
class SlackContext:
    settings: Settings
    service: RunService
    client: WebClient  # for views.open only (a trigger_id lives 3 s); everything else goes through the outbox
    dispatch: Callable[[int], object] = lambda run_id: None
    identity: Any = None  # bot.slack.identity.BotIdentity, set by build_app

    @property
    def groups(self) -> GroupSync:
        """Keeps the user groups' member rows fresh (a timer calls its `refresh`); the run layer's rule reads
        the rows (bot/runs/lifecycle/people.py)."""
        return GroupSync(self.service.group_members.store)

    def tell(self, channel: str | None, user: str | None, text: str, thread_ts: str | None = None) -> None:
        """A message only `user` sees, delivered by the outbox sender."""
        if channel and user:
            self.service.tell(channel=channel, user=user, text=text, thread_ts=thread_ts)
