"""Decisions on gated tool calls: recorded atomically (the first one wins), then turned into tool results."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import update
from sqlmodel import col

from bot import outbox
from bot.agent.loop import AgentLoop
from bot.agent.sent import edited_result
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Approval, get_or_raise, id_of
from bot.db.statements import changed
from bot.runs import BadInput
from bot.runs.lifecycle.goals import clean_text
from bot.telemetry.decisions import traced_decision
from bot.vocabulary import ApprovalStatus, PendingCall
from tools import ToolResult

CallCheck = Callable[[str, dict[str, Any]], list[str]]


@dataclass(frozen=True)
class Decision:
    outcome: str  # approved | edited | rejected | already_decided | not_found | mismatch
    message: str
    run_id: int | None = None


@traced_decision  # bot/telemetry: the run in the log lines; with tracing, a span with who decided and the wait
def decide(db: Database, approval_id: int, *, action: str, actor: str, message: str | None = None,
           reason: str | None = None, expected_fingerprint: str | None = None,
           check: CallCheck | None = None) -> Decision:
    """Record one decision on a gated call; only the first decision counts (an atomic UPDATE). An edit is
    checked like the model's own call (`check`) before anything is recorded: an invalid edit raises BadInput
    and the draft stays pending. The card shows the decision (an outbox row in the same transaction)."""
    if action not in ("approve", "edit", "reject"):
        raise BadInput(f"Unknown decision {action!r}; use approve, edit or reject.")
    message = clean_text(message).strip() if message is not None else None
    if action == "edit" and not message:
        raise BadInput("The edited reply is empty; write the message the customer should receive.")
    if action == "reject" and not (reason and reason.strip()):
        raise BadInput("Say why the draft is rejected; the agent uses your reason to revise it.")
    with db.session() as session:
        approval = session.get(Approval, approval_id)
        if approval is None:
            return Decision("not_found", f"There is no approval {approval_id}; it may have been removed.")
        if expected_fingerprint and expected_fingerprint != approval.fingerprint:
            return Decision("mismatch", "This draft changed since you saw it; nothing was sent. Look at the "
                            "current draft and decide again.", approval.run_id)
        status = {"approve": ApprovalStatus.APPROVED, "edit": ApprovalStatus.EDITED, "reject": ApprovalStatus.REJECTED}[action]
        edited = {**(approval.tool_input or {}), "message": message} if action == "edit" else None
        if edited is not None and check is not None and approval.status == ApprovalStatus.PENDING:
            problems = check(approval.tool_name, edited)
            if problems:
                raise BadInput("The edited reply was not sent and the draft still waits: " + "; ".join(problems))
        won = changed(session.execute(
            update(Approval).where(col(Approval.id) == approval_id, col(Approval.status) == ApprovalStatus.PENDING)
            .values(status=status, decided_by=actor, decided_at=clock.now(), edited_input=edited,
                    reason=clean_text(reason).strip() if reason else None))) == 1
        if won:
            outbox.card_changed(session, approval_id)
            outbox.homes_changed(session)
        run_id = approval.run_id
    if not won:
        with db.session() as session:
            current = get_or_raise(session, Approval, approval_id)
            when = current.decided_at.strftime("%H:%M UTC") if current.decided_at else "earlier"
            if current.status == ApprovalStatus.WITHDRAWN:
                return Decision("already_decided", f"{current.decided_by} stopped the run at {when}, before your "
                                "decision; nothing was sent.", run_id)
            return Decision("already_decided", f"Already {current.status} by {current.decided_by} at {when}; "
                            "nothing more was sent.", run_id)
    return Decision(status, f"{status.capitalize()} by {actor}.", run_id)


def chosen_message(row: Approval) -> str:
    """The text a draft's decision stands for: a person's edit wins over the model's draft (what was, or will
    be, sent; what the card, the batch card and the figures show)."""
    chosen = row.edited_input if row.status == ApprovalStatus.EDITED and row.edited_input else row.tool_input
    return str((chosen or {}).get("message") or "")


def settle(db: Database, loop: AgentLoop, approvals: list[Approval]) -> dict[str, ToolResult] | None:
    """Results of the decided gated calls (running approved ones once), or None while any is pending."""
    if not approvals or any(a.status == ApprovalStatus.PENDING for a in approvals):
        return None
    decided: dict[str, ToolResult] = {}
    for approval in approvals:
        if approval.result is None:
            result = outcome(loop, approval)
            with db.session() as session:
                row = get_or_raise(session, Approval, approval.id)
                row.result = {"text": result.text, "is_error": result.is_error}
                session.add(row)
                outbox.card_changed(session, id_of(approval))
            approval.result = {"text": result.text, "is_error": result.is_error}
        decided[approval.tool_use_id] = ToolResult(approval.result["text"], is_error=approval.result["is_error"])
    return decided

def outcome(loop: AgentLoop, approval: Approval) -> ToolResult:
    call = PendingCall(approval.tool_use_id, approval.tool_name, dict(approval.tool_input or {}),
                       approval.fingerprint)
    who = approval.decided_by or "the reviewer"
    if approval.status == ApprovalStatus.REJECTED:
        return ToolResult(f"Not sent: {who} rejected this draft. Their reason: {approval.reason}. "
                          "Revise the draft and call reply_to_customer again, or escalate_to_human.", is_error=True)
    if approval.status == ApprovalStatus.WITHDRAWN:
        return ToolResult(f"Not sent: {who} stopped the run before anyone decided on this draft.", is_error=True)
    if approval.status == ApprovalStatus.EXPIRED:
        return ToolResult("Not sent: nobody decided on this draft in time. Stop and escalate_to_human.",
                          is_error=True)
    arguments = call.input
    if approval.status == ApprovalStatus.EDITED:
        if approval.edited_input is None:  # decide() stores the edit with the status, in one UPDATE
            raise ValueError(f"approval {approval.id} is marked edited but holds no edited input")
        arguments = approval.edited_input
    result = loop.execute_approved(call, arguments, actor=who)
    if approval.status == ApprovalStatus.EDITED and not result.is_error:
        return ToolResult(edited_result(result.text, who, str(call.input.get("message") or ""),
                                        str(arguments.get("message") or "")), result.data)
    if not result.is_error:
        return ToolResult(f"{result.text} Approved by {who}.", result.data)
    return result
