"""The Slack side as spans: a server span per signed request into the real Bolt app (a decision made in a
click is its child), and a span per outbox row the real sender delivered to the Slack stand-in."""

from __future__ import annotations

from opentelemetry.trace import SpanKind
from sqlmodel import select

from bot.db.models import Run
from standins.slack_harness import start_harness
from tests.traces import attrs, in_memory_spans, named

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


def first_run_id(db) -> int:
    with db.session() as session:
        return int(session.exec(select(Run.id)).first())


def test_slack_requests_and_outbox_deliveries_are_spans(settings, db):
    with in_memory_spans() as exported:
        harness, stop = start_harness(settings, db)  # make_wsgi reads the tracing state when it is built
        try:
            ts, (status, _) = harness.send.mention(GOAL)
            harness.drain()
            card = harness.approval_card()
            harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
            harness.drain()
            harness.send.command("")  # a slash command: answered, no run
        finally:
            stop()
        spans = exported.get_finished_spans()
    run_id = first_run_id(db)

    requests = named(spans, "POST /slack/events")
    kinds = [attrs(r).get("kitebase.slack.request.type") for r in requests]
    assert kinds[:2] == ["event_callback:app_mention", "block_actions:approve_reply"]
    assert kinds[2].startswith("command:/")
    for request in requests:
        assert request.kind == SpanKind.SERVER and attrs(request)["http.response.status_code"] == 200
        assert attrs(request)["http.route"] == "/slack/events" and attrs(request)["http.request.method"] == "POST"
    mention, click = requests[:2]
    assert attrs(mention)["gen_ai.conversation.id"] == str(run_id), "the request names the run it started"
    assert attrs(click)["gen_ai.conversation.id"] == str(run_id), "and the run it decided on"
    assert "gen_ai.conversation.id" not in attrs(requests[2])
    [decision] = named(spans, "kitebase.approval.decide")
    assert decision.parent.span_id == click.context.span_id and decision.context.trace_id == click.context.trace_id
    assert attrs(decision)["kitebase.approval.decided_by"] == "ULEAD"

    segments = named(spans, "invoke_agent kitebase")
    assert len(segments) == 2
    assert {attrs(s)["kitebase.slack.thread"] for s in segments} == {f"CSUPPORT:{ts}"}

    deliveries = named(spans, "kitebase.outbox.deliver")
    assert deliveries and all(d.kind == SpanKind.CLIENT for d in deliveries)
    cards = [attrs(d) for d in deliveries if attrs(d)["kitebase.outbox.kind"] == "card"]
    posted, decided = cards[0], cards[-1]  # the card, then the card showing the decision
    assert posted["kitebase.outbox.methods"] == ("chat.postMessage",) and posted["kitebase.outbox.attempts"] == 1
    assert decided["kitebase.outbox.methods"] == ("chat.update",)
    assert posted["gen_ai.conversation.id"] == str(run_id) and posted["kitebase.slack.channel"] == "CSUPPORT"
    assert any(attrs(d)["kitebase.outbox.kind"] == "final" for d in deliveries)
    for delivery in deliveries:
        a = attrs(delivery)
        assert a["kitebase.outbox.outcome"] in ("sent", "nothing_to_send"), a
        assert delivery.status.is_unset


def test_a_delivery_slack_refused_for_now_is_a_retry_span(settings, db):
    with in_memory_spans() as exported:
        harness, stop = start_harness(settings, db)
        harness.slack.ratelimit("chat.postMessage", retry_after=1)  # the approval card's first post
        try:
            harness.send.mention(GOAL)
            harness.drain()
        finally:
            stop()
        spans = exported.get_finished_spans()
    cards = [d for d in named(spans, "kitebase.outbox.deliver") if attrs(d)["kitebase.outbox.kind"] == "card"]
    refused, posted = cards[0], cards[-1]
    assert attrs(refused)["kitebase.outbox.outcome"] == "retry" and attrs(refused)["error.type"] == "ratelimited"
    assert not refused.status.is_ok and not refused.status.is_unset
    assert attrs(posted)["kitebase.outbox.outcome"] == "sent" and attrs(posted)["kitebase.outbox.attempts"] == 2
    assert attrs(posted)["gen_ai.conversation.id"] == str(first_run_id(db))
