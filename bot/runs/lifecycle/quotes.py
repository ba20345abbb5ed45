"""Internal text a draft repeats word for word: a long span of an internal note (a private comment) or of an
internal help section (restricted to a user segment) that the customer would then read. The model may read
both (a lead needs that context); the person approving the draft is shown the span, and decides.

"Long" is MIN_WORDS consecutive words, compared without case, spacing or punctuation. Words the draft shares
with public text are never a leak, so they are not flagged: the ticket's public messages (a note often repeats
the customer's own words or a reply's greeting), the public help sections the draft could have taken them
from (a note that quotes the help center), and the stock phrases of a support reply (STOCK).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import HelpSection, TicketMessage

MIN_WORDS = 8
WORD = re.compile(r"\w+(?:['’]\w+)*")
# Phrases any reply may hold; a note that happens to share one is not quoted by a reply that says it.
STOCK = (
    "thanks for letting us know, and sorry for the trouble",
    "thank you for your patience while we look into this",
    "thanks for your patience while we look into this",
    "please let us know if you have any other questions",
    "let me know if there is anything else I can help with",
    "if that doesn't get you back on track, reply here and we'll work through it with you",
    "don't hesitate to reach out if you have any questions",
)


def words(text: str) -> list[re.Match[str]]:
    return list(WORD.finditer(text or ""))


def _key(match: re.Match[str]) -> str:
    return match.group(0).casefold().replace("’", "'")


def grams(text: str, n: int = MIN_WORDS) -> set[tuple[str, ...]]:
    """Every run of `n` consecutive words of `text`, normalised."""
    keys = [_key(m) for m in words(text)]
    return {tuple(keys[i:i + n]) for i in range(len(keys) - n + 1)}


def quoted_spans(draft: str, source: str, *, public: Iterable[str] = (), min_words: int = MIN_WORDS) -> list[str]:
    """The spans of `draft` (as the draft writes them, spacing collapsed) made of words it repeats from `source`
    in runs of at least `min_words`, less the words it shares in such runs with `public` or STOCK; each span
    left must still hold `min_words` words. Pure: no database, no state."""
    found = grams(source, min_words)
    if not found:
        return []
    shared: set[tuple[str, ...]] = set()
    for text in (*public, *STOCK):
        shared |= grams(text, min_words)
    tokens = words(draft)
    quoted, common = _covered(tokens, found, min_words), _covered(tokens, shared, min_words)
    spans: list[str] = []
    run: list[int] = []
    for k in [*range(len(tokens)), len(tokens)]:  # the extra index ends the last run
        if k < len(tokens) and quoted[k] and not common[k]:
            run.append(k)
            continue
        if len(run) >= min_words:
            spans.append(" ".join(draft[tokens[run[0]].start():tokens[run[-1]].end()].split()))
        run = []
    return spans


def _covered(tokens: list[re.Match[str]], wanted: set[tuple[str, ...]], n: int) -> list[bool]:
    """For each word of the draft: whether it is inside a run of `n` words found in `wanted`."""
    keys = [_key(m) for m in tokens]
    covered = [False] * len(keys)
    for i in range(len(keys) - n + 1):
        if tuple(keys[i:i + n]) in wanted:
            covered[i:i + n] = [True] * n
    return covered


def find(session: Session, draft: str, *, tickets: Iterable[str], sections: Iterable[str]) -> list[dict[str, Any]]:
    """The internal text `draft` quotes, from the internal notes of `tickets` and the internal ones of
    `sections` (what the run read before the draft): each as {"span", "what", ...} for the card, the terminal
    and the step log."""
    ticket_ids, anchors = sorted(set(tickets)), sorted(set(sections))
    notes = list(session.exec(select(TicketMessage).where(col(TicketMessage.ticket_id).in_(ticket_ids))
                              .order_by(col(TicketMessage.created_at), col(TicketMessage.id))).all()) \
        if ticket_ids else []
    helps = list(session.exec(select(HelpSection).where(col(HelpSection.id).in_(anchors))).all()) if anchors else []
    public = [m.body for m in notes if m.role != "internal"] + [s.body for s in helps if not s.internal]
    quotes: list[dict[str, Any]] = []
    for note in (m for m in notes if m.role == "internal"):
        quotes += [{"span": span, "kind": "note", "ticket": note.ticket_id, "author": note.author,
                    "what": f"an internal note by {note.author} on {note.ticket_id}"}
                   for span in quoted_spans(draft, note.body, public=public)]
    for section in (s for s in helps if s.internal):
        quotes += [{"span": span, "kind": "section", "section": section.id,
                    "what": f"internal help section {section.id} ({section.heading})"}
                   for span in quoted_spans(draft, section.body, public=public)]
    return quotes

