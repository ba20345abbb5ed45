"""Adaptive thinking and the fallback model, through the real client against the Messages API stand-in, which
signs the thinking blocks it answers with and refuses any that come back changed (standins/anthropic_server.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlmodel import select

from bot.agent.capabilities import adaptive_thinking
from bot.agent.replay import timeline as replay_timeline
from bot.db.models import Approval, Run, Step, utcnow
from bot.runs.execution.sweeps import sweep_all
from bot.runs.lifecycle.service import RunService
from bot.runs.reports.for_slack import timeline
from bot.slack_ui.blocks import step_lines
from standins.anthropic_server import MessagesAPIServer, error
from standins.brains import THINKING_TOKENS, USAGE, offline_brain, strip_cache_control, thinking_brain
from tests.helpers import approvals_of, run_row, steps_of

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
ROOT = Path(__file__).parents[1]
KEY = "sk-ant-test-0123456789"


def real(settings, server, **overrides):
    return settings.model_copy(update={"anthropic_api_key": SecretStr(KEY), "anthropic_base_url": server.url,
                                       "model": "claude-opus-5", "model_max_retries": 0, **overrides})


def work_the_ticket(db, settings) -> int:
    """KITE-142 to its draft; the lead approves it later, in another process (a fresh service and client)."""
    run_id = RunService(db, settings).start(GOAL)
    assert RunService(db, settings).resume(run_id).status == "awaiting_approval"
    later = RunService(db, settings)
    [approval] = approvals_of(db, run_id)
    later.decide(approval.id, action="approve", actor="lead")
    state = later.resume(run_id)
    assert state.status == "completed", state.reason
    return run_id


def sent_thinking(message: dict) -> list[dict]:
    return [b for b in message["content"] if b["type"] in ("thinking", "redacted_thinking")]


def test_kite_142_thinks_and_every_thinking_block_goes_back_exactly_as_it_came(db, settings):
    with MessagesAPIServer(thinking_brain) as server:
        run_id = work_the_ticket(db, real(settings, server))
        requests = [r for r in server.requests if r["path"] == "/v1/messages"]
        verified = server.thinking_verified

    assert len(requests) == 5
    for index, request in enumerate(requests):
        body = request["body"]
        assert body["thinking"] == {"type": "adaptive", "display": "summarized"}, "on by default for this model"
        assert body["max_tokens"] == 16_000 and "output_config" not in body
        answered = [m for m in strip_cache_control(body["messages"]) if m["role"] == "assistant"]
        for earlier, message in zip(requests[:index], answered, strict=True):
            # Every earlier turn's thinking, signature and all, byte for byte (the stand-in verified each; the
            # order of a block's keys is the SDK's, as its own examples send a reply back)
            assert json.dumps(sent_thinking(message), sort_keys=True) == \
                json.dumps(sent_thinking(earlier["response"]), sort_keys=True)
    assert verified == sum(len(sent_thinking(r["response"])) * (4 - i) for i, r in enumerate(requests[:4]))

    steps = [s for s in steps_of(db, run_id) if s.kind == "model"]
    assert all(s.model == "claude-opus-5" for s in steps)
    run = run_row(db, run_id)
    assert run.output_tokens == 5 * (USAGE["output_tokens"] + THINKING_TOKENS), "thinking is billed as output"

    # The thread: one interim thought per tool turn, the thinking summary, never a signature or redacted data
    shown = timeline(db, run_id, 1, None)
    lines = [line for step in shown["steps"] for line in step_lines(step)]
    thoughts = [line for line in lines if line.startswith(":thought_balloon:")]
    tool_turns = [s for s in steps if s.stop_reason == "tool_use"]
    assert len(thoughts) == len(tool_turns) == 4
    assert all("I should call" in line for line in thoughts), thoughts
    secrets = [b.get("signature") or b.get("data") for s in steps for b in s.response if "thinking" in b["type"]]
    assert secrets and not any(secret in "\n".join(lines) for secret in secrets)
    # The CLI's replay shows them too
    with db.session() as session:
        stored = session.get(Run, run_id)
        text = replay_timeline(stored, list(session.exec(select(Step).where(Step.run_id == run_id)
                                                         .order_by(Step.number)).all()))
    assert text.count("thinks: Turn") == 5 and "thinking redacted by the API" in text
    assert not any(secret in text for secret in secrets)


def test_thinking_off_effort_and_models_without_adaptive_thinking(db, settings):
    assert adaptive_thinking("claude-opus-5-5") and adaptive_thinking("claude-sonnet-4-6")
    assert not adaptive_thinking("claude-haiku-4-5-20251001") and not adaptive_thinking("claude-sonnet-4-5")
    cases = [({"thinking": "off"}, None, 4096, None),
             ({"effort": "low"}, {"type": "adaptive", "display": "summarized"}, 16_000, {"effort": "low"}),
             ({"model": "claude-haiku-4-5", "effort": "high"}, None, 4096, {"effort": "high"}),
             ({"thinking": "off", "max_output_tokens": 2000}, None, 2000, None)]
    for number, (overrides, thinking, max_tokens, output_config) in enumerate(cases, start=101):
        with MessagesAPIServer(thinking_brain) as server:
            configured = real(settings, server, **overrides)
            service = RunService(db, configured)
            state = service.resume(service.start(f"handle KITE-{number}"))
            assert state.status == "awaiting_approval", (overrides, state.reason)
            for body in server.message_requests:
                assert body.get("thinking") == thinking and body["max_tokens"] == max_tokens, overrides
                assert body.get("output_config") == output_config, overrides
                assert "thinking" not in json.dumps(body["messages"]) or thinking, "no thinking asked, none sent"


def test_a_model_refusing_the_thinking_parameters_gets_none_for_the_rest_of_the_process(db, settings, caplog):
    def responder(body):
        if "thinking" in body:
            return error(400, "invalid_request_error", "thinking.type: adaptive thinking is not supported on this model")
        return offline_brain(body)

    with MessagesAPIServer(responder) as server:
        service = RunService(db, real(settings, server))
        state = service.resume(service.start("handle KITE-142"))
        bodies = server.message_requests
    assert state.status == "awaiting_approval", state.reason
    assert "thinking" in bodies[0] and all("thinking" not in b for b in bodies[1:])
    assert len(bodies) == 4, "one refused request, then the three turns"
    assert "sending none for the rest of this process" in caplog.text


def test_an_overloaded_model_hands_the_turn_to_the_fallback_once(db, settings):
    def responder(body):
        if body["model"] == "claude-opus-5":
            return error(529, "overloaded_error", "Overloaded", {"retry-after-ms": "5"})
        return offline_brain(body)

    with MessagesAPIServer(responder) as server:
        configured = real(settings, server, model_max_retries=1, fallback_model="claude-sonnet-5")
        service = RunService(db, configured)
        run_id = service.start("handle KITE-142")
        state = service.resume(run_id)
        models = [b["model"] for b in server.message_requests]
    assert state.status == "awaiting_approval", state.reason
    assert models[:3] == ["claude-opus-5", "claude-opus-5", "claude-sonnet-5"], "two tries, then the fallback once"
    steps = [s for s in steps_of(db, run_id) if s.kind == "model"]
    assert [s.model for s in steps] == ["claude-sonnet-5"] * 3
    sonnet = (900 * 2.0 + 120 * 10.0 + 2400 * 0.20 + 300 * 2.5) / 1e6  # pricing follows the model that answered
    assert steps[0].cost_usd == pytest.approx(sonnet)
    shown = timeline(db, run_id, 1, None)
    assert "answered by `claude-sonnet-5`" in step_lines(shown["steps"][0])[0]

    with MessagesAPIServer(lambda body: error(529, "overloaded_error", "Overloaded", {"retry-after-ms": "5"})) as server:
        service = RunService(db, real(settings, server, model_max_retries=1))
        state = service.resume(service.start("handle KITE-101"))
    assert state.status == "escalated" and "overloaded (529)" in state.reason and "after 2 attempts" in state.reason


def test_a_crash_mid_run_keeps_every_signature_intact(db, settings):
    """`kitebase run` is SIGKILLed while its third model call is under way; the run is then taken over and
    finished by another process, whose requests carry the first two turns' thinking exactly as it came."""
    arrived = []

    def responder(body):
        arrived.append(body)
        if len(arrived) == 3:
            time.sleep(30)  # the process is killed while it waits for this answer
        return thinking_brain(body)

    with MessagesAPIServer(responder) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_"))}
        env.update({"DATABASE_URL": settings.database_url, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.url,
                    "KITEBASE_MODEL": "claude-opus-5", "KITEBASE_MODEL_MAX_RETRIES": "0"})
        process = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "handle KITE-142", "--approve", "auto"],
                                   cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while len(arrived) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        assert len(arrived) == 3, "the run got to its third model call before the kill"
        before = server.thinking_verified

        service = RunService(db, real(settings, server))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            sweep_all(service, utcnow(), lambda run_id: service.resume(run_id))
            with db.session() as session:
                for approval in session.exec(select(Approval).where(Approval.status == "pending")).all():
                    service.decide(approval.id, action="approve", actor="lead")
                    service.resume(approval.run_id)
                run = session.exec(select(Run)).one()
            if run.status == "completed":
                break
            time.sleep(0.3)
        resumed = server.message_requests[3:]
    assert run.status == "completed", (run.status, run.reason)
    assert resumed and all(body["thinking"]["type"] == "adaptive" for body in resumed)
    assert server.thinking_verified - before >= 2 * len(resumed), "both turns' thinking came back, verified"


