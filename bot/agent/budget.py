"""One model budget for every process: the organization's Messages API limits, kept in the database.

The API's limits (requests, input tokens and output tokens per minute) belong to the organization, so every
run of every `serve`, `worker` and `kitebase run` draws on the same ones. The API measures them as token
buckets refilled continuously, and reports what is left on every answer (the anthropic-ratelimit-* headers:
limit, remaining, and the time the bucket is full again), and how long to wait on a 429 (retry-after).

Here each process keeps what it learns in one `model_budget` row per API key and model (a hash, never the
key), and a run takes its share before calling: one request, its expected input tokens (what the last turn
sent uncached, since cache reads do not count against the input limit of current models) and some output.
When the share is not there, `reserve` says how long until it is, and the run waits for its turn instead of
calling and being answered 429. What the row says is corrected by every answer's headers, towards the
smaller of the two (the headers do not know of calls other processes have reserved but not yet sent).

Before the first answer the budget is unknown, and calls go as they come; a 429 then pauses every process
for its retry-after. Retries of 429 and 529 stay in model.py, for what the budget could not foresee.

One clock (DESIGN.md convention 16): the row's times (`as_of`, `paused_until`, the waiters' asks) are the
database's, read under the row's lock, so hosts whose clocks differ share one budget fairly; the API's reset
times are measured against the API's own clock (bot/agent/api_clock.py), never ours.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from bot.agent.api_clock import ApiClock
from bot.db import clock as db_time
from bot.db.engine import Database
from bot.db.models import ModelBudget as Row

logger = logging.getLogger(__name__)

DIMENSIONS = ("requests", "input-tokens", "output-tokens")
MINUTE = 60.0
WAITER_TTL = 15.0  # seconds a waiting call stays queued without asking again (a run asks at least every 5 s)


def budget_key(api_key: str, base_url: str | None, model: str) -> str:
    """The row of one organization's limits for one model (the API's limits are per model class)."""
    return hashlib.sha256(f"{api_key}\n{base_url or ''}\n{model}".encode()).hexdigest()[:40]


def parse_limits(headers: Mapping[str, str], now: float | None) -> dict[str, dict[str, float]]:
    """{dimension: {limit, remaining, rate}} from an answer's headers (the dimensions it reports). `now` is the
    API's time (by its clock, None while unknown): the reset times are compared with it, never with ours."""
    found: dict[str, dict[str, float]] = {}
    for name in DIMENSIONS:
        try:
            limit = float(headers[f"anthropic-ratelimit-{name}-limit"])
            remaining = float(headers[f"anthropic-ratelimit-{name}-remaining"])
        except (KeyError, TypeError, ValueError):
            continue
        if limit <= 0:
            continue
        rate = limit / MINUTE
        reset = _epoch(headers.get(f"anthropic-ratelimit-{name}-reset"))
        deficit = limit - remaining
        # The bucket refills continuously: full again at `reset`. With a deficit large enough to measure, that
        # gives the rate (the API's is limit per minute; a stand-in may run a faster clock).
        if reset is not None and now is not None and reset > now and deficit >= max(2.0, limit / 10):
            rate = deficit / (reset - now)
        found[name] = {"limit": limit, "remaining": max(0.0, remaining), "rate": rate}
    return found


