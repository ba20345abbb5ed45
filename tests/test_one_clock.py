"""One clock (DESIGN.md convention 16, issue 31): what one process writes and another judges (leases, heartbeats,
named locks, outbox rows, drafts, the model budget) is judged by the database's time, so a process whose own
clock is 20 minutes off neither holds a correct one back nor takes it for dead. The process's clock is moved
here in-process (`process_clock`); tests/reliability/test_one_clock_processes.py runs real processes under
faketime. On SQLite the database's time is the host's, which every process sharing the file shares."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.utils import formatdate

import pytest
from sqlmodel import select

from bot import outbox
from bot.agent.budget import SharedModelBudget
from bot.db import models
from bot.db.models import Outbox
from bot.outbox.sender import OutboxSender
from bot.runs.execution import processes
from bot.runs.execution.timers import build_scheduler
from bot.runs.lifecycle.checkpoint import claim, take_lease
from bot.runs.lifecycle.service import RunService
from bot.slack.client import make_client
from standins.slack_harness import harness_settings
from standins.slack_server import SlackAPIServer
from tests.helpers import approvals_of, escalations_of, run_row

OFF = timedelta(minutes=20)


@contextmanager
def process_clock(off: timedelta) -> Iterator[None]:
    """This process's clock `off` from the true time: what `utcnow()` (bot/db/models.py) says while inside."""
    real = models.datetime

    class Off(real):  # type: ignore[valid-type,misc]
        @classmethod
        def now(cls, tz=None):  # type: ignore[no-untyped-def]
            return real.now(tz) + off

    models.datetime = Off  # type: ignore[misc]
    try:
        yield
    finally:
        models.datetime = real  # type: ignore[misc]


def test_the_process_clock_helper_moves_utcnow():
    with process_clock(OFF):
        assert models.utcnow() - datetime.now(UTC) > OFF - timedelta(seconds=5)
    assert abs(models.utcnow() - datetime.now(UTC)) < timedelta(seconds=5)


@pytest.mark.parametrize("holder, taker", [(timedelta(0), OFF), (-OFF, timedelta(0))],
                         ids=["a fast process takes", "a slow process held"])
def test_a_live_lease_is_not_taken_whatever_the_clocks(db, settings, holder, taker):
    run_id = RunService(db, settings).start("handle KITE-142")
    with process_clock(holder):
        assert claim(db, run_id, "holder-host:1", 120) is not None
    with process_clock(taker):
        assert not take_lease(db, run_id, "taker-host:2", 120), "the lease has two minutes to run"
    assert run_row(db, run_id).lease_owner == "holder-host:1"


@pytest.mark.parametrize("holder, taker", [(timedelta(0), OFF), (-OFF, timedelta(0))],
                         ids=["a fast process takes", "a slow process held"])
def test_a_named_lock_held_is_not_taken_whatever_the_clocks(db, holder, taker):
    with process_clock(holder):
        assert processes.hold(db, "outbox-sender", "holder", 10, 15)
    with process_clock(taker):
        assert not processes.hold(db, "outbox-sender", "taker", 10, 15), "the holder has ten seconds left"


@pytest.mark.parametrize("worker, sweeper", [(timedelta(0), OFF), (-OFF, timedelta(0))],
                         ids=["a fast process sweeps", "a slow process works"])
def test_a_healthy_worker_is_not_taken_for_dead_nor_its_run_for_stuck(db, settings, worker, sweeper):
    """A host 20 minutes fast saw every other host's heartbeat as 20 minutes old: it freed their leases,
    continued their runs a second time and escalated them as stuck (no progress for 20 minutes)."""
    service = RunService(db, settings)
    run_id = service.start("handle KITE-142")
    with process_clock(worker):
        liveness = processes.Liveness(db, "worker-host:1", "worker").start()
        assert claim(db, run_id, "worker-host:1", settings.lease_seconds) is not None
    dispatched: list[int] = []
    try:
        with process_clock(sweeper):
            build_scheduler(settings, service, dispatched.append).get_job("recover-runs").func()
    finally:
        liveness.stop()
    run = run_row(db, run_id)
    assert dispatched == [], "its run was continued a second time"
    assert run.status == "running" and run.lease_owner == "worker-host:1"
    assert escalations_of(db, run_id) == []