def test_kite_142_in_slack_shows_each_turns_thinking_as_its_interim_thought(db, settings):
    from standins.slack_harness import start_harness

    with MessagesAPIServer(thinking_brain) as server:
        harness, stop = start_harness(real(settings, server), db)
        try:
            ts, _ = harness.send.mention(GOAL)
            harness.drain()
            card = harness.approval_card()
            harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
            harness.drain()
        finally:
            stop()
        verified = server.thinking_verified
    streamed = harness.slack.calls_to("chat.startStream") + harness.slack.calls_to("chat.appendStream")
    thoughts = [c["text"] for call in streamed for c in call.get("chunks") or [] if c["type"] == "markdown_text"]
    thought_lines = [t for t in thoughts if t.startswith(":thought_balloon:")]
    assert sorted(t.split(":", 3)[2].strip()[:6] for t in thought_lines) == ["Turn 1", "Turn 2", "Turn 3", "Turn 4"], \
        "one interim thought per tool turn, each its turn's thinking summary"
    assert verified > 0 and "I should call search_help" in "".join(thought_lines)
    everything = json.dumps(harness.slack.calls)
    with db.session() as session:
        steps = session.exec(select(Step).where(Step.kind == "model")).all()
    secrets = [b.get("signature") or b.get("data") for s in steps for b in s.response if "thinking" in b["type"]]
    assert secrets and not any(secret in everything for secret in secrets), "no signature reaches Slack"
    assert harness.slack.calls_to("chat.postMessage")[-1]["thread_ts"] == ts
