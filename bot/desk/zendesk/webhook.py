"""Zendesk's webhook requests: the signature checked as Zendesk documents it, the ticket ids read from the body.

Signature = base64(HMAC-SHA256(signing secret, timestamp header + raw body)), compared in constant time; a
timestamp more than five minutes away from now is refused (a replayed request). A trigger's body is what the
admin wrote, placeholders rendered as text, so ids arrive as "4821" or 4821; we only take the ids from it and
read the tickets through the API (never trusting the rest of the body)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta
from typing import Any

MAX_SKEW = timedelta(minutes=5)
ID_KEYS = ("ticket_id", "id", "ticket")


def signature(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def verified(secret: str, headers: dict[str, str], body: bytes, now: datetime | None = None) -> bool:
    """True when the request is Zendesk's: signed with our secret, and signed within five minutes of now."""
    given = headers.get("x-zendesk-webhook-signature") or ""
    stamp = headers.get("x-zendesk-webhook-signature-timestamp") or ""
    if not given or not stamp:
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
    """The ticket ids a webhook body names: {"ticket_id": "4821"}, {"ticket": {"id": 4821}}, an event's
    {"detail": {"id": "4821"}}, or a list of them. Anything else names none."""
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
    out = []
    for key in ID_KEYS:
        value = item.get(key)
        if isinstance(value, dict):
            out.append(value.get("id"))
        elif value is not None:
            out.append(value)
    detail = item.get("detail")
    if isinstance(detail, dict) and detail.get("id") is not None:
        out.append(detail["id"])
    return out
