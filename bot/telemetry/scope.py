"""Which run the current work is for: a context variable set for the duration of work on a run (a resume, a
decision, a sweep acting on a run, the delivery of a run's outbox row), read by the log formatter
(bot/telemetry/logs.py) so that every line written meanwhile names the run and its Slack thread."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class RunScope:
    run_id: int | None = None
    thread: str | None = None  # the run's Slack thread, "C123:1700000000.000100"
    ticket: str | None = None

    def note(self, run_id: int | None, thread: str | None = None, ticket: str | None = None) -> None:
        self.run_id = run_id if run_id is not None else self.run_id
        self.thread = thread or self.thread
        self.ticket = ticket or self.ticket


_current: ContextVar[RunScope | None] = ContextVar("kitebase_run_scope", default=None)


def current() -> RunScope | None:
    return _current.get()


@contextmanager
def run_scope(run_id: int | None = None, thread: str | None = None, ticket: str | None = None
              ) -> Iterator[RunScope]:
    """Work on a run (its id may be noted later, once a row is read: `note_run`)."""
    scope = RunScope(run_id, thread, ticket)
    token = _current.set(scope)
    try:
        yield scope
    finally:
        _current.reset(token)


@contextmanager
def entered(scope: RunScope | None) -> Iterator[None]:
    """Continue `scope` in another thread (a tool call running in the loop's pool)."""
    token = _current.set(scope)
    try:
        yield
    finally:
        _current.reset(token)


def note_run(run_id: int | None, thread: str | None = None, ticket: str | None = None) -> None:
    """Name the run the current scope works on; nothing outside a scope."""
    scope = _current.get()
    if scope is not None:
        scope.note(run_id, thread, ticket)


def thread_key(channel: str | None, thread_ts: str | None) -> str | None:
    return f"{channel}:{thread_ts}" if channel and thread_ts else None
