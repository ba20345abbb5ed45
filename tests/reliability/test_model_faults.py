"""The model misbehaving, on the wire: the real SDK against the Messages API stand-in. Every fault ends as a
clear escalation (never `failed`, never a traceback), nothing from a bad response is run, and the time guard
holds during a call."""

from __future__ import annotations

import json
import threading
import time

import pytest

from standins.anthropic_server import Drop, MessagesAPIServer, Raw, error, reply, text, tool_use
from standins.brains import USAGE
from tests.helpers import (
    PATIENCE,
    approvals_of,
    assert_well_formed,
    run_row,
    service_with,
    staff_replies,
    steps_of,
)
from tests.test_anthropic_client import client_for

GOAL = "handle KITE-142"
TICKET = tool_use("get_ticket", {"ticket_id": "KITE-142"}, id="toolu_read_1")


def run_against(db, settings, *answers, max_retries=0, **overrides):
    with MessagesAPIServer() as server:
        server.queue(*answers)
        service = service_with(db, settings, client_for(server, max_retries=max_retries), **overrides)
        run_id = service.start(GOAL)
        state = service.resume(run_id)
        requests = server.message_requests
    return state, run_id, requests


@pytest.mark.parametrize("answer, words", [
    (Raw('{"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "te'), "malformed response"),
    (Raw("<html><body>502 Bad Gateway</body></html>", content_type="text/html"), "malformed response"),
    (reply(text("Reading."), {"type": "tool_use", "id": "toolu_x", "name": "get_ticket", "input": ["KITE-142"]}),
     "not an object"),
    (reply(text("Reading."), {"type": "tool_use", "name": "get_ticket", "input": {"ticket_id": "KITE-142"}}),
     "without an id"),
    (reply(tool_use("reply_to_customer", {"ticket_id": "KITE-142", "message": "draft A"}, id="toolu_dup"),
           tool_use("reply_to_customer", {"ticket_id": "KITE-142", "message": "draft B"}, id="toolu_dup")),
     "appears twice"),
    (reply({"type": "mystery_block", "x": 1}, stop_reason="end_turn"), "unknown type"),
])
def test_a_malformed_response_escalates_and_nothing_in_it_runs(db, settings, answer, words):
    state, run_id, _ = run_against(db, settings, answer)
    assert state.status == "escalated" and state.stop_kind == "model_error", state.reason
    assert words in state.reason
    assert approvals_of(db, run_id) == [] and staff_replies(db, "KITE-142") == [], "no card, nothing sent"
    run = run_row(db, run_id)
    assert run.messages == [{"role": "user", "content": [{"type": "text", "text": GOAL}]}], "not appended"
    [step] = steps_of(db, run_id)
    assert step.kind == "error" and step.response, "the raw response is kept in the step log"


def test_a_tool_call_id_used_again_later_in_the_run_is_refused(db, settings):
    state, run_id, _ = run_against(db, settings, reply(text("Reading."), TICKET, usage=USAGE),
                                   reply(text("Again."), TICKET, usage=USAGE))
    assert state.stop_kind == "model_error" and "already used earlier in this run" in state.reason
    messages = run_row(db, run_id).messages
    assert_well_formed(messages)
    assert len(messages) == 3 and messages[-1]["role"] == "user", "the refused response was not appended"


@pytest.mark.parametrize("fault, words", [
    (error(500, "api_error", "Internal server error"), "failed (500)"),
    (error(529, "overloaded_error", "Overloaded"), "is overloaded (529)"),
    (Drop(), "could not be reached"),
])
def test_server_faults_are_retried_then_escalate_clearly(db, settings, fault, words):
    state, _, requests = run_against(db, settings, fault, fault, fault, max_retries=2)
    assert state.status == "escalated" and state.stop_kind == "model_error" and words in state.reason
    assert "after 3 attempts" in state.reason and len(requests) == 3