def _epoch(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class SharedModelBudget:
    """The budget row of one API key and model, read and written in short locked transactions. Its times are
    the database's (`db_clock`, read in the transaction that holds the row); `clock` is this process's, only to
    read the API's clock from its answers (tests give both)."""

    def __init__(self, db: Database, key: str, clock: Callable[[], float] = time.time,
                 db_clock: Callable[[Session], float] = db_time.read_epoch):
        self.db, self.key, self.db_clock = db, key, db_clock
        self.api_clock = ApiClock(clock)
        self._exists = False

    def reserve(self, *, input_tokens: int, output_tokens: int, waiter: str | None = None) -> float:
        """0 when a call may go now (its share is taken), else the seconds to wait before asking again.

        Calls that have to wait queue in the order they first asked (`waiter` names one across its asks): the
        share goes to the oldest live waiter, so on a busy morning no run waits much longer than the others. A
        waiter that stops asking for WAITER_TTL seconds (its process died) leaves the queue."""
        needs = {"requests": 1.0, "input-tokens": float(input_tokens), "output-tokens": float(output_tokens)}
        with self._locked() as (row, now):
            queue = {w: entry for w, entry in (row.waiters or {}).items() if now - entry[1] < WAITER_TTL}
            dims = _refilled(row, now)
            wait = max(0.0, row.paused_until - now)
            for name, dim in dims.items():
                need = min(needs[name], dim["limit"])
                if dim["available"] < need:
                    wait = max(wait, (need - dim["available"]) / dim["rate"])
            mine = queue.get(waiter) if waiter else None
            ahead = sum(1 for w, entry in queue.items() if w != waiter and (mine is None or
                                                                             (entry[0], w) < (mine[0], waiter)))
            if wait <= 0 and ahead == 0:
                for name, dim in dims.items():
                    dim["available"] -= min(needs[name], dim["limit"])
                queue.pop(waiter or "", None)
                row.dimensions, row.as_of, row.waiters = dims, now, queue
                return 0.0
            if waiter:  # in the queue from its first ask on; seen again now
                queue[waiter] = [mine[0] if mine else now, now]
            rate = dims["requests"]["rate"] if "requests" in dims else 1.0
            row.waiters = queue
            return max(wait, ahead / rate, 0.01)

    def leave(self, waiter: str) -> None:
        """A waiter that gave up (or whose call went another way) leaves the queue at once."""
        with self._locked() as (row, now):
            queue = row.waiters or {}
            if waiter in queue:
                row.waiters = {w: entry for w, entry in queue.items() if w != waiter}

    def observe(self, headers: Mapping[str, str], *, sent_at: float | None = None,
                received_at: float | None = None) -> None:
        """An answer's headers: what the API says is left, kept where every process sees it. `sent_at` and
        `received_at` (this process's clock) bound when the API answered, for reading its clock."""
        api_now = self.api_clock.observe(headers, sent_at=sent_at, received_at=received_at)
        reported = parse_limits(headers, api_now)
        if not reported:
            return
        with self._locked() as (row, now):
            dims = _refilled(row, now)
            for name, seen in reported.items():
                known = dims.get(name)
                mine = known["available"] if known and known["limit"] == seen["limit"] else seen["remaining"]
                dims[name] = {"limit": seen["limit"], "available": min(mine, seen["remaining"]), "rate": seen["rate"]}
            row.dimensions, row.as_of = dims, now

    def pause(self, seconds: float) -> None:
        """A 429's retry-after: no process calls before it has passed."""
        with self._locked() as (row, now):
            row.paused_until = max(row.paused_until, now + max(0.0, seconds))

    def snapshot(self) -> dict[str, Any]:
        """What the row says now: each dimension as it stands, the pause left, the calls waiting (for diagnosis)."""
        with self._locked() as (row, now):
            return {"dimensions": _refilled(row, now), "paused_for": max(0.0, row.paused_until - now),
                    "waiting": len(row.waiters or {})}

    # --- the row --------------------------------------------------------------------------------

    def _locked(self) -> _Locked:
        if not self._exists:
            self._ensure()
        return _Locked(self)

    def _ensure(self) -> None:
        try:
            with self.db.session() as session:
                if session.get(Row, self.key) is None:
                    session.add(Row(key=self.key, dimensions={}, waiters={}, as_of=self.db_clock(session),
                                    paused_until=0.0))
        except IntegrityError:  # another process made it first
            pass
        self._exists = True


class _Locked:
    """A transaction holding the budget row's write lock (an UPDATE takes it on SQLite and PostgreSQL alike)."""

    def __init__(self, budget: SharedModelBudget):
        self.budget = budget

    def __enter__(self) -> tuple[Row, float]:
        self._session = self.budget.db.session()
        session = self._session.__enter__()
        session.connection().execute(update(Row).where(col(Row.key) == self.budget.key).values(key=Row.key))
        row = session.get(Row, self.budget.key, populate_existing=True)
        now = self.budget.db_clock(session)  # after the lock: no holder before us wrote a later time
        if row is None:  # deleted meanwhile: start it again
            row = Row(key=self.budget.key, dimensions={}, waiters={}, as_of=now, paused_until=0.0)
            session.add(row)
        return row, now

    def __exit__(self, *exc: Any) -> bool | None:
        return self._session.__exit__(*exc)


def _refilled(row: Row, now: float) -> dict[str, dict[str, float]]:
    """The row's dimensions as they stand at `now` (each bucket refilled since `as_of`, up to its limit)."""
    elapsed = max(0.0, now - row.as_of)
    return {name: {**dim, "available": min(dim["limit"], dim["available"] + elapsed * dim["rate"])}
            for name, dim in (row.dimensions or {}).items()}
