"""How a person names a ticket. The embedded desk's ids look like KITE-142; a Zendesk ticket is a number, given as
`4821`, `#4821`, `ticket 4821` or a pasted agent URL (`https://acme.zendesk.com/agent/tickets/4821`)."""

from __future__ import annotations

import re

from bot.desk.base import DeskError

KITE_ID = re.compile(r"\bKITE[-\s]?(\d{1,6})\b", re.IGNORECASE)
# A Zendesk ticket number: after '#', in an agent or API URL, after 'ticket', or a bare number of 3+ digits (so
# "the 3 customers" or "2 days" is not taken for a ticket). A number right after ':' is not bare: it is a URL's
# port (https://host:8443/agent/tickets/4821 names 4821) or a time's minutes.
ZENDESK_ID = re.compile(r"(?:/tickets/|#|\bticket\s*[:#]?\s*|(?<![\w.,/:-]))(\d{1,12})\b(?![.,]\d)", re.IGNORECASE)
_WHOLE_ZENDESK = re.compile(r"\s*(?:#|ticket\s+#?|.*/agent/tickets/|.*/api/v2/tickets/)?(\d{1,12})(?:\.json)?\s*",
                            re.IGNORECASE)
EXAMPLE = {"embedded": "KITE-142", "zendesk": "4821"}
HOW = {"embedded": "Ids look like KITE-142.", "zendesk": "Give it as 4821, #4821 or the ticket's URL."}


def ticket_ids_in(text: str, kind: str = "embedded") -> list[str]:
    """Every ticket id named in free text, normalised (KITE-142 or 4821), in order, without repeats."""
    found: list[str] = []
    if kind == "zendesk":
        for match in ZENDESK_ID.finditer(text):
            marked = match.group(0)[:1] in "#/" or match.group(0)[:1].lower() == "t"
            if not marked and len(match.group(1)) < 3:
                continue
            ticket_id = str(int(match.group(1)))
            if ticket_id not in found:
                found.append(ticket_id)
        return found
    for match in KITE_ID.finditer(text):
        ticket_id = f"KITE-{int(match.group(1))}"
        if ticket_id not in found:
            found.append(ticket_id)
    return found


def normalise_ticket_id(raw: str, kind: str = "embedded") -> str | None:
    """The one ticket id `raw` is, or None when it is not exactly one id."""
    raw = raw.strip()
    if kind == "zendesk":
        match = _WHOLE_ZENDESK.fullmatch(raw)
        return str(int(match.group(1))) if match and int(match.group(1)) > 0 else None
    ids = ticket_ids_in(raw)
    return ids[0] if len(ids) == 1 and KITE_ID.fullmatch(raw) else None


def require_ticket_id(raw: str, kind: str = "embedded") -> str:
    """The one ticket id `raw` is, or a DeskError saying how ids look on this desk."""
    ticket_id = normalise_ticket_id(raw, kind)
    if ticket_id is None:
        raise DeskError(f"{raw!r} is not a ticket id. {HOW.get(kind, HOW['embedded'])}")
    return ticket_id


class TicketIds:
    """A desk's `ticket_ids_in` and `normalise_ticket_id`, from its `kind`."""

    kind: str

    def ticket_ids_in(self, text: str) -> list[str]:
        return ticket_ids_in(text, self.kind)

    def normalise_ticket_id(self, raw: str) -> str:
        return require_ticket_id(raw, self.kind)
