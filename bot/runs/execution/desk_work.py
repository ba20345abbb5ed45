"""A real desk's background work in a process: its sender of writes, its periodic sync (one pass at a time
across processes), its webhook, and what a refused write becomes (an escalation that says what to fix, with the
approved text kept)."""

from __future__ import annotations

import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.exc import IntegrityError

from bot import outbox
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Delivery, DeskWrite, Run, utcnow
from bot.runs import owner_name
from bot.runs.execution import processes
from bot.runs.lifecycle.checkpoint import open_escalation
from bot.vocabulary import StopKind

logger = logging.getLogger(__name__)
SYNC_LOCK = "zendesk-sync"  # one pass of the Zendesk sync at a time, across processes
LEASE_SECONDS = 60.0  # renewed every 15 s while a pass runs; a dead process's lapses within a minute


def start_sender(db: Database, settings: Settings) -> Any:
    """The process's desk sender, started, reporting refused writes to the queue; None on the embedded desk
    (its writes are rows in the same transaction as the tool call)."""
    if settings.desk != "zendesk":
        return None
    from bot.desk.zendesk.desk import sender_for

    sender = sender_for(db, settings)
    sender.on_failed = lambda write, why: write_failed(db, settings, write, why)
    return sender.start()


def poll(db: Database, settings: Settings, *, owner: str | None = None, client: Any = None,
         per_page: int = 1000, full: bool = False) -> Any:
    """One pass of the Zendesk sync (the timer's job and `kitebase desk sync`; webhooks are faster, this catches
    misses), by one process at a time: the pass holds the named lock `zendesk-sync`, renews it while it runs,
    and writes each page only while the lock is still its own. None when another process holds it."""
    from bot.desk.zendesk import sync
    from bot.desk.zendesk.desk import client_for
    from bot.desk.zendesk.tiers import tiers_of

    owner = owner or owner_name()
    if not processes.hold(db, SYNC_LOCK, owner, LEASE_SECONDS, settings.process_stale_seconds):
        logger.info("zendesk poll: %s is syncing; this pass is left to it", processes.holder(db, SYNC_LOCK))
        return None
    lease = _Lease(db, owner).start()
    try:
        report = sync.sync(client or client_for(settings), db, since_seconds=settings.zendesk_sync_since_seconds,
                           full=full, per_page=per_page, stop=lease.lost,
                           fence=lambda session: processes.renew(session, SYNC_LOCK, owner, LEASE_SECONDS),
                           arrivals=settings.intake_rules is not None, tiers=tiers_of(settings))
    finally:
        lease.stop()
        processes.release(db, SYNC_LOCK, owner)
    report.superseded = report.superseded or lease.lost.is_set()
    logger.info("zendesk poll: %s", report.line())
    return report


class _Lease:
    """Renews a sync's lock while the pass runs (a page of a thousand tickets' comments takes minutes at a
    plan's rate limit); sets `lost` when the lock is no longer ours, and the pass stops at its next page."""

    def __init__(self, db: Database, owner: str) -> None:
        self.db, self.owner = db, owner
        self.lost, self._done = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._renew, name="zendesk-sync-lease", daemon=True)

    def start(self) -> _Lease:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._done.set()
        self._thread.join(timeout=10)

    def _renew(self) -> None:
        while not self._done.wait(LEASE_SECONDS / 4):
            try:
                with self.db.session() as session:
                    if processes.renew(session, SYNC_LOCK, self.owner, LEASE_SECONDS):
                        continue
                logger.warning("zendesk sync: the lock went to %s; this pass stops",
                               processes.holder(self.db, SYNC_LOCK))
                self.lost.set()
                return
            except Exception:
                logger.exception("zendesk sync: could not renew the lock (tried again shortly)")


INTAKE_LOCK = "intake"  # one intake pass at a time, across processes: the rules' caps count exactly


