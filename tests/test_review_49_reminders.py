"""Review of issue 49 (reviewer 1): the reminder before a breach, row by row on both databases."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import col

from bot.db.models import Approval, Run
from bot.runs.execution import reminders
from bot.slack_ui import blocks
from bot.vocabulary import ApprovalStatus, RunStatus
from tests.helpers import approvals_of, run_row
from tests.test_due_reminders import _due, _rows, _waiting


def test_a_draft_gets_one_reminder_when_its_long_wait_and_its_breach_come_together(db: Any, settings: Any) -> None:
    """The issue: the reminder before a breach is "folded into today's reminders rather than beside them". A draft
    that has waited past KITEBASE_APPROVAL_REMIND_AFTER (here 30 min) on a ticket whose 60-minute target is 51
    minutes in: one pass writes two notices into the same thread, each mentioning the same approvers, a second
    apart ("… still waits for a decision" twice)."""
    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    _due(db, made + timedelta(minutes=40), target=60)  # at made + 31 min: 51 of 60 minutes used
    reminders.remind_approvals(service, made + timedelta(minutes=31), 30 * 60)
    pings = _rows(db, "remind:") + _rows(db, "remind-due:")
    assert len(pings) == 1, f"{len(pings)} reminders in one thread in one pass: {[p.key for p in pings]}"
    # the one notice carries both reasons, and both reminders are recorded as done
    said = pings[0].payload["reminder"]
    assert said["due"] == "first reply due in 9 min · Business · high" and said["waited"] is True
    [approval] = approvals_of(db, run_id)
    assert approval.reminded_at is not None and approval.due_reminded_at is not None
    assert reminders.remind_approvals(service, made + timedelta(minutes=35), 30 * 60) == []
    assert len(_rows(db, "remind:") + _rows(db, "remind-due:")) == 1, "neither fires later"


def test_the_folded_reminder_lets_the_backup_approvers_decide_and_the_one_alone_does_not(
        db: Any, settings: Any) -> None:
    """Backup approvers may decide only after the long-wait reminder: the folded notice names them, the reminder
    before a breach alone (the long wait still to come) does not."""
    settings = settings.model_copy(update={"backup_approvers": frozenset({"UBACKUP"})})
    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    _due(db, made + timedelta(minutes=40), target=60)
    reminders.remind_approvals(service, made + timedelta(minutes=31), 30 * 60)
    [folded] = _rows(db, "remind:")
    assert folded.payload["reminder"]["backups"] == ["UBACKUP"]
    text, _ = blocks.build_reminder(**folded.payload["reminder"])
    assert text.startswith(":bell: <@ULEAD>: first reply due in 9 min · Business · high: the draft reply to ")
    assert "has waited 31 min for a decision" in text and "may decide from now on" in text
    assert text.count("<@ULEAD>") == 1

    with db.session() as session:
        session.execute(update(Approval).where(col(Approval.run_id) == run_id)
                        .values(status=ApprovalStatus.REJECTED))
        session.execute(update(Run).where(col(Run.id) == run_id).values(status=RunStatus.COMPLETED))
    service, later, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000200"})
    _due(db, made + timedelta(minutes=40), target=60)
    reminders.remind_approvals(service, made + timedelta(minutes=26), 30 * 60)
    [alone] = _rows(db, "remind-due:")
    assert alone.payload["reminder"]["backups"] == [] and alone.payload["reminder"]["waited"] is False
    assert approvals_of(db, later)[0].reminded_at is None, "the long wait is still to come"


def test_a_decided_draft_is_not_reminded_nor_its_breach_recorded(db: Any, settings: Any) -> None:
    """Held: a draft decided is left alone by both the reminder before a breach and the breach."""
    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    _due(db, made + timedelta(minutes=20), target=60)
    [approval] = approvals_of(db, run_id)
    with db.session() as session:
        session.execute(update(Approval).where(col(Approval.id) == approval.id)
                        .values(status=ApprovalStatus.REJECTED))
    assert reminders.remind_approvals(service, made + timedelta(minutes=10), 6 * 3600) == []
    reminders.remind_approvals(service, made + timedelta(minutes=30), 6 * 3600)
    assert run_row(db, run_id).breached_at is None and _rows(db, "breach:") == []
    assert _rows(db, "remind-due:") == []


def test_a_draft_made_inside_the_last_quarter_is_not_re_announced_at_once(db: Any, settings: Any) -> None:
    """An intake run started by due_within (30 min before a 60-minute target breaches) posts its draft with 10
    minutes left; the very next reminder pass (the timer's, seconds later) "reminded" the approvers of a card they
    were just shown. Now nothing in the card's first two minutes; after them, one mention (the card has none), and
    the breach is still recorded. (Marking such a draft as told for good, the first fix, left a draft whose target
    was shortened after it with no reminder at all: tests/test_review_49c_reminders.py.)"""
    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    _due(db, made + timedelta(minutes=10), target=60)
    reminders.remind_approvals(service, made + timedelta(seconds=5), 6 * 3600)
    assert _rows(db, "remind-due:") == [], "reminded 5 s after the card was posted"
    assert approvals_of(db, run_id)[0].due_reminded_at is None
    reminders.remind_approvals(service, made + timedelta(minutes=3), 6 * 3600)
    reminders.remind_approvals(service, made + timedelta(minutes=5), 6 * 3600)
    assert len(_rows(db, "remind-due:")) == 1
    reminders.remind_approvals(service, made + timedelta(minutes=11), 6 * 3600)
    assert run_row(db, run_id).breached_at is not None and len(_rows(db, "breach:")) == 1


def test_two_sweeps_at_once_remind_once(db: Any, settings: Any) -> None:
    """Held: two reminder passes at the same moment (two processes' timers) write one reminder before the breach
    and record the breach once."""
    import threading

    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    # a 20-minute target breaching 10 min after the draft: its reminder point (15 of 20 min) comes 5 min after
    # the draft
    _due(db, made + timedelta(minutes=10), target=20)
    start = threading.Barrier(4)

    def sweep(at: timedelta) -> None:
        start.wait()
        reminders.remind_approvals(service, made + at, 6 * 3600)

    threads = [threading.Thread(target=sweep, args=(timedelta(minutes=m),)) for m in (6, 6, 6, 6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(_rows(db, "remind-due:")) == 1
    threads = [threading.Thread(target=sweep, args=(timedelta(minutes=11),)) for _ in range(4)]
    start = threading.Barrier(4)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(_rows(db, "breach:")) == 1 and run_row(db, run_id).breached_at is not None
