"""A busy support channel, end to end: `kitebase serve` as its own process (HTTP mode), signed mentions from
many clients at once, the real `anthropic` client against a Messages API stand-in answering in 300 ms, and a
Slack Web API stand-in that enforces Slack's per-channel posting limit (about one message a second).

    .venv/bin/python -m bench.busy_channel [--mentions 50] [--channels 1] [--database-url URL]

A PostgreSQL `--database-url` is scratch: its public schema is dropped first, so every measurement starts
from the seeded desk (runs left by an earlier measurement would hold its tickets: no new runs, no cards).

Prints, and returns as a dict: acknowledgement latency (p50/p99/max), when every run reached its approval
card in the database, when every card was in Slack, how an Approve click during the burst was answered and
whether it was honoured, model calls, and Slack Web API calls per run by method.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from bench.common import wipe_postgres  # noqa: E402
from standins.anthropic_server import MessagesAPIServer  # noqa: E402
from standins.brains import offline_brain  # noqa: E402
from standins.slack_requests import SlackSender  # noqa: E402
from standins.slack_server import SlackAPIServer  # noqa: E402

SECRET = "bench-signing-secret-0123456789"
BOT_TOKEN = "xoxb-bench-0123456789"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))] if ordered else float("nan")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def slow_brain(latency: float):  # type: ignore[no-untyped-def]
    def respond(body: dict) -> dict:
        time.sleep(latency)
        return offline_brain(body)
    return respond


def start_serve(env: dict[str, str], port: int, log: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve"], cwd=ROOT, env=env,
                               stdout=log.open("ab"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
                if response.status == 200:
                    return process
        except OSError:
            time.sleep(0.1)
        if process.poll() is not None:
            raise RuntimeError(f"kitebase serve exited ({process.returncode}); see {log}")
    raise RuntimeError(f"kitebase serve did not answer /healthz; see {log}")


def workers_ready(log: Path, crew: list[subprocess.Popen], timeout: float = 60) -> None:
    """Wait until every `kitebase worker` says it is waiting for runs."""
    deadline = time.monotonic() + timeout
    while crew and log.read_text(errors="replace").count("waiting for runs") < len(crew):
        if time.monotonic() > deadline or any(worker.poll() is not None for worker in crew):
            raise RuntimeError(f"the workers did not start; see {log}")
        time.sleep(0.1)


def serve_env(database_url: str, slack: SlackAPIServer, model: MessagesAPIServer, port: int,
              **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "SLACK_", "ANTHROPIC_"))}
    env.update({"DATABASE_URL": database_url, "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SECRET,
                "SLACK_API_BASE_URL": slack.url + "/api/", "ANTHROPIC_API_KEY": "sk-ant-bench-0123456789",
                "ANTHROPIC_BASE_URL": model.url, "PORT": str(port), "KITEBASE_ESCALATION_CHANNEL": "CQUEUE",
                "KITEBASE_MODEL": "claude-opus-5", "PYTHONUNBUFFERED": "1", **extra})
    return env


def cards_in(slack: SlackAPIServer) -> dict[int, str]:
    """approval id -> ts of every approval card Slack now shows."""
    found: dict[int, str] = {}
    with slack._lock:
        messages = list(slack.messages.values())
    for message in messages:
        for block in message.get("blocks") or []:
            if block.get("type") == "actions":
                for element in block.get("elements", []):
                    if element.get("action_id") == "approve_reply":
                        found[json.loads(element["value"])["approval_id"]] = message["ts"]
    return found


def statuses(engine: Any) -> dict[str, int]:
    try:
        with engine.connect() as conn:
            return dict(conn.execute(text("SELECT status, COUNT(*) FROM run GROUP BY status")).all())
    except Exception:
        return {}


def run(mentions: int = 50, channels: int = 1, latency: float = 0.3, post_interval: float = 1.0,
        database_url: str | None = None, timeout: float = 240, quiet: bool = False,
        extra_env: dict[str, str] | None = None, workers: int = 0) -> dict[str, Any]:
    """`workers` > 0: the production shape for PostgreSQL (KITEBASE_EXECUTION=queue): `kitebase serve` only
    records and acknowledges; that many `kitebase worker` processes continue runs and deliver the outbox."""
    scratch = Path(tempfile.mkdtemp(prefix="kitebase-busy-"))
    database_url = database_url or f"sqlite:///{scratch / 'kitebase.db'}"
    if database_url.startswith("postgresql"):
        wipe_postgres(database_url)
    slack = SlackAPIServer().start()
    slack.limit_posts(post_interval, burst=3)
    model = MessagesAPIServer(slow_brain(latency)).start()
    port = free_port()
    log = scratch / "serve.log"
    env = serve_env(database_url, slack, model, port, **(extra_env or {}))
    if workers:
        env["KITEBASE_EXECUTION"] = "queue"
    process = start_serve(env, port, log)
    crew = [subprocess.Popen([sys.executable, "-m", "bot.cli", "worker"], cwd=ROOT, env=env,
                             stdout=log.open("ab"), stderr=subprocess.STDOUT) for _ in range(workers)]
    workers_ready(log, crew)  # not a burst against processes still importing (two start-ups take the 2 cores)
    engine = create_engine(database_url)
    sender = SlackSender(f"http://127.0.0.1:{port}/slack/events", SECRET)
    acks: list[float] = []
    click: dict[str, Any] = {}
    started = time.monotonic()

    def click_first_card() -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not cards_in(slack):
            time.sleep(0.05)
        cards = cards_in(slack)
        if not cards:
            return
        approval_id, ts = sorted(cards.items())[0]
        value = json.dumps({"approval_id": approval_id, "fingerprint": None})
        for message in list(slack.messages.values()):
            if message.get("ts") == ts:
                for block in message.get("blocks") or []:
                    for element in block.get("elements", []) if block.get("type") == "actions" else []:
                        if element.get("action_id") == "approve_reply":
                            value = element["value"]
        t0 = time.monotonic()
        status, _ = sender.click("approve_reply", value, message_ts=ts, channel="CBUSY000")
        click.update(approval_id=approval_id, status=status, ack_ms=(time.monotonic() - t0) * 1000,
                     at_s=t0 - started)

    clicker = threading.Thread(target=click_first_card, daemon=True)
    clicker.start()
    load = subprocess.run([sys.executable, "-m", "bench.slack_load", f"http://127.0.0.1:{port}/slack/events", SECRET,
                           "--mentions", str(mentions), "--channels", str(channels)], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    fired = json.loads(load.stdout)
    assert all(status == 200 for status in fired["status"]), fired["status"]
    acks.extend(fired["ack_ms"])
    all_waiting = all_cards = None
    deadline = started + timeout
    while time.monotonic() < deadline and (all_waiting is None or all_cards is None):
        counts = statuses(engine)
        decided = counts.get("completed", 0) + counts.get("running", 0)
        if all_waiting is None and counts.get("awaiting_approval", 0) + min(decided, 1) >= mentions:
            all_waiting = time.monotonic() - started
        if all_cards is None and len(cards_in(slack)) + (1 if click else 0) >= mentions:
            all_cards = time.monotonic() - started
        time.sleep(0.05)
    clicker.join(timeout=5)
    honoured = False
    if click:
        wait_until = time.monotonic() + 30
        while time.monotonic() < wait_until and not honoured:
            with engine.connect() as conn:
                honoured = conn.execute(text("SELECT status FROM approval WHERE id = :id"),
                                        {"id": click["approval_id"]}).scalar() == "approved"
            time.sleep(0.1)
    with engine.connect() as conn:
        runs = conn.execute(text("SELECT COUNT(*) FROM run")).scalar()
    for worker in crew:
        worker.terminate()
        worker.wait(timeout=30)
    process.terminate()
    process.wait(timeout=30)
    by_method: dict[str, int] = {}
    for call in slack.calls:
        by_method[call["method"]] = by_method.get(call["method"], 0) + 1
    ratelimited = sum(1 for c in slack.calls if c["status"] == 429)
    model.stop()
    slack.stop()
    engine.dispose()
    result = {"mentions": mentions, "channels": channels, "model_latency_s": latency, "runs": runs, "workers": workers,
              "ack_ms": {"p50": round(statistics.median(acks), 1), "p99": round(pct(acks, 0.99), 1),
                         "max": round(max(acks), 1)},
              "all_awaiting_approval_s": round(all_waiting, 1) if all_waiting else None,
              "all_cards_in_slack_s": round(all_cards, 1) if all_cards else None,
              "approve_click": {**click, "honoured": honoured} if click else None,
              "model_calls": len(model.message_requests), "slack_calls": by_method,
              "slack_ratelimited_answers": ratelimited, "log": str(log)}
    if not quiet:
        print(json.dumps(result, indent=1))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mentions", type=int, default=50)
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--database-url", help="default: a new SQLite file; a PostgreSQL database given is wiped")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the serve process")
    parser.add_argument("--workers", type=int, default=0, help="queue mode (PostgreSQL): this many kitebase workers")
    args = parser.parse_args()
    run(args.mentions, args.channels, args.latency, database_url=args.database_url, timeout=args.timeout,
        extra_env=dict(e.split("=", 1) for e in args.env), workers=args.workers)


if __name__ == "__main__":
    main()
