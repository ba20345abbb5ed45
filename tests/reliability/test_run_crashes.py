"""`kitebase run` SIGKILLed at random points across many runs, then everything continued: no reply reaches a
customer twice, and every request sent to the model afterwards is well formed. Also the database going away
mid-run (PostgreSQL restarted)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlmodel import select

from bot.db.models import Approval, Run, utcnow
from bot.runs.execution.sweeps import NEVER_DISPATCHED_AFTER, sweep_all
from bot.runs.lifecycle.service import RunService
from standins.anthropic_server import MessagesAPIServer, validate_request
from standins.brains import offline_brain, strip_cache_control
from tests.helpers import assert_well_formed, staff_replies
from tests.test_anthropic_client import client_for

ROOT = Path(__file__).parents[2]


def brain(latency: float):  # type: ignore[no-untyped-def]
    def respond(body):  # type: ignore[no-untyped-def]
        time.sleep(latency)
        return offline_brain(body)
    return respond


def kitebase_run(database_url: str, model_url: str, goal: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_"))}
    env.update({"DATABASE_URL": database_url, "ANTHROPIC_API_KEY": "sk-ant-test-0123456789",
                "ANTHROPIC_BASE_URL": model_url, "KITEBASE_MODEL": "claude-opus-5", "KITEBASE_MODEL_MAX_RETRIES": "0"})
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "run", goal, "--approve", "auto", "--json"], cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_count(db) -> int:
    with db.session() as session:
        return len(session.exec(select(Run.id)).all())


def finish_everything(db, settings, server) -> None:
    """What serve's timers would do: take over the dead processes' runs, decide what waits, until all end.
    A run killed just after its draft was decided is continued only once the decision is NEVER_DISPATCHED_AFTER
    old (the process that decided may still be dispatching it), so this keeps sweeping for longer than that."""
    service = RunService(db, settings, model_factory=lambda: client_for(server, max_retries=0))
    deadline = time.monotonic() + NEVER_DISPATCHED_AFTER.total_seconds() + 20
    while True:
        sweep_all(service, utcnow(), lambda run_id: service.resume(run_id))
        with db.session() as session:
            waiting = session.exec(select(Approval).join(Run, Run.id == Approval.run_id).where(
                Approval.status == "pending", Run.status == "awaiting_approval")).all()
        for approval in waiting:
            service.decide(approval.id, action="approve", actor="lead")
            service.resume(approval.run_id)
        with db.session() as session:
            live = session.exec(select(Run).where(Run.status.in_(("queued", "running", "awaiting_approval")))).all()
        if not live:
            return
        if time.monotonic() > deadline:
            break
        time.sleep(0.5)
    raise AssertionError(f"runs still live: {[(r.id, r.status, r.lease_owner) for r in live]}")


@pytest.mark.parametrize("runs", [pytest.param(10, id="10-runs"), pytest.param(30, id="30-runs", marks=pytest.mark.slow)])
def test_kill_runs_at_random_points_then_continue_them(db, settings, runs):
    rng = random.Random(42)
    killed_mid_run = 0
    with MessagesAPIServer(brain(0.05)) as server:
        for i in range(runs):
            process = kitebase_run(settings.database_url, server.url, f"handle KITE-{101 + i}")
            deadline = time.monotonic() + 30
            while run_count(db) < i + 1 and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 1.0))  # a model call, a tool, the approval, the reply, a checkpoint...
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                killed_mid_run += 1
            process.wait(timeout=30)
        finish_everything(db, settings, server)
        bodies = [strip_cache_control(b) for b in server.message_requests]
    with db.session() as session:
        ended = session.exec(select(Run)).all()
    assert len(ended) == runs and killed_mid_run >= runs // 2, (len(ended), killed_mid_run)
    for run in ended:
        assert run.status == "completed", (run.id, run.status, run.reason)
        assert len(staff_replies(db, run.ticket_id)) == 1, f"{run.ticket_id} got a reply once"
        assert_well_formed(run.messages)
    for body in bodies:  # the stand-in refuses malformed requests with a 400; check each one independently too
        validate_request(body)
        assert_well_formed(body["messages"][:-1] + ([body["messages"][-1]] if body["messages"][-1]["role"] == "user"
                                                    else []))


@pytest.mark.postgres
@pytest.mark.restarts_postgres
def test_postgresql_restarted_mid_run_the_run_goes_on(postgres_db):
    if shutil.which("pg_ctlcluster") is None or os.geteuid() != 0:
        pytest.fail("this test restarts the local PostgreSQL with pg_ctlcluster, as root (CI runs it so)")
    db, settings = postgres_db
    version = sorted(os.listdir("/etc/postgresql"))[-1]
    restarted = []

    def slow_then_restart(body):  # type: ignore[no-untyped-def]
        if len(body["messages"]) == 3 and not restarted:  # the run is between turns: the database goes away
            subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"], check=True,
                           capture_output=True, timeout=60)
            restarted.append(True)
        return offline_brain(body)

    with MessagesAPIServer(slow_then_restart) as server:
        service = RunService(db, settings, model_factory=lambda: client_for(server, max_retries=0))
        run_id = service.start("handle KITE-142")
        state = service.resume(run_id)
        deadline = time.monotonic() + 60
        while (state is None or state.status in ("running", "failed")) and time.monotonic() < deadline:
            time.sleep(1)
            with db.session() as session:
                run = session.get(Run, run_id)
            if run.status == "failed":
                service.reopen(run_id, actor="lead")
            state = service.resume(run_id)
    assert restarted, "PostgreSQL was restarted mid-run"
    assert state is not None and state.status == "awaiting_approval", (state and state.status, state and state.reason)
    with db.session() as session:
        run = session.get(Run, run_id)
    assert_well_formed(run.messages[:-1])  # the last message holds the draft waiting for its decision
