"""What the Slack side reads, one short transaction each, as plain data: the Slack code never opens a database
session of its own. (The CLI reads through bot/runs/reports/queries.py, which these build on.)"""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from bot.agent.capabilities import other_model
from bot.agent.history import thinking_of
from bot.agent.replay import timeline as timeline_text
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Approval, Customer, Escalation, Outbox, Run, Step, Ticket, TicketMessage, utcnow
from bot.desk.mirror import attachments_of
from bot.runs.intake import control
from bot.runs.intake.rules import RulesError
from bot.runs.lifecycle import citations, held
from bot.runs.lifecycle.approvals import chosen_message
from bot.runs.reports import due, due_shown, first_replies, queries, stats

HOME_FIGURES_SECONDS = 7 * 86400  # App Home shows the figures of the last 7 days
FILES_SHOWN = 5  # of the customer's files on a card (the ticket has them all)
THOUGHT_CHARS = 1200  # of a turn's thinking summary (the thread shows less)


def run_brief(run: Run) -> dict[str, Any]:
    origin = run.origin or {}
    return {"id": run.id, "ticket_id": run.ticket_id, "model": run.model, "status": run.status,
            "reason": run.reason, "started_by": run.started_by, "channel": origin.get("channel"),
            "thread_ts": origin.get("thread_ts"), "team": origin.get("team"), "steps": run.steps}


def timeline(db: Database, run_id: int, first_step: int, last_step: int | None) -> dict[str, Any] | None:
    """The run and the steps of one stretch of its timeline."""
    with db.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            return None
        query = select(Step).where(Step.run_id == run_id, col(Step.number) >= first_step)
        if last_step is not None:
            query = query.where(col(Step.number) <= last_step)
        steps = [{"number": s.number, "kind": s.kind, "stop_reason": s.stop_reason, "text": s.text,
                  "thinking": thinking_of(s.response)[:THOUGHT_CHARS], "model": other_model(s.model, run.model),
                  "tool_calls": s.tool_calls or []} for s in session.exec(query.order_by(col(Step.number))).all()]
        return {"run": run_brief(run), "steps": steps, "due": due.of_ticket(session, run.ticket_id, due.now(session)).line}


def agent_session(db: Database, run_id: int) -> dict[str, Any] | None:
    """What a run's Slack agent session shows: the run's status, who asked, and its ticket and subject."""
    with db.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            return None
        ticket = session.get(Ticket, run.ticket_id) if run.ticket_id else None
        return {**run_brief(run), "title": ticket.title if ticket else None}


def ticket_brief(session: Any, ticket_id: str | None) -> dict[str, Any] | None:
    ticket = session.get(Ticket, ticket_id) if ticket_id else None
    if ticket is None:
        return None
    customer = session.get(Customer, ticket.customer_id)
    return {"id": ticket.id, "title": ticket.title, "status": ticket.status,
            "customer": customer.name if customer else ticket.customer_id,
            "contact": customer.contact_name if customer else None, "requester": ticket.requester,
            "files": customer_files(session, ticket.id)}


def customer_files(session: Any, ticket_id: str, *, most: int = FILES_SHOWN) -> list[dict[str, Any]]:
    """The files the customer attached on the ticket, newest first (a card names them; nothing fetches them)."""
    rows = session.exec(select(TicketMessage.attachments).where(
        col(TicketMessage.ticket_id) == ticket_id, col(TicketMessage.role).in_(("customer", "unknown")),
        col(TicketMessage.attachments).is_not(None)).order_by(col(TicketMessage.created_at).desc())).all()
    files = [a for stored in rows for a in attachments_of(stored)]
    return [{"line": a.line(), "url": a.url} for a in files[:most]] + (
        [{"line": f"and {len(files) - most} more on the ticket", "url": None}] if len(files) > most else [])


