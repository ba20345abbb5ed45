"""The loop through a scripted model: message shape, stop reasons, tool errors, concurrency."""

from __future__ import annotations

import threading
import time

import pytest

from bot.agent.loop import AgentLoop
from bot.vocabulary import RunState, Usage
from tests.helpers import assert_well_formed, escalations_of, run_row, service_with, steps_of
from tests.scripted import ScriptedModel, respond, text, use
from tools import REGISTRY, Tool, ToolResult

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


def run_script(db, settings, script, **overrides):
    model = ScriptedModel(script)
    service = service_with(db, settings, model, **overrides)
    run_id = service.start(GOAL)
    state = service.resume(run_id)
    return model, service, run_id, state


def test_history_shape_and_verbatim_assistant_content(db, settings):
    thinking = {"type": "thinking", "thinking": "The ticket id is in the goal.", "signature": "sig-abc=="}
    first = respond(thinking, text("I'll read it."), use("get_ticket", ticket_id="KITE-142"))
    second = respond(text("Looking up two things at once."), use("search_help", query="locked out sso"),
                     use("search_tickets", query="sso", status="any"))
    model, _, run_id, state = run_script(db, settings, [first, second, respond(text("All done."))])

    assert state.status == "completed" and state.answer == "All done."
    # The second call carries the first reply exactly as it came back, thinking block and all.
    assert model.sent[1][1] == {"role": "assistant", "content": first.content}
    assert model.sent[2][3] == {"role": "assistant", "content": second.content}
    # Both parallel calls answered in ONE user message, results in tool_use order.
    results = model.sent[2][4]["content"]
    assert [r["tool_use_id"] for r in results] == [b["id"] for b in second.content if b["type"] == "tool_use"]
    assert "[account-recovery#2]" in results[0]["content"]
    assert "KITE-139" in results[1]["content"] or "KITE-144" in results[1]["content"]
    for sent in model.sent:
        assert_well_formed(sent)
    stored = run_row(db, run_id)
    assert stored.messages == state.messages and stored.messages[-1]["content"] == [text("All done.")]
    assert [s.stop_reason for s in steps_of(db, run_id)] == ["tool_use", "tool_use", "end_turn"]


def test_parallel_read_only_calls_run_concurrently(db, settings):
    active, peak, lock = [0], [0], threading.Lock()

    def slow(ctx, label: str) -> ToolResult:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.2)
        with lock:
            active[0] -= 1
        return ToolResult(f"looked up {label}")

    slow_tool = Tool("slow_lookup", "a slow read-only lookup",
                     {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}, slow)
    registry = {**REGISTRY, "slow_lookup": slow_tool}
    model = ScriptedModel([respond(*[use("slow_lookup", label=str(i)) for i in range(3)]), respond(text("ok"))])
    loop = AgentLoop(model=model, registry=registry, settings=settings, db=db)
    state = RunState(goal="x", messages=[{"role": "user", "content": "handle KITE-142"}])
    loop.run(state, lambda s, step: None)
    assert state.status == "completed"
    assert peak[0] == 3, "independent read-only calls overlap"
    assert [r["content"] for r in state.messages[2]["content"]] == ["looked up 0", "looked up 1", "looked up 2"]


@pytest.mark.parametrize("stop, kind", [
    ("max_tokens", "truncated"), ("refusal", "refusal"), ("stop_sequence", "stop_sequence"),
    ("model_context_window_exceeded", "context_window"), ("something_new", "unknown_stop_reason"),
])
def test_non_answer_stop_reasons_escalate_and_never_run_tools(db, settings, stop, kind):
    cut = respond(text("Let me close this ticket"), use("update_ticket", ticket_id="KITE-142", status="closed"),
                  stop=stop)
    model, _, run_id, state = run_script(db, settings, [cut])
    assert len(model.sent) == 1, "no retry after a non-answer"
    assert state.status == "escalated" and state.stop_kind == kind
    assert state.answer is None
    from bot.db.models import Ticket
    with db.session() as session:
        assert session.get(Ticket, "KITE-142").status == "open", "a cut-off or refused tool call never runs"
    [escalation] = escalations_of(db, run_id)
    assert escalation.kind == kind and escalation.reason == state.reason and "update_ticket" in escalation.summary
    assert run_row(db, run_id).messages[-1]["content"] == cut.content, "the history is kept for a person"


def test_empty_end_turn_is_not_an_answer(db, settings):
    _, _, _, state = run_script(db, settings, [respond(stop="end_turn")])
    assert state.status == "escalated" and state.stop_kind == "empty_answer"


def test_tool_use_stop_without_tool_calls_escalates(db, settings):
    _, _, _, state = run_script(db, settings, [respond(text("hmm"), stop="tool_use")])
    assert state.status == "escalated" and "no tool calls" in state.reason


