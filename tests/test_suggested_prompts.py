"""The Messages tab's suggested prompts, end to end: signed events into the real Bolt app, the outbox sender
delivering to the Slack stand-in. Opening the tab pins the prompts in the DM; each prompt, sent as a DM, is
answered in that DM's thread with real content; anything else in a DM is a request as before."""

from __future__ import annotations

import itertools

import pytest
from sqlmodel import select

from bot.db.models import Run
from bot.runs.intake import suggestions
from tests.helpers import run_row

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
DM = "DLEAD"
_ts = itertools.count(1)


def dm(harness, text: str, *, user: str = "ULEAD", channel: str = DM, thread_ts: str | None = None) -> str:
    """A person's message in their DM with the app (what a clicked prompt sends); returns its ts."""
    ts = f"{1_900_000_000 + next(_ts)}.000200"
    event = {"type": "message", "channel_type": "im", "user": user, "text": text, "ts": ts, "channel": channel,
             "event_ts": ts}
    if thread_ts:
        event["thread_ts"] = thread_ts
    status, _ = harness.send.event(event)
    assert status == 200
    return ts


def replies(harness, ts: str, channel: str = DM) -> list[dict]:
    """What the app posted in the thread of the message `ts`."""
    return [c for c in harness.slack.calls_to("chat.postMessage") if c["channel"] == channel
            and c.get("thread_ts") == ts]


def runs(db) -> list[Run]:
    with db.session() as session:
        return list(session.exec(select(Run).order_by(Run.id)).all())


# --- the prompts are set ----------------------------------------------------------------------------

def test_opening_the_messages_tab_pins_the_prompts_in_the_dm(harness):
    harness.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": DM, "tab": "messages",
                        "event_ts": "1.1"})
    harness.drain()
    [call] = harness.slack.calls_to("assistant.threads.setSuggestedPrompts")
    assert "thread_ts" not in call, "an agent app's call with thread_ts fails silently"
    assert harness.slack.suggested_prompts == {DM: {"title": suggestions.PROMPTS_TITLE,
                                                    "prompts": suggestions.as_slack()}}
    assert len(harness.slack.suggested_prompts[DM]["prompts"]) == 4
    assert harness.slack.home_views == {}, "the Home tab is not published for the Messages tab"


def test_the_home_tab_gets_its_view_and_no_prompts(harness):
    harness.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": DM, "tab": "home"})
    harness.drain()
    assert "ULEAD" in harness.slack.home_views
    assert harness.slack.calls_to("assistant.threads.setSuggestedPrompts") == []


def test_a_workspace_that_refuses_the_prompts_still_answers_them(harness, caplog):
    """No agent features (no paid plan, assistant:write missing): the refusal is logged once, nothing retries."""
    harness.slack.fail("assistant.threads.setSuggestedPrompts", "missing_scope", times=2)
    for _ in range(2):
        harness.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": DM, "tab": "messages"})
        harness.drain()
    assert harness.slack.suggested_prompts == {}
    assert len(harness.slack.calls_to("assistant.threads.setSuggestedPrompts")) == 2
    warned = [r for r in caplog.records if "refused the suggested prompts" in r.getMessage()]
    assert [r.levelname for r in warned] in (["WARNING"], ["WARNING", "DEBUG"])
    ts = dm(harness, "Show the human queue")
    harness.drain()
    assert "queue is empty" in replies(harness, ts)[0]["text"]


# --- each prompt is answered in the DM thread --------------------------------------------------------

def test_whats_waiting_for_my_approval_lists_the_drafts_i_may_decide(harness, db):
    harness.send.mention(GOAL)  # ULEAD's run in a channel: its draft waits for ULEAD (no KITEBASE_APPROVERS)
    harness.drain()
    card = harness.approval_card()
    ts = dm(harness, "What's waiting for my approval?")
    other = dm(harness, "What's waiting for my approval?", user="UOTHER", channel="DOTHER")
    harness.drain()
    [answer] = replies(harness, ts)
    shown = str(answer["blocks"])
    assert "1 draft(s) wait for your approval" in answer["text"]
    assert "KITE-142" in shown and "run #1" in shown and "draft #1" in shown
    assert "> Hi Dana" in shown, "the start of the drafted reply"
    assert f"p{card['call']['thread_ts'].replace('.', '')}" in shown, "a link to the card's thread"
    [nothing] = replies(harness, other, "DOTHER")
    assert nothing["text"] == "Nothing is waiting for your approval.", "UOTHER may not decide ULEAD's draft"
    assert len(runs(db)) == 1, "a prompt starts no run"


def test_the_approvers_see_every_draft(lead, db):
    lead.send.mention(GOAL, user="UOTHER")  # KITEBASE_APPROVERS = ULEAD: ULEAD decides UOTHER's draft
    lead.drain()
    ts = dm(lead, "what is waiting for my approval")
    lead.drain()
    assert "KITE-142" in str(replies(lead, ts)[0]["blocks"])


