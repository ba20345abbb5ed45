"""Processes dying at the worst moments: a real `kitebase serve` SIGKILLed and restarted against the
stand-ins. Nothing acknowledged is lost, nothing is done twice, and the work goes on within seconds."""

from __future__ import annotations

import random
import time

import pytest
from sqlalchemy import create_engine, text

from standins.anthropic_server import MessagesAPIServer
from standins.brains import offline_brain
from standins.serve_process import SECRET, ServeProcess
from standins.slack_requests import SlackSender
from standins.slack_server import SlackAPIServer


@pytest.fixture
def stand_ins():
    slack = SlackAPIServer().start()
    yield slack
    slack.stop()


def scalar(url: str, sql: str, **params):
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql), params).scalar()
    finally:
        engine.dispose()


def rows(url: str, sql: str, **params):
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql), params).all()
    finally:
        engine.dispose()


def wait_until(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def test_every_acknowledged_mention_has_exactly_one_run_whatever_dies_when(database_url, stand_ins, tmp_path):
    rng = random.Random(7)
    serve = ServeProcess(database_url, stand_ins.url, None, tmp_path / "serve.log").start()
    sender = SlackSender(serve.url, SECRET)
    acknowledged, unanswered = [], []
    try:
        for i in range(20):
            ts = f"1800000{i:03d}.000100"
            try:
                _, (status, _) = sender.mention(f"handle KITE-{101 + i}", ts=ts, event_id=f"EvKill{i}")
            except OSError:
                status = None
            (acknowledged if status == 200 else unanswered).append((i, ts))
            if rng.random() < 0.4:  # right after the 200, the process dies
                serve.kill()
                serve.start()
                sender = SlackSender(serve.url, SECRET)
        for i, ts in unanswered:  # Slack retries what it never got an answer for
            sender.mention(f"handle KITE-{101 + i}", ts=ts, event_id=f"EvKill{i}", retry=1)
        counts = {ts: scalar(database_url, "SELECT COUNT(*) FROM run WHERE thread_key = :k", k=f"CSUPPORT:{ts}")
                  for _, ts in acknowledged + unanswered}
        assert acknowledged, "the test must acknowledge mentions"
        assert all(n == 1 for n in counts.values()), counts
        wait_until(lambda: scalar(database_url, "SELECT COUNT(*) FROM run WHERE status = 'queued'") == 0, 60,
                   "every run to be continued after the restarts")
    finally:
        serve.stop()


def test_a_killed_serve_continues_its_run_within_seconds_of_restarting(database_url, stand_ins, tmp_path):
    def slow(body):
        time.sleep(1.5)
        return offline_brain(body)

    with MessagesAPIServer(slow) as model:
        serve = ServeProcess(database_url, stand_ins.url, model.url, tmp_path / "serve.log").start()
        try:
            SlackSender(serve.url, SECRET).mention("handle KITE-142")
            wait_until(lambda: len(model.message_requests) >= 2, 30, "the second model call")
            serve.kill()  # mid-run: its lease (120 s) is still held by a process that is gone
            killed_at = time.monotonic()
            serve.start()
            wait_until(lambda: scalar(database_url, "SELECT status FROM run") == "awaiting_approval", 40,
                       "the run to reach its draft after the restart")
            took = time.monotonic() - killed_at
            workers = {w for (w,) in rows(database_url, "SELECT DISTINCT worker FROM step WHERE worker IS NOT NULL")}
        finally:
            serve.stop()
    assert took < 30, f"continued {took:.1f} s after the kill"
    assert len(workers) == 2, "the restarted process continued the run the dead one had started"
