"""One clock across processes (issue 31, DESIGN.md convention 16): a `kitebase worker` whose clock is 20 minutes
ahead (clock_ahead/sitecustomize.py; faketime cannot run a threaded Python, see there) beside a correct one, on one PostgreSQL, both sharing the organization's
model budget against the Messages API stand-in (which limits requests as the API does). Before, the fast worker
took the correct one for dead (its heartbeats looked 20 minutes old), freed its leases and escalated its runs as
stuck, and its budget writes made the correct one's runs wait 20 minutes for capacity (a 429's pause of 1 s
became 1,201 s) and escalate. Now every time they compare is the database's: no run waits longer than the
limit allows, none escalates, and no healthy worker is taken for dead."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlmodel import select

from bot.db.models import Escalation, Run, Step
from bot.runs.execution.workqueue import QueueDispatcher, ensure_schema
from bot.runs.lifecycle.service import RunService
from standins.anthropic_server import MessagesAPIServer, RateLimits
from standins.brains import offline_brain
from standins.worker_process import WorkerProcess

pytestmark = pytest.mark.postgres
AHEAD = 20 * 60
AHEAD_HOOK = Path(__file__).parent / "clock_ahead"
RUNS = 8


def clock_ahead_env(seconds: int) -> dict[str, str]:
    """The environment that starts a Python process with its wall clock `seconds` ahead (clock_ahead/: why not
    faketime). Checked before it is relied on: time.time() and datetime.now() are ahead, and still move."""
    env = {"PYTHONPATH": str(AHEAD_HOOK), "CLOCK_AHEAD_SECONDS": str(seconds)}
    probe = subprocess.run([sys.executable, "-c", "import datetime, time; a = time.time(); time.sleep(0.2); "
                            "print(a, time.time(), datetime.datetime.now(datetime.UTC).timestamp())"],
                           capture_output=True, text=True, timeout=60, env={**os.environ, **env})
    before, after, now = map(float, probe.stdout.split())
    assert before - time.time() > seconds - 60 and now - time.time() > seconds - 60 and after - before >= 0.2, \
        (probe.stdout, probe.stderr)
    return env


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_worker_twenty_minutes_ahead_beside_a_correct_one(postgres_db, tmp_path):
    db, settings = postgres_db
    settings = settings.model_copy(update={"execution": "queue", "approval_tools": frozenset()})
    ensure_schema(settings)
    ahead = clock_ahead_env(AHEAD)
    env = {"KITEBASE_APPROVAL_TOOLS": "", "KITEBASE_WORKER_CONCURRENCY": "2",
           "KITEBASE_CAPACITY_WAIT_SECONDS": "120"}  # what a run may wait for capacity before it escalates
    tickets = [t["id"] for t in json.loads((settings.data_dir / "tickets.json").read_text())][:RUNS]
    # One request a second, six at once: the runs' ~25 calls wait their turns for about 20 s.
    with MessagesAPIServer(offline_brain, limits=RateLimits(requests_per_minute=6, minute_seconds=6.0)) as api:
        correct = WorkerProcess(settings.database_url, tmp_path / "correct.log", model_url=api.url, **env).start()
        fast = WorkerProcess(settings.database_url, tmp_path / "fast.log", model_url=api.url, **env, **ahead).start()
        dispatcher = QueueDispatcher(settings)

        def finished() -> bool:
            with db.session() as session:
                return all(r.status in ("completed", "escalated", "failed") for r in session.exec(select(Run)).all())

        try:
            service = RunService(db, settings, owner="test-web")
            run_ids = [service.start(f"handle {ticket}") for ticket in tickets]
            for run_id in run_ids:
                dispatcher(run_id)
            dispatcher.drain(timeout=30)
            wait_until(finished, timeout=300, what="every run to finish")
        finally:
            dispatcher.shutdown()
            fast.stop()
            correct.stop()
        answered = api.answered
    logs = {"correct": correct.output(), "fast": fast.output()}
    with db.session() as session:
        runs = session.exec(select(Run)).all()
        escalations = session.exec(select(Escalation)).all()
        steps = session.exec(select(Step).where(Step.kind == "model")).all()
    assert [r.status for r in runs] == ["completed"] * RUNS, [(r.id, r.status, r.reason) for r in runs]
    assert escalations == [], "no run waited past KITEBASE_CAPACITY_WAIT_SECONDS or looked stuck"
    workers = {name: next(iter(re.findall(r"Kitebase worker (\S+) waiting", log)), None) for name, log in logs.items()}
    for name, log in logs.items():
        told = re.findall(r"dead owners: ([^)]*)\)", log)
        assert all(found == "none" for found in told), f"the {name} worker took another for dead: {told}"
        assert "presumed dead" not in log and "Traceback" not in log, log[-3000:]
    by_run: dict[int, set[str | None]] = {}
    for step in steps:
        by_run.setdefault(step.run_id, set()).add(step.worker)
    assert all(len(owners) == 1 for owners in by_run.values()), f"a run continued by two workers: {by_run}"
    assert {owner for owners in by_run.values() for owner in owners} == set(workers.values()), \
        "both workers ran runs (and so shared the budget)"
    assert answered >= len(steps)
