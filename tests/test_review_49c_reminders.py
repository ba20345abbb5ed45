"""Review of issue 49 (round 2, reviewer 3): the "quiet" rule of the reminder before a breach (a draft made after
its ticket's reminder point is only marked as told, "its card showing the due line already") is judged against
the target the ticket has NOW, not the one the card showed when the draft was made. A target shortened after the
draft (priority raised to urgent, a policy applied by the desk) puts the reminder point before the draft: the
draft is marked as told, and nobody is ever told its breach is near."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bot.runs.execution import reminders
from tests.helpers import approvals_of
from tests.test_due_reminders import _due, _rows, _waiting


def test_a_target_shortened_after_the_draft_still_gets_its_reminder_before_the_breach(db: Any,
                                                                                       settings: Any) -> None:
    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    # when the draft is made its ticket is due in 3 h (a 4-hour target): the card says "due in 3 h"
    _due(db, made + timedelta(hours=3), target=240)
    assert reminders.remind_approvals(service, made + timedelta(minutes=1), 6 * 3600) == []
    # two minutes later the ticket is raised to urgent: a 60-minute target, breaching 8 minutes from now
    _due(db, made + timedelta(minutes=10), target=60)
    for minute in (3, 5, 7, 9):
        reminders.remind_approvals(service, made + timedelta(minutes=minute), 6 * 3600)
    said = _rows(db, "remind-due:") + _rows(db, "remind:")
    [approval] = approvals_of(db, run_id)
    assert said, (
        "the ticket now breaches in minutes, the card was drawn with 'due in 3 h', yet no reminder went: the "
        f"draft was only marked as told (due_reminded_at={approval.due_reminded_at}) because it was made after "
        "the NEW target's reminder point")


def test_a_draft_made_after_the_point_under_no_target_at_all_is_reminded_once_one_applies(db: Any,
                                                                                         settings: Any) -> None:
    """The same with no target when the draft was made (no policy yet, as on Zendesk before a trigger sets the
    customer's tier): the card showed no due line at all."""
    service, run_id, made = _waiting(db, settings, origin={"channel": "CSUPPORT", "thread_ts": "1.000100"})
    _due(db, None)
    assert reminders.remind_approvals(service, made + timedelta(minutes=1), 6 * 3600) == []
    _due(db, made + timedelta(minutes=10), target=60)  # a policy applies: 10 minutes left of 60
    for minute in (2, 4, 6, 8):
        reminders.remind_approvals(service, made + timedelta(minutes=minute), 6 * 3600)
    assert _rows(db, "remind-due:") + _rows(db, "remind:"), (
        "the card showed no due line, and the reminder before the breach was skipped as 'already shown'")
