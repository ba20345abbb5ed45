"""What each searchable document is made of, read from the database rows.

A help section: heading, article title, body. A ticket: title, tags, the first message (usually the
customer's own words), the error text quoted anywhere in the conversation (messages in quotes, error
codes, identifiers like `dispatch_failed`, engineering ticket ids) and the rest of the conversation,
internal notes included, since that is where staff write down the cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HELP_FIELDS = ("heading", "article", "body")
TICKET_FIELDS = ("title", "tags", "first", "errors", "rest")

_ERRORS = re.compile(
    r"\"([^\"\n]{3,120})\"|“([^”\n]{3,120})”"  # double-quoted text
    r"|(?:(?<=\s)|(?<=^)|(?<=\())'([^'\n]{3,120})'(?=[\s.,;:)!?]|$)"  # single-quoted text, not contractions
    r"|\b([A-Z]{2,}-?\d{2,})\b"  # AADSTS53003, ENG-4811, MOB-1290
    r"|\b([45]\d\d)\b"  # HTTP status codes
    r"|\b([a-z]+(?:_[a-z]+)+)\b",  # dispatch_failed, token_revoked
    re.MULTILINE)


@dataclass(frozen=True)
class Document:
    key: str
    fields: tuple[str, ...]
    updated: float = 0.0  # for ties: the more recently updated ticket first


def help_document(section_id: str, heading: str, article_title: str, body: str) -> Document:
    return Document(section_id, (heading, article_title, body))


def ticket_document(ticket_id: str, title: str, tags: list[str], messages: list[str],
                    updated: float = 0.0) -> Document:
    first, rest = (messages[0], messages[1:]) if messages else ("", [])
    return Document(ticket_id, (title, " ".join(tags).replace("-", " "), first,
                                "\n".join(error_text("\n".join([title, *messages]))), "\n".join(rest)), updated)


def error_text(text: str) -> list[str]:
    """Quoted messages, error codes and identifiers found in `text`, in order, without repeats."""
    found: list[str] = []
    for match in _ERRORS.finditer(text):
        value = next(g for g in match.groups() if g)
        if value not in found:
            found.append(value)
    return found
