"""The optional note after a thumbs down (the thumbs themselves are in bot/slack_ui/blocks.build_feedback)."""

from __future__ import annotations

import json

from bot.slack_ui.blocks import FEEDBACK_MODAL
from bot.slack_ui.limits import context

NOTE_MAX_CHARS = 2000


def build_feedback_modal(*, run_id: int, channel: str | None, thread_ts: str | None) -> dict:
    metadata = json.dumps({"run_id": run_id, "channel": channel, "thread_ts": thread_ts})
    return {"type": "modal", "callback_id": FEEDBACK_MODAL, "private_metadata": metadata,
            "title": {"type": "plain_text", "text": "What went wrong?"},
            "submit": {"type": "plain_text", "text": "Send"}, "close": {"type": "plain_text", "text": "Skip"},
            "blocks": [
                context(f"Your thumbs down on run #{run_id} is recorded. A note helps whoever improves the agent "
                        "and the help center (optional)."),
                {"type": "input", "block_id": "note", "optional": True,
                 "label": {"type": "plain_text", "text": "Note"},
                 "element": {"type": "plain_text_input", "action_id": "note", "multiline": True,
                             "max_length": NOTE_MAX_CHARS}}]}