def test_a_draft_written_by_a_slow_process_is_not_reminded_early(db, settings):
    """Drafts remind and expire by their `created_at`: the database's time, not the drafting process's."""
    settings = settings.model_copy(update={"approval_remind_after_seconds": 600.0})
    with process_clock(-OFF):
        service = RunService(db, settings, owner="slow-host:1")
        run_id = service.start("handle KITE-142", origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
        assert service.resume(run_id).status == "awaiting_approval"
    scheduler = build_scheduler(settings, RunService(db, settings), lambda run_id: None)
    scheduler.get_job("remind-approvals").func()
    scheduler.get_job("expire-approvals").func()
    [approval] = approvals_of(db, run_id)
    assert approval.status == "pending" and approval.reminded_at is None, "it has waited seconds, not 20 minutes"


def test_a_row_written_by_a_fast_process_is_sent_at_once(db, settings):
    """The sender sends what is due by the database's clock: a row a fast process wrote is not held back for
    20 minutes, and one a correct process wrote is not sent early by a fast sender."""
    slack = SlackAPIServer().start()
    try:
        with process_clock(OFF), db.session() as session:
            outbox.notice(session, channel="CSUPPORT", thread_ts=None, text="written by a fast host")
        sender = OutboxSender(db, harness_settings(settings, slack), make_client(harness_settings(settings, slack)))
        sender.tick()  # one look at the outbox, as its loop makes them
        sender.stop()  # waits for what that look started
        assert [c["text"] for c in slack.calls_to("chat.postMessage")] == ["written by a fast host"]
        with db.session() as session:
            [row] = session.exec(select(Outbox)).all()
        assert row.status == "sent"
    finally:
        slack.stop()


# --- the model budget ------------------------------------------------------------------------------------------

def headers(date: float, *, limit: int, remaining: int, seconds_to_full: float) -> dict[str, str]:
    """An answer's rate-limit headers and its Date, by the API's clock (`date`, whole seconds as HTTP sends)."""
    reset = datetime.fromtimestamp(date + seconds_to_full, UTC).isoformat(timespec="milliseconds")
    return {"date": formatdate(date, usegmt=True), "anthropic-ratelimit-requests-limit": str(limit),
            "anthropic-ratelimit-requests-remaining": str(remaining),
            "anthropic-ratelimit-requests-reset": reset.replace("+00:00", "Z")}


class DatabaseClock:
    """The database's clock as the budget reads it, held still and moved by the test: what a row says is
    judged by it, whatever the process clocks do, and no assertion races the machine's speed."""

    def __init__(self) -> None:
        self.t = float(int(time.time()))

    def __call__(self, session: object) -> float:
        return self.t


def test_a_fast_hosts_429_pauses_a_correct_host_for_the_retry_after_not_twenty_minutes(db):
    database = DatabaseClock()
    fast = SharedModelBudget(db, "org-clock", clock=lambda: time.time() + OFF.total_seconds(), db_clock=database)
    correct = SharedModelBudget(db, "org-clock", db_clock=database)
    fast.pause(1.0)
    assert correct.reserve(input_tokens=1, output_tokens=1) == pytest.approx(1.0)  # was 1,201 s: escalated
    database.t += 1.0
    assert correct.reserve(input_tokens=1, output_tokens=1) == 0


def test_what_a_fast_host_wrote_refills_for_a_correct_one(db):
    """The bucket refills from the row's `as_of`: written by a fast host, it stood still for 20 minutes."""
    database = DatabaseClock()
    api_now = database.t
    fast = SharedModelBudget(db, "org-refill", clock=lambda: api_now + 0.5 + OFF.total_seconds(),
                             db_clock=database)
    fast.observe(headers(api_now, limit=6000, remaining=0, seconds_to_full=60.0))  # empty; 100 a second
    correct = SharedModelBudget(db, "org-refill", db_clock=database)
    assert correct.reserve(input_tokens=1, output_tokens=1) == pytest.approx(0.01)  # one request: 10 ms away
    database.t += 0.05  # five requests' worth come back
    assert correct.reserve(input_tokens=1, output_tokens=1) == 0


def test_reset_times_are_read_by_the_apis_clock_not_ours(db):
    """A reset time 6 s ahead of the API's Date means 6 s to a full bucket, however far off our clock is."""
    api_now = 1_900_000_000.0
    slow = SharedModelBudget(db, "org-reset", clock=lambda: api_now + 0.5 - OFF.total_seconds())
    slow.observe(headers(api_now, limit=60, remaining=0, seconds_to_full=6.5))  # a fast stand-in's minute
    rate = slow.snapshot()["dimensions"]["requests"]["rate"]
    assert rate == pytest.approx(10.0), "60 requests in 6 s (the answer came half a second into its Date)"


def test_waiters_of_a_fast_host_do_not_block_the_queue_for_twenty_minutes(db):
    """A waiter leaves the queue when it stops asking for 15 s, by the database's clock: one written by a fast
    host that died looked alive to every other host for 20 minutes."""
    api_now = float(int(time.time()))
    fast = SharedModelBudget(db, "org-queue", clock=lambda: api_now + 0.5 + OFF.total_seconds())
    fast.observe(headers(api_now, limit=60, remaining=0, seconds_to_full=60.0))
    assert fast.reserve(input_tokens=1, output_tokens=1, waiter="fast-waiter") > 0  # then its process dies
    with db.session() as session:  # its last ask was 16 s ago, by the database's clock
        row = session.get(models.ModelBudget, "org-queue")
        row.waiters = {w: [first - 16, last - 16] for w, (first, last) in row.waiters.items()}
        row.as_of -= 16
        session.add(row)
    correct = SharedModelBudget(db, "org-queue")
    assert correct.reserve(input_tokens=1, output_tokens=1, waiter="correct-waiter") == 0
