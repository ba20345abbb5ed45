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
    """Slack escaping, for mrkdwn blocks and for every `text` field: &, < and > become entities, so user and
    model text can never form a mention (<!channel>, <@U…>) or a disguised link (<http://evil|kitebase.com>)."""
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def split_text(text: str, size: int) -> list[str]:
    """`text` in pieces of at most `size` characters, cut at line ends where possible; nothing is left out."""
    lines, chunks, current = (text or "").splitlines() or [""], [], ""
    for line in lines:
        while len(line) > size:
            cut = line.rfind(" ", 0, size)
            cut = cut if cut > size // 2 else size
            if current:
                chunks.append(current)
                current = ""
            chunks.append(line[:cut])
            line = line[cut:].lstrip(" ")
        if current and len(current) + len(line) + 1 > size:
            chunks.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current or not chunks:
        chunks.append(current)
    return chunks


def quote_sections(text: str, size: int = SECTION_TEXT - 200) -> list[dict]:
    """Untrusted text (a draft), escaped and quoted, over as many sections as it takes: never cut."""
    quoted = [("> " + piece) if piece else ">" for line in (escape(text).splitlines() or [""])
              for piece in split_text(line, size - 2)]
    return [{"type": "section", "text": {"type": "mrkdwn", "text": chunk}}
            for chunk in split_text("\n".join(quoted), size)]


def quote(text: str, limit: int = SECTION_TEXT - 100) -> str:
    """A block quote of untrusted text (mentions and links defused by escaping)."""
    body = clip(escape(text), limit)
    return "\n".join("> " + line if line else ">" for line in body.splitlines())
