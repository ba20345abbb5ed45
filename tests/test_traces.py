"""Runs as OpenTelemetry spans after the GenAI semantic conventions, read back from the SDK's in-memory
exporter: the KITE-142 run (offline model, an approval, completion) on both databases; no prompt or customer
text on any span unless KITEBASE_TRACE_CONTENT asks for it, and then with secrets cut."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from opentelemetry.trace import SpanKind
from sqlmodel import select

from bot.agent.model import AnthropicModel
from bot.db.models import Approval, Step, TicketMessage
from bot.runs.execution.sweeps import expire_approvals
from bot.runs.lifecycle.service import RunService
from standins.anthropic_server import MessagesAPIServer, error, reply, tool_use
from tests.helpers import approvals_of, service_with, steps_of
from tests.scripted import ScriptedModel, respond, text, use
from tests.traces import attrs, events, every_text, in_memory_spans, named

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


def _kite_142(db, settings, goal: str = GOAL) -> tuple[int, Approval]:
    service = RunService(db, settings)
    run_id = service.start(goal)
    assert service.resume(run_id).status == "awaiting_approval"
    [approval] = approvals_of(db, run_id)
    service.decide(approval.id, action="approve", actor="ULEAD")
    assert service.resume(run_id).status == "completed"
    return run_id, approval


def test_the_kite_142_run_is_two_agent_segments_of_chat_and_tool_spans(db, settings):
    with in_memory_spans() as exported:
        run_id, approval = _kite_142(db, settings)
        spans = exported.get_finished_spans()

    first, second = named(spans, "invoke_agent kitebase")
    expected = {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "anthropic",
                "gen_ai.agent.name": "kitebase", "gen_ai.conversation.id": str(run_id), "kitebase.run.id": run_id,
                "kitebase.ticket.id": "KITE-142", "gen_ai.request.model": "kitebase-offline"}
    for segment in (first, second):
        assert {k: attrs(segment).get(k) for k in expected} == expected
        assert segment.parent is None and segment.status.is_unset
    assert attrs(first)["kitebase.run.status"] == "awaiting_approval"
    assert attrs(second)["kitebase.run.status"] == "completed"
    [requested] = events(first, "kitebase.approval.requested")
    assert requested == {"gen_ai.tool.name": "reply_to_customer", "gen_ai.tool.call.id": approval.tool_use_id,
                         "kitebase.ticket.id": "KITE-142", "kitebase.approval.other_ticket": False}

    chats = named(spans, "chat kitebase-offline")
    steps = [s for s in steps_of(db, run_id) if s.kind == "model"]
    assert len(chats) == len(steps) == 5
    for chat, step in zip(chats, steps, strict=True):
        a = attrs(chat)
        assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.provider.name"] == "anthropic"
        assert a["gen_ai.request.model"] == a["gen_ai.response.model"] == "kitebase-offline"
        assert a["gen_ai.usage.input_tokens"] == step.input_tokens + step.cache_read_tokens + step.cache_write_tokens
        assert a["gen_ai.usage.output_tokens"] == step.output_tokens > 0
        assert a["gen_ai.usage.cache_read.input_tokens"] == step.cache_read_tokens
        assert a["gen_ai.usage.cache_creation.input_tokens"] == step.cache_write_tokens
        assert a["gen_ai.response.finish_reasons"] == (step.stop_reason,)
        assert a["gen_ai.conversation.id"] == str(run_id)
    assert [c.parent.span_id for c in chats] == [first.context.span_id] * 3 + [second.context.span_id] * 2
    assert attrs(first)["gen_ai.usage.output_tokens"] == sum(s.output_tokens for s in steps[:3])

    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    ran = [(c["name"], c["id"]) for s in steps_of(db, run_id) for c in s.tool_calls or []
           if c.get("status") in ("ran", "approved")]
    assert sorted((attrs(t)["gen_ai.tool.name"], attrs(t)["gen_ai.tool.call.id"]) for t in tools) == sorted(ran)
    for tool in tools:
        assert tool.name == f"execute_tool {attrs(tool)['gen_ai.tool.name']}"
        assert attrs(tool)["gen_ai.operation.name"] == "execute_tool" and tool.status.is_ok
        segment = first if tool.start_time < second.start_time else second
        assert tool.parent.span_id == segment.context.span_id and tool.context.trace_id == segment.context.trace_id
    [reply] = [t for t in tools if attrs(t)["gen_ai.tool.name"] == "reply_to_customer"]
    assert reply.parent.span_id == second.context.span_id, "the approved reply runs in the second segment"

    [decided] = named(spans, "kitebase.approval.decide")
    [event] = events(decided, "kitebase.approval.decided")
    assert event["kitebase.approval.outcome"] == "approved" and event["kitebase.approval.decided_by"] == "ULEAD"
    assert 0 <= event["kitebase.approval.waited_seconds"] < 60
    assert attrs(decided)["gen_ai.conversation.id"] == str(run_id)


def test_no_prompt_or_customer_text_on_any_span_without_trace_content(db, settings):
    with in_memory_spans() as exported:
        run_id, approval = _kite_142(db, settings)
        everything = every_text(exported.get_finished_spans())
    with db.session() as session:
        customer = [m.body for m in session.exec(select(TicketMessage).where(TicketMessage.ticket_id == "KITE-142"))]
        answers = [s.text for s in session.exec(select(Step).where(Step.run_id == run_id)) if s.text]
    secrets_of_the_run = [GOAL, approval.tool_input["message"], *customer, *answers]
    for piece in secrets_of_the_run:
        for line in piece.splitlines():
            if len(line) > 24:
                assert line not in everything, f"found on a span: {line[:80]!r}"
    assert "Dana" not in everything and "gen_ai.input.messages" not in everything


def test_trace_content_puts_the_messages_on_the_spans_with_secrets_cut(db, settings):
    key = "sk-ant-api03-" + "Z" * 40
    with in_memory_spans(content=True) as exported:
        run_id, approval = _kite_142(db, settings, goal=f"{GOAL} (our key was {key}, sorry)")
        spans = exported.get_finished_spans()
    everything = every_text(spans)
    assert key not in everything and "[redacted]" in everything
    first_chat = attrs(named(spans, "chat kitebase-offline")[0])
    [message] = json.loads(first_chat["gen_ai.input.messages"])
    assert message["role"] == "user" and message["parts"][0]["type"] == "text"
    assert message["parts"][0]["content"].startswith(GOAL) and "[redacted]" in message["parts"][0]["content"]
    assert json.loads(first_chat["gen_ai.system_instructions"])[0]["type"] == "text"
    [output] = json.loads(first_chat["gen_ai.output.messages"])
    assert output["role"] == "assistant" and output["finish_reason"] == "tool_call"
    assert output["parts"][-1]["type"] == "tool_call" and output["parts"][-1]["name"] == "get_ticket"
    [reply] = [t for t in spans if t.name == "execute_tool reply_to_customer"]
    assert json.loads(attrs(reply)["gen_ai.tool.call.arguments"])["message"] == approval.tool_input["message"]
    assert "Dana" in attrs(reply)["gen_ai.tool.call.arguments"]


def test_a_guard_trip_and_the_escalation_are_events(db, settings):
    service = RunService(db, settings.model_copy(update={"max_steps": 2}))  # the offline model needs 3 to a draft
    with in_memory_spans() as exported:
        run_id = service.start(GOAL)
        state = service.resume(run_id)
        spans = exported.get_finished_spans()
    assert state.status == "escalated" and state.stop_kind == "guard"
    [segment] = named(spans, "invoke_agent kitebase")
    [guard] = events(segment, "kitebase.guard.tripped")
    assert "KITEBASE_MAX_STEPS" in guard["kitebase.guard.reason"]
    [escalated] = events(segment, "kitebase.run.escalated")
    assert escalated == {"kitebase.escalation.kind": "guard"}, "no reason text without KITEBASE_TRACE_CONTENT"
    assert attrs(segment)["kitebase.run.stop_kind"] == "guard" and segment.status.is_unset


def test_tool_errors_and_refused_calls_are_error_spans(db, settings):
    repeated = [use("get_ticket", ticket_id="KITE-142") for _ in range(3)]  # refused: KITEBASE_MAX_REPEATS=2
    model = ScriptedModel([respond(use("get_ticket", ticket_id="KITE-999"), use("no_such_tool", q="x"), *repeated),
                           respond(text("I could not find that ticket."))])
    service = service_with(db, settings, model)
    with in_memory_spans() as exported:
        run_id = service.start("handle KITE-142")
        assert service.resume(run_id).status == "completed"
        spans = exported.get_finished_spans()
    [segment] = named(spans, "invoke_agent kitebase")
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    assert len(tools) == 5 and {t.parent.span_id for t in tools} == {segment.context.span_id}
    for tool in tools:
        assert attrs(tool)["error.type"] == "tool_error" and not tool.status.is_ok and not tool.status.is_unset
        assert tool.status.description is None, "what the model read is content"
    status = sorted((attrs(t)["gen_ai.tool.name"], attrs(t)["kitebase.tool.status"]) for t in tools)
    assert status == [("get_ticket", "ran")] + [("get_ticket", "refused")] * 3 + [("no_such_tool", "ran")]
    refused = [t for t in tools if attrs(t)["kitebase.tool.status"] == "refused"]
    assert {attrs(t)["gen_ai.tool.call.id"] for t in refused} == {u["id"] for u in repeated}
    assert all(t.end_time == t.start_time for t in refused), "never run: a span of no length"


def test_a_sweep_that_expires_a_draft_is_an_escalation_span(db, settings):
    service = RunService(db, settings)
    run_id = service.start(GOAL)
    service.resume(run_id)
    with in_memory_spans() as exported:
        expired = expire_approvals(service, datetime.now(UTC) + timedelta(days=2), settings.approval_ttl_seconds)
        spans = exported.get_finished_spans()
    assert [a.run_id for a in expired] == [run_id]
    [sweep] = named(spans, "kitebase.run.escalate")
    assert attrs(sweep)["gen_ai.conversation.id"] == str(run_id) and "gen_ai.operation.name" not in attrs(sweep)
    assert events(sweep, "kitebase.run.escalated") == [{"kitebase.escalation.kind": "approval_expired"}]
    assert not named(spans, "invoke_agent kitebase")


def test_a_resume_with_nothing_to_do_makes_no_span(db, settings):
    service = RunService(db, settings)
    run_id = service.start(GOAL)
    service.resume(run_id)
    with in_memory_spans() as exported:
        assert service.resume(run_id).status == "awaiting_approval"  # still waiting for the lead
        assert exported.get_finished_spans() == ()


def test_the_real_client_is_a_client_chat_span_with_the_sdk_span_inside(db, settings):
    usage = {"input_tokens": 900, "output_tokens": 120, "cache_read_input_tokens": 2400,
             "cache_creation_input_tokens": 300}
    with MessagesAPIServer() as server, in_memory_spans(make_global=True) as exported:
        server.queue(reply(tool_use("get_ticket", {"ticket_id": "KITE-142"}), usage=usage),
                     reply(text("Read it; nothing else to do."), usage=usage))
        model = AnthropicModel(api_key="sk-ant-test-0123456789", model="claude-opus-5", base_url=server.url,
                               max_retries=0)
        service = service_with(db, settings, model)
        run_id = service.start("handle KITE-142")
        assert service.resume(run_id).status == "completed"
        spans = exported.get_finished_spans()
    chats = named(spans, "chat claude-opus-5")
    assert len(chats) == 2 and all(c.kind == SpanKind.CLIENT for c in chats)
    a = attrs(chats[0])
    assert a["gen_ai.usage.input_tokens"] == 900 + 2400 + 300 and a["gen_ai.usage.output_tokens"] == 120
    assert a["gen_ai.usage.cache_read.input_tokens"] == 2400 and a["gen_ai.usage.cache_creation.input_tokens"] == 300
    assert a["gen_ai.response.model"] == "claude-opus-5" and a["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert a["anthropic.request.id"].startswith("req_")
    sdk = named(spans, "anthropic.messages.create")
    assert [s.parent.span_id for s in sdk] == [c.context.span_id for c in chats], "the SDK's HTTP call nests"
    [segment] = named(spans, "invoke_agent kitebase")
    assert attrs(segment)["gen_ai.usage.input_tokens"] == 2 * 3600


def test_a_failed_model_call_is_an_error_chat_span_without_the_upstream_text(db, settings):
    with MessagesAPIServer() as server, in_memory_spans() as exported:
        server.queue(error(400, "invalid_request_error", "prompt is too long: Hi Dana"))
        model = AnthropicModel(api_key="sk-ant-test-0123456789", model="claude-opus-5", base_url=server.url,
                               max_retries=0)
        service = service_with(db, settings, model)
        state = service.resume(service.start("handle KITE-142"))
        spans = exported.get_finished_spans()
    assert state.status == "escalated" and state.stop_kind == "model_error"
    [chat] = named(spans, "chat claude-opus-5")
    assert attrs(chat)["error.type"] == "bot.agent.errors.ModelCallFailed" and chat.status.description is None
    [segment] = named(spans, "invoke_agent kitebase")
    assert events(segment, "kitebase.run.escalated") == [{"kitebase.escalation.kind": "model_error"}]
    assert "Dana" not in every_text(spans)


def test_a_failure_in_the_telemetry_never_breaks_the_run(db, settings, monkeypatch, caplog):
    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug in a span maker")

    for module, name in (("chat", "_answered"), ("tool_calls", "_result"), ("segment", "Segment.finish"),
                         ("decisions", "_span")):
        target = __import__(f"bot.telemetry.{module}", fromlist=["x"])
        owner, _, attribute = name.rpartition(".")
        monkeypatch.setattr(getattr(target, owner) if owner else target, attribute, broken)
    with in_memory_spans() as exported:
        _kite_142(db, settings)  # completes: the spans are poorer, the run is not
        spans = exported.get_finished_spans()
    assert len(named(spans, "chat kitebase-offline")) == 5, "every span still ended"
    assert "telemetry: a chat span failed" in caplog.text and "a bug in a span maker" in caplog.text
