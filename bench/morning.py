"""Item 5: a busy morning. Two hundred tickets are handed to the agent at once; every run works its ticket up
to the draft that waits for a lead (three model calls: read, search, draft) against a Messages API stand-in
answering in 500 ms, on PostgreSQL:

- embedded: one `kitebase serve`, which continues the queued runs at start-up on its pool of
  KITEBASE_RUN_WORKERS (64) threads;
- queue: the runs are jobs in procrastinate's queue, continued by 1, 2 or 4 `kitebase worker` processes with
  KITEBASE_WORKER_CONCURRENCY (8) runs each.

The ideal for a concurrency C is ceil(N / C) waves of one run's floor (its model calls × 500 ms; the tools
are the real ones, a few ms). Measured from the first model request to the last run waiting for its lead.
A run is starved if it finished later than 1.3 × the ideal morning, or never did.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
import time
from datetime import UTC
from pathlib import Path
from typing import Any

from sqlmodel import col, func, select

from bench.common import ROOT, Figure, cpu_seconds, pct, seeded
from bench.desk import FIRST_GENERATED, generate, load
from bench.doubles import BENCH_MODEL, offline_responder, stand_in
from bench.serve_load import Served
from bot.db.models import Run, Step
from bot.runs.execution.workqueue import QueueDispatcher, ensure_schema
from bot.runs.lifecycle.service import RunService
from standins.slack_server import SlackAPIServer

CLEAN = ("KITEBASE_", "SLACK_", "ANTHROPIC_", "DATABASE_URL")


class Arrivals:
    """The stand-in's responder, recording when each run's first request arrived (wall clock)."""

    def __init__(self) -> None:
        self.first: dict[str, float] = {}
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        goal = body["messages"][0]["content"]
        goal = goal if isinstance(goal, str) else goal[0].get("text", "")
        with self._lock:
            self.first.setdefault(goal, time.time())
        return offline_responder(body)


def prepare(url: str, runs: int, queue: bool) -> list[int]:
    """A seeded desk with `runs` generated tickets, and a queued run for each (jobs too, in queue mode)."""
    settings, db = seeded(url, model=BENCH_MODEL, execution="queue" if queue else "embedded")
    load(db, generate(tickets=runs, seed=11))
    service = RunService(db, settings)
    ids = [service.start(f"handle KITE-{FIRST_GENERATED + i}", origin={"surface": "bench"}) for i in range(runs)]
    if queue:
        ensure_schema(settings)
        dispatch = QueueDispatcher(settings)
        for run_id in ids:
            dispatch(run_id)
        dispatch.shutdown()
    db.engine.dispose()
    return ids


def worker_env(url: str, model_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(CLEAN)}
    return {**env, "DATABASE_URL": url, "KITEBASE_EXECUTION": "queue", "ANTHROPIC_API_KEY": "sk-ant-bench-0123456789",
            "ANTHROPIC_BASE_URL": model_url, "KITEBASE_MODEL": BENCH_MODEL, "PYTHONUNBUFFERED": "1"}


def finished(url: str, runs: int, timeout: float) -> bool:
    settings, db = seeded(url)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            with db.session() as session:
                live = session.exec(select(func.count()).select_from(Run).where(
                    col(Run.status).in_(("queued", "running")))).one()
            if live == 0:
                return True
            time.sleep(0.2)
        return False
    finally:
        db.engine.dispose()


def outcome(url: str, arrivals: Arrivals, latency: float, concurrency: int, label: str,
            complete: bool, cpu: float | None = None) -> Figure:
    """`cpu`: seconds of CPU the processes doing the runs used (serve, or the workers), for the explanation:
    one Python process runs Python on one core at a time, so a process cannot finish sooner than its CPU."""
    settings, db = seeded(url)
    with db.session() as session:
        rows = session.exec(select(Run.goal, Run.updated_at, Run.status).where(Run.goal.like("handle KITE-%"))).all()
        calls = dict(session.exec(select(Step.run_id, func.count()).where(Step.kind == "model")
                                  .group_by(Step.run_id)).all())
    db.engine.dispose()
    start = min(arrivals.first.values())
    done = {goal: (updated if updated.tzinfo else updated.replace(tzinfo=UTC)).timestamp() for goal, updated, _ in rows}
    floor = pct(list(calls.values()), 0.5) * latency
    ideal = math.ceil(len(rows) / concurrency) * floor
    total = max(done.values()) - start
    spans = [(done[g] - arrivals.first[g]) for g in done if g in arrivals.first]
    starved = sum(1 for g in done if done[g] - start > 1.3 * ideal) + (0 if complete else 1)
    waiting = sum(1 for _, _, status in rows if status == "awaiting_approval")
    ratio = total / ideal
    return Figure(5, f"busy morning, {len(rows)} runs, {label}", round(total, 2), "s", reference=round(ideal, 2),
                  reference_name=f"ideal: ceil(runs / {concurrency}) × one run's floor ({floor:.1f} s)",
                  target="≤ 1.3× ideal, no run starved", met=complete and ratio <= 1.3 and starved == 0,
                  detail={"concurrency": concurrency, "slowest_run_s": round(max(done.values()) - start, 2),
                          "run_span_p50_s": round(pct(spans, 0.5), 2), "run_span_max_s": round(max(spans), 2),
                          "starved": starved, "awaiting_approval": waiting, "model_latency_s": latency,
                          "harness_cpu_s": None if cpu is None else round(cpu, 1),
                          "harness_cpu_ms_per_model_call": None if cpu is None or not calls
                          else round(cpu * 1000 / sum(calls.values()), 1)})


def embedded(url: str, scratch: Path, runs: int, latency: float, workers: int = 64) -> Figure:
    prepare(url, runs, queue=False)
    arrivals = Arrivals()
    with Served(url, scratch, latency, responder=arrivals, KITEBASE_RUN_WORKERS=str(workers)) as served:
        before = cpu_seconds(served.process.pid)
        complete = finished(url, runs, timeout=60 + 10 * runs * latency / workers)
        after = cpu_seconds(served.process.pid)
    cpu = None if before is None or after is None else after - before
    return outcome(url, arrivals, latency, workers, f"embedded (`kitebase serve`, {workers} run threads)", complete,
                   cpu)


def queue(url: str, scratch: Path, runs: int, latency: float, processes: int, per_worker: int = 8) -> Figure:
    prepare(url, runs, queue=True)
    arrivals = Arrivals()
    with stand_in(arrivals, latency) as api, SlackAPIServer() as _slack:
        env = {**worker_env(url, api.url), "KITEBASE_WORKER_CONCURRENCY": str(per_worker)}
        logs = [(scratch / f"worker-{processes}-{i}.log").open("wb") for i in range(processes)]
        started = [subprocess.Popen([sys.executable, "-m", "bot.cli", "worker"], cwd=ROOT, env=env, stdout=log,
                                    stderr=subprocess.STDOUT) for log in logs]
        try:
            complete = finished(url, runs, timeout=60 + 10 * runs * latency / (processes * per_worker))
            used = [cpu_seconds(process.pid) for process in started]
        finally:
            for process in started:
                process.terminate()
            for process in started:
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
            for log in logs:
                log.close()
    cpu = None if None in used else sum(u for u in used if u is not None)  # start-up included
    return outcome(url, arrivals, latency, processes * per_worker,
                   f"queue, `kitebase worker` ×{processes} ({per_worker} runs each)", complete, cpu)
