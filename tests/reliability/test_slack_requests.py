"""Whatever Slack (or someone pretending to be Slack) sends: a clear answer, nothing half-written, nothing
lost, nothing done twice. Signed requests into the real app; the Slack Web API stand-in records the rest."""

from __future__ import annotations

import json
import threading
import time

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sqlmodel import select

from bot.db.models import Approval, Delivery
from tests.helpers import all_runs as runs
from tests.helpers import staff_replies

GOAL = "handle KITE-142"
HOSTILE = "<!channel> <!everyone> <http://evil.example|kitebase.com/login> <@U0ADMIN>"


def every_text_posted(h) -> list[str]:
    found = []
    for call in h.slack.calls:
        args = call["args"]
        found += [str(args.get("text") or "")]
        found += [json.dumps(args.get("blocks") or []), json.dumps(args.get("chunks") or [])]
    return found


@pytest.mark.parametrize("body, content_type", [
    (b"not json at all", "application/json"),
    (b"[1, 2, 3]", "application/json"),
    (b'{"type": "event_callback", "event": "app_mention"}', "application/json"),
    (b'{"type": "event_callback", "event": {"type": "app_mention", "text": "hi"}}', "application/json"),
    (b"payload=%7Bnot-json", "application/x-www-form-urlencoded"),
    (b"payload=%5B%5D", "application/x-www-form-urlencoded"),
    (b'payload={"type": "block_actions", "user": {"id": "U1"}, "actions": "approve"}',
     "application/x-www-form-urlencoded"),
    (b"\xff\xfe\x00garbage", "application/json"),
])
def test_malformed_signed_requests_get_400_and_change_nothing(harness, db, body, content_type):
    status, answer = harness.send.post(body, content_type)
    assert status == 400 and json.loads(answer)["ok"] is False
    assert runs(db) == [] and harness.slack.calls_to("chat.postMessage") == []


@pytest.mark.parametrize("headers", [
    {"X-Slack-Request-Timestamp": "yesterday", "X-Slack-Signature": "v0=abc"},
    {"X-Slack-Request-Timestamp": "", "X-Slack-Signature": ""},
    {"X-Slack-Request-Timestamp": "1" * 40, "X-Slack-Signature": "v0=" + "0" * 64},
])
def test_unsigned_requests_with_odd_timestamps_get_401(harness, db, headers):
    status, _ = harness.send.post(b'{"type": "event_callback"}', "application/json", signed=False, headers=headers)
    assert status == 401 and runs(db) == []


def test_user_and_model_text_is_escaped_in_every_text_field(harness, db):
    ts, _ = harness.send.mention(f"{GOAL} {HOSTILE}")
    harness.send.mention(f"please {HOSTILE}")  # no ticket id: the thread is told, quoting nothing raw
    harness.send.command(f"status {HOSTILE}")
    harness.send.command(f"handle KITE-144 {HOSTILE}")  # echoed in the channel as "<@lead> asked: …"
    harness.drain()
    posted = every_text_posted(harness)
    for raw in ("<!channel>", "<!everyone>", "<http://evil.example|", "<@U0ADMIN>"):
        assert not any(raw in text for text in posted), f"{raw} reached Slack unescaped"
    assert any("&lt;!channel&gt;" in text for text in posted), "the text is there, defused"


@pytest.mark.parametrize("weird", ["KITE-142 \x00 with a NUL", "KITE-142 with a lone \udcff surrogate"])
def test_a_mention_with_text_a_database_cannot_store_still_becomes_a_run(harness, db, weird):
    status, _ = harness.send.post(json.dumps({
        "type": "event_callback", "team_id": "T0TEAM", "event_id": "Ev-weird", "event": {
            "type": "app_mention", "user": "ULEAD", "channel": "CSUPPORT", "ts": "1800000099.000100",
            "text": f"<@U0BOT> handle {weird}"}}, ensure_ascii=True).encode(), "application/json")
    harness.drain()
    assert status == 200
    [run] = runs(db)
    assert run.ticket_id == "KITE-142" and "\x00" not in run.goal


