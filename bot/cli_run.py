"""`kitebase run` and the commands that continue a run: approve, reject, resume, follow-up."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sqlmodel import col, select

from bot.agent.observer import Observer, Observers
from bot.agent.replay import source_lines
from bot.cli_output import TurnPrinter
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Approval, DeskWrite, Run, id_of
from bot.db.open import open_database
from bot.redact import redact
from bot.runs import BadInput
from bot.runs.execution.desk_work import start_sender
from bot.runs.execution.processes import Liveness
from bot.runs.lifecycle import citations
from bot.runs.lifecycle.service import RunService
from bot.runs.reports import batches
from bot.search.warm import warm_up_in_background
from bot.vocabulary import TERMINAL, ApprovalStatus, RunState, RunStatus

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT, EXIT_STOPPED = 0, 1, 2, 3
__all__ = ["open_database"]


def approve_mode(args: argparse.Namespace) -> str:
    if args.approve:
        return args.approve
    return "prompt" if sys.stdin.isatty() and not getattr(args, "json", False) else "later"


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    db = open_database(settings)
    service = RunService(db, settings)
    run_id = service.start(args.goal, started_by=args.actor, origin={"surface": "cli"})
    out = sys.stderr if args.json else sys.stdout
    model = service.model_factory().name
    offline = " (offline model: no ANTHROPIC_API_KEY set)" if model == "kitebase-offline" else ""
    print(f"Run {run_id} · model {model}{offline}\nGoal: {args.goal}", file=out, flush=True)
    return drive(service, run_id, args, out)


def drive(service: RunService, run_id: int, args: argparse.Namespace, out: Any) -> int:
    """Continue the run, answering approvals as --approve says, until it ends or waits. This process beats
    while it works, so if it is killed `kitebase serve` (or `kitebase sweep`) takes the run over in seconds."""
    liveness = Liveness(service.db, service.owner, "cli").start()
    desk_sender = start_sender(service.db, service.settings)
    try:
        code = _drive(service, run_id, args, out)
        if desk_sender is not None:
            report_desk_writes(desk_sender, service, run_id, out)
        return code
    finally:
        if desk_sender is not None:
            desk_sender.stop()
        liveness.stop()


def report_desk_writes(sender: Any, service: RunService, run_id: int, out: Any, timeout: float = 60.0) -> None:
    """Before the process exits: the run's writes reach the desk (or say why not)."""
    if not sender.drain(timeout):
        print("\nSome desk writes are still waiting (Zendesk slow or rate limiting); a running `kitebase serve` "
              "or `worker`, or the next `kitebase run`, sends them. `kitebase desk status` shows them.", file=out)
    with service.db.session() as session:
        rows = session.exec(select(DeskWrite).where(DeskWrite.run_id == run_id).order_by(col(DeskWrite.id))).all()
    for row in rows:
        what = "public reply" if row.kind == "reply" else "internal note" if row.body else "ticket change"
        state = {"sent": f"posted (comment {row.comment_id})" if row.comment_id else "done",
                 "failed": f"FAILED: {row.last_error}"}.get(row.status, f"{row.status}: {row.last_error or 'waiting'}")
        print(f"Zendesk ticket {row.ticket_id}: {what} {state}", file=out)


class SearchWarmUp(Observer):
    """A cold process loads the search's index while its first model call is under way, not between the calls
    (bot/search/warm.py); started as the call goes out, so it does not slow the process on its way there."""

    def __init__(self, db: Database):
        self.db = db

    def on_model_call(self, state: RunState) -> None:
        warm_up_in_background(self.db, after=0.05)  # the request is on the wire by then


def _drive(service: RunService, run_id: int, args: argparse.Namespace, out: Any) -> int:
    printer = Observers(TurnPrinter(out), SearchWarmUp(service.db))
    mode = approve_mode(args)
    while True:
        state = service.resume(run_id, printer)
        if state is None:
            raise BadInput(f"Run {run_id} is being continued by another process right now.")
        if state.status != RunStatus.AWAITING_APPROVAL or mode == "later":
            break
        if not decide_at_terminal(service, run_id, state, mode, args.actor, out):
            break
    state = service.load_state(run_id)
    if state is None:
        raise BadInput(f"There is no run {run_id}.")
    if state.status == RunStatus.AWAITING_APPROVAL:
        hint_waiting(service, run_id, out)
    if state.status == RunStatus.COMPLETED:
        hint_also(service, run_id, out)
    return finish(run_id, state, args)


def hint_also(service: RunService, run_id: int, out: Any) -> None:
    """The run's approved reply may fit the other open tickets its report names: say how to draft it for them."""
    tickets = batches.offer(service.db, run_id, service.settings.desk)
    if tickets:
        named = tickets[0] if len(tickets) == 1 else ", ".join(tickets[:-1]) + f" and {tickets[-1]}"
        print(f"\nThe same fix may help {named}: `kitebase also {run_id}` drafts it for each, in their customer's "
              "words, for your approval.", file=out)


