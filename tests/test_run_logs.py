"""Log lines that carry the run: every line written while working on a run names it (and its Slack thread),
from the run's own thread, from the loop's tool threads and from the outbox sender, in text and in JSON, with
the secret filter on every line."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.runs.lifecycle.service import RunService
from bot.telemetry.logs import configure_logging, run_handler
from bot.telemetry.scope import run_scope
from standins.slack_harness import start_harness
from tests.scripted import ScriptedModel, respond, text, use
from tools import REGISTRY, Tool, ToolResult

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
KEY = "sk-ant-api03-" + "Q" * 40
ORIGIN = {"surface": "slack", "channel": "CSUPPORT", "thread_ts": "1700000000.000100"}
THREAD = "CSUPPORT:1700000000.000100"


@pytest.fixture
def lines() -> Iterator[Callable[[str], io.StringIO]]:
    """Attach the production handler (bot/telemetry/logs.run_handler) to the root logger for one test."""
    root, attached = logging.getLogger(), []
    level = root.level

    def attach(log_format: str) -> io.StringIO:
        stream = io.StringIO()
        handler = run_handler(stream, log_format)
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        attached.append(handler)
        return stream

    yield attach
    for handler in attached:
        root.removeHandler(handler)
    root.setLevel(level)


def _broken_search(ctx, **arguments) -> ToolResult:  # type: ignore[no-untyped-def]
    raise RuntimeError(f"the search backend said: invalid x-api-key {KEY}")


def _run_with_a_broken_tool(db, settings) -> int:
    """A run from a Slack thread whose read-only tool raises on the loop's tool pool (tools/base.py logs it)."""
    registry = {**REGISTRY, "search_help": Tool("search_help", REGISTRY["search_help"].description,
                                                REGISTRY["search_help"].input_schema, _broken_search)}
    model = ScriptedModel([respond(use("search_help", query="locked out")), respond(text("Nothing found."))])
    service = RunService(db, settings, model_factory=lambda: model, registry=registry)
    run_id = service.start(GOAL, started_by="ULEAD", origin=ORIGIN)
    assert service.resume(run_id).status == "completed"
    return run_id


def test_text_lines_name_the_run_and_its_thread_from_every_thread(db, settings, lines):
    stream = lines("text")
    logging.getLogger("tests").warning("before the run")
    run_id = _run_with_a_broken_tool(db, settings)
    logging.getLogger("tests").warning("after the run")
    out = stream.getvalue().splitlines()
    label = f"[run={run_id} thread={THREAD}]"
    [raised] = [line for line in out if line.startswith("ERROR tools.base")]
    assert raised == f"ERROR tools.base {label}: tool search_help raised", "written on a tool thread"
    steps = [line for line in out if line.startswith("INFO kitebase.steps")]
    assert len(steps) == 2 and all(line.startswith(f"INFO kitebase.steps {label}: ") for line in steps)
    assert "WARNING tests: before the run" in out and "WARNING tests: after the run" in out
    text_out = stream.getvalue()
    assert KEY not in text_out and "invalid x-api-key [redacted]" in text_out, "the traceback went through redact"


def test_json_lines_carry_run_id_and_thread_and_are_redacted(db, settings, lines):
    stream = lines("json")
    run_id = _run_with_a_broken_tool(db, settings)
    with run_scope():  # work that has not named its run yet
        logging.getLogger("tests").warning("no run yet")
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    [raised] = [r for r in records if r["logger"] == "tools.base"]
    assert raised["level"] == "ERROR" and raised["message"] == "tool search_help raised"
    assert raised["run_id"] == run_id and raised["thread"] == THREAD
    assert "RuntimeError" in raised["exception"] and KEY not in raised["exception"]
    assert "[redacted]" in raised["exception"]
    steps = [r for r in records if r["logger"] == "kitebase.steps"]
    assert [r["run_id"] for r in steps] == [run_id, run_id] and {r["thread"] for r in steps} == {THREAD}
    [outside] = [r for r in records if r["message"] == "no run yet"]
    assert "run_id" not in outside and "thread" not in outside and outside["time"].endswith("+00:00")
    assert "trace_id" not in outside, "no trace ids when tracing is off"


def test_an_outbox_delivery_names_the_run_of_its_row(settings, db, lines):
    stream = lines("text")
    harness, stop = start_harness(settings, db)
    harness.slack.fail("chat.postMessage", "channel_not_found")  # the approval card, refused for good
    try:
        ts, _ = harness.send.mention(GOAL)
        harness.drain()
    finally:
        stop()
    [refused] = [line for line in stream.getvalue().splitlines() if "refused outbox row" in line]
    assert refused.startswith(f"ERROR bot.outbox.sender [run=1 thread=CSUPPORT:{ts}]: Slack refused outbox row")


def test_configure_logging_is_the_one_set_up_for_both_formats(capsys):
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    try:
        for log_format in ("text", "json"):
            configure_logging(logging.WARNING, log_format)
            with run_scope(7, "C1:1.2"):
                logging.getLogger("tests").warning("with %s", KEY)
            err = capsys.readouterr().err.strip()
            if log_format == "text":
                assert err == "WARNING tests [run=7 thread=C1:1.2]: with [redacted]"
            else:
                assert json.loads(err) | {"time": ""} == {"time": "", "level": "WARNING", "logger": "tests",
                                                          "message": "with [redacted]", "run_id": 7, "thread": "C1:1.2"}
    finally:
        root.handlers[:] = saved
        root.setLevel(level)


def test_kitebase_run_writes_json_lines_naming_the_run(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "OTEL_", "ANTHROPIC_"))}
    env.update(KITEBASE_LOG_FORMAT="json", DATABASE_URL=f"sqlite:///{tmp_path / 'k.db'}")
    done = subprocess.run([sys.executable, "-m", "bot.cli", "-v", "run", GOAL, "--approve", "auto", "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    run_id = json.loads(done.stdout.strip().splitlines()[-1])["run_id"]
    records = [json.loads(line) for line in done.stderr.splitlines() if line.startswith('{"time"')]
    steps = [r for r in records if r["logger"] == "kitebase.steps"]
    assert len(steps) >= 5 and all(r["run_id"] == run_id for r in steps)
