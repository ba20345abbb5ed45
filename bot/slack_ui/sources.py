"""A draft's sources under it on the approval card: the help sections it cites (a link each when
KITEBASE_HELP_CENTER_URL is set), the similar tickets the run looked at, what is wrong with the citations, the
internal help sections the run read, and the internal text the draft repeats word for word (each span shown)."""

from __future__ import annotations

import re
from typing import Any

from bot.slack_ui.limits import clip, context, escape, mrkdwn_section

ANCHOR = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*#\d+")
QUOTES_SHOWN = 3  # spans on the card; the rest are counted
SPAN_CHARS = 400


def section_link(anchor: str, help_url: str | None) -> str:
    """`anchor` as mrkdwn: a link into the help center when its address is known (anchors are checked to be
    plain slugs, so they cannot break out of the link)."""
    if help_url and ANCHOR.fullmatch(anchor):
        return f"<{help_url}/{anchor}|{anchor}>"
    return f"`{escape(anchor)}`"


def _source_line(source: dict[str, Any], help_url: str | None) -> str:
    if not source.get("exists"):
        return f"• `{escape(source['id'])}` :warning: no such section"
    where = f" ({escape(source['article'])})" if source.get("article") else ""
    if source.get("internal"):  # never linked: the customer cannot open it
        return f"• `{escape(source['id'])}` {escape(source.get('heading') or '')}{where} :lock: internal"
    return f"• {section_link(source['id'], help_url)} {escape(source.get('heading') or '')}{where}"


def _quotes_text(quotes: list[dict[str, Any]]) -> str:
    """The internal text a draft quotes, each span shown (escaped: a note may hold anything)."""
    lines = [":warning: *Quotes internal text:* the customer would read these words, copied from text they "
             "must not see. Edit them out, or approve only if they may be shared."]
    for found in quotes[:QUOTES_SHOWN]:
        span = found["span"] if len(found["span"]) <= SPAN_CHARS else found["span"][: SPAN_CHARS - 1] + "…"
        lines.append(f"• from {escape(found.get('what') or 'internal text')}:\n> “{escape(span)}”")
    if len(quotes) > QUOTES_SHOWN:
        lines.append(f"…and {len(quotes) - QUOTES_SHOWN} more.")
    return "\n".join(lines)


def _similar_line(similar: list[dict[str, Any]]) -> str:
    parts = []
    for ticket in similar:
        detail = ", ".join(escape(str(ticket[k])) for k in ("customer", "status") if ticket.get(k))
        parts.append(f"{escape(ticket['id'])}" + (f" ({detail})" if detail else ""))
    return "Similar tickets the run looked at: " + "; ".join(parts)


def build_sources(sources: dict[str, Any] | None, help_url: str | None = None, *,
                  warn: bool = True) -> list[dict[str, Any]]:
    """Blocks for under the draft; none when the check is not available. `warn`: flag the citation problems
    (for the person about to decide; a decided card only lists the sources)."""
    if not sources:
        return []
    cited = [_source_line(s, help_url) for s in sources.get("cited") or []]
    blocks = [mrkdwn_section(clip("*Sources cited*\n" + "\n".join(cited), 2900))] if cited else []
    problems = (sources.get("problems") or []) if warn else []
    if problems:
        blocks.append(mrkdwn_section(clip(":warning: *Check the sources:* the draft "
                                          + "; ".join(escape(p) for p in problems) + ".", 2900)))
    if warn and sources.get("quotes"):
        blocks.append(mrkdwn_section(clip(_quotes_text(sources["quotes"]), 2900)))
    if sources.get("internal_read"):
        read = "; ".join(f"`{escape(s['id'])}` {escape(s.get('heading') or '')}" for s in sources["internal_read"])
        blocks.append(context(clip(f":lock: Internal help the run read (never for the customer): {read}", 2900)))
    if sources.get("similar"):
        blocks.append(context(clip(_similar_line(sources["similar"]), 2900)))
    return blocks
