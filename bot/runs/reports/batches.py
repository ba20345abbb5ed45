"""A batch as its card and `kitebase also` show it: the approved reference, and each child with where it stands
(working, a draft waiting, sent, declined with its reason, handed to a person), read in one transaction."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from bot.agent.fan_out_text import declined_reason
from bot.db.engine import Database
from bot.db.models import Approval, Batch, Run, Ticket
from bot.runs.intake import fan_out
from bot.runs.lifecycle import citations
from bot.runs.lifecycle.approvals import chosen_message
from bot.runs.reports.for_slack import ticket_brief
from bot.vocabulary import CHILD_DONE, LIVE, ApprovalStatus, ChildState, RunStatus


def batch(db: Database, batch_id: int) -> dict[str, Any] | None:
    with db.session() as session:
        row = session.get(Batch, batch_id)
        if row is None:
            return None
        runs = session.exec(select(Run).where(Run.batch_id == batch_id).order_by(col(Run.id))).all()
        children = [_child(session, run, row.problem_ticket_id) for run in runs]
        return {"id": row.id, "parent_run_id": row.parent_run_id, "problem": row.problem_ticket_id,
                "requested_by": row.requested_by, "reference": dict(row.reference or {}),
                "skipped": list(row.skipped or []), "children": children,
                "working": sum(c["state"] == ChildState.WORKING for c in children),
                "pending": [c["approval"] for c in children if c["state"] == ChildState.DRAFT],
                "done": all(c["state"] in CHILD_DONE for c in children)}


def offer(db: Database, run_id: int, desk_kind: str) -> list[str]:
    """The tickets the **Draft for these N** button names under run `run_id`'s ending (none: no button)."""
    with db.session() as session:
        run = session.get(Run, run_id)
        return fan_out.offer(session, run, desk_kind) if run is not None else []


def run_started_by(db: Database, run_id: int) -> str | None:
    with db.session() as session:
        run = session.get(Run, run_id)
        return run.started_by if run is not None else None


def batch_of_run(db: Database, run_id: int) -> int | None:
    """The batch a run started (as the parent), if any."""
    with db.session() as session:
        return session.exec(select(Batch.id).where(Batch.parent_run_id == run_id)).first()


def _child(session: Session, run: Run, problem: str) -> dict[str, Any]:
    approval = session.exec(select(Approval).where(Approval.run_id == run.id, Approval.tool_name == "reply_to_customer")
                            .order_by(col(Approval.id).desc())).first()
    ticket = session.get(Ticket, run.ticket_id) if run.ticket_id else None
    view: dict[str, Any] = {"run_id": run.id, "ticket_id": run.ticket_id, "ticket": ticket_brief(session, run.ticket_id),
                            "run_status": run.status, "reason": run.reason, "started_by": run.started_by,
                            "linked": ticket is not None and ticket.problem_id == problem,
                            "approval": _approval(session, approval, run) if approval is not None else None}
    view["declined"] = declined_reason(run.answer) if run.status == RunStatus.COMPLETED else None
    view["state"] = _state(run, approval, view["declined"])
    others = session.exec(select(Approval.tool_name).where(Approval.run_id == run.id,
                                                          Approval.status == ApprovalStatus.PENDING,
                                                          Approval.tool_name != "reply_to_customer")).all()
    view["waiting_calls"] = sorted(set(others))
    if others and view["state"] != ChildState.DRAFT:  # never "done" while any call of the child waits
        view["state"] = ChildState.CALL_WAITS
    if view["state"] == ChildState.FINISHED:
        view["declined"] = (run.answer or "finished without a draft").strip()[:500]
    return view


def _approval(session: Session, row: Approval, run: Run) -> dict[str, Any]:
    message = chosen_message(row)
    return {"id": row.id, "fingerprint": row.fingerprint, "status": row.status, "message": message,
            "input": dict(row.tool_input or {}), "decided_by": row.decided_by, "decided_at": row.decided_at,
            "reason": row.reason, "result": row.result, "reminded_at": row.reminded_at,
            "sources": citations.check(session, message, run.messages or [], row.tool_use_id)}


def _state(run: Run, approval: Approval | None, declined: str | None) -> ChildState:
    if approval is not None and approval.status == ApprovalStatus.PENDING:
        return ChildState.DRAFT
    if approval is not None and approval.status in (ApprovalStatus.APPROVED, ApprovalStatus.EDITED):
        if approval.result is None:
            return ChildState.SENDING
        return ChildState.NOT_SENT if approval.result.get("is_error") else ChildState.SENT
    if run.status in LIVE:
        return ChildState.WORKING  # queued, running, or revising after a rejection
    if run.status == RunStatus.COMPLETED:
        return ChildState.DECLINED if declined else ChildState.FINISHED
    return ChildState.HANDED_OVER  # escalated, failed, stopped