def intake(db: Database, settings: Settings, rules: Any, dispatch: Any, *, owner: str | None = None) -> Any:
    """One pass of the intake (bot/runs/intake/arrivals.py) by one process at a time, under the named lock
    `intake`, renewed in each arrival's transaction. None when another process holds it."""
    from bot.runs.intake import arrivals

    owner = owner or owner_name()
    if not processes.hold(db, INTAKE_LOCK, owner, LEASE_SECONDS, settings.process_stale_seconds):
        return None
    try:
        return arrivals.take(db, settings, rules, dispatch,
                             fence=lambda session: processes.renew(session, INTAKE_LOCK, owner, LEASE_SECONDS))
    finally:
        processes.release(db, INTAKE_LOCK, owner)


def write_failed(db: Database, settings: Settings, write: DeskWrite, why: str) -> None:
    """A write Zendesk refused: the run's thread and the human queue say what happened and what to fix."""
    what = {"reply": "approved reply", "link": "problem/incident link"}.get(write.kind, "ticket change")
    kept = "text" if write.body else "change"
    reason = (f"The {what} could not be written to Zendesk ticket {write.ticket_id}: {why} "
              f"The {kept} is kept (desk write {write.id}); `kitebase desk retry` sends it once this is fixed.")
    with db.session() as session:
        run = session.get(Run, write.run_id) if write.run_id else None
        if run is None:
            logger.error("%s", reason)
            return
        escalation = open_escalation(session, run, kind=StopKind.TOOL_ERROR, reason=reason)
        session.flush()
        outbox.queue_post(session, escalation, run, settings.escalation_channel)
        where = outbox.thread_of(run)
        if where is not None and where.thread_ts:
            outbox.notice(session, channel=where.channel, thread_ts=where.thread_ts, text=reason,
                          key=f"desk-write-failed:{write.id}", run_id=run.id)


_fetches = ThreadPoolExecutor(2, thread_name_prefix="zendesk-webhook")


def webhook(db: Database, settings: Settings, headers: dict[str, str], body: bytes) -> tuple[str, dict[str, Any]]:
    """A Zendesk webhook request: (HTTP status, JSON answer). Verified, deduplicated on Zendesk's invocation id,
    and the tickets it names are fetched in the background (Zendesk wants a fast 2xx)."""
    from bot.desk.zendesk.webhook import ticket_ids, verified

    secret = settings.zendesk_webhook_secret
    if settings.desk != "zendesk" or secret is None:
        return "404 Not Found", {"ok": False, "error": "no Zendesk desk here (KITEBASE_DESK, ZENDESK_WEBHOOK_SECRET)"}
    if not verified(secret.get_secret_value(), headers, body):
        logger.warning("zendesk webhook: signature or timestamp refused; nothing changed")
        return "401 Unauthorized", {"ok": False, "error": "invalid signature"}
    ids = ticket_ids(body)
    invocation = headers.get("x-zendesk-webhook-invocation-id")
    if invocation and not _first_delivery(db, f"zendesk:{invocation}"):
        return "200 OK", {"ok": True, "duplicate": True}
    if not ids:  # a user's or an organization's event, or a body that names no ticket: acknowledged, ignored
        logger.info("zendesk webhook: names no ticket (%s); ignored", _kind(body))
        return "200 OK", {"ok": True, "tickets": [], "ignored": True}
    _fetches.submit(_refresh, db, settings, ids)
    return "202 Accepted", {"ok": True, "tickets": ids}


def _kind(body: bytes) -> str:
    try:
        payload = json.loads(body or b"null")
    except ValueError:
        return "not JSON"
    kind = payload.get("type") if isinstance(payload, dict) else None
    return str(kind)[:80] if kind else "a trigger body without ticket_id"


def _first_delivery(db: Database, key: str) -> bool:
    try:
        with db.session() as session:
            session.add(Delivery(key=key, run_id=None, created_at=utcnow()))
        return True
    except IntegrityError:
        return False


def _refresh(db: Database, settings: Settings, ids: list[str]) -> None:
    from bot.desk.zendesk import sync
    from bot.desk.zendesk.desk import client_for
    from bot.desk.zendesk.tiers import tiers_of

    try:
        sync.refresh_tickets(client_for(settings), db, ids, arrivals=settings.intake_rules is not None,
                             tiers=tiers_of(settings))
    except Exception:
        logger.exception("zendesk webhook: could not fetch tickets %s (the next poll will)", ids)
