"""Benchmarks, one command: `.venv/bin/python bench/run.py`. Prints medians and p95s; asserts nothing.

- harness overhead per turn: the KITE-142 run with the offline model (zero model latency), so every
  millisecond is ours: history checks, tools, the database, the step log;
- search: search_tickets / search_help latency on the desk;
- Slack ack: signed app_mention POST → HTTP 200 from the real Bolt app (waitress), runs continuing behind it.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlmodel import select  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.db.engine import Database, create_schema  # noqa: E402
from bot.db.models import Approval  # noqa: E402
from bot.db.seed import seed_desk  # noqa: E402
from bot.runs.service import RunService  # noqa: E402
from tools import REGISTRY, ToolContext, execute  # noqa: E402


def fresh(scratch: str, name: str) -> tuple[Settings, Database]:
    settings = Settings(database_url=f"sqlite:///{scratch}/{name}.db")
    db = Database.from_url(settings.database_url)
    create_schema(db.engine)
    seed_desk(db, settings.data_dir)
    return settings, db


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def harness_overhead(scratch: str, runs: int = 20) -> None:
    settings, db = fresh(scratch, "overhead")
    service = RunService(db, settings)
    per_turn = []
    for i in range(runs):
        started = time.perf_counter()
        run_id = service.start(f"handle KITE-{101 + i}")
        state = service.resume(run_id)
        with db.session() as session:
            approval = session.exec(select(Approval).where(Approval.run_id == run_id)).first()
        service.decide(approval.id, action="approve", actor="bench")
        state = service.resume(run_id)
        per_turn.append((time.perf_counter() - started) * 1000 / state.steps)
    print(f"harness overhead per turn (offline model, SQLite): median {statistics.median(per_turn):.1f} ms, "
          f"p95 {pct(per_turn, 0.95):.1f} ms over {runs} runs")


def search(scratch: str, n: int = 200) -> None:
    settings, db = fresh(scratch, "search")
    ctx = ToolContext(db=db, settings=settings)
    for tool, query in (("search_tickets", "sso locked out okta login"), ("search_help", "export csv timeout")):
        times = []
        for _ in range(n):
            started = time.perf_counter()
            execute(REGISTRY, ctx, tool, {"query": query})
            times.append((time.perf_counter() - started) * 1000)
        print(f"{tool}: median {statistics.median(times):.2f} ms, p95 {pct(times, 0.95):.2f} ms ({n} calls)")


def slack_ack(scratch: str, n: int = 40) -> None:
    from tests.slack_harness import start_harness

    settings, db = fresh(scratch, "slack")
    harness, stop = start_harness(settings, db)
    tickets = [f"KITE-{101 + i}" for i in range(n)]
    times = []
    try:
        for ticket in tickets:
            started = time.perf_counter()
            _, (status, _) = harness.send.mention(f"handle {ticket}")
            times.append((time.perf_counter() - started) * 1000)
            assert status == 200
        harness.drain(60)
    finally:
        stop()
    print(f"Slack ack (signed app_mention → 200): median {statistics.median(times):.1f} ms, "
          f"p95 {pct(times, 0.95):.1f} ms, max {max(times):.1f} ms over {n} mentions (Slack allows 3,000 ms)")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        harness_overhead(scratch)
        search(scratch)
        slack_ack(scratch)
