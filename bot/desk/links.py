"""What the customer reads instead of a citation code: `[account-recovery#2]` is for the approver; the customer
gets a link to the cited section (the article's URL with the section's anchor)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from sqlmodel import col, select

from bot.db.engine import Database
from bot.db.models import HelpSection

# "[account-recovery#2]" (the form the tools teach the model), also bare "account-recovery#2"
CITATION = re.compile(r"\[([a-z0-9]+(?:-[a-z0-9]+)*#\d+)\]|(?<![\w/-])([a-z0-9]+(?:-[a-z0-9]+)*#\d+)(?![\w-])")


def heading_anchor(heading: str) -> str:
    """The anchor a help center gives a heading: lower case, words joined by '-'."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def embedded_link(base_url: str | None, row: HelpSection) -> str | None:
    """The embedded desk's section link, when KITEBASE_HELP_CENTER_URL says where its help center lives."""
    if not base_url:
        return None
    return f"{base_url.rstrip('/')}/{row.id}"  # the form the approval card links (bot/slack_ui/sources.py)


def customer_text(db: Database, message: str, link: Callable[[HelpSection], str | None]) -> str:
    """`message` with every citation of a known section replaced by the section's link. A citation the desk has
    no link for stays as written (the embedded desk without KITEBASE_HELP_CENTER_URL)."""
    anchors = {a or b for a, b in CITATION.findall(message)}
    if not anchors:
        return message
    with db.session() as session:
        rows = session.exec(select(HelpSection).where(col(HelpSection.id).in_(sorted(anchors)))).all()
        urls = {row.id: url for row in rows if (url := link(row))}
    if not urls:
        return message

    def swap(match: re.Match[str]) -> str:
        anchor = match.group(1) or match.group(2)
        return urls.get(anchor, match.group(0))

    return CITATION.sub(swap, message)
