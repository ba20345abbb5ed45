"""The Slack app end to end: signed requests into the real Bolt app, the Web API stand-in recording replies."""

from __future__ import annotations

import json
import time

import pytest

from bot.db.models import Run
from standins.slack_harness import start_harness
from tests.helpers import PATIENCE, approvals_of, run_row, staff_replies
from tests.scripted import ScriptedModel, respond, text, use

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


def first_run(db) -> Run:
    with db.session() as session:
        from sqlmodel import select

        return session.exec(select(Run)).first()


def test_mention_shows_thoughts_and_waits_for_the_button(harness, db):
    ts, (status, _) = harness.send.mention(GOAL)
    assert status == 200
    harness.drain()
    run = first_run(db)
    assert run.status == "awaiting_approval" and run.origin["thread_ts"] == ts and run.started_by == "ULEAD"
    [started] = harness.slack.calls_to("chat.startStream")
    assert started["thread_ts"] == ts and "run #1" in started["chunks"][0]["text"], "the first message names the run"
    streamed = harness.slack.calls_to("chat.startStream") + harness.slack.calls_to("chat.appendStream")
    chunks = [c for call in streamed for c in call.get("chunks") or []]
    thoughts = [c["text"] for c in chunks if c["type"] == "markdown_text"]
    tasks = [c for c in chunks if c["type"] == "task_update"]
    assert any("I'll start by reading KITE-142" in t for t in thoughts)
    assert {t["title"].split()[0] for t in tasks} >= {"get_ticket", "search_help", "search_tickets"}
    card = harness.approval_card()
    assert card["call"]["thread_ts"] == ts and "Northwind Studio" in card["call"]["text"]
    assert staff_replies(db, "KITE-142") == [], "nothing sent before the click"
    assert not harness.slack.warnings


def test_approve_sends_once_and_the_run_finishes_in_the_thread(harness, db):
    ts, _ = harness.send.mention(GOAL)
    harness.drain()
    card = harness.approval_card()
    for _ in range(2):  # a double click
        status, _ = harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
        assert status == 200
    harness.drain()
    assert len(staff_replies(db, "KITE-142")) == 1
    run = run_row(db, first_run(db).id)
    assert run.status == "completed"
    # The card may be updated once ("Approved by …; sending…") or twice, depending on when the sender looks;
    # its last state is always the outcome, without buttons.
    last = [u for u in harness.slack.calls_to("chat.update") if u["ts"] == card["ts"]][-1]
    assert "Approved and sent by" in last["text"] and not any(b["type"] == "actions" for b in last["blocks"]), \
        "buttons gone, decision shown"
    ephemerals = harness.slack.calls_to("chat.postEphemeral")
    assert any("already approved" in e["text"] for e in ephemerals)
    final = harness.slack.calls_to("chat.postMessage")[-1]
    assert final["thread_ts"] == ts and "KITE-144" in final["text"]
    contexts = [b["elements"][0]["text"] for b in final["blocks"] if b["type"] == "context"]
    assert any("model calls" in c for c in contexts), "the usage line under the answer"
    offer = [b for b in final["blocks"] if b["type"] == "actions"]
    assert [e["text"]["text"] for b in offer for e in b["elements"]] == ["Draft for these 2"], \
        "the approved reply may fit the two tickets the report names"
    assert final["blocks"][-1]["elements"][0]["type"] == "feedback_buttons", "thumbs up / down under the answer"


