"""Writes to Zendesk, exactly once: a durable queue like the Slack outbox.

A write (the approved reply as a public comment; an internal note, a status or assignee change, tags added and
with them the ticket's other tags of the prefixes the write replaces; a problem's or an incident's link, `type`
and `problem_id`) is a
`desk_write` row recorded in the transaction of the tool call that decides it (one row per run and tool call,
so a replayed call finds its row), and sent by one sender at a time: a sender claims the row (a fenced claim,
bot/desk/zendesk/write_claim.py, by the database's clock) and makes one attempt
(bot/desk/zendesk/write_attempt.py: the ticket's stamp, a look-up for an earlier attempt's comment, a PUT with
`safe_update`). Zendesk's Idempotency-Key covers ticket creation only; what makes an update exactly-once is that
order, not the claim. Writes to one ticket go in the order they were decided, one at a time.

A 429 moves the row's next attempt by Retry-After and the sender goes on with the others: no run, Slack message
or other ticket waits on it. A refused write (bad credentials, no permission, a closed ticket) stops, keeps the
approved text in the row and is reported through `on_failed`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import exists, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from bot.db import clock
from bot.db.engine import Database
from bot.db.models import DeskWrite, utcnow
from bot.desk.base import DeskError, DeskRefused, DeskUnavailable, NoSuchTicket
from bot.desk.zendesk.client import AuthFailed, RateLimited, Unknown, ZendeskClient
from bot.desk.zendesk.write_attempt import ZENDESK_STATUS, KeptChanging, attempt
from bot.desk.zendesk.write_claim import OPEN, Claim, LostClaim, take

logger = logging.getLogger(__name__)
BACKOFF = (1, 2, 5, 15, 30, 60, 120, 300)
# A claim is renewed before each request of an attempt and outlasts the slowest one: the client's timeout bounds
# each phase of a request (connect, send, each read), so three of them and a margin.
REQUEST_PHASES = 3
CLAIM_MARGIN = 10.0


def claim_seconds_for(timeout: float) -> float:
    return REQUEST_PHASES * timeout + CLAIM_MARGIN


def record(session: Session, *, ticket_id: str, kind: str, body: str | None, public: bool,
           fields: dict[str, Any], run_id: int | None, tool_use_id: str | None,
           waits_for: int | None = None) -> tuple[DeskWrite, bool]:
    """The write, stored with the caller's transaction; (row, created). A tool call already recorded gets its
    row back, so the customer never gets a reply twice. With `waits_for`, it is sent once that write is done
    (an incident's link after its problem's)."""
    key = f"{run_id}:{tool_use_id}" if tool_use_id else None
    if key is not None:
        old = session.exec(select(DeskWrite).where(DeskWrite.key == key)).first()
        if old is not None:
            return old, False
    row = DeskWrite(key=key, ticket_id=ticket_id, kind=kind, body=body, public=public, fields=fields,
                    run_id=run_id, tool_use_id=tool_use_id, status="pending", created_at=utcnow(), waits_for=waits_for)
    row.next_attempt_at = clock.now()  # type: ignore[assignment]  # due now by the database clock
    session.add(row)
    session.flush()
    return row, True


class DeskSender:
    """Delivers due writes, one at a time per process; any number of processes may run one."""

    def __init__(self, db: Database, client: ZendeskClient,
                 on_failed: Callable[[DeskWrite, str], None] | None = None, *,
                 claim_seconds: float | None = None) -> None:
        self.db, self.client, self.on_failed = db, client, on_failed
        self.claim_seconds = claim_seconds or claim_seconds_for(client.timeout)
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
            claim = self.claim(write_id)
            if claim is not None:
                self.deliver(claim)
                handled += 1
        return handled

    def drain(self, timeout: float = 30.0) -> bool:
        """Deliver until nothing is due (for `kitebase run` and tests); False if writes are still waiting."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.deliver_due() and not self.pending():
                return True
            if not self._due(1) or time.monotonic() < self._paused_until:
                self._stop.wait(0.2)
        return not self.pending()

    def pending(self) -> int:
        with self.db.session() as session:
            return len(session.exec(select(DeskWrite.id).where(col(DeskWrite.status).in_(OPEN))).all())

    def _due(self, limit: int) -> list[int]:
        """Rows due now and free, each the oldest unfinished write of its ticket (a ticket's writes go in order,
        one at a time), and none waiting for another write that is unfinished."""
        earlier = aliased(DeskWrite)
        first = aliased(DeskWrite)
        with self.db.session() as session:
            return [int(i) for i in session.exec(
                select(DeskWrite.id).where(
                    col(DeskWrite.status).in_(OPEN), col(DeskWrite.next_attempt_at) <= clock.now(),
                    col(DeskWrite.claimed_until).is_(None) | (col(DeskWrite.claimed_until) < clock.now()),
                    ~exists().where(col(earlier.ticket_id) == col(DeskWrite.ticket_id),
                                    col(earlier.id) < col(DeskWrite.id), col(earlier.status).in_(OPEN)),
                    ~exists().where(col(first.id) == col(DeskWrite.waits_for), col(first.status).in_(OPEN)))
                .order_by(col(DeskWrite.next_attempt_at), col(DeskWrite.id)).limit(limit)).all() if i is not None]

    def claim(self, write_id: int) -> Claim | None:
        return take(self.db, write_id, self.claim_seconds)

    # --- one write -----------------------------------------------------------------------------------------
    def deliver(self, claim: Claim) -> str:
        with self.db.session() as session:
            row = session.get(DeskWrite, claim.write_id)
            if row is None:
                return "gone"
            session.expunge(row)
        try:
            comment = attempt(self.client, claim, row, self.me)
        except LostClaim as exc:
            logger.info("zendesk write %s: %s; this sender stops", row.id, exc)
            return "lost"
        except RateLimited as exc:
            self._paused_until = time.monotonic() + exc.retry_after
            return self._later(claim, row, exc.retry_after, str(exc), status=row.status)
        except Unknown as exc:
            return self._later(claim, row, self._backoff(row), str(exc), status="unknown")
        except (DeskUnavailable, KeptChanging) as exc:  # nothing sent, or nothing applied (409)
            return self._later(claim, row, self._backoff(row), str(exc), status=row.status)
        except AuthFailed as exc:
            return self._fail(claim, row, f"{exc} The approved text is kept; it is sent once the credentials work "
                                          "(`kitebase desk retry`).")
        except (DeskRefused, NoSuchTicket) as exc:
            return self._fail(claim, row, str(exc))
        except DeskError as exc:
            return self._later(claim, row, self._backoff(row), str(exc), status=row.status)
        if not claim.done(comment):
            logger.info("zendesk write %s: sent, but another sender holds it now; it will find the comment", row.id)
            return "lost"
        logger.info("zendesk write %s sent to ticket %s", row.id, row.ticket_id)
        return "sent"

    def me(self) -> int:
        if self._me is None:
            self._me = int(self.client.get("/api/v2/users/me.json")["user"]["id"])
        return self._me

    # --- outcomes ------------------------------------------------------------------------------------------
    def _later(self, claim: Claim, row: DeskWrite, seconds: float, why: str, *, status: str) -> str:
        if not claim.later(seconds, why, status=status):
            return "lost"
        logger.info("zendesk write %s to ticket %s waits %.0f s: %s", row.id, row.ticket_id, seconds, why)
        return "later"

    def _fail(self, claim: Claim, row: DeskWrite, why: str) -> str:
        if not claim.fail(why):
            return "lost"
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


def retry_failed(db: Database) -> int:
    """Failed writes go back to the queue (after the credentials or the ticket were fixed)."""
    with db.session() as session:
        result = session.execute(update(DeskWrite).where(col(DeskWrite.status) == "failed").values(
            status="unknown", next_attempt_at=clock.now(), claimed_until=None, claimed_by=None))
        return int(getattr(result, "rowcount", 0))


__all__ = ["ZENDESK_STATUS", "DeskSender", "LostClaim", "claim_seconds_for", "record", "retry_failed"]
