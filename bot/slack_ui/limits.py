"""Slack's Block Kit limits, and cutting text to fit them with a visible marker instead of being rejected."""

from __future__ import annotations

MAX_BLOCKS_MESSAGE = 50
MAX_BLOCKS_VIEW = 100
SECTION_TEXT = 3000
FIELD_TEXT = 2000
HEADER_TEXT = 150
BUTTON_TEXT = 75
BUTTON_VALUE = 2000
ACTION_ID = 255
MESSAGE_TEXT = 40_000
MODAL_TITLE = 24
PRIVATE_METADATA = 3000
INPUT_VALUE = 3000
CONTEXT_ELEMENTS = 10


def clip(text: str, limit: int) -> str:
    """`text` if it fits, else cut with a marker saying how much was left out."""
    text = text or ""
    if len(text) <= limit:
        return text
    marker = f"… [cut: {limit:,} of {len(text):,} chars]"
    return text[: max(0, limit - len(marker))] + marker


def fit_blocks(blocks: list[dict], limit: int = MAX_BLOCKS_MESSAGE) -> list[dict]:
    """At most `limit` blocks; when cut, the last one says so."""
    if len(blocks) <= limit:
        return blocks
    kept = blocks[: limit - 1]
    kept.append(context(f"… {len(blocks) - len(kept)} more blocks left out (Slack allows {limit})."))
    return kept


def mrkdwn_section(text: str, **extra: object) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, SECTION_TEXT)}, **extra}


def context(text: str) -> dict:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(text, SECTION_TEXT)}]}


def header(text: str) -> dict:
    return {"type": "header", "text": {"type": "plain_text", "text": clip(text, HEADER_TEXT)}}


def button(text: str, action_id: str, value: str, style: str | None = None) -> dict:
    element = {"type": "button", "text": {"type": "plain_text", "text": clip(text, BUTTON_TEXT)},
               "action_id": action_id[:ACTION_ID], "value": value[:BUTTON_VALUE]}
    if style:
        element["style"] = style
    return element


def escape(text: str) -> str:
    """Slack mrkdwn escaping: &, < and > must be entities."""
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quote(text: str, limit: int = SECTION_TEXT - 100) -> str:
    """A block quote of untrusted text (mentions and links defused by escaping)."""
    body = clip(escape(text), limit)
    return "\n".join("> " + line if line else ">" for line in body.splitlines())
