"""Every content block type the Messages API documents today (the SDK's ContentBlock union), through a whole run:
the real client reads it from the stand-in, the loop keeps it verbatim in the history and the step log, sends it
back in the next request (which the stand-in checks, thinking signatures included), and replay runs it again."""

from __future__ import annotations

import json
import typing

import anthropic.types
import pytest
from pydantic import SecretStr

from bot.agent.replay import timeline
from bot.db.models import Run
from bot.runs.lifecycle.service import RunService
from bot.runs.reports.rerun import rerun
from standins.anthropic_server import MessagesAPIServer, redacted_thinking, reply, text, thinking, tool_use
from standins.brains import strip_cache_control
from tests.helpers import steps_of
from tests.test_anthropic_stand_in import SERVER_TOOL_BLOCKS

DOCUMENTED = sorted(cls.model_fields["type"].annotation.__args__[0]
                    for cls in typing.get_args(typing.get_args(anthropic.types.ContentBlock)[0]))


def scripted_turns(kind: str) -> list[dict]:
    """A run whose model answers with a block of `kind` in its first turn, the way the API would send it."""
    done = reply(text("Done: KITE-142 read, nothing sent."))
    if kind == "text":
        return [reply(text("KITE-142 is an SSO lock-out; nothing to do without its details."))]
    if kind in ("tool_use", "thinking", "redacted_thinking"):
        first = {"tool_use": [], "thinking": [thinking("Read the ticket first.")], "redacted_thinking":
                 [thinking("Read it."), redacted_thinking()]}[kind]
        return [reply(*first, text("Reading it."), tool_use("get_ticket", {"ticket_id": "KITE-142"})), done]
    if kind == "container_upload":
        return [reply(text("Uploading the export."), next(b for b in SERVER_TOOL_BLOCKS if b["type"] == kind),
                      stop_reason="pause_turn"), done]
    result = next(i for i, b in enumerate(SERVER_TOOL_BLOCKS) if b["type"] == kind)
    server_call = SERVER_TOOL_BLOCKS[result - 1] if kind != "server_tool_use" else SERVER_TOOL_BLOCKS[0]
    pair = [server_call, SERVER_TOOL_BLOCKS[result]] if kind != "server_tool_use" else SERVER_TOOL_BLOCKS[:2]
    return [reply(text("Let me look that up."), *pair, stop_reason="pause_turn"), done]


def test_the_list_is_the_sdks():
    assert len(DOCUMENTED) == 12 and {"server_tool_use", "container_upload", "redacted_thinking"} <= set(DOCUMENTED)


@pytest.mark.parametrize("kind", DOCUMENTED)
def test_a_block_round_trips_through_history_step_log_and_replay(db, settings, kind):
    with MessagesAPIServer() as server:
        server.queue(*scripted_turns(kind))
        configured = settings.model_copy(update={"anthropic_api_key": SecretStr("sk-ant-test-0123456789"),
                                                 "anthropic_base_url": server.url, "model": "claude-opus-5",
                                                 "model_max_retries": 0})
        service = RunService(db, configured)
        run_id = service.start("handle KITE-142")
        state = service.resume(run_id)
        answered = [r["response"] for r in server.requests if "response" in r]
        sent = [strip_cache_control(b) for b in server.message_requests]
        verified = server.thinking_verified

    assert state.status == "completed", state.reason
    came = [b for b in answered[0]["content"] if b["type"] == kind]
    assert came, f"the first answer holds a {kind} block"
    steps = [s for s in steps_of(db, run_id) if s.kind == "model"]
    kept = [b for b in steps[0].response if b["type"] == kind]
    assert json.dumps(kept, sort_keys=True) == json.dumps(came, sort_keys=True), "the step log keeps it as it came"
    if len(sent) > 1:  # the next request carries it back (after pause_turn, as the paused assistant turn)
        back = [b for m in sent[1]["messages"] if m["role"] == "assistant" for b in m["content"] if b["type"] == kind]
        assert json.dumps(back, sort_keys=True) == json.dumps(came, sort_keys=True)
    if kind in ("thinking", "redacted_thinking"):
        assert verified >= 1, "the stand-in verified the signature it had given"
    with db.session() as session:
        run = session.get(Run, run_id)
        history = [b for b in run.messages[1]["content"] if b["type"] == kind]
        assert json.dumps(history, sort_keys=True) == json.dumps(came, sort_keys=True), "the history keeps it too"
    report = rerun(run, steps_of(db, run_id), configured)
    assert report.same, report.text
    assert "Run " in timeline(run, steps_of(db, run_id))
