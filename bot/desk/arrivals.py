"""What arrives on a desk for the intake rules: a new ticket, or a customer's new public message on a ticket the
desk already had. Recorded in the transaction that mirrors it (Zendesk's sync and webhook) or adds it (`kitebase
desk add` on the embedded desk), under a key that names the desk's own record, so the same arrival seen twice
(a webhook, then the poll; a redelivery; a retried page) is one row. What becomes of it is decided by the run
layer (bot/runs/intake/arrivals.py)."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from bot.db.models import DeskArrival, table_of
from bot.db.statements import insert_ignore
from bot.vocabulary import ArrivalKind, ArrivalState

_ARRIVALS = table_of(DeskArrival)


def ticket_arrived(session: Session, *, key: str, ticket_id: str, fields: dict[str, Any]) -> bool:
    """A ticket new on the desk, with the fields the rules match on (status, priority, tags, brand, group, via).
    True when this is the first time it is recorded."""
    return _record(session, key=key, kind=ArrivalKind.TICKET, ticket_id=ticket_id, fields=fields)


def message_arrived(session: Session, *, key: str, ticket_id: str, author: str, body: str,
                    attachments: list[dict[str, Any]] | None = None) -> bool:
    """A customer's new public message on a ticket already on the desk; its files (name, type, size, link, as the
    mirror keeps them: never their content) go with it, so the run it continues reads that they are there."""
    return _record(session, key=key, kind=ArrivalKind.MESSAGE, ticket_id=ticket_id, author=author[:200],
                   body=body, fields={"attachments": attachments} if attachments else None)


def _record(session: Session, **values: Any) -> bool:
    row = {"fields": None, "body": None, "author": None, "state": ArrivalState.NEW, "rule": None, "reason": None,
           "run_id": None, "decided_at": None, **values}
    return insert_ignore(session, _ARRIVALS, row, conflict=("key",), returning="id") is not None
