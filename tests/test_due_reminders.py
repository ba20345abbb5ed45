"""Reminders before a breach (issue 49): a draft waiting for a decision whose ticket's reply target has used
KITEBASE_SLA_REMIND_SHARE of its time is announced again to the approvers, once, by the reminder pass that
reminds of long waits (bot/runs/execution/reminders.py); a breach while the draft still waits is recorded on the
run once and said in its thread. Through the real Bolt app, the outbox and the Slack stand-in, and row by row on
both databases; the passes are given the times they judge by (as the timer gives them the database's)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from bot.cli import main
from bot.db.models import Outbox, Run, Ticket, TicketMessage
from bot.desk import sla
from bot.runs.execution import reminders, sweeps
from bot.runs.intake.rules import load
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import RunStatus
from standins.slack_harness import start_harness
from tests.helpers import approvals_of, intake_through, run_row

WAITED = 6 * 3600  # KITEBASE_APPROVAL_REMIND_AFTER in these tests: the long-wait reminder never comes here
POLICIES = """\
[[policy]]
first_reply = { urgent = 30, high = 60, normal = 120, low = 240 }
next_reply = { urgent = 60, high = 120, normal = 240, low = 480 }
"""
RULES = """\
[[rule]]
name = "sso-loops"
channel = "C0INTAKE"
tags = ["sso"]
"""
TICKET = {"customer": "northwind-studio", "title": "Okta sign-in loops back to the login page",
          "body": "Everyone who signs in through SSO is sent straight back to the login page.",
          "tags": ["sso", "login"], "priority": "high"}


def _rows(db: Any, prefix: str) -> list[Outbox]:
    with db.session() as session:
        return list(session.exec(select(Outbox).where(col(Outbox.key).startswith(prefix))).all())


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def test_in_slack_a_draft_is_announced_before_its_breach_once_and_the_breach_is_said_once(
        settings: Any, db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An intake run's draft on a Business customer's high-priority ticket, first reply due 60 min after it came
    in (a policies file of the test's own): at 46 min the approvers are told, once however often the pass runs;
    at 61 min the breach is recorded on the run and said in the thread, once."""
    (tmp_path / "rules.toml").write_text(RULES, encoding="utf-8")
    (tmp_path / "sla.toml").write_text(POLICIES, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(tmp_path / "rules.toml"))
    monkeypatch.setenv("KITEBASE_SLA_POLICIES", str(tmp_path / "sla.toml"))
    rules = load(tmp_path / "rules.toml")
    settings = settings.model_copy(update={"intake_rules": tmp_path / "rules.toml", "approvers": frozenset({"ULEAD"}),
                                           "sla_policies": tmp_path / "sla.toml"})
    harness, stop = start_harness(settings, db)
    try:
        (tmp_path / "add.jsonl").write_text(json.dumps(TICKET) + "\n", encoding="utf-8")
        assert main(["desk", "add", str(tmp_path / "add.jsonl")]) == 0
        capsys.readouterr()
        [run_id] = intake_through(db, settings, rules, harness)
        assert run_row(db, run_id).status == RunStatus.AWAITING_APPROVAL
        with db.session() as session:
            ticket = session.get(Ticket, "KITE-218")
            assert ticket is not None and ticket.due_at is not None
            came, breach = _aware(ticket.created_at), _aware(ticket.due_at)
        assert breach == came + timedelta(minutes=60), "the policies file's target for high"
        service = RunService(db, harness.ctx.settings)
        top = harness.approval_card()["call"]["thread_ts"]
        before = len(harness.thread_texts("C0INTAKE", top))

        assert reminders.remind_approvals(service, came + timedelta(minutes=44), WAITED) == [], "44 of 60 min"
        harness.drain()
        assert len(harness.thread_texts("C0INTAKE", top)) == before
        [approval] = approvals_of(db, run_id)
        passes = [reminders.remind_approvals(service, came + timedelta(minutes=m), WAITED) for m in (46, 46, 50, 55)]
        assert passes == [[approval.id], [], [], []], "once"
        harness.drain()
        thread = harness.thread_texts("C0INTAKE", top)
        told = [t for t in thread if "still waits for a decision" in t]
        assert told == [":bell: <@ULEAD>: first reply due in 14 min · Business · high: the draft reply to "
                        "*Northwind Studio* on *KITE-218* still waits for a decision (the card is above in this "
                        f"thread). Nothing is sent until someone decides; it expires at {told[0].split('expires at ')[1]}"]
        assert approvals_of(db, run_id)[0].due_reminded_at is not None
        assert approvals_of(db, run_id)[0].reminded_at is None, "the long-wait reminder is another, still to come"
        assert run_row(db, run_id).breached_at is None

        for minutes in (61, 61, 70):
            reminders.remind_approvals(service, came + timedelta(minutes=minutes), WAITED)
        harness.drain()
        thread = harness.thread_texts("C0INTAKE", top)
        breached = [t for t in thread if "while this draft waits for a decision" in t]
        assert breached == ["First reply breached 1 min ago · Business · high, while this "
                            "draft waits for a decision (the card is above in this thread). Nothing is sent until "
                            "someone decides."]
        assert _aware(run_row(db, run_id).breached_at) == breach, "the ticket's breach time, once"
        assert len(told) == 1 and sum("still waits for a decision" in t for t in thread) == 1
        assert not harness.slack.warnings
    finally:
        stop()


