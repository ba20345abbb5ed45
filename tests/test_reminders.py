"""Drafts never wait unseen: the reminder sweep, who may decide after it, and the settings behind it."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from pydantic import ValidationError
from sqlmodel import select

from bot.config import Settings
from bot.db.models import Outbox
from bot.runs.execution import reminders, sweeps
from bot.runs.lifecycle.members import GroupMembers
from bot.runs.lifecycle.people import approvers_hint, may_decide, unknown_groups, watched_groups
from bot.runs.lifecycle.service import RunService
from bot.slack.groups import GroupSync
from bot.slack_ui.blocks import build_reminder
from standins.slack_server import message_block_errors
from tests.helpers import approvals_of


def waiting(db, settings, origin=None) -> tuple[RunService, int]:
    service = RunService(db, settings)
    run_id = service.start("handle KITE-142", started_by="ULEAD", origin=origin)
    assert service.resume(run_id).status == "awaiting_approval"
    return service, run_id


def reminder_rows(db) -> list[Outbox]:
    with db.session() as session:
        return list(session.exec(select(Outbox).where(Outbox.key.like("remind:%"))).all())


def test_the_default_is_a_quarter_of_the_ttl_and_it_must_come_before_expiry():
    assert Settings(KITEBASE_APPROVAL_TTL="8h").remind_after_seconds == 2 * 3600
    assert Settings(KITEBASE_APPROVAL_REMIND_AFTER="90m").remind_after_seconds == 5400
    with pytest.raises(ValidationError, match="shorter than KITEBASE_APPROVAL_TTL"):
        Settings(KITEBASE_APPROVAL_TTL="2h", KITEBASE_APPROVAL_REMIND_AFTER="3h")
    assert Settings(KITEBASE_BACKUP_APPROVERS="S1 U2,U3").backup_approvers == {"S1", "U2", "U3"}


def test_one_reminder_per_draft_even_with_two_sweepers(db, settings):
    service, run_id = waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    created = approvals_of(db, run_id)[0].created_at
    assert reminders.remind_approvals(service, created + timedelta(hours=5), 6 * 3600) == []
    later = created + timedelta(hours=6, seconds=1)
    results, barrier = [], threading.Barrier(2)

    def sweep(owner):
        barrier.wait()
        results.append(reminders.remind_approvals(RunService(db, settings, owner=owner), later, 6 * 3600))

    threads = [threading.Thread(target=sweep, args=(f"p{i}",)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(len(r) for r in results) == [0, 1]
    [row] = reminder_rows(db)
    assert row.kind == "notice" and row.channel == "CSUPPORT" and row.thread_ts == "1.000100"
    assert row.payload["reminder"]["approvers"] == ["ULEAD"], "nobody configured: the person who started the run"
    assert approvals_of(db, run_id)[0].reminded_at == later


def test_a_cli_run_is_marked_reminded_without_a_slack_message(db, settings):
    service, run_id = waiting(db, settings)
    report = sweeps.sweep_all(service, approvals_of(db, run_id)[0].created_at + timedelta(hours=7),
                              lambda rid: None)
    assert report.reminded == [approvals_of(db, run_id)[0].id] and "reminded the approvers of 1 draft" in report.text()
    assert reminder_rows(db) == []


def test_decided_and_expired_drafts_get_no_reminder(db, settings):
    service, run_id = waiting(db, settings, origin={"channel": "C1", "thread_ts": "1.0"})
    service.decide(approvals_of(db, run_id)[0].id, action="approve", actor="ULEAD")
    assert reminders.remind_approvals(service, approvals_of(db, run_id)[0].created_at + timedelta(days=1), 60) == []


def test_backup_approvers_only_after_the_reminder(db):
    settings = Settings(KITEBASE_APPROVERS="UBOSS SLEADS", KITEBASE_BACKUP_APPROVERS="SNIGHT UCOVER")
    groups = GroupMembers(db)
    assert watched_groups(settings) == {"SLEADS", "SNIGHT"}
    assert unknown_groups(settings, groups, reminded=True) == ["SLEADS", "SNIGHT"]
    groups.store({"SLEADS": frozenset({"ULEADER"}), "SNIGHT": frozenset({"UOWL"})})
    for user, before, after in (("UBOSS", True, True), ("ULEADER", True, True), ("UOWL", False, True),
                                ("UCOVER", False, True), ("USTRANGER", False, False)):
        assert may_decide(settings, groups, user, "ULEAD") is before, user
        assert may_decide(settings, groups, user, "ULEAD", reminded=True) is after, user
    assert "once a reminder has gone out" in approvers_hint(settings, "ULEAD")
    assert "may decide too, since the reminder" in approvers_hint(settings, "ULEAD", reminded=True)


def test_the_reminder_message():
    text, blocks = build_reminder(ticket_id="KITE-142", customer="<Northwind> & co", tool="reply_to_customer",
                                  waited_seconds=6.5 * 3600, expires_at="2026-12-02T09:00:00+00:00",
                                  approvers=["UBOSS", "SLEADS", "not an id <!channel>"], backups=["SNIGHT"])
    assert text.startswith(":bell: <@UBOSS>, <!subteam^SLEADS>, not an id &lt;!channel&gt;:")
    assert "&lt;Northwind&gt; &amp; co" in text and "has waited 6.5 h" in text and "<!date^" in text
    assert "Backup approvers <!subteam^SNIGHT> may decide from now on." in text
    assert message_block_errors(blocks) == []


def test_the_group_timer_also_keeps_the_backup_groups(db, settings):
    from bot.runs.execution.timers import build_scheduler

    asked = []

    class Client:
        def usergroups_users_list(self, usergroup: str) -> dict:
            asked.append(usergroup)
            return {"users": ["UOWL"]}

    service = RunService(db, settings)
    groups = GroupSync(service.group_members.store)
    only_backups = settings.model_copy(update={"backup_approvers": frozenset({"SNIGHT", "UCOVER"})})
    scheduler = build_scheduler(only_backups, RunService(db, only_backups), lambda rid: None,
                                groups=groups, client=Client())
    assert scheduler.get_job("refresh-groups") is not None and asked == ["SNIGHT"]
    assert service.group_members.members("SNIGHT") == {"UOWL"}, "stored as rows"
