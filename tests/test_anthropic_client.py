"""The real `anthropic` client against a local stand-in of the Messages API: what goes on the wire."""

from __future__ import annotations

import json

import pytest

from bot.agent.clients import build_model
from bot.agent.model import AnthropicModel
from bot.agent.offline import OfflineModel
from bot.config import Settings
from standins.anthropic_server import MessagesAPIServer, error, reply, text, tool_use
from standins.brains import USAGE, offline_brain, strip_cache_control
from tests.helpers import approvals_of, assert_well_formed, run_row, service_with, steps_of

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


def client_for(server: MessagesAPIServer, **kwargs) -> AnthropicModel:
    return AnthropicModel(api_key="sk-ant-test-0123456789", model="claude-opus-5", base_url=server.url,
                          max_retries=kwargs.pop("max_retries", 0), **kwargs)


def test_worked_example_over_real_http(db, settings):
    with MessagesAPIServer(offline_brain) as server:
        service = service_with(db, settings, client_for(server))
        run_id = service.start(GOAL)
        state = service.resume(run_id)
        assert state.status == "awaiting_approval"
        [approval_id] = [a.id for a in approvals_of(db, run_id)]
        service.decide(approval_id, action="approve", actor="lead")
        state = service.resume(run_id)
        requests = [r for r in server.requests if r["path"] == "/v1/messages"]

    assert state.status == "completed" and "KITE-144" in state.answer
    assert len(requests) == 5
    for index, request in enumerate(requests):
        body = request["body"]
        assert body["model"] == "claude-opus-5"
        assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert "cache_control" not in body["tools"][0]
        assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
        assert_well_formed(strip_cache_control(body["messages"]))
        assert request["headers"]["authorization"] == "Bearer sk-ant-test-0123456789"
        if index:  # each request carries the previous response verbatim as the assistant turn
            previous = requests[index - 1]["response"]["content"]
            assistant = [m for m in body["messages"] if m["role"] == "assistant"][-1]
            assert strip_cache_control(assistant["content"]) == previous
    stored = run_row(db, run_id)
    assert "cache_control" not in json.dumps(stored.messages), "breakpoints live on copies, never in the history"
    assert stored.cache_read_tokens == 5 * 2400 and stored.cache_write_tokens == 5 * 300
    steps = [s for s in steps_of(db, run_id) if s.kind == "model"]
    assert all(s.cache_read_tokens == 2400 and s.input_tokens == 900 for s in steps)
    expected_cost = 5 * (900 * 5 + 120 * 25 + 2400 * 0.5 + 300 * 6.25) / 1e6
    assert stored.cost_usd == pytest.approx(expected_cost)


def test_thinking_blocks_and_is_error_results_round_trip(db, settings):
    thinking = {"type": "thinking", "thinking": "I should read the ticket first.", "signature": "EqQBCkYIBxgCKkA="}
    with MessagesAPIServer() as server:
        server.queue(reply(thinking, text("Reading it."), tool_use("get_ticket", {"ticket_id": "KITE-999"}),
                           usage=USAGE),
                     reply(text("KITE-999 does not exist; nothing to do."), usage=USAGE))
        service = service_with(db, settings, client_for(server))
        state = service.resume(service.start("handle KITE-142"))
        second = server.message_requests[1]["messages"]
    assert state.status == "completed"
    assert second[1]["content"][0] == thinking, "thinking block sent back byte for byte"
    result = strip_cache_control(second[2]["content"][0])
    assert result["is_error"] is True and result["content"].startswith("No ticket 'KITE-999'")


@pytest.mark.parametrize("failure, words", [
    (error(529, "overloaded_error", "Overloaded"), "is overloaded (529)"),
    (error(401, "authentication_error", "invalid x-api-key"), "rejected the API key"),
    (error(400, "invalid_request_error", "prompt is too long"), "rejected the request (400): prompt is too long"),
])
def test_api_failures_escalate_with_a_clear_reason_and_no_secret(db, settings, failure, words):
    with MessagesAPIServer() as server:
        server.queue(failure, failure, failure)
        service = service_with(db, settings, client_for(server, max_retries=1))
        run_id = service.start(GOAL)
        state = service.resume(run_id)
    assert state.status == "escalated" and state.stop_kind == "model_error"
    assert words in state.reason
    assert "sk-ant-test" not in json.dumps([state.reason, state.summary])
    if failure[0] == 529:
        assert len(server.message_requests) == 2, "the SDK retried once, as configured"


def test_build_model_uses_the_sdk_when_a_key_is_set(monkeypatch):
    with MessagesAPIServer() as server:
        server.queue(reply(text("pong"), usage=USAGE))
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("KITEBASE_MODEL", "claude-haiku-4-5")
        model = build_model(Settings())
        response = model.complete(system="s", tools=[], messages=[{"role": "user", "content": "ping"}], max_tokens=50)
    assert isinstance(model, AnthropicModel) and response.content == [{"type": "text", "text": "pong"}]
    assert server.message_requests[0]["model"] == "claude-haiku-4-5"
    assert isinstance(build_model(Settings(offline=True)), OfflineModel)
