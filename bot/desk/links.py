"""What the customer reads instead of a citation code: `[account-recovery#2]` is for the approver; the customer
gets a link to the cited section (the article's URL with the section's anchor), or its title when the desk has
no link for it."""

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
    """`message` as the customer reads it: every citation of a known public section becomes the section's link,
    or, when the desk has no link for it (the embedded desk without KITEBASE_HELP_CENTER_URL), its title in a
    sentence: `See “Exporting data › When an export fails” in our help center.` A citation of a section the desk
    does not know stays as written; an internal section is never linked or named (refuse_internal keeps it out
    of a reply). The one function every surface asks for the customer's copy (Desk.customer_text)."""
    anchors = {a or b for a, b in CITATION.findall(message)}
    if not anchors:
        return message
    with db.session() as session:
        rows = session.exec(select(HelpSection).where(col(HelpSection.id).in_(sorted(anchors)))).all()
        public = {row.id: row for row in rows if not row.internal}
        urls = {anchor: url for anchor, row in public.items() if (url := link(row))}
        titles = {anchor: section_title(row) for anchor, row in public.items() if anchor not in urls}
    if not public:
        return message

    def swap(match: re.Match[str]) -> str:
        anchor = match.group(1) or match.group(2)
        return urls.get(anchor, match.group(0))

    def name(match: re.Match[str]) -> str:
        cites = match.group("cites")
        found = ANY_ANCHOR.findall(cites)
        if not any(anchor in titles for anchor in found):
            return match.group("space") + CITATION.sub(swap, cites)
        names = [titles.get(a) or urls.get(a) or f"[{a}]" for a in found]
        return _in_a_sentence(message, match, " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1
                                                           else names))

    return CITATIONS_RUN.sub(name, message)


# One citation or several in a row ("[a#1] [b#2]", "[a#1], [b#2] and [c#3]"), with the blanks before them
_ONE = r"\[[a-z0-9]+(?:-[a-z0-9]+)*#\d+\]"
CITATIONS_RUN = re.compile(rf"(?P<space>[ \t]*)(?P<cites>{_ONE}(?:[ \t]*(?:,|and)?[ \t]*{_ONE})*"
                           r"|(?<![\w/-])[a-z0-9]+(?:-[a-z0-9]+)*#\d+(?![\w-]))")


def section_title(row: HelpSection) -> str:
    """How a customer finds a section: “Article › Heading” (the article's title alone for its opening)."""
    article, heading = (row.article_title or "").strip(), (row.heading or "").strip()
    if not heading or heading == article:
        return f"“{article or heading}”"
    return f"“{article} › {heading}”" if article else f"“{heading}”"


def _in_a_sentence(message: str, match: re.Match[str], names: str) -> str:
    """Section titles where a citation stood: a sentence of their own after a sentence, "(see …)" at the end of
    one, and the plain names inside one ("You may also find “…” in our help center useful")."""
    before = message[: match.start()].rstrip(" \t")
    after = message[match.end():].lstrip(" \t")
    where = f"{names} in our help center"
    if before.endswith("(") or re.search(r"(?i)\b(see|read|in|at|under|from)$", before):
        return match.group("space") + where  # "please see [a#1]": the sentence already says how
    if not before or before[-1] in ".!?:\n":
        return f"{match.group('space')}See {where}" + ("" if after[:1] in (".", "!", "?") else ".")
    if not after or after[0] in ".,;:!?)\n":
        return f" (see {where})"
    return match.group("space") + where
