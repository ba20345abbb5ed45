"""Who the bot is in Slack (auth.test), learned in the background at start-up and handed to Bolt through its
`authorize` hook, so answering a request never waits on a Slack call (Bolt would otherwise call auth.test on
the first request, and fail every request while Slack is unreachable)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from slack_bolt.authorization import AuthorizeResult

logger = logging.getLogger(__name__)
RETRY_SECONDS = 5.0


class BotIdentity:
    def __init__(self, token: str | None):
        self.token = token
        self.user_id: str | None = None
        self.bot_id: str | None = None
        self._stop = threading.Event()

    def learn(self, client: Any) -> bool:
        try:
            found = client.auth_test()
        except Exception as exc:
            logger.warning("auth.test failed (%s); trying again in %g s", type(exc).__name__, RETRY_SECONDS)
            return False
        self.user_id, self.bot_id = found.get("user_id"), found.get("bot_id")
        return True

    def learn_in_background(self, client: Any) -> None:
        def keep_trying() -> None:
            while not self.learn(client) and not self._stop.wait(RETRY_SECONDS):
                pass

        threading.Thread(target=keep_trying, name="kitebase-auth-test", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def authorizer(self) -> Any:
        """Bolt's `authorize` hook (a plain function: Bolt passes arguments by their names)."""

        def authorize(enterprise_id: str | None, team_id: str | None, user_id: str | None) -> AuthorizeResult:
            return AuthorizeResult(enterprise_id=enterprise_id, team_id=team_id, bot_token=self.token,
                                   bot_user_id=self.user_id, bot_id=self.bot_id, user_id=user_id)

        return authorize