def test_show_the_human_queue_lists_the_escalations(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    harness.send.click("reject_reply", harness.approval_card()["value"])
    harness.drain()
    view = harness.slack.calls_to("views.open")[-1]["view"]
    harness.send.submit(view, {"reason": {"reason": "Ask which IdP they moved to first"}})
    harness.drain()
    assert run_row(db, 1).status == "escalated"
    ts = dm(harness, "Show the human queue")
    harness.drain()
    [answer] = replies(harness, ts)
    assert answer["text"] == "1 runs in the human queue."
    assert "KITE-142" in str(answer["blocks"]) and "run #1" in str(answer["blocks"])


def test_handle_the_oldest_urgent_ticket_starts_a_run_in_the_dm_thread(harness, db):
    ts = dm(harness, "Handle the oldest urgent ticket")
    harness.drain()
    [run] = runs(db)
    assert run.ticket_id == "KITE-163", "the oldest unsolved urgent ticket (KITE-105 and KITE-115 are closed)"
    assert run.started_by == "ULEAD" and run.origin["channel"] == DM and run.origin["thread_ts"] == ts
    assert "KITE-163" in run.goal and run.steps > 0
    posted = [c for c in harness.slack.calls if c["method"] in ("chat.postMessage", "chat.startStream")
              and c["args"].get("channel") == DM]
    assert posted and all(c["args"].get("thread_ts") == ts for c in posted), "the run shows in the DM thread"


def test_the_oldest_urgent_ticket_already_worked_is_skipped(harness, db):
    harness.send.mention("handle KITE-163")
    harness.drain()
    assert run_row(db, 1).status == "awaiting_approval", "KITE-163's run is live: its draft waits"
    dm(harness, "handle the oldest urgent ticket")
    harness.drain()
    assert [r.ticket_id for r in runs(db)] == ["KITE-163", "KITE-195"], "the next oldest urgent ticket"


def test_what_happened_today_shows_todays_figures(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    ts = dm(harness, "What happened today?")
    harness.drain()
    [answer] = replies(harness, ts)
    assert answer["text"].startswith("Today so far: 1 run(s)")
    [table] = [b for b in answer["blocks"] if b["type"] == "table"]
    assert [c["text"] for c in table["rows"][1][:2]] == ["Runs", "1"], "the runs started today"


@pytest.mark.parametrize("typed", ["<@U0BOT> what’s waiting for my approval", "WHAT'S WAITING FOR MY APPROVAL?!",
                                   "  Waiting for my approval. "])
def test_prompts_are_matched_whatever_the_case_punctuation_or_mention(harness, db, typed):
    harness.send.mention(GOAL)
    harness.drain()
    ts = dm(harness, typed)
    harness.drain()
    assert "1 draft(s) wait for your approval" in replies(harness, ts)[0]["text"]


def test_a_prompt_sent_in_a_thread_is_answered_in_that_thread(harness):
    root = dm(harness, "please help")
    harness.drain()
    dm(harness, "show the human queue", thread_ts=root)
    harness.drain()
    texts = [c["text"] for c in replies(harness, root)]
    assert any("couldn't find a ticket id" in t for t in texts) and "The human queue is empty." in texts


def test_handle_the_oldest_urgent_ticket_in_a_runs_thread_is_not_a_follow_up(harness, db):
    root = dm(harness, GOAL)
    harness.drain()
    dm(harness, "Handle the oldest urgent ticket", thread_ts=root)
    harness.drain()
    assert [r.ticket_id for r in runs(db)] == ["KITE-142"]
    assert "Handle the oldest urgent ticket” as a new message" in replies(harness, root)[-1]["text"]
    assert "Handle the oldest urgent ticket" not in str(run_row(db, 1).messages)


# --- anything else in a DM is a request, as before -----------------------------------------------------

def test_free_text_in_a_dm_still_starts_a_run_or_says_why_not(harness, db):
    bad = dm(harness, "please help")
    harness.drain()
    assert "couldn't find a ticket id" in replies(harness, bad)[0]["text"]
    ts = dm(harness, "handle KITE-142 and show the human queue")
    harness.drain()
    [run] = runs(db)
    assert run.ticket_id == "KITE-142" and run.origin["thread_ts"] == ts, "a request containing a prompt is a request"
    assert not any("human queue" in c["text"] for c in replies(harness, ts))


def test_a_prompt_in_a_channel_mention_is_a_request_as_before(harness, db):
    ts, _ = harness.send.mention("show the human queue")
    harness.drain()
    assert "couldn't find a ticket id" in harness.thread_texts("CSUPPORT", ts)[0]
    assert runs(db) == []


@pytest.mark.parametrize("text, about", [
    ("What's waiting for my approval?", "approvals"), ("what’s waiting for my approval", "approvals"),
    ("<@U0BOT> Show the human queue.", "queue"), ("handle the OLDEST urgent ticket!", "urgent"),
    ("What happened today", "today"), ("show the human queue and handle KITE-1", None), ("", None),
    ("handle KITE-142", None)])
def test_match(text, about):
    prompt = suggestions.match(text)
    assert (prompt.about if prompt else None) == about


# --- the builders keep within Slack's limits ----------------------------------------------------------

def test_the_drafts_answer_fits_a_message_whatever_it_lists():
    from bot.slack_ui.prompt_answers import build_waiting_for
    from standins.slack_server import message_block_errors

    draft = {"approval_id": 7, "run_id": 3, "ticket_id": "KITE-1", "created_at": "2026-12-05T01:02:03+00:00",
             "message": ("Hi <b>&" + "x" * 400 + "\n") * 3, "link": "https://slack.example/archives/D1/p1"}
    text, blocks = build_waiting_for([draft] * 20, more=5)
    assert text == "25 draft(s) wait for your approval." and message_block_errors(blocks) == []
    assert "&lt;b&gt;&amp;" in str(blocks) and "… and 5 more" in str(blocks)
    assert "<https://slack.example/archives/D1/p1|the card's thread>" in blocks[1]["text"]["text"]
    _, no_link = build_waiting_for([{**draft, "link": None, "message": ""}])
    assert "see its run's thread" in no_link[1]["text"]["text"]
