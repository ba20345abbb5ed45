"""Item 9: start-up. `kitebase run` (real `anthropic` client, a seeded SQLite database) from process start to
its first Messages API request, and `kitebase serve` from process start to its first 200 from /healthz.

The reference is what each command cannot do without, measured the same way in the same run: a Python
process importing the libraries the command needs (run: anthropic, sqlalchemy; serve: those and slack_bolt,
waitress)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.common import ROOT, Figure, pct
from bench.doubles import BENCH_MODEL, offline_responder, stand_in
from standins.serve_process import free_port

BASE_ENV = {"PYTHONUNBUFFERED": "1"}
CLEAN = ("KITEBASE_", "SLACK_", "ANTHROPIC_", "DATABASE_URL")


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(CLEAN)}
    return {**env, **BASE_ENV, **extra}


def imports_seconds(modules: str) -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", f"import {modules}"], check=True, env=environment())
    return time.monotonic() - started


def run_to_first_request(database_url: str, ticket: str) -> float:
    """Seconds from starting `kitebase run` to the stand-in receiving its first request."""
    with stand_in(offline_responder, 0.0) as api:
        env = environment(DATABASE_URL=database_url, ANTHROPIC_API_KEY="sk-ant-bench-0123456789",
                          ANTHROPIC_BASE_URL=api.url, KITEBASE_MODEL=BENCH_MODEL)
        started = time.monotonic()
        process = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", f"handle {ticket}", "--approve",
                                    "auto", "--json"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        while not api.requests and process.poll() is None:
            time.sleep(0.002)
        first = time.monotonic() - started if api.requests else float("nan")
        _, err = process.communicate(timeout=120)
        if process.returncode not in (0, 3):
            raise RuntimeError(f"kitebase run failed ({process.returncode}): {err.decode()[-2000:]}")
    return first


def serve_to_health(database_url: str) -> float:
    port = free_port()
    env = environment(DATABASE_URL=database_url, SLACK_BOT_TOKEN="xoxb-bench-0123456789",
                      SLACK_SIGNING_SECRET="bench-signing-secret-0123456789", SLACK_API_BASE_URL="http://127.0.0.1:9/api/",
                      ANTHROPIC_API_KEY="sk-ant-bench-0123456789", ANTHROPIC_BASE_URL="http://127.0.0.1:9",
                      KITEBASE_MODEL=BENCH_MODEL, PORT=str(port))
    started = time.monotonic()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve"], cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
        try:
            while process.poll() is None:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
                        if response.status == 200:
                            return time.monotonic() - started
                except OSError:
                    time.sleep(0.005)
            log.seek(0)
            raise RuntimeError(f"kitebase serve exited: {log.read().decode()[-2000:]}")
        finally:
            process.terminate()
            process.wait(timeout=30)


def measure(scratch: Path, repeats: int = 3) -> list[Figure]:
    url = f"sqlite:///{scratch / 'startup.db'}"
    empty = run_to_first_request(url, "KITE-101")  # creates the schema and loads the desk
    runs = [run_to_first_request(url, f"KITE-{102 + i}") for i in range(repeats)]
    serves = [serve_to_health(url) for _ in range(repeats)]
    run_ref = pct([imports_seconds("anthropic, sqlalchemy") for _ in range(repeats)], 0.5)
    serve_ref = pct([imports_seconds("anthropic, sqlalchemy, slack_bolt, waitress") for _ in range(repeats)], 0.5)
    detail: dict[str, Any] = {"repeats": repeats, "database": "SQLite, schema and desk already there",
                              "run_first_start_on_empty_database_s": round(empty, 3)}
    return [
        Figure(9, "`kitebase run` to its first model request", round(pct(runs, 0.5) * 1000), "ms",
               reference=round(run_ref * 1000), reference_name="python importing anthropic and sqlalchemy, ms",
               detail={**detail, "max_ms": round(max(runs) * 1000)}),
        Figure(9, "`kitebase serve` to /healthz", round(pct(serves, 0.5) * 1000), "ms",
               reference=round(serve_ref * 1000),
               reference_name="python importing anthropic, sqlalchemy, slack_bolt and waitress, ms",
               detail={**detail, "max_ms": round(max(serves) * 1000)}),
    ]
