"""The figures (`kitebase stats`, App Home, the digest) over runs written straight into the database, so every
number can be checked by hand; and their Block Kit, checked against the Slack stand-in's rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.db.models import Approval, Escalation, Feedback, Run
from bot.durations import describe, parse_duration
from bot.runs.reports import stats
from bot.slack_ui.figures import build_figures_fields, build_figures_table
from bot.slack_ui.notice import ai_notice
from bot.slack_ui.queue import build_digest, build_home
from standins.slack_server import message_block_errors, view_errors

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DRAFT = "Hi Dana, click Continue with SSO and sign in through your identity provider. [account-recovery#2]"


def add_run(session, ticket: str, status: str, cost: float, *, days_ago: float = 1) -> Run:
    run = Run(goal=f"handle {ticket}", ticket_id=ticket, status=status, cost_usd=cost,
              created_at=NOW - timedelta(days=days_ago))
    session.add(run)
    session.flush()
    return run


def add_draft(session, run: Run, status: str, *, waited_min: float | None = None, edit: str | None = None) -> None:
    created = run.created_at + timedelta(minutes=1)
    session.add(Approval(run_id=run.id, tool_use_id=f"t{run.id}-{status}", tool_name="reply_to_customer",
                         tool_input={"ticket_id": run.ticket_id, "message": DRAFT}, fingerprint="f", status=status,
                         edited_input={"ticket_id": run.ticket_id, "message": edit} if edit else None,
                         created_at=created, decided_by="UBOSS" if waited_min is not None else None,
                         decided_at=created + timedelta(minutes=waited_min) if waited_min is not None else None,
                         reminded_at=created + timedelta(hours=6) if status == "expired" else None))


@pytest.fixture
def week(db):
    """A week of runs: 6 in the window (one still open), 1 older that must not count."""
    with db.session() as session:
        ok1 = add_run(session, "KITE-142", "completed", 0.10)
        add_draft(session, ok1, "approved", waited_min=4)
        ok2 = add_run(session, "KITE-144", "completed", 0.20)
        add_draft(session, ok2, "edited", waited_min=30, edit=DRAFT.replace("Dana", "Dana and team"))
        ok3 = add_run(session, "KITE-101", "completed", 0.30)
        add_draft(session, ok3, "edited", waited_min=60, edit="Hi, we fixed your invoice by hand and sent it again.")
        rejected = add_run(session, "KITE-102", "escalated", 0.15)
        add_draft(session, rejected, "rejected", waited_min=120)
        session.add(Escalation(run_id=rejected.id, kind="model_request", reason="the agent asked for a person: x"))
        expired = add_run(session, "KITE-103", "escalated", 0.05)
        add_draft(session, expired, "expired")
        session.add(Escalation(run_id=expired.id, kind="approval_expired", reason="nothing was sent"))
        guarded = add_run(session, "KITE-142", "escalated", 0.40)
        session.add(Escalation(run_id=guarded.id, kind="guard",
                               reason="step limit reached: 15 of 15 model calls (KITEBASE_MAX_STEPS)"))
        add_run(session, "KITE-104", "awaiting_approval", 0.0)
        old = add_run(session, "KITE-105", "failed", 9.99, days_ago=8)
        session.add(Escalation(run_id=old.id, kind="guard", reason="token budget spent (KITEBASE_TOKEN_BUDGET)"))
        session.add(Feedback(run_id=ok1.id, user="ULEAD", value="up"))
        session.add(Feedback(run_id=ok1.id, user="UBOSS", value="up"))
        session.add(Feedback(run_id=ok3.id, user="ULEAD", value="down", note="too generic"))
        session.add(Feedback(run_id=old.id, user="ULEAD", value="down"))
    with db.session() as session:
        return stats.figures(session, *stats.window(NOW, 7 * 86400))


def test_runs_and_how_they_ended(week):
    runs = week["runs"]
    assert (runs["total"], runs["completed"], runs["escalated"], runs["failed"], runs["open"]) == (7, 3, 3, 0, 1)
    assert runs["escalated_by"] == {"model_request": 1, "approval_expired": 1, "guard": 1}


def test_drafts_approval_rate_edits_and_waits(week):
    drafts = week["drafts"]
    assert (drafts["sent_as_written"], drafts["edited"], drafts["rejected"], drafts["expired"]) == (1, 2, 1, 1)
    assert drafts["approval_rate"] == 0.75, "3 of the 4 drafts people decided on went out"
    small = stats.changed_share(DRAFT, DRAFT.replace("Dana", "Dana and team"))
    rewrite = stats.changed_share(DRAFT, "Hi, we fixed your invoice by hand and sent it again.")
    assert 0 < small < 0.2 < 0.8 < rewrite <= 1
    assert drafts["edit_changed_median"] == pytest.approx((small + rewrite) / 2)
    assert drafts["wait_median_seconds"] == 45 * 60, "median of 4, 30, 60 and 120 minutes"
    assert drafts["wait_p90_seconds"] == 120 * 60
    assert drafts["reminded"] == 1


def test_cost_guards_and_feedback(week):
    assert week["cost"] == {"total_usd": 1.2, "tickets": 6, "per_ticket_usd": 0.2}
    assert week["guards"] == {"max_steps": 1}, "the 8-day-old token budget trip is outside the window"
    assert (week["feedback"]["up"], week["feedback"]["down"]) == (2, 1)
    assert week["feedback"]["notes"] == [{"run_id": 3, "note": "too generic"}]


def test_the_rows_read_as_a_lead_would_say_them(week):
    rows = {label.strip(): (value, detail) for label, value, detail in stats.rows(week)}
    assert rows["Drafts decided by people"] == ("4", "approval rate 75%")
    assert rows["escalated"][1] == "agent asked for a person 1 · draft expired 1 · guard tripped 1"
    assert rows["Card → decision"][0] == "median 45 min · p90 2 h"
    assert rows["Cost"] == ("$1.2000", "$0.2000 per ticket over 6 tickets")
    assert rows["Feedback"][0] == "up 2 · down 1"


def test_one_ticket_is_one_ticket(db):
    with db.session() as session:
        add_run(session, "KITE-142", "completed", 0.25)
        session.commit()
        figures = stats.figures(session, *stats.window(NOW, 7 * 86400))
    assert dict((r[0].strip(), r[2]) for r in stats.rows(figures))["Cost"] == "$0.2500 per ticket over 1 ticket"


def test_an_empty_window_has_no_made_up_rates(db):
    with db.session() as session:
        empty = stats.figures(session, *stats.window(NOW, 86400))
    assert empty["runs"]["total"] == 0 and empty["drafts"]["approval_rate"] is None
    assert empty["cost"]["per_ticket_usd"] is None and empty["drafts"]["wait_p90_seconds"] is None
    assert dict((r[0].strip(), r[1]) for r in stats.rows(empty))["Card → decision"] == "-"


def test_the_table_and_the_fields_pass_slacks_rules(week):
    table = build_figures_table(week)
    assert message_block_errors([table]) == []
    assert len(table["rows"]) == len(stats.rows(week)) + 1 and all(len(r) == 3 for r in table["rows"])
    fields = build_figures_fields(week)
    assert all(len(s["fields"]) <= 10 for s in fields)
    home = build_home(queue=[], approvals=[], runs=[], figures=week)
    assert view_errors(home) == [] and len(home["blocks"]) <= 100
    _, digest = build_digest("2026-12-01", [], week, {"topics": []})
    assert message_block_errors(digest) == [] and sum(b["type"] == "table" for b in digest) == 1


def test_a_long_queue_never_pushes_the_figures_out_of_the_digest(week):
    queue = [{"ticket_id": f"KITE-{i}", "run_id": i, "kind": "guard", "reason": "x" * 2500} for i in range(60)]
    _, digest = build_digest("2026-12-01", queue, week, {"topics": []})
    assert len(digest) <= 50 and digest[-4]["type"] == "table" and message_block_errors(digest) == []
    assert digest[-1] == ai_notice(), "the AI notice closes the digest"


@pytest.mark.parametrize("text, seconds", [("90", 90), ("90s", 90), ("15m", 900), ("6h", 21600), ("7d", 604800),
                                           ("2w", 1209600), ("1.5h", 5400)])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["", "soon", "-3d", "0", "7x"])
def test_bad_durations_say_what_is_accepted(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_durations_read_naturally():
    assert [describe(s) for s in (12, 300, 7200, 5400 * 4, 3 * 86400)] == ["12 s", "5 min", "2 h", "6 h", "3 d"]
