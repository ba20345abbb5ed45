"""What the customer reads instead of a citation code: `[account-recovery#2]` is for the approver; the customer
gets a link to the cited section (the article's URL with the section's anchor)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from sqlmodel import col, select

from bot.db.engine import Database
from bot.db.models import HelpSection
from bot.desk.base import DeskRefused

# "[account-recovery#2]" (the form the tools teach the model), also bare "account-recovery#2"
CITATION = re.compile(r"\[([a-z0-9]+(?:-[a-z0-9]+)*#\d+)\]|(?<![\w/-])([a-z0-9]+(?:-[a-z0-9]+)*#\d+)(?![\w-])")
# Any anchor the text names: bracketed, bare, or inside a link (…/ops-runbook#1)
ANY_ANCHOR = re.compile(r"(?<![\w-])([a-z0-9]+(?:-[a-z0-9]+)*#\d+)(?![\w-])")


def heading_anchor(heading: str) -> str:
    """The anchor a help center gives a heading: lower case, words joined by '-'."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def embedded_link(base_url: str | None, row: HelpSection) -> str | None:
    """The embedded desk's section link, when KITEBASE_HELP_CENTER_URL says where its help center lives."""
    if not base_url:
        return None
    return f"{base_url.rstrip('/')}/{row.id}"  # the form the approval card links (bot/slack_ui/sources.py)


def refuse_internal(db: Database, message: str) -> None:
    """A DeskRefused (its sentence is for the model or the editor) when `message` cites an internal section
    (bot/db/models.py HelpSection.internal) or links its article: a customer never gets internal help."""
    anchors = set(ANY_ANCHOR.findall(message))
    with db.session() as session:
        internal = session.exec(select(HelpSection).where(col(HelpSection.internal))).all()
    named = sorted({row.id for row in internal if row.id in anchors
                    or (row.url and row.url.split("#")[0] in message)})
    if not named:
        return
    which = ", ".join(named)
    raise DeskRefused(
        f"The reply cites {which}, which {'is' if len(named) == 1 else 'are'} internal: the article is restricted to "
        "a user segment in the help center, so the customer cannot open it. Remove the citation and do not quote "
        "it; cite a public section, or explain in your own words what the customer can do.")


def customer_text(db: Database, message: str, link: Callable[[HelpSection], str | None]) -> str:
    """`message` with every citation of a known public section replaced by the section's link. A citation the
    desk has no link for stays as written (the embedded desk without KITEBASE_HELP_CENTER_URL); an internal
    section is never linked (refuse_internal keeps it out of a reply)."""
    anchors = {a or b for a, b in CITATION.findall(message)}
    if not anchors:
        return message
    with db.session() as session:
        rows = session.exec(select(HelpSection).where(col(HelpSection.id).in_(sorted(anchors)))).all()
        urls = {row.id: url for row in rows if not row.internal and (url := link(row))}
    if not urls:
        return message

    def swap(match: re.Match[str]) -> str:
        anchor = match.group(1) or match.group(2)
        return urls.get(anchor, match.group(0))

    return CITATION.sub(swap, message)