def test_a_429_with_retry_after_is_waited_for_then_the_run_goes_on(db, settings):
    limited = error(429, "rate_limit_error", "slow down", headers={"retry-after": "1"})
    started = time.monotonic()
    state, _, requests = run_against(db, settings, limited, reply(text("All done here."), usage=USAGE),
                                     max_retries=2)
    assert state.status == "completed" and len(requests) == 2
    assert time.monotonic() - started >= 1.0, "Retry-After was honoured"


def test_a_hung_api_cannot_outlast_the_deadline(db, settings):
    """The API answers only after the run has returned: the deadline cut the call short (a 30 s hang and a run
    that had to end within 5 s raced a slow machine)."""
    release, answered = threading.Event(), threading.Event()

    def hang(body):
        release.wait(PATIENCE)
        answered.set()
        return reply(text("too late"))

    with MessagesAPIServer(hang) as server:
        service = service_with(db, settings, client_for(server, max_retries=3, timeout=120.0), deadline_seconds=2.0)
        try:
            state = service.resume(service.start(GOAL))
            assert not answered.is_set(), "the run did not wait for the answer"
        finally:
            release.set()
    assert state.status == "escalated" and state.stop_kind == "guard"
    assert "KITEBASE_DEADLINE_SECONDS" in state.reason and "cut short" in state.reason


def test_a_retry_that_would_pass_the_deadline_is_not_taken(db, settings):
    limited = error(429, "rate_limit_error", "slow down", headers={"retry-after": "30"})
    started = time.monotonic()
    state, _, requests = run_against(db, settings, limited, limited, max_retries=3, deadline_seconds=5.0)
    assert time.monotonic() - started < 3 and len(requests) == 1
    assert state.stop_kind == "model_error" and "would pass the run's deadline" in state.reason


def test_the_key_echoed_by_the_upstream_reaches_no_one(db, settings, tmp_path, caplog):
    echo = error(400, "invalid_request_error",
                 "bad request; headers were Authorization: Bearer sk-ant-test-0123456789 x-api-key=sk-ant-test-0123456789")
    log = tmp_path / "steps.jsonl"
    state, run_id, _ = run_against(db, settings, echo, step_log_path=log)
    run = run_row(db, run_id)
    seen = json.dumps([state.reason, state.summary, run.reason, run.summary, [s.text for s in steps_of(db, run_id)],
                       log.read_text(), caplog.text])
    assert state.stop_kind == "model_error" and "rejected the request (400)" in state.reason
    assert "sk-ant-test-0123456789" not in seen and "[redacted]" in state.reason


ECHO = error(400, "invalid_request_error", "bad request; you sent Authorization: Bearer sk-ant-test-0123456789")


def test_the_echoed_key_reaches_neither_slack_nor_the_cli(db, settings):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from standins.slack_harness import start_harness

    with MessagesAPIServer(lambda body: ECHO) as server:
        h, stop = start_harness(settings, db, model_factory=lambda: client_for(server, max_retries=0))
        try:
            h.send.mention(GOAL)
            h.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": "D1", "tab": "home"})
            h.drain()
            sent = json.dumps([c["args"] for c in h.slack.calls]) + json.dumps(h.slack.uploads)
        finally:
            stop()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_"))}
        env.update({"DATABASE_URL": settings.database_url,
                    "ANTHROPIC_API_KEY": "sk-ant-test-0123456789", "ANTHROPIC_BASE_URL": server.url,
                    "KITEBASE_MODEL_MAX_RETRIES": "0"})
        cli = subprocess.run([sys.executable, "-m", "bot.cli", "-v", "run", "handle KITE-144", "--json"],
                             cwd=Path(__file__).parents[2], env=env, capture_output=True, text=True, timeout=120)
    assert "needs a person" in sent and "rejected the request (400)" in sent, "the queue post and App Home are there"
    assert "sk-ant-test-0123456789" not in sent
    assert cli.returncode == 3 and "rejected the request (400)" in cli.stdout
    assert "sk-ant-test-0123456789" not in cli.stdout + cli.stderr
