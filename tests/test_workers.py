"""Several workers against one PostgreSQL: each run is continued by exactly one worker at a time, and a worker
killed mid-approval loses nothing: the run continues from the database on another worker. (Workers killed
mid-turn, in every order of the clean-ups: tests/reliability/test_worker_deaths.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import procrastinate
import pytest
from sqlmodel import col, select

from bot.db.models import NamedLock, Run, Step
from bot.pressure import answering
from bot.runs.execution.workqueue import QueueDispatcher, conninfo, ensure_schema
from bot.runs.lifecycle.service import RunService
from tests.helpers import approvals_of, assert_well_formed, staff_replies

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).parents[1]


@pytest.fixture
def db(postgres_db):
    return postgres_db[0]


@pytest.fixture
def pg_settings(postgres_db):
    settings = postgres_db[1].model_copy(update={"execution": "queue", "lease_seconds": 3.0,
                                                 "stalled_job_seconds": 2.0})
    ensure_schema(settings)
    return settings


def start_worker(settings, **env):
    """A `kitebase worker` process: the offline model unless `env` points it at a Messages API."""
    environment = {**os.environ, "DATABASE_URL": settings.database_url, "KITEBASE_EXECUTION": "queue",
                   "KITEBASE_LEASE_SECONDS": "3", "KITEBASE_STALLED_JOB_SECONDS": "2", "PYTHONUNBUFFERED": "1",
                   **({} if "ANTHROPIC_API_KEY" in env else {"KITEBASE_OFFLINE": "1"}), **env}
    for name in ("SLACK_BOT_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        if name not in env:
            environment.pop(name, None)
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "worker"], cwd=ROOT, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def stop(worker, sig=signal.SIGTERM):
    if worker.poll() is None:
        worker.send_signal(sig)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
    return worker.stdout.read() if worker.stdout else ""


def wait_until(predicate, timeout=90, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def db_runs(db):
    with db.session() as session:
        return list(session.exec(select(Run)).all())


def statuses(db):
    with db.session() as session:
        return {r.id: r.status for r in session.exec(select(Run)).all()}


def _jobs(settings) -> int:
    app = procrastinate.App(connector=procrastinate.SyncPsycopgConnector(conninfo=conninfo(settings.database_url)))
    with app.open():
        return app.connector.execute_query_one("SELECT count(*) AS n FROM procrastinate_jobs")["n"]


def test_runs_dispatched_while_slack_waits_are_deferred_after_the_answer(db, pg_settings):
    """Web replicas: a burst of mentions does not wait for fifty defers; they are written once it is answered."""
    service = RunService(db, pg_settings, owner="test-web")
    run_ids = [service.start(f"handle KITE-{101 + i}") for i in range(3)]
    before = _jobs(pg_settings)
    dispatcher = QueueDispatcher(pg_settings)
    try:
        dispatcher.start_threads()
        with answering():
            futures = [dispatcher(run_id) for run_id in run_ids]
            time.sleep(0.3)
            assert _jobs(pg_settings) == before and not any(f.done() for f in futures)
        dispatcher.drain(timeout=30)
        assert _jobs(pg_settings) == before + 3 and all(isinstance(f.result(), int) for f in futures)
    finally:
        dispatcher.shutdown()


def test_two_workers_fifty_runs_each_executed_once(db, pg_settings):
    settings = pg_settings.model_copy(update={"approval_tools": frozenset()})
    service = RunService(db, settings, owner="test-web")
    tickets = [t["id"] for t in json.loads((settings.data_dir / "tickets.json").read_text())][:50]
    run_ids = [service.start(f"handle {t}") for t in tickets]
    dispatcher = QueueDispatcher(settings)
    for run_id in run_ids:
        dispatcher(run_id)
        dispatcher(run_id)  # a duplicate dispatch is absorbed by the queueing lock
    dispatcher.shutdown()
    workers = [start_worker(settings, KITEBASE_APPROVAL_TOOLS="") for _ in range(2)]
    try:
        wait_until(lambda: all(s == "completed" for s in statuses(db).values()), what="all 50 runs to complete")
    finally:
        logs = [stop(w) for w in workers]
    with db.session() as session:
        steps = session.exec(select(Step).where(col(Step.kind) == "model")).all()
    by_run: dict[int, list[Step]] = {}
    for step in steps:
        by_run.setdefault(step.run_id, []).append(step)
    assert set(by_run) == set(run_ids)
    runs = {r.id: r for r in (db_runs(db))}
    for run_id, run_steps in by_run.items():
        turns = sorted(s.turn for s in run_steps)
        assert turns == list(range(1, runs[run_id].steps + 1)), f"run {run_id}: turns {turns}, executed twice?"
        assert len({s.worker for s in run_steps}) == 1, f"run {run_id} was continued by two workers"
    assert len({s.worker for s in steps}) == 2, f"both workers should have worked: {logs}"
    for ticket in tickets:
        assert len(staff_replies(db, ticket)) == 1, f"{ticket} got {len(staff_replies(db, ticket))} replies"


def test_sigkill_mid_approval_then_decision_after_restart(db, pg_settings):
    service = RunService(db, pg_settings, owner="test-web")
    run_id = service.start("handle KITE-142")
    dispatcher = QueueDispatcher(pg_settings)
    dispatcher(run_id)
    first = start_worker(pg_settings)
    wait_until(lambda: statuses(db)[run_id] == "awaiting_approval", what="the draft to wait for approval")
    stop(first, signal.SIGKILL)
    [approval] = approvals_of(db, run_id)
    assert service.decide(approval.id, action="approve", actor="lead").outcome == "approved"
    dispatcher(run_id)
    second = start_worker(pg_settings)
    try:
        wait_until(lambda: statuses(db)[run_id] == "completed", what="the approved run to finish")
    finally:
        stop(second)
        dispatcher.shutdown()
    with db.session() as session:
        run = session.get(Run, run_id)
    assert_well_formed(run.messages)
    assert len(staff_replies(db, "KITE-142")) == 1


def test_workers_deliver_slack_one_at_a_time_and_another_takes_over(db, pg_settings):
    """Queue mode: the web side only records; the workers continue runs and deliver the outbox, one sender at a
    time. The delivering worker is killed; the other takes over and nothing is posted twice."""
    from standins.slack_harness import BOT_TOKEN, start_harness
    from standins.slack_server import SlackAPIServer

    slack = SlackAPIServer().start()
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_API_BASE_URL": slack.url + "/api/", "KITEBASE_SLACK_MIN_INTERVAL": "0.02",
           "KITEBASE_SLACK_RATE_SCALE": "100", "KITEBASE_ESCALATION_CHANNEL": "CQUEUE"}
    h, stop_web = start_harness(pg_settings, db, slack=slack)
    workers = [start_worker(pg_settings, **env) for _ in range(2)]
    try:
        ts, (status, _) = h.send.mention("handle KITE-142")
        assert status == 200
        card = slack.wait_for("chat.postMessage", timeout=60, predicate=lambda a: "approve_reply" in json.dumps(a["blocks"]))[0]
        with db.session() as session:
            leader = session.exec(select(NamedLock).where(NamedLock.name == "outbox-sender")).one().owner
        doomed = next(w for w in workers if f":{w.pid}/" in leader)
        stop(doomed, signal.SIGKILL)
        value = next(b["elements"][0]["value"] for b in card["blocks"] if b["type"] == "actions")
        h.send.click("approve_reply", value)
        slack.wait_for("chat.postMessage", timeout=90, predicate=lambda a: "KITE-144" in (a.get("text") or ""))
        wait_until(lambda: statuses(db)[1] == "completed", what="the approved run to finish")
        wait_until(h.sender.idle, timeout=60, what="the outbox to be delivered by the surviving worker")
    finally:
        for worker in workers:
            stop(worker)
        stop_web()
        slack.stop()
    shown = [m for m in slack.thread("CSUPPORT", ts)]
    assert sum("approve_reply" in json.dumps(m.get("blocks") or []) for m in shown) == 0, "the card shows the decision"
    assert sum("KITE-144" in (m.get("text") or "") for m in shown) == 1, "the answer once"
    assert sum(1 for m in shown if (m.get("blocks") or [{}])[0].get("type") == "header") == 1, "the card once"
    assert len(staff_replies(db, "KITE-142")) == 1


def test_a_second_job_for_a_run_under_way_never_continues_it_twice(db, pg_settings, tmp_path):
    """Jobs carry no procrastinate lock (the run's lease guards it), and a lease is held per process: a second
    wake-up for a run this very worker is continuing (a sweep's, a retried event's) must not start a second
    continuation in another of its threads. It makes the one under way look once more instead."""
    from standins.anthropic_server import MessagesAPIServer
    from standins.brains import offline_brain
    from standins.worker_process import WorkerProcess

    settings = pg_settings.model_copy(update={"approval_tools": frozenset()})
    calls: list[int] = []

    def slow(body):
        calls.append(len(body["messages"]))
        time.sleep(1.5)
        return offline_brain(body)

    with MessagesAPIServer(slow) as api:
        service = RunService(db, settings, owner="test-web")
        run_id = service.start("handle KITE-142, and tell me if other customers have hit the same problem")
        dispatcher = QueueDispatcher(settings)
        worker = WorkerProcess(settings.database_url, tmp_path / "worker.log", model_url=api.url,
                               KITEBASE_APPROVAL_TOOLS="", KITEBASE_MODEL_MAX_RETRIES="0").start()
        try:
            dispatcher(run_id)
            wait_until(lambda: len(calls) >= 1, what="the first model call")
            for _ in range(3):  # wake-ups while the run is under way: each a new job (none waits in the queue)
                dispatcher(run_id)
                dispatcher.drain(timeout=10)
                time.sleep(0.6)
            wait_until(lambda: statuses(db)[run_id] == "completed", what="the run to complete")
            time.sleep(1)
        finally:
            worker.stop()
            dispatcher.shutdown()
    with db.session() as session:
        run = session.get(Run, run_id)
        numbers = sorted(s.number for s in session.exec(select(Step).where(Step.run_id == run_id)).all())
    assert numbers == list(range(1, len(numbers) + 1)), f"steps {numbers}"
    assert_well_formed(run.messages)
    assert calls == sorted(calls) and len(calls) == len(set(calls)), f"each turn asked the model once: {calls}"
    assert len(staff_replies(db, "KITE-142")) == 1
    assert "Traceback" not in worker.output(), worker.output()[-3000:]