def test_pause_turn_sends_history_back_and_is_bounded(db, settings):
    paused = respond(text("Searching…"), stop="pause_turn")
    model, _, _, state = run_script(db, settings, [paused, respond(text("Found it."))])
    assert state.status == "completed" and state.answer == "Searching…\nFound it."
    assert model.sent[1][-1] == {"role": "assistant", "content": paused.content}, "paused content sent back as is"
    assert len(state.messages) == 2, "the continuation stays one assistant message"

    _, _, _, state = run_script(db, settings, [paused] * 5, max_pause_continuations=2)
    assert state.status == "escalated" and state.stop_kind == "paused"


def test_tool_failures_come_back_as_is_error_results(db, settings, monkeypatch):
    def boom(ctx, ticket_id):
        raise RuntimeError("secret internal detail")

    monkeypatch.setitem(REGISTRY, "get_ticket", Tool(REGISTRY["get_ticket"].name, REGISTRY["get_ticket"].description,
                                                     REGISTRY["get_ticket"].input_schema, boom))
    calls = respond(use("no_such_tool", x=1), use("search_help", query=42), use("get_ticket", ticket_id="KITE-142"),
                    use("search_tickets", query="\"sso\" AND (login OR NEAR(x*)) NOT ^"))
    model, _, _, state = run_script(db, settings, [calls, respond(text("done"))])
    results = model.sent[1][-1]["content"]
    assert results[0]["is_error"] and "no tool called 'no_such_tool'" in results[0]["content"]
    assert results[1]["is_error"] and "Invalid arguments for search_help" in results[1]["content"]
    assert results[2]["is_error"] and "internal error" in results[2]["content"]
    assert "secret internal detail" not in results[2]["content"]
    assert "is_error" not in results[3], "FTS operators in a query are searched as words"
    assert state.status == "completed"


def test_unknown_ticket_tells_the_model_what_to_do(db, settings):
    model, _, _, _ = run_script(db, settings, [respond(use("get_ticket", ticket_id="KITE-999")), respond(text("x"))])
    result = model.sent[1][-1]["content"][0]
    assert result["is_error"] is True
    assert result["content"].startswith("No ticket 'KITE-999'. Ids look like KITE-142")


def test_results_are_truncated_with_a_visible_marker(db, settings):
    model, _, _, _ = run_script(db, settings, [respond(use("get_ticket", ticket_id="KITE-142")), respond(text("x"))],
                                tool_result_max_chars=300)
    content = model.sent[1][-1]["content"][0]["content"]
    assert content.endswith("chars]") and "[truncated: 300 of " in content


def test_usage_and_cost_are_accounted_per_step(db, settings):
    usage = Usage(input_tokens=1000, output_tokens=200, cache_read_tokens=5000, cache_write_tokens=800)
    model = ScriptedModel([respond(text("done"), usage=usage)], name="claude-opus-5")
    service = service_with(db, settings, model)
    run_id = service.start(GOAL)
    state = service.resume(run_id)
    expected = (1000 * 5 + 200 * 25 + 5000 * 0.5 + 800 * 6.25) / 1e6
    assert state.cost_usd == pytest.approx(expected)
    [step] = steps_of(db, run_id)
    assert (step.input_tokens, step.output_tokens, step.cache_read_tokens, step.cache_write_tokens) == (1000, 200, 5000, 800)
    assert run_row(db, run_id).total_tokens == 7000


SERVER_TOOL_TURN = [  # a paused turn as the Messages API documents it: the server's own tool, mid-way
    {"type": "text", "text": "Let me look that up."},
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "okta saml rotation"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
     "content": [{"type": "web_search_result", "url": "https://example.com/okta", "title": "Okta",
                  "encrypted_content": "EqgfCioIARgBIiQ3", "page_age": None}]},
]


def test_a_paused_turn_with_server_tool_blocks_is_sent_back_as_it_came_and_resumes(db, settings):
    paused = respond(*SERVER_TOOL_TURN, stop="pause_turn")
    model, _, _, state = run_script(db, settings, [paused, respond(text("Found it."))])
    assert state.status == "completed", state.reason
    assert model.sent[1][-1] == {"role": "assistant", "content": SERVER_TOOL_TURN}, "sent back verbatim"


def test_every_response_block_type_the_sdk_documents_is_accepted_and_an_unknown_one_refused():
    import typing

    import anthropic.types as api

    from bot.agent.checks import KNOWN_BLOCKS, response_problems

    documented = {cls.model_fields["type"].annotation.__args__[0]
                  for cls in typing.get_args(typing.get_args(api.ContentBlock)[0])}
    assert documented <= KNOWN_BLOCKS and {"server_tool_use", "web_search_tool_result"} <= documented
    assert response_problems([{"type": "made_up_block"}], set()) == ["block 0 has the unknown type 'made_up_block'"]