# --- row by row --------------------------------------------------------------------------------------------------

def _waiting(db: Any, settings: Any, origin: dict[str, str] | None = None) -> tuple[RunService, int, datetime]:
    """A draft on KITE-142 waiting for a decision; returns its service, run and the approval's creation time."""
    service = RunService(db, settings)
    run_id = service.start("handle KITE-142", started_by="ULEAD", origin=origin)
    assert service.resume(run_id).status == RunStatus.AWAITING_APPROVAL
    return service, run_id, _aware(approvals_of(db, run_id)[0].created_at)


def _due(db: Any, breach: datetime | None, target: int = 60) -> None:
    with db.session() as session:
        ticket = session.get(Ticket, "KITE-142")
        assert ticket is not None
        sla.store(session, ticket, None if breach is None else sla.Due("first_reply", "active", breach, target))


def test_the_reminder_before_a_breach_comes_once_at_the_share_chosen(db: Any, settings: Any) -> None:
    settings = settings.model_copy(update={"sla_remind_share": 0.5})
    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    _due(db, made + timedelta(minutes=100), target=120)  # half the target used at made + 40 min
    assert reminders.remind_approvals(service, made + timedelta(minutes=39), WAITED) == []
    [approval] = approvals_of(db, run_id)
    runs = [reminders.remind_approvals(service, made + timedelta(minutes=m), WAITED) for m in (41, 41, 60, 99)]
    assert runs == [[approval.id], [], [], []]
    [row] = _rows(db, "remind-due:")
    assert row.kind == "notice" and (row.channel, row.thread_ts) == ("CSUPPORT", "1.000100")
    said = row.payload["reminder"]
    assert said["due"] == "first reply due in 59 min · Business · high" and said["approvers"] == ["ULEAD"]
    assert said["backups"] == [], "backup approvers may decide only after the long-wait reminder"
    assert approvals_of(db, run_id)[0].due_reminded_at is not None
    assert _rows(db, "remind:") == [] and _rows(db, "breach:") == []


def test_a_zendesk_target_without_its_length_is_measured_from_when_the_customer_started_waiting(
        db: Any, settings: Any) -> None:
    """Zendesk's side-load gives the breach time, not the target's length: the share is of the time from the
    ticket's creation (no staff reply yet: the first reply's window) to the breach."""
    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    with db.session() as session:
        ticket = session.get(Ticket, "KITE-142")
        assert ticket is not None
        for message in session.exec(select(TicketMessage).where(TicketMessage.ticket_id == "KITE-142",
                                                                TicketMessage.role == "staff")).all():
            session.delete(message)
        ticket.created_at = made - timedelta(minutes=20)
        sla.store(session, ticket, sla.Due("first_reply", "active", made + timedelta(minutes=20)))  # 40 min long
    assert reminders.remind_approvals(service, made + timedelta(minutes=9), WAITED) == [], "29 of 40 min"
    [approval] = approvals_of(db, run_id)
    assert reminders.remind_approvals(service, made + timedelta(minutes=11), WAITED) == [approval.id], "31 of 40"
    [row] = _rows(db, "remind-due:")
    assert row.payload["reminder"]["due"] == "first reply due in 9 min · Business · high"


def test_a_breach_while_a_draft_waits_is_recorded_once_and_one_after_it_is_not(db: Any, settings: Any) -> None:
    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    breach = made + timedelta(minutes=10)
    _due(db, breach)
    for minutes in (11, 12, 30):
        reminders.remind_approvals(service, made + timedelta(minutes=minutes), WAITED)
    assert _aware(run_row(db, run_id).breached_at) == breach
    [row] = _rows(db, "breach:")
    assert row.payload["text"].startswith("First reply breached 1 min ago · Business · high, while this draft waits")
    assert _rows(db, "remind-due:") == [], "breached before any pass saw it near: no reminder after the fact"

    # a draft made after its ticket breached did not wait through the breach
    with db.session() as session:
        session.get(Run, run_id).status = RunStatus.COMPLETED
    service, later, made = _waiting(db, settings)
    _due(db, made - timedelta(minutes=5))
    reminders.remind_approvals(service, made + timedelta(minutes=1), WAITED)
    assert run_row(db, later).breached_at is None


def test_a_cli_run_is_marked_without_a_slack_message_and_the_sweep_counts_it(db: Any, settings: Any) -> None:
    service, run_id, made = _waiting(db, settings)
    _due(db, made + timedelta(minutes=20))
    report = sweeps.sweep_all(service, made + timedelta(minutes=18), lambda rid: None)
    assert report.reminded == [approvals_of(db, run_id)[0].id]
    assert approvals_of(db, run_id)[0].due_reminded_at is not None and _rows(db, "remind-due:") == []


def test_nothing_due_or_a_paused_target_gives_no_reminder(db: Any, settings: Any) -> None:
    service, run_id, made = _waiting(db, settings, origin={"channel": "C1", "thread_ts": "1.0"})
    _due(db, None)
    assert reminders.remind_approvals(service, made + timedelta(minutes=59), WAITED) == []
    with db.session() as session:
        ticket = session.get(Ticket, "KITE-142")
        sla.store(session, ticket, sla.Due("next_reply", "paused", None, 60))
    assert reminders.remind_approvals(service, made + timedelta(hours=5), WAITED) == []
    assert _rows(db, "remind-due:") == [] and run_row(db, run_id).breached_at is None
