"""Zendesk's webhook requests: the signature checked as Zendesk documents it, the ticket ids read from the body.

Signature = base64(HMAC-SHA256(signing secret, timestamp header + raw body)), compared in constant time; a
timestamp more than five minutes away from now is refused (a replayed request), and so is a header that is not
ASCII (no signature is). A trigger's body is what the admin wrote, placeholders rendered as text, so ids arrive
as "4821" or 4821; we only take the ids from it and read the tickets through the API (never trusting the rest of
the body). An event webhook's body has a fixed schema (`type` zen:event-type:<domain>.<event>, the record's id
in `detail.id`): only ticket events name a ticket; user, organization and other events name none."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta
from typing import Any

MAX_SKEW = timedelta(minutes=5)
ID_KEYS = ("ticket_id", "ticketId", "id", "ticket")  # a trigger body's keys, as admins write them
EVENT = "zen:event-type:"
TICKET_EVENT = EVENT + "ticket."


def signature(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def verified(secret: str, headers: dict[str, str], body: bytes, now: datetime | None = None) -> bool:
    """True when the request is Zendesk's: signed with our secret, and signed within five minutes of now."""
    given = headers.get("x-zendesk-webhook-signature") or ""
    stamp = headers.get("x-zendesk-webhook-signature-timestamp") or ""
    if not given or not stamp or not given.isascii() or not stamp.isascii():
        return False
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    if abs((now or datetime.now(UTC)) - when) > MAX_SKEW:
        return False
    return hmac.compare_digest(signature(secret, stamp, body), given)


def ticket_ids(body: bytes) -> list[str]:
    """The ticket ids a webhook body names: a trigger's {"ticket_id": "4821"}, {"ticketId": 4821} or
    {"ticket": {"id": 4821}}, a ticket event's {"type": "zen:event-type:ticket.…", "detail": {"id": "4821"}},
    any other event whose subject is a ticket (a messaging event's "subject": "zen:ticket:141"), or a list of them. Any other event (a user's, an organization's) and anything else names none."""
    try:
        payload = json.loads(body or b"null")
    except ValueError:
        return []
    found: list[str] = []
    for item in payload if isinstance(payload, list) else [payload]:
        for candidate in _candidates(item):
            text = str(candidate).strip().lstrip("#")
            if text.isdigit() and int(text) > 0 and text not in found:
                found.append(str(int(text)))
    return found


def _candidates(item: Any) -> list[Any]:
    if not isinstance(item, dict):
        return []
    kind = item.get("type")
    if isinstance(kind, str) and kind.startswith(EVENT):
        if kind.startswith(TICKET_EVENT):
            return _event_ticket(item)
        subject = item.get("subject")  # a messaging event (messaging_ticket.message_added): its subject's ticket
        return [subject.rsplit(":", 1)[1]] if isinstance(subject, str) and subject.startswith("zen:ticket:") else []
    out = []
    for key in ID_KEYS:
        value = item.get(key)
        if isinstance(value, dict):
            out.append(value.get("id"))
        elif value is not None:
            out.append(value)
    return out


def _event_ticket(event: dict[str, Any]) -> list[Any]:
    """A ticket event's ticket: `detail.id`, else the id in `subject` (zen:ticket:4821)."""
    detail = event.get("detail")
    if isinstance(detail, dict) and detail.get("id") is not None:
        return [detail["id"]]
    subject = event.get("subject")
    if isinstance(subject, str) and subject.startswith("zen:ticket:"):
        return [subject.rsplit(":", 1)[1]]
    return []
