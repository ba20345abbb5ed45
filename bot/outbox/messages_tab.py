"""Rows for the app's Messages tab (the agent experience): its suggested prompts, and the answers to them.
Written in the caller's transaction like every other row (bot/outbox/writers.py); render.py turns them into
Slack calls and the sender delivers them."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from bot.outbox.writers import ANSWER, FIRST, put
from bot.vocabulary import OutboxKind


def suggested_prompts(session: Session, *, channel: str, user: str, title: str,
                      prompts: list[dict[str, str]]) -> None:
    """Pin `prompts` in the DM `channel` (a person opened the Messages tab). One row per DM: opening it again
    while the row waits sends it once."""
    put(session, key=f"prompts:{channel}", kind=OutboxKind.PROMPTS, priority=FIRST, channel=channel, user=user,
        payload={"title": title, "prompts": prompts})


def answer(session: Session, *, key: str, channel: str, thread_ts: str | None, payload: dict[str, Any]) -> None:
    """The answer to a suggested prompt in the thread of the message that sent it: `payload["about"]` says
    which (approvals | queue | today); what it lists is read when it is shown, or carried in `payload`."""
    put(session, key=f"answer:{key}"[:200], kind=OutboxKind.ANSWER, priority=ANSWER, channel=channel,
        thread_ts=thread_ts, payload=payload)
