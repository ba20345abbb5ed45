"""The embedded desk's way in, end to end: `kitebase desk add` a ticket, an intake pass, and the run in the rule's
channel through the real Bolt app and the Slack stand-in with the offline model: the first message says which
rule took it, the thread shows the timeline and the approval card with no mention; after the click, a customer's
message added with `desk add` continues the same thread once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import func, select

from bot.cli import main
from bot.config import Settings
from bot.db.models import Run
from bot.runs.intake.rules import load
from bot.runs.lifecycle.people import approvers_hint
from bot.vocabulary import RunStatus
from standins.slack_harness import start_harness
from tests.helpers import intake_through, run_row, staff_replies

RULES = """\
[[rule]]
name = "sso-loops"
channel = "C0INTAKE"
tags = ["sso"]
"""
TICKET = {"customer": "northwind-studio", "title": "Okta sign-in loops back to the login page",
          "body": "Since our IT moved us to a new Okta app, everyone who signs in through SSO is sent straight back "
                  "to the login page. Nobody on the team can get in.", "tags": ["sso", "login"], "priority": "high"}


def test_an_added_ticket_gets_its_thread_and_card_and_a_customer_message_continues_it(
        settings: Any, db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text(RULES, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(rules_file))
    rules = load(rules_file)
    # no person starts an intake run: only KITEBASE_APPROVERS may decide on its draft
    settings = settings.model_copy(update={"intake_rules": rules_file, "approvers": frozenset({"ULEAD"})})
    harness, stop = start_harness(settings, db)
    try:
        def add(item: dict[str, Any]) -> str:
            path = tmp_path / "add.jsonl"
            path.write_text(json.dumps(item) + "\n", encoding="utf-8")
            assert main(["desk", "add", str(path)]) == 0
            return capsys.readouterr().out

        def intake_pass() -> list[int]:
            return intake_through(db, settings, rules, harness)

        out = add(TICKET)
        assert "KITE-218: new ticket for Northwind Studio" in out and "Recorded for the intake" in out
        [run_id] = intake_pass()
        assert intake_pass() == []
        run = run_row(db, run_id)
        assert run.status == RunStatus.AWAITING_APPROVAL and run.started_by is None and run.ticket_id == "KITE-218"

        posts = harness.slack.calls_to("chat.postMessage")
        first = posts[0]
        assert first["channel"] == "C0INTAKE" and "thread_ts" not in first
        assert first["text"].startswith(":inbox_tray: Rule *sso-loops* picked up ticket *KITE-218* (Okta sign-in "
                                        "loops back to the login page): tagged sso.")
        top = harness.slack.calls[[c["args"] for c in harness.slack.calls].index(first)]["response"]["ts"]
        assert all(p["channel"] == "C0INTAKE" and p.get("thread_ts") == top for p in posts[1:])
        thread = harness.thread_texts("C0INTAKE", top)
        # the timeline and the card both follow the rule's message; the outbox sends a card before progress, so
        # on a busy machine the card may come first
        [timeline] = [t for t in thread[1:] if "On it: working *KITE-218*" in t]
        assert "`get_ticket` KITE-218" in timeline
        card = harness.approval_card()
        assert card["call"]["thread_ts"] == top and "Reply to Northwind Studio on KITE-218?" in str(card["call"])
        assert not any(c["method"] == "chat.startStream" and not c["args"].get("recipient_user_id")
                       for c in harness.slack.calls), "outside a DM Slack streams only to a person"
        assert not harness.slack.warnings

        harness.send.click("approve_reply", card["value"], message_ts=card["ts"], user="UOTHER")
        harness.drain()
        assert staff_replies(db, "KITE-218") == []
        harness.send.click("approve_reply", card["value"], message_ts=card["ts"])  # ULEAD, an approver
        harness.drain()
        assert len(staff_replies(db, "KITE-218")) == 1
        assert run_row(db, run_id).status == RunStatus.COMPLETED
        before = len(harness.thread_texts("C0INTAKE", top))

        out = add({"ticket_id": "KITE-218", "body": "Thanks. We re-uploaded the metadata and it still loops for "
                                                    "everyone on the new Okta app."})
        assert "KITE-218: message from Dana Whitfield" in out
        assert intake_pass() == [run_id], "the customer's message continues the same run"
        assert intake_pass() == []
        thread = harness.thread_texts("C0INTAKE", top)
        assert len(thread) > before, "the follow-up shows in the same thread"
        assert all(p["channel"] == "C0INTAKE" and p.get("thread_ts") == top  # or the human queue's
                   for p in harness.slack.calls_to("chat.postMessage")[1:]
                   if p["channel"] != harness.ctx.settings.escalation_channel)
        run = run_row(db, run_id)
        assert "it still loops for everyone on the new Okta app" in str(run.messages)
        with db.session() as session:
            assert session.exec(select(func.count()).select_from(Run)).one() == 1
        assert sum("The customer wrote again on *KITE-218* (Dana Whitfield)" in t for t in thread) == 1
        # the offline model reads the ticket again and hands a customer's second answer to a person, quoting it
        assert run.status == RunStatus.ESCALATED
        assert any("Dana Whitfield wrote again on KITE-218 after our reply: “Thanks. We re-uploaded the metadata" in t
                   for t in harness.thread_texts("C0INTAKE", top))
        assert not harness.slack.warnings
    finally:
        stop()


def test_a_card_no_one_can_decide_on_says_why() -> None:
    settings = Settings(database_url="sqlite:///unused.db")
    assert "Only <@ULEAD>, who started the run" in approvers_hint(settings, "ULEAD")
    assert "an intake rule started this run, not a person, so only KITEBASE_APPROVERS may decide, and it is unset" \
        in approvers_hint(settings, None)
    assert approvers_hint(settings.model_copy(update={"approvers": frozenset({"ULEAD"})}), None) == \
        "Approvers: <@ULEAD>."
