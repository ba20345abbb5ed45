"""Items 4 and 8: `kitebase serve` as its own process under signed Slack traffic (bench/busy_channel.py's set-up:
a Slack Web API stand-in that enforces about one post a second per channel, the Messages API stand-in, the
load generator in a process of its own).

Item 4: fifty mentions at once, each from its own client, each starting a run (the model answers in 300
ms): acknowledgement p50/p99, while the runs they start are in flight. Reference: the acknowledgement of
single mentions sent one after another to the same server before the burst.

Item 8: a hundred mentions at once with a model slow enough (2 s) that all hundred runs are in flight
together (KITEBASE_RUN_WORKERS=100, so every one of them is executing, not queued): the process's resident
memory at its highest while they are, against the same process idle after start-up.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine

from bench.busy_channel import SECRET, free_port, serve_env, start_serve, statuses, workers_ready
from bench.common import ROOT, Figure, pct
from bench.doubles import offline_responder, stand_in
from standins.slack_server import SlackAPIServer


class Served:
    """`kitebase serve` in HTTP mode with its stand-ins; a context manager."""

    def __init__(self, database_url: str, scratch: Path, model_latency: float,
                 responder: Callable[[dict[str, Any]], Any] = offline_responder, workers: int = 0, **env: str):
        self.database_url, self.scratch, self.model_latency, self.extra = database_url, scratch, model_latency, env
        self.responder, self.workers = responder, workers
        if workers:  # the queue shape (PostgreSQL): serve records and acknowledges, workers run
            self.extra["KITEBASE_EXECUTION"] = "queue"

    def __enter__(self) -> Served:
        self.slack = SlackAPIServer().start()
        self.slack.limit_posts(1.0, burst=3)
        self.model = stand_in(self.responder, self.model_latency).start()
        self.port = free_port()
        env = serve_env(self.database_url, self.slack, self.model, self.port, **self.extra)
        log = self.scratch / f"serve-{self.port}.log"
        self.process = start_serve(env, self.port, log)
        self.crew = [subprocess.Popen([sys.executable, "-m", "bot.cli", "worker"], cwd=ROOT, env=env,
                                      stdout=log.open("ab"), stderr=subprocess.STDOUT) for _ in range(self.workers)]
        workers_ready(log, self.crew)
        self.engine = create_engine(self.database_url)
        return self

    def __exit__(self, *exc: object) -> None:
        for worker in self.crew:
            worker.terminate()
        for worker in self.crew:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.engine.dispose()
        self.model.stop()
        self.slack.stop()

    def mentions(self, count: int, first: int, *, channels: int = 1, sequential: bool = False) -> list[float]:
        """Acknowledgement latencies (ms) of `count` signed mentions, sent by the load generator."""
        command = [sys.executable, "-m", "bench.slack_load", f"http://127.0.0.1:{self.port}/slack/events", SECRET,
                   "--mentions", str(count), "--channels", str(channels), "--first", str(first)]
        fired = json.loads(subprocess.run(command + (["--sequential"] if sequential else []), cwd=ROOT,
                                          capture_output=True, text=True, check=True).stdout)
        if any(status != 200 for status in fired["status"]):
            raise RuntimeError(f"some mentions were not acknowledged: {fired['status']}")
        return fired["ack_ms"]

    def live(self) -> int:
        counts = statuses(self.engine)
        return counts.get("queued", 0) + counts.get("running", 0)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def until(self, done: Any, timeout: float, every: float = 0.05) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if done():
                return True
            time.sleep(every)
        return False


def acknowledgements(database_url: str, scratch: Path, burst: int = 50, singles: int = 5,
                     model_latency: float = 0.3, workers: int = 0) -> Figure:
    with Served(database_url, scratch, model_latency, workers=workers) as served:
        idle = served.mentions(singles, first=217 - singles + 1, sequential=True)
        served.until(lambda: served.live() == 0, 60)
        acks = served.mentions(burst, first=101)
        in_flight = served.live()
        served.until(lambda: served.live() == 0, 120)
    p99 = pct(acks, 0.99)
    shape = f", queue: serve + {workers} workers (PostgreSQL)" if workers else ""
    return Figure(4, f"Slack acknowledgement p99, {burst} clients at once, runs in flight{shape}", round(p99, 1), "ms",
                  reference=round(pct(idle, 0.5), 1), reference_name="one mention at a time to the same server, "
                  "p50 ms", target="p99 ≤ 100 ms", met=p99 <= 100,
                  detail={"p50_ms": round(pct(acks, 0.5), 1), "max_ms": round(max(acks), 1),
                          "runs_live_right_after_the_burst": in_flight, "model_latency_s": model_latency,
                          "idle_max_ms": round(max(idle), 1)})


def memory(database_url: str, scratch: Path, runs: int = 100, model_latency: float = 2.0) -> Figure:
    with Served(database_url, scratch, model_latency, KITEBASE_RUN_WORKERS=str(runs)) as served:
        time.sleep(1.0)
        idle = served.rss_mb()
        acks = served.mentions(runs, first=101, channels=10)
        peak, samples, all_live = idle, 0, False
        deadline = time.monotonic() + 60 + 6 * model_latency
        while time.monotonic() < deadline and (not all_live or served.live() > 0):
            live = served.live()
            all_live = all_live or live >= runs
            if live >= runs:
                peak, samples = max(peak, served.rss_mb()), samples + 1
            time.sleep(0.1)
        after = served.rss_mb()
    return Figure(8, f"resident memory of `kitebase serve`, {runs} runs in flight", round(peak, 1), "MB",
                  reference=round(idle, 1), reference_name="the same process idle after start-up, MB",
                  target="≤ 250 MB", met=all_live and peak <= 250,
                  detail={"samples_with_all_runs_live": samples, "all_runs_were_live_together": all_live,
                          "after_all_waiting_mb": round(after, 1), "model_latency_s": model_latency,
                          "ack_p99_ms": round(pct(acks, 0.99), 1)})
