"""The bot's WebClients: they honour SLACK_API_BASE_URL. The outbox sender's client retries nothing itself
(the sender paces, honours Retry-After and retries from the database); the listeners' client, used only for
views.open, fails fast (a trigger_id lives three seconds)."""

from __future__ import annotations

from slack_sdk import WebClient

from bot.config import Settings

DEFAULT_BASE_URL = "https://slack.com/api/"


def make_client(settings: Settings, *, timeout: int = 10) -> WebClient:
    base_url = settings.slack_api_base_url or DEFAULT_BASE_URL
    if not base_url.endswith("/"):
        base_url += "/"
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    client = WebClient(token=token, base_url=base_url, timeout=timeout)
    client.retry_handlers.clear()
    return client