def approval(db: Database, approval_id: int) -> dict[str, Any] | None:
    """A gated call as a card shows it: what would be sent, to which ticket and customer, and its decision."""
    with db.session() as session:
        row = session.get(Approval, approval_id)
        run = session.get(Run, row.run_id) if row else None
        if row is None or run is None:
            return None
        arguments = dict(row.tool_input or {})
        target = ticket_brief(session, arguments.get("ticket_id"))
        return {"id": row.id, "run": run_brief(run), "tool": row.tool_name, "input": arguments,
                "draft": row.tool_name in citations.DRAFT_TOOLS,
                "edited_input": row.edited_input, "fingerprint": row.fingerprint, "status": row.status,
                "decided_by": row.decided_by, "decided_at": row.decided_at, "reason": row.reason,
                "result": row.result, "created_at": row.created_at, "target": target,
                "run_ticket": ticket_brief(session, run.ticket_id), "reminded_at": row.reminded_at,
                "sources": _sources(session, row, run),
                "due": due_shown.card(row, run, due_shown.lookup(session, due.now(session))).line, "triage": due.triage_line(run.triage)}


def _sources(session: Any, row: Approval, run: Run) -> dict[str, Any] | None:
    """The citation check of the text the card shows (the edit, once a person edited the draft)."""
    if row.tool_name not in citations.DRAFT_TOOLS:
        return None
    return citations.check(session, chosen_message(row), run.messages or [], row.tool_use_id)


def escalation(db: Database, escalation_id: int) -> dict[str, Any] | None:
    with db.session() as session:
        row = session.get(Escalation, escalation_id)
        run = session.get(Run, row.run_id) if row else None
        if row is None or run is None:
            return None
        return {"id": row.id, "kind": row.kind, "reason": row.reason, "summary": row.summary, "status": row.status,
                "claimed_by": row.claimed_by, "note": row.note, "run": run_brief(run),
                "held": held.for_a_person(session, run.ticket_id),
                "due": due_shown.queue_item(row, run, due_shown.lookup(session, due.now(session))).line}


def pick_up_due(db: Database, run_id: int) -> str | None:
    """The line an intake run's first message shows: its ticket's, while the run is live."""
    with db.session() as session:
        run = session.get(Run, run_id)
        return due_shown.pick_up(run, due_shown.lookup(session, due.now(session))).line if run is not None else None


def batch_dues(db: Database, batch_id: int) -> dict[str, str | None]:
    """The line of each child's ticket on a batch card, while the child works or its draft waits."""
    with db.session() as session:
        return due_shown.batch_lines(due_shown.batch(session, batch_id, due.now(session)))


def escalation_run_id(db: Database, escalation_id: int) -> int | None:
    with db.session() as session:
        row = session.get(Escalation, escalation_id)
        return int(row.run_id) if row else None


def transcript(db: Database, run_id: int) -> str:
    with db.session() as session:
        run = session.get(Run, run_id)
        steps = list(session.exec(select(Step).where(Step.run_id == run_id).order_by(col(Step.number))).all())
        return timeline_text(run, steps, result_chars=2000) if run else ""


def home(db: Database, settings: Settings | None = None) -> dict[str, Any]:
    """What App Home shows; with `settings` naming intake rules, also each rule's figures today."""
    with db.session() as session:
        data: dict[str, Any] = {
            "queue": queries.queue(session), "approvals": queries.waiting_approvals(session),
            "runs": queries.latest_runs(session, 15),
            "figures": stats.figures(session, *stats.window(utcnow(), HOME_FIGURES_SECONDS)),
            "first_replies": first_replies.today(session)}
        if settings is not None and settings.intake_rules is not None:
            try:
                data["intake"] = control.figures(session, control.rules_of(settings)).as_dict()
            except RulesError as exc:
                data["intake_problem"] = str(exc)
        return data


def home_due(home: dict[str, Any]) -> list[list[Any]]:
    """What App Home (`home`'s answer) shows of what is due: kept by the renderer, compared by the due-refresh job."""
    return due_shown.home_lines(home["queue"], home["approvals"])


def today(db: Database) -> dict[str, Any]:
    """The figures of the runs started since midnight (UTC) today."""
    now = utcnow()
    since = now.replace(hour=0, minute=0, second=0, microsecond=0)
    with db.session() as session:
        return {"since": since.isoformat(), "figures": stats.figures(session, since, now)}


def queue(db: Database) -> list[dict[str, Any]]:
    with db.session() as session:
        return queries.queue(session)


def ticket_status(db: Database, ticket_id: str) -> dict[str, Any] | None:
    with db.session() as session:
        run = queries.latest_run_for_ticket(session, ticket_id)
        return None if run is None else {**run_brief(run), "cost_usd": run.cost_usd}


def outbox_row(db: Database, row_id: int) -> Outbox | None:
    with db.session() as session:
        return session.get(Outbox, row_id)
