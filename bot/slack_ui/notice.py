"""The AI notice: one short context line on every message the agent writes in Slack, saying that an AI agent
wrote it and that a person approves every reply to a customer (Slack's guidance for AI apps). Builders add it
with `with_notice`, which leaves room for it under Slack's block limit."""

from __future__ import annotations

from typing import Any

from bot.slack_ui.limits import MAX_BLOCKS_MESSAGE, context, fit_blocks

AI_NOTICE = ":robot_face: Kitebase is an AI agent and can make mistakes · a person approves every reply to a customer"


def ai_notice() -> dict[str, Any]:
    """The notice as a context block (a new dict each time: callers may not share one)."""
    return context(AI_NOTICE)


def with_notice(blocks: list[dict[str, Any]], limit: int = MAX_BLOCKS_MESSAGE) -> list[dict[str, Any]]:
    """`blocks` fitted to one less than `limit`, then the notice: a message at the limit keeps it."""
    return [*fit_blocks(blocks, limit - 1), ai_notice()]


def notice_count(blocks: list[dict[str, Any]] | None) -> int:
    """How many times `blocks` carry the notice (for tests and checks)."""
    return sum(1 for block in blocks or [] if block == ai_notice())
