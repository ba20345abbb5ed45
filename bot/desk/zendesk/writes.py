"""Writes to Zendesk, exactly once: a durable queue like the Slack outbox.

A write (the approved reply as a public comment; an internal note, a status or assignee change) is a
`desk_write` row recorded in the transaction of the tool call that decides it (one row per run and tool call,
so a replayed call finds its row), and sent by one sender. Zendesk's Idempotency-Key covers ticket creation
only, so an update whose outcome is unknown (a timeout, a dropped connection, a 5xx after Zendesk may have
applied it; a sender that died mid-request) is looked up on the ticket's comments before it is sent again, and
every PUT carries `safe_update` with the `updated_stamp` just read, so a retry never overwrites a change made
meanwhile (409: read again, try again). A 429 moves the row's next attempt by Retry-After and the sender goes on
with the others: no run, Slack message or other ticket waits on it. A refused write (bad credentials, no
permission, a closed ticket) stops, keeps the approved text in the row and is reported through `on_failed`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, update
from sqlmodel import Session, col, select

from bot.db.engine import Database
from bot.db.models import DeskWrite, utcnow
from bot.desk.base import DeskError, DeskRefused, DeskUnavailable, NoSuchTicket
from bot.desk.zendesk.client import AuthFailed, Conflict, RateLimited, Unknown, ZendeskClient

logger = logging.getLogger(__name__)
LEASE = timedelta(seconds=60)  # a sender that died mid-request: its row is taken over after this
BACKOFF = (1, 2, 5, 15, 30, 60, 120, 300)
CONFLICT_TRIES = 3
ZENDESK_STATUS = {"open": "open", "pending": "pending", "closed": "solved"}  # solved: Zendesk closes it later


def record(session: Session, *, ticket_id: str, kind: str, body: str | None, public: bool,
           fields: dict[str, Any], run_id: int | None, tool_use_id: str | None) -> tuple[DeskWrite, bool]:
    """The write, stored with the caller's transaction; (row, created). A tool call already recorded gets its
    row back, so the customer never gets a reply twice."""
    key = f"{run_id}:{tool_use_id}" if tool_use_id else None
    if key is not None:
        old = session.exec(select(DeskWrite).where(DeskWrite.key == key)).first()
        if old is not None:
            return old, False
    row = DeskWrite(key=key, ticket_id=ticket_id, kind=kind, body=body, public=public, fields=fields,
                    run_id=run_id, tool_use_id=tool_use_id, status="pending", next_attempt_at=utcnow(),
                    created_at=utcnow())
    session.add(row)
    session.flush()
    return row, True


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


class DeskSender:
    """Delivers due writes, one at a time per process; any number of processes may run one."""

    def __init__(self, db: Database, client: ZendeskClient,
                 on_failed: Callable[[DeskWrite, str], None] | None = None) -> None:
        self.db, self.client, self.on_failed = db, client, on_failed
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._me: int | None = None
        self._paused_until = 0.0  # a 429 is the account's: no write is tried until its Retry-After has passed

    # --- the loop ------------------------------------------------------------------------------------------
    def start(self) -> DeskSender:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="zendesk-sender", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def nudge(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                sent = self.deliver_due()
            except Exception:
                logger.exception("zendesk sender pass failed")
                sent = 0
            if not sent:
                self._wake.wait(timeout=1.0)
                self._wake.clear()

    def deliver_due(self, limit: int = 20) -> int:
        """Deliver what is due now; the number of rows handled."""
        handled = 0
        if time.monotonic() < self._paused_until:
            return 0
        for write_id in self._due(limit):
            if self._stop.is_set() or time.monotonic() < self._paused_until:
                break
            if self._claim(write_id):
                self.deliver(write_id)
                handled += 1
        return handled

    def drain(self, timeout: float = 30.0) -> bool:
        """Deliver until nothing is due (for `kitebase run` and tests); False if writes are still waiting."""
        deadline = utcnow() + timedelta(seconds=timeout)
        while utcnow() < deadline:
            if not self.deliver_due() and not self.pending():
                return True
            if not self._due(1) or time.monotonic() < self._paused_until:
                self._stop.wait(0.2)
        return not self.pending()

    def pending(self) -> int:
        with self.db.session() as session:
            return len(session.exec(select(DeskWrite.id).where(
                col(DeskWrite.status).in_(("pending", "sending", "unknown")))).all())

    def _due(self, limit: int) -> list[int]:
        now = utcnow()
        with self.db.session() as session:
            return [int(i) for i in session.exec(
                select(DeskWrite.id).where(col(DeskWrite.status).in_(("pending", "sending", "unknown")),
                                           col(DeskWrite.next_attempt_at) <= now,
                                           or_(col(DeskWrite.claimed_until).is_(None), col(DeskWrite.claimed_until) < now))
                .order_by(col(DeskWrite.next_attempt_at), col(DeskWrite.id)).limit(limit)).all() if i is not None]

    def _claim(self, write_id: int) -> bool:
        now = utcnow()
        with self.db.session() as session:
            taken = session.execute(
                update(DeskWrite).where(col(DeskWrite.id) == write_id,
                                        col(DeskWrite.status).in_(("pending", "sending", "unknown")),
                                        or_(col(DeskWrite.claimed_until).is_(None), col(DeskWrite.claimed_until) < now))
                .values(claimed_until=now + LEASE))
            return bool(getattr(taken, "rowcount", 0))

    # --- one write -----------------------------------------------------------------------------------------
    def deliver(self, write_id: int) -> str:
        with self.db.session() as session:
            row = session.get(DeskWrite, write_id)
            if row is None:
                return "gone"
            session.expunge(row)
        try:
            outcome = self._attempt(row)
        except RateLimited as exc:
            self._paused_until = time.monotonic() + exc.retry_after
            return self._later(row, exc.retry_after, str(exc), status=row.status)
        except Unknown as exc:
            return self._later(row, self._backoff(row), str(exc), status="unknown")
        except DeskUnavailable as exc:
            return self._later(row, self._backoff(row), str(exc), status=row.status)
        except AuthFailed as exc:
            return self._fail(row, f"{exc} The approved text is kept; it is sent once the credentials work "
                                   "(`kitebase desk retry`).")
        except (DeskRefused, NoSuchTicket) as exc:
            return self._fail(row, str(exc))
        except DeskError as exc:
            return self._later(row, self._backoff(row), str(exc), status=row.status)
        return outcome

    def _attempt(self, row: DeskWrite) -> str:
        if row.status in ("sending", "unknown"):  # it may have been applied: look before sending again
            found = self._find(row)
            if found is not None:
                return self._done(row, found)
        for _ in range(CONFLICT_TRIES):
            ticket = self.client.get(f"/api/v2/tickets/{int(row.ticket_id)}.json")["ticket"]
            if ticket.get("status") == "closed":
                raise DeskRefused(f"Ticket {row.ticket_id} is closed in Zendesk, and a closed ticket cannot be "
                                  "updated. Create a follow-up ticket in Zendesk for the customer.")
            self._mark_sending(row)
            try:
                answer = self.client.put(f"/api/v2/tickets/{int(row.ticket_id)}.json", {"ticket": self._body(row, ticket)})
            except Conflict:
                continue  # changed meanwhile, nothing applied: read the new stamp and try again
            return self._done(row, _comment_id(answer))
        return self._later(row, 1.0, "the ticket kept changing while we wrote (409)", status="pending")

    def _body(self, row: DeskWrite, ticket: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"safe_update": True, "updated_stamp": ticket.get("updated_at")}
        if row.body:
            body["comment"] = {"body": row.body, "public": row.public}
        fields = row.fields or {}
        if fields.get("status"):
            body["status"] = ZENDESK_STATUS.get(fields["status"], fields["status"])
        if "assignee_id" in fields:
            body["assignee_id"] = fields["assignee_id"]
        return body

    def _find(self, row: DeskWrite) -> int | None:
        """Our comment, if an earlier attempt was applied: same text, same visibility, by us, after it began."""
        if not row.body:
            return None
        me = self.me()
        since = (row.first_tried_at or row.created_at) - timedelta(minutes=5)
        path = f"/api/v2/tickets/{int(row.ticket_id)}/comments.json"
        for page in self.client.pages(path, {"sort": "-created_at"}, "comments"):
            for comment in page:
                created = datetime.fromisoformat(str(comment.get("created_at")).replace("Z", "+00:00"))
                if created < since:
                    return None
                if comment.get("author_id") == me and bool(comment.get("public", True)) == row.public and \
                        _same(str(comment.get("body") or comment.get("plain_body") or ""), row.body):
                    return int(comment["id"])
        return None

    def me(self) -> int:
        if self._me is None:
            self._me = int(self.client.get("/api/v2/users/me.json")["user"]["id"])
        return self._me

    # --- outcomes ------------------------------------------------------------------------------------------
    def _mark_sending(self, row: DeskWrite) -> None:
        now = utcnow()
        with self.db.session() as session:
            session.execute(update(DeskWrite).where(col(DeskWrite.id) == row.id).values(
                status="sending", attempts=col(DeskWrite.attempts) + 1, first_tried_at=row.first_tried_at or now,
                claimed_until=now + LEASE))
        row.first_tried_at = row.first_tried_at or now
        row.status = "sending"
        row.attempts += 1

    def _done(self, row: DeskWrite, comment_id: int | None) -> str:
        with self.db.session() as session:
            session.execute(update(DeskWrite).where(col(DeskWrite.id) == row.id).values(
                status="sent", sent_at=utcnow(), comment_id=comment_id, claimed_until=None, last_error=None))
        logger.info("zendesk write %s sent to ticket %s", row.id, row.ticket_id)
        return "sent"

    def _later(self, row: DeskWrite, seconds: float, why: str, *, status: str) -> str:
        with self.db.session() as session:
            session.execute(update(DeskWrite).where(col(DeskWrite.id) == row.id).values(
                status=status, next_attempt_at=utcnow() + timedelta(seconds=seconds), claimed_until=None,
                last_error=why[:500]))
        logger.info("zendesk write %s to ticket %s waits %.0f s: %s", row.id, row.ticket_id, seconds, why)
        return "later"

    def _fail(self, row: DeskWrite, why: str) -> str:
        with self.db.session() as session:
            session.execute(update(DeskWrite).where(col(DeskWrite.id) == row.id).values(
                status="failed", claimed_until=None, last_error=why[:500]))
        logger.warning("zendesk write %s to ticket %s failed: %s", row.id, row.ticket_id, why)
        if self.on_failed is not None:
            try:
                self.on_failed(row, why)
            except Exception:
                logger.exception("reporting the failed zendesk write %s", row.id)
        return "failed"

    @staticmethod
    def _backoff(row: DeskWrite) -> float:
        return float(BACKOFF[min(row.attempts, len(BACKOFF) - 1)])


def _comment_id(answer: dict[str, Any]) -> int | None:
    for event in (answer.get("audit") or {}).get("events") or []:
        if event.get("type") == "Comment" and event.get("id"):
            return int(event["id"])
    return None


def retry_failed(db: Database) -> int:
    """Failed writes go back to the queue (after the credentials or the ticket were fixed)."""
    with db.session() as session:
        result = session.execute(update(DeskWrite).where(col(DeskWrite.status) == "failed").values(
            status="unknown", next_attempt_at=utcnow(), claimed_until=None))
        return int(getattr(result, "rowcount", 0))


__all__ = ["DeskSender", "record", "retry_failed"]