def test_the_same_event_five_times_in_a_row_and_at_once_is_one_run(harness, db):
    ts, _ = harness.send.mention(GOAL, event_id="EvSeq")
    for retry in range(1, 5):
        harness.send.mention(GOAL, ts=ts, event_id="EvSeq", retry=retry)
    barrier = threading.Barrier(5)

    def at_once(i: int) -> None:
        barrier.wait()
        harness.send.mention("handle KITE-144", ts="1800000777.000100", event_id="EvPar", retry=i or None)

    threads = [threading.Thread(target=at_once, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    harness.drain()
    assert sorted(r.ticket_id for r in runs(db)) == ["KITE-142", "KITE-144"]
    with db.session() as session:
        assert len(session.exec(select(Delivery)).all()) == 2
    assert not [c for c in harness.slack.calls_to("chat.postMessage") if "already has a live run" in (c.get("text") or "")], \
        "a duplicate is dropped quietly, not answered as a second request"


def _card_value(h) -> str:
    for call in h.slack.calls_to("chat.postMessage"):
        for block in call.get("blocks") or []:
            if block.get("type") == "actions" and block["elements"][0]["action_id"] == "approve_reply":
                return block["elements"][0]["value"]
    raise AssertionError("no card")


def test_twenty_approve_clicks_at_once_send_one_reply(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    value, barrier = _card_value(harness), threading.Barrier(20)
    statuses = []

    def click() -> None:
        barrier.wait()
        statuses.append(harness.send.click("approve_reply", value)[0])

    threads = [threading.Thread(target=click) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    harness.drain()
    assert statuses == [200] * 20
    assert len(staff_replies(db, "KITE-142")) == 1
    told = [e for e in harness.slack.calls_to("chat.postEphemeral") if "already approved" in e["text"].lower()]
    assert len(told) == 19, "everyone else is told it was already decided"


def test_approve_racing_reject_one_decision_wins_and_everything_agrees(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    value = _card_value(harness)
    harness.send.click("reject_reply", value)
    view = harness.slack.calls_to("views.open")[-1]["view"]
    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=lambda: (barrier.wait(), harness.send.click("approve_reply", value))),
               threading.Thread(target=lambda: (barrier.wait(), harness.send.submit(view, {"reason": {"reason": "no"}})))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    harness.drain()
    with db.session() as session:
        [approval] = session.exec(select(Approval)).all()
    sent = staff_replies(db, "KITE-142")
    assert approval.status in ("approved", "rejected")
    assert len(sent) == (1 if approval.status == "approved" else 0)
    final_card = [u for u in harness.slack.calls_to("chat.update") if "reply to Northwind" in (u.get("text") or "").lower()
                  or "Northwind" in (u.get("text") or "")][-1]
    assert ("Rejected" in final_card["text"]) == (approval.status == "rejected")


slack_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200) | st.sampled_from(
    ["KITE-142", "kite 142 <!here>", "\x00", "handle KITE-99999999", "<@U1> " * 30, "KITE-142" * 600])


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=slack_text, channel=st.sampled_from(["CSUPPORT", "C" + "X" * 60, "D1"]),
       thread=st.one_of(st.none(), st.sampled_from(["1.1", "1800000001.000100", "not-a-ts"])))
def test_any_mention_is_answered_200_and_ends_as_a_run_or_a_sentence(harness, db, text, channel, thread):
    before = len(runs(db))
    ts, (status, _) = harness.send.mention(text, channel=channel, thread_ts=thread)
    assert status == 200
    harness.drain()
    made = len(runs(db)) - before
    notices = [c for c in harness.slack.calls_to("chat.postMessage") if c.get("thread_ts") in (ts, thread)
               and c["blocks"][0]["text"]["text"].startswith(":information_source:")]
    assert made == 1 or notices, "an acknowledged mention is never dropped silently"


slack_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                          lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                       max_size=4), max_leaves=12)


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.fixed_dictionaries({"type": st.sampled_from(["event_callback", "block_actions", "view_submission",
                                                                "url_verification", "shortcut", "x"])},
                                     optional={"event": slack_json, "user": slack_json, "actions": slack_json,
                                               "view": slack_json, "challenge": slack_json}))
def test_any_signed_payload_gets_a_2xx_or_4xx_never_a_500(harness, db, payload):
    status, _ = harness.send.post(json.dumps(payload).encode(), "application/json")
    form_status, _ = harness.send.interaction(payload)
    assert status < 500 and form_status < 500
    time.sleep(0)