def test_a_non_approver_click_sends_nothing(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    card = harness.approval_card()
    harness.send.click("approve_reply", card["value"], user="UOTHER")
    harness.drain()
    assert staff_replies(db, "KITE-142") == []
    assert approvals_of(db, first_run(db).id)[0].status == "pending"
    [note] = harness.slack.calls_to("chat.postEphemeral")
    assert note["user"] == "UOTHER" and "not allowed" in note["text"]


def test_edit_opens_a_prefilled_modal_and_sends_the_edit(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    card = harness.approval_card()
    harness.send.click("edit_reply", card["value"], message_ts=card["ts"])
    harness.drain()
    [opened] = harness.slack.calls_to("views.open")
    view = opened["view"]
    assert view["callback_id"] == "edit_reply_modal"
    assert "Hi Dana" in view["blocks"][1]["element"]["initial_value"]
    status, body = harness.send.submit(view, {"reply": {"message": "   "}})
    assert status == 200 and "can't be empty" in body
    harness.send.submit(view, {"reply": {"message": "Hi Dana, your bypass link is on its way."}})
    harness.drain()
    assert [m.body for m in staff_replies(db, "KITE-142")] == ["Hi Dana, your bypass link is on its way."]
    assert run_row(db, first_run(db).id).status == "completed"


def test_reject_needs_a_reason_and_the_model_gets_it(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    card = harness.approval_card()
    harness.send.click("reject_reply", card["value"], message_ts=card["ts"])
    harness.drain()
    view = harness.slack.calls_to("views.open")[-1]["view"]
    assert view["callback_id"] == "reject_reply_modal"
    status, body = harness.send.submit(view, {"reason": {"reason": ""}})
    assert "Say why" in body
    harness.send.submit(view, {"reason": {"reason": "Ask which IdP they moved to first"}})
    harness.drain()
    run = run_row(db, first_run(db).id)
    assert staff_replies(db, "KITE-142") == []
    assert run.status == "escalated" and "Ask which IdP they moved to first" in run.reason


def test_a_retried_event_starts_one_run(harness, db):
    ts, _ = harness.send.mention(GOAL, event_id="Ev1")
    harness.send.mention(GOAL, ts=ts, event_id="Ev1", retry=1)
    harness.send.event({"type": "message", "channel_type": "im", "user": "ULEAD", "text": GOAL, "ts": ts,
                        "channel": "CSUPPORT"})
    harness.drain()
    from sqlmodel import func, select

    with db.session() as session:
        assert session.exec(select(func.count()).select_from(Run)).one() == 1


def test_follow_up_in_the_thread_continues_the_conversation(harness, db):
    ts, _ = harness.send.mention(GOAL)
    harness.drain()
    harness.send.click("approve_reply", harness.approval_card()["value"])
    harness.drain()
    harness.send.mention("also check whether Harbor Pine uses Okta, see KITE-144", thread_ts=ts)
    harness.drain()
    run = run_row(db, first_run(db).id)
    assert run.status == "completed" and "SSO provider: Okta" in run.answer
    assert "also check whether Harbor Pine uses Okta" in str(run.messages)
    final = harness.slack.calls_to("chat.postMessage")[-1]
    assert final["thread_ts"] == ts and "Harbor Pine" in final["text"]


@pytest.mark.parametrize("goal, reply", [("please help", "couldn't find a ticket id"),
                                         ("handle KITE-999", "There is no ticket KITE-999")])
def test_bad_mentions_get_a_clear_reply_and_start_nothing(harness, db, goal, reply):
    ts, _ = harness.send.mention(goal)
    harness.drain()
    [posted] = harness.slack.calls_to("chat.postMessage")
    assert posted["thread_ts"] == ts and reply in posted["text"]
    assert first_run(db) is None


def test_a_ticket_with_a_live_run_starts_nothing_new(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    harness.send.mention("handle KITE-142 again please")
    harness.drain()
    assert "already has a live run" in harness.slack.calls_to("chat.postMessage")[-1]["text"]


def test_unsigned_stale_and_forged_requests_get_401(harness, db):
    body = b'{"type": "event_callback", "event": {"type": "app_mention"}}'
    assert harness.send.post(body, "application/json", signed=False)[0] == 401
    assert harness.send.post(body, "application/json", timestamp=int(time.time()) - 3600)[0] == 401
    assert harness.send.post(body, "application/json", headers={"X-Slack-Signature": "v0=" + "0" * 64})[0] == 401
    assert harness.slack.calls_to("chat.postMessage") == [] and first_run(db) is None


def test_unknown_buttons_and_gone_approvals_answer_ephemerally(harness, db):
    assert harness.send.click("launch_rockets", "{}")[0] == 200
    harness.send.click("approve_reply", '{"approval_id": 4242, "fingerprint": "x"}')
    harness.drain()
    texts = [e["text"] for e in harness.slack.calls_to("chat.postEphemeral")]
    assert any("don't know that button" in t for t in texts) and any("no longer exists" in t for t in texts)


def test_healthz(harness):
    import urllib.request

    with urllib.request.urlopen(harness.url + "/healthz", timeout=5) as response:
        assert response.status == 200 and b'"ok": true' in response.read()


def test_falls_back_to_posted_messages_when_streaming_is_unavailable(harness, db):
    harness.slack.streaming_supported = False
    ts, _ = harness.send.mention(GOAL)
    harness.drain()
    texts = " ".join(harness.thread_texts("CSUPPORT", ts))
    assert "I'll start by reading KITE-142" in texts and "get_ticket" in texts
    assert first_run(db).status == "awaiting_approval"


def test_a_guard_hit_reaches_the_queue_with_its_history_and_resume_continues(settings, db):
    h, stop = start_harness(settings.model_copy(update={"max_steps": 2}), db)
    try:
        ts, _ = h.send.mention(GOAL)
        h.drain()
        run = first_run(db)
        assert run.status == "escalated" and "KITEBASE_MAX_STEPS" in run.reason
        queued = [c for c in h.slack.calls_to("chat.postMessage") if c["channel"] == "CQUEUE"]
        assert len(queued) == 1 and "KITE-142" in queued[0]["text"] and "KITEBASE_MAX_STEPS" in queued[0]["text"]
        summary = " ".join(b.get("text", {}).get("text", "") for b in queued[0]["blocks"] if b["type"] == "section")
        assert "search_tickets" in summary and "https://" in summary, "summary and a link to the thread"
        [upload] = h.slack.uploads
        assert upload["channel_id"] == "CQUEUE" and "turn 1 · stop_reason=tool_use" in upload["content"]
        assert "xoxb-test" not in upload["content"]
        in_thread = h.slack.calls_to("chat.postMessage")
        assert any(c.get("thread_ts") == ts and "Stopped" in c["text"] for c in in_thread)

        h.send.click("claim_escalation", h.value("claim_escalation"), user="UHELPER", channel="CQUEUE")
        h.drain()
        assert any("*Claimed* by <@UHELPER>" in str(u["blocks"]) for u in h.slack.calls_to("chat.update")
                   if u["channel"] == "CQUEUE")
        h.send.click("resume_run", h.value("resume_run"), user="UHELPER", channel="CQUEUE")
        h.drain()
        run = run_row(db, run.id)
        assert run.steps == 3 and run.status == "awaiting_approval", "it picked up where it stopped: the draft"
        assert any("<@UHELPER> resumed run #1" in c["chunks"][0]["text"] for c in h.slack.calls_to("chat.startStream")
                   if c.get("thread_ts") == ts), "the thread says who resumed the run"
    finally:
        stop()


def test_close_escalation_needs_a_note(settings, db):
    h, stop = start_harness(settings.model_copy(update={"max_steps": 1}), db)
    try:
        h.send.mention(GOAL)
        h.drain()
        h.send.click("close_escalation", h.value("close_escalation"), channel="CQUEUE")
        h.drain()
        view = h.slack.calls_to("views.open")[-1]["view"]
        assert "Add a short note" in h.send.submit(view, {"note": {"note": " "}})[1]
        h.send.submit(view, {"note": {"note": "Called the customer; fixed by hand."}})
        h.drain()
        from bot.db.models import Escalation

        with db.session() as session:
            escalation = session.get(Escalation, 1)
        assert escalation.status == "closed" and "fixed by hand" in escalation.note
    finally:
        stop()


def test_app_home_shows_the_queue_and_waiting_replies(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    harness.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": "D1", "tab": "home"})
    harness.drain()
    view = harness.slack.home_views["ULEAD"]
    text = str(view["blocks"])
    assert "Replies waiting for approval (1)" in text and "KITE-142" in text
    harness.send.click("approve_reply", harness.approval_card()["value"])
    harness.drain()
    assert "Replies waiting for approval (0)" in str(harness.slack.home_views["ULEAD"]["blocks"]), "refreshed"


def test_slash_command(harness, db):
    status, body = harness.send.command("queue")
    assert status == 200 and "queue is empty" in body
    status, body = harness.send.command("handle KITE-999")
    assert "There is no ticket KITE-999" in body and first_run(db) is None
    status, body = harness.send.command(GOAL)
    harness.drain()
    assert status == 200 and first_run(db).status == "awaiting_approval"
    parent = harness.slack.calls_to("chat.postMessage")[0]
    assert "asked: handle KITE-142" in parent["text"] and "thread_ts" not in parent
    status, body = harness.send.command("status KITE-142")
    assert "awaiting approval" in body


def test_the_whole_draft_is_on_the_card_and_in_the_edit_modal(settings, db):
    draft = "Hi Dana,\n\n" + "Step <1> & then the next one, in detail. " * 70 + "\n\nThe very last line."
    assert 2_800 < len(draft) <= 3_000
    script = [respond(text("Drafting."), use("reply_to_customer", ticket_id="KITE-142", message=draft)),
              respond(text("Done: " + "x" * 45_000))]
    model = ScriptedModel(script)  # one model for the whole run: its script goes on after the decision
    h, stop = start_harness(settings, db, model_factory=lambda: model)
    try:
        h.send.mention(GOAL)
        h.drain()
        card = h.approval_card()
        quoted = "\n".join(b["text"]["text"] for b in card["call"]["blocks"]
                           if b["type"] == "section" and b["text"]["text"].startswith(">"))
        shown = "\n".join(line[2:] if line.startswith("> ") else line[1:] for line in quoted.splitlines())
        shown = shown.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        assert " ".join(shown.split()) == " ".join(draft.split()), "every word of the draft is on the card"
        assert "[cut:" not in str(card["call"]["blocks"]) and "The very last line." in shown
        h.send.click("edit_reply", card["value"], message_ts=card["ts"])
        modal = h.slack.calls_to("views.open")[-1]["view"]
        assert modal["blocks"][1]["element"]["initial_value"] == draft, "the Edit modal holds the whole draft"
        h.send.click("approve_reply", card["value"], message_ts=card["ts"])
        h.drain()
        assert [m.body for m in staff_replies(db, "KITE-142")] == [draft.strip()], "the customer gets what was shown"
        final = h.slack.calls_to("chat.postMessage")[-1]
        assert sum(len(b["text"]["text"]) for b in final["blocks"] if b["type"] == "section") >= 45_000
        failed = [c for c in h.slack.calls if not c["response"].get("ok")]
        assert failed == [], "Slack accepted every message"
    finally:
        stop()


def test_a_draft_quoting_an_internal_note_is_flagged_on_the_card_with_the_span(settings, db):
    """KITE-142's internal note (Priya Raman's SSO log reading) read by the run and copied into the draft: the card
    says so above the buttons and shows the words; nothing reaches the customer before a person decides."""
    draft = ("Hi Dana,\n\nWe checked: assertions now signed by a new cert with Issuer "
             "http://www.okta.com/exk9q2newtenant, so Kitebase rejects them. [account-recovery#2]\n\nKitebase Support")
    script = [respond(text("Reading."), use("get_ticket", ticket_id="KITE-142")),
              respond(text("Searching."), use("search_help", query="locked out sso")),
              respond(text("Drafting."), use("reply_to_customer", ticket_id="KITE-142", message=draft)),
              respond(text("Sent."))]
    model = ScriptedModel(script)
    h, stop = start_harness(settings, db, model_factory=lambda: model)
    try:
        h.send.mention(GOAL)
        h.drain()
        card = h.approval_card()
        blocks = card["call"]["blocks"]
        flag = next(i for i, b in enumerate(blocks) if "Quotes internal text" in json.dumps(b))
        shown = json.dumps(blocks[flag], ensure_ascii=False)
        assert "an internal note by Priya Raman on KITE-142" in shown
        assert "“assertions now signed by a new cert with Issuer http://www.okta.com/exk9q2newtenant”" in shown
        assert flag < [b["type"] for b in blocks].index("actions"), "seen before the buttons"
        assert staff_replies(db, "KITE-142") == [] and not h.slack.warnings
    finally:
        stop()


def test_a_draft_longer_than_the_card_and_modal_hold_is_sent_back_to_the_model(settings, db):
    long_draft = "Hi Dana,\n\n" + "Here is every step in detail. " * 190  # ~5,700 chars
    script = [respond(text("Drafting."), use("reply_to_customer", ticket_id="KITE-142", message=long_draft)),
              lambda messages: respond(text("It was too long: " + messages[-1]["content"][0]["content"]))]
    h, stop = start_harness(settings, db, model_factory=lambda: ScriptedModel(script))
    try:
        h.send.mention(GOAL)
        h.drain()
        run = first_run(db)
        assert run.status == "completed" and "the limit is 3,000" in run.answer
        assert approvals_of(db, run.id) == [] and staff_replies(db, "KITE-142") == []
    finally:
        stop()


def test_ratelimited_posts_are_retried(harness, db):
    harness.slack.ratelimit("chat.postMessage", times=1, retry_after=1)
    harness.send.mention(GOAL)
    harness.drain()
    assert first_run(db).status == "awaiting_approval"
    assert harness.approval_card()


def test_fifty_mentions_are_fifty_concurrent_runs(settings, db):
    import json
    import threading

    active, peak, lock, all_in = [0], [0], threading.Lock(), threading.Event()
    deadline = time.monotonic() + PATIENCE

    def held(messages):
        """A model that answers only once every run waits on it at the same time: runs pile up unless each gets
        its own thread (a model that took 1.5 s raced the mentions' arrival on a slow machine)."""
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
            if active[0] == 50:
                all_in.set()
        all_in.wait(max(0.0, deadline - time.monotonic()))
        with lock:
            active[0] -= 1
        return respond(text("Nothing to add."))

    tickets = [t["id"] for t in json.loads((settings.data_dir / "tickets.json").read_text())][:50]
    h, stop = start_harness(settings, db, model_factory=lambda: ScriptedModel(held))
    try:
        for ticket in tickets:
            h.send.mention(f"handle {ticket}", user="ULEAD")
        assert all_in.wait(PATIENCE), f"runs overlapped only {peak[0]} at a time (Bolt's own pool would cap it at 5)"
        h.drain(timeout=PATIENCE)
        from sqlmodel import select

        with db.session() as session:
            runs = session.exec(select(Run)).all()
        assert len(runs) == 50 and all(r.status == "completed" for r in runs)
    finally:
        stop()


def test_approvers_and_user_groups_decide_instead_of_the_starter(settings, db):
    h, stop = start_harness(settings.model_copy(update={"approvers": frozenset({"UBOSS", "SLEADS"})}), db)
    h.slack.usergroups["SLEADS"] = ["UGROUPIE"]
    h.ctx.groups.refresh(h.sender.client, h.ctx.settings.approvers)  # the timer's job in `serve`
    try:
        h.send.mention(GOAL, user="ULEAD")
        h.drain()
        card = h.approval_card()
        assert "Approvers:" in str(card["call"]["blocks"])
        h.send.click("approve_reply", card["value"], user="ULEAD")
        h.drain()
        assert staff_replies(db, "KITE-142") == [], "the starter is not an approver here"
        h.send.click("approve_reply", card["value"], user="UGROUPIE")
        h.drain()
        assert len(staff_replies(db, "KITE-142")) == 1
    finally:
        stop()