def decide_at_terminal(service: RunService, run_id: int, state: RunState, mode: str, actor: str, out: Any) -> bool:
    for call in state.pending_calls:
        with service.db.session() as session:
            approval = session.exec(select(Approval).where(Approval.run_id == run_id,
                                                           Approval.tool_use_id == call.tool_use_id)).one()
            checked = draft_sources(session, run_id, call.name, call.input, call.tool_use_id)
        approval_id = id_of(approval)
        for line in source_lines(checked):
            print("  " + line.strip(), file=out)
        if mode == "auto":
            print(f"  → approved automatically (--approve auto) as {actor}", file=out)
            service.decide(approval_id, action="approve", actor=actor)
        elif mode == "reject":
            print("  → rejected (--approve reject)", file=out)
            service.decide(approval_id, action="reject", actor=actor, reason="rejected at the terminal (--approve reject)")
        else:
            answer = ask("Send this reply? [a]pprove / [e]dit / [r]eject / [l]ater: ", out).strip().lower()
            if answer.startswith("a"):
                service.decide(approval_id, action="approve", actor=actor)
            elif answer.startswith("e"):
                print("Type the reply to send; end with a line holding a single '.':", file=out)
                service.decide(approval_id, action="edit", actor=actor, message=read_block())
            elif answer.startswith("r"):
                reason = ask("Why? (the agent will use this to revise): ", out).strip()
                service.decide(approval_id, action="reject", actor=actor, reason=reason or "no reason given")
            else:
                return False
    return True


def draft_sources(session: Any, run_id: int, tool: str, arguments: dict[str, Any],
                  tool_use_id: str) -> dict[str, Any] | None:
    """The citation check of a waiting draft (as the card and the step log show it)."""
    if tool not in citations.DRAFT_TOOLS:
        return None
    run = session.get(Run, run_id)
    return citations.check(session, str(arguments.get("message") or ""), run.messages or [], tool_use_id)


def ask(prompt: str, out: Any) -> str:
    print(prompt, end="", file=out, flush=True)
    line = sys.stdin.readline()
    return line if line else "l"


def read_block() -> str:
    lines = []
    for line in sys.stdin:
        if line.rstrip("\n") == ".":
            break
        lines.append(line.rstrip("\n"))
    return "\n".join(lines)


def hint_waiting(service: RunService, run_id: int, out: Any) -> None:
    with service.db.session() as session:
        rows = session.exec(select(Approval).where(Approval.run_id == run_id, Approval.status == ApprovalStatus.PENDING)).all()
    for row in rows:
        print(f"\nRun {run_id} waits for approval {row.id} ({row.tool_name}). Decide from anywhere, any time:\n"
              f"  kitebase approve {row.id} [--edit TEXT]   or   kitebase reject {row.id} --reason TEXT", file=out)


def finish(run_id: int, state: RunState, args: argparse.Namespace) -> int:
    if getattr(args, "json", False):
        print(redact(json.dumps(run_json(run_id, state), ensure_ascii=False)))
    return {RunStatus.COMPLETED: EXIT_OK, RunStatus.ESCALATED: EXIT_STOPPED, RunStatus.STOPPED: EXIT_STOPPED,
            RunStatus.AWAITING_APPROVAL: EXIT_STOPPED}.get(
        state.status, EXIT_INTERNAL)


def run_json(run_id: int, state: RunState) -> dict[str, Any]:
    return {"run_id": run_id, "status": state.status, "reason": state.reason, "steps": state.steps,
            **state.usage.model_dump(), "total_tokens": state.usage.total, "cost_usd": round(state.cost_usd, 6), "answer": state.answer,
            "summary": state.summary if state.status != RunStatus.COMPLETED else None}


def cmd_decide(args: argparse.Namespace, settings: Settings) -> int:
    service = RunService(open_database(settings), settings)
    if args.decision == "approve":
        action = "edit" if args.message is not None else "approve"
        decision = service.decide(args.approval_id, action=action, actor=args.actor, message=args.message)
    else:
        decision = service.decide(args.approval_id, action="reject", actor=args.actor, reason=args.reason)
    out = sys.stderr if args.json else sys.stdout
    print(redact(decision.message), file=out)
    if decision.outcome in ("not_found", "mismatch", "already_decided") or decision.run_id is None:
        return EXIT_BAD_INPUT
    return drive(service, decision.run_id, args, out)


def cmd_resume(args: argparse.Namespace, settings: Settings) -> int:
    service = RunService(open_database(settings), settings)
    state = service.load_state(args.run_id)
    if state is None:
        raise BadInput(f"There is no run {args.run_id}.")
    if state.status in TERMINAL:
        service.reopen(args.run_id, actor=args.actor, note=args.note)
    out = sys.stderr if args.json else sys.stdout
    return drive(service, args.run_id, args, out)


def cmd_follow_up(args: argparse.Namespace, settings: Settings) -> int:
    service = RunService(open_database(settings), settings)
    service.follow_up(args.run_id, args.text, actor=args.actor)
    out = sys.stderr if args.json else sys.stdout
    return drive(service, args.run_id, args, out)
