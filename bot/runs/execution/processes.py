"""Which processes are alive: each one that can own runs beats every few seconds, so a run whose owner
died is taken over in seconds instead of waiting for its lease to expire. Leases stay the guard against two
owners; a process presumed dead that is in fact alive loses the run at its next checkpoint.

Also named locks: a lease on a job only one process should do at a time (delivering the outbox, the Zendesk
sync), renewed while the job runs and checked, as a fence, in the transactions the job writes.

Beats and locks are written and judged by the database's clock (bot/db/clock.py), never a process's own: a host
whose clock is minutes off neither looks dead nor takes a live process for dead."""

from __future__ import annotations

import logging
import os
import socket
import threading
from datetime import timedelta

from sqlalchemy import or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from bot.db import clock
from bot.db.engine import Database
from bot.db.models import NamedLock, ProcessBeat
from bot.db.statements import changed
from bot.runs import owner_name

logger = logging.getLogger(__name__)

BEAT_SECONDS = 2.0


def _insert_ignore(session: Session, model: type, **values: object) -> None:
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    session.execute(dialect.insert(model).values(**values).on_conflict_do_nothing())


class Liveness:
    """This process's heartbeat row, renewed by a daemon thread until stop()."""

    def __init__(self, db: Database, owner: str, kind: str, interval: float = BEAT_SECONDS):
        self.db, self.owner, self.kind, self.interval = db, owner, kind, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="kitebase-liveness", daemon=True)

    def start(self) -> Liveness:
        host, _, pid = self.owner.rpartition(":")
        with self.db.session() as session:
            _insert_ignore(session, ProcessBeat, owner=self.owner, kind=self.kind, host=host,
                           pid=int(pid) if pid.isdigit() else 0, started_at=clock.now(), beat_at=clock.now())
            session.execute(update(ProcessBeat).where(col(ProcessBeat.owner) == self.owner)
                            .values(kind=self.kind, started_at=clock.now(), beat_at=clock.now(), stopped_at=None))
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        try:
            with self.db.session() as session:
                session.execute(update(ProcessBeat).where(col(ProcessBeat.owner) == self.owner)
                                .values(stopped_at=clock.now()))
        except Exception:
            logger.exception("could not record that %s stopped", self.owner)

    def _beat(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                with self.db.session() as session:
                    session.execute(update(ProcessBeat).where(col(ProcessBeat.owner) == self.owner)
                                    .values(beat_at=clock.now(), stopped_at=None))
            except Exception:
                logger.exception("heartbeat of %s failed", self.owner)


def dead_owners(session: Session, stale_seconds: float) -> set[str]:
    """Owners that stopped, stopped beating (by the database's clock), or (on this host) whose pid is gone."""
    host = socket.gethostname()
    silent = (col(ProcessBeat.stopped_at).is_not(None) | (col(ProcessBeat.beat_at) < clock.now(-stale_seconds)))
    dead = set()
    for owner, row_host, pid, stopped in session.exec(select(ProcessBeat.owner, ProcessBeat.host, ProcessBeat.pid,
                                                             silent)).all():
        if owner == owner_name():
            continue
        if stopped or (row_host == host and pid and not _pid_alive(pid)):
            dead.add(owner)
    return dead


def _gone_from_this_host(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    return host == socket.gethostname() and pid.isdigit() and not _pid_alive(int(pid))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def forget_stopped(session: Session, older_than: timedelta = timedelta(days=1)) -> None:
    """Beat rows of processes long gone (kept a day so an operator can see who owned what)."""
    old = clock.now(-older_than.total_seconds())
    for row in session.exec(select(ProcessBeat).where(col(ProcessBeat.beat_at) < old)).all():
        session.delete(row)


# --- named locks ---------------------------------------------------------------------------------------

def hold(db: Database, name: str, owner: str, seconds: float, stale_seconds: float) -> bool:
    """Take or renew the lock `name` for `seconds`; True while `owner` holds it."""
    with db.session() as session:
        _insert_ignore(session, NamedLock, name=name)
        dead = dead_owners(session, stale_seconds)
        current = session.get(NamedLock, name)
        if current is not None and current.owner and _gone_from_this_host(current.owner):
            dead.add(current.owner)  # a process without a heartbeat (`kitebase desk sync`) killed here
        return changed(session.execute(
            update(NamedLock).where(col(NamedLock.name) == name)
            .where(or_(col(NamedLock.owner).is_(None), col(NamedLock.owner) == owner,
                       col(NamedLock.expires_at) < clock.now(), col(NamedLock.owner).in_(dead or {""})))
            .values(owner=owner, expires_at=clock.now(seconds)))) == 1


def renew(session: Session, name: str, owner: str, seconds: float) -> bool:
    """Extend `owner`'s hold on `name` for `seconds`, in the caller's transaction (a fence: what it writes
    commits only while the lock is still theirs). False when it is not: it lapsed, or another took it."""
    return changed(session.execute(
        update(NamedLock).where(col(NamedLock.name) == name, col(NamedLock.owner) == owner,
                                col(NamedLock.expires_at) >= clock.now())
        .values(expires_at=clock.now(seconds)))) == 1


def holder(db: Database, name: str) -> str | None:
    """Who holds the lock `name` now (None: nobody, or a lease that ran out)."""
    with db.session() as session:
        return session.exec(select(NamedLock.owner).where(col(NamedLock.name) == name,
                                                          col(NamedLock.expires_at) >= clock.now())).first()


def release(db: Database, name: str, owner: str) -> None:
    with db.session() as session:
        session.execute(update(NamedLock).where(col(NamedLock.name) == name, col(NamedLock.owner) == owner)
                        .values(owner=None, expires_at=None))
