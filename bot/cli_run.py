"""`kitebase run` and the commands that continue a run: approve, reject, resume, follow-up."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sqlmodel import col, select

from bot.agent.observer import Observer, Observers
from bot.agent.replay import source_lines
from bot.cli_decide import ask, box, customer_copy, drafts_of, lost, plain, prompt_decision, show, show_diff
from bot.cli_output import TurnPrinter
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import DeskWrite, Run
from bot.db.open import open_database
from bot.redact import redact
from bot.runs import BadInput
from bot.runs.execution.desk_work import start_sender
from bot.runs.execution.processes import Liveness
from bot.runs.lifecycle import citations, naming
from bot.runs.lifecycle.checkpoint import release_lease
from bot.runs.lifecycle.service import RunService
from bot.runs.reports import batches, due
from bot.search.warm import warm_up_in_background
from bot.vocabulary import TERMINAL, RunState, RunStatus

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT, EXIT_STOPPED = 0, 1, 2, 3
__all__ = ["open_database"]


def approve_mode(args: argparse.Namespace) -> str:
    if args.approve:
        return args.approve
    return "prompt" if sys.stdin.isatty() and not getattr(args, "json", False) else "later"


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    db = open_database(settings)
    service = RunService(db, settings)
    run_id = service.start(args.goal, started_by=actor_of(args, settings), origin={"surface": "cli"})
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
        try:
            code = _drive(service, run_id, args, out)
        except KeyboardInterrupt:
            raise Interrupted(interrupted(service, run_id)) from None
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


class Interrupted(Exception):
    """Ctrl-C while a run was driven: its sentence says where the run stands and the command that continues it."""


def interrupted(service: RunService, run_id: int) -> str:
    """The run this process drove is left resumable at once (its lease given back: no dead-process wait, no
    sweep), and the sentence says how to continue it."""
    release_lease(service.db, run_id, service.owner)
    state = service.load_state(run_id)
    named = named_run(service, run_id)
    if state is not None and state.status == RunStatus.AWAITING_APPROVAL:
        return (f"interrupted; {named.label()} keeps its draft waiting: `kitebase approve {run_id}` or `kitebase "
                f"reject {run_id} --reason TEXT` decides it, `kitebase drafts` lists what waits.")
    if state is not None and state.status in TERMINAL:
        return f"interrupted; {named.label()} had already ended ({state.status}): `kitebase replay {run_id}` shows it."
    return (f"interrupted; {named.label()} is stored as far as it got and nobody works it now: `kitebase resume "
            f"{run_id}` continues it (nothing was sent to the customer without an approval).")


class SearchWarmUp(Observer):
    """A cold process loads the search's index while its first model call is under way, not between the calls
    (bot/search/warm.py); started as the call goes out, so it does not slow the process on its way there."""

    def __init__(self, db: Database):
        self.db = db

    def on_model_call(self, state: RunState) -> None:
        warm_up_in_background(self.db, after=0.05)  # the request is on the wire by then


def _due_line(db: Database, ticket_id: str) -> str | None:
    """"next reply due in 25 min · Business · high" for the draft's ticket, by the database's clock."""
    with db.session() as session:
        return due.of_ticket(session, ticket_id, due.now(session)).line


def _drive(service: RunService, run_id: int, args: argparse.Namespace, out: Any) -> int:
    mode = approve_mode(args)
    printer = Observers(TurnPrinter(out, customer_copy=lambda m: customer_copy(service.db, service.settings, m),
                                    drafts=mode != "prompt", due_line=lambda t: _due_line(service.db, t)),
                        SearchWarmUp(service.db))
    while True:
        state = service.resume(run_id, printer)
        if state is None:
            raise BadInput(f"Run {run_id} is being continued by another process right now.")
        if state.status != RunStatus.AWAITING_APPROVAL or mode == "later":
            break
        if not decide_at_terminal(service, run_id, state, mode, actor_of(args, service.settings), out):
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
    """Decide the run's waiting calls as `mode` says; False when the person leaves them for later (or a decision
    lost to a stop or to someone else: that is said, and nothing was sent)."""
    named = named_run(service, run_id)
    for draft in drafts_of(service, named):
        refused = may_not_decide(service, actor, draft)
        if refused:
            print(refused, file=out)
            return False
        if mode in ("auto", "reject"):
            for line in source_lines(draft.view.get("sources")):
                print("  " + line.strip(), file=out)
        if mode == "auto":
            print(f"  → approved automatically (--approve auto) as {actor}", file=out)
            if lost(service.decide(draft.approval_id, action="approve", actor=actor), named, out):
                return False
        elif mode == "reject":
            print("  → rejected (--approve reject)", file=out)
            if lost(service.decide(draft.approval_id, action="reject", actor=actor,
                                   reason="rejected at the terminal (--approve reject)"), named, out):
                return False
        else:
            show(draft, service.settings, out)
            if prompt_decision(service, draft, actor, out) in ("later", "lost"):
                return False
    return True


def named_run(service: RunService, run_id: int) -> naming.NamedRun:
    with service.db.session() as session:
        return naming.resolve(session, f"run {run_id}")


def draft_sources(session: Any, run_id: int, tool: str, arguments: dict[str, Any],
                  tool_use_id: str) -> dict[str, Any] | None:
    """The citation check of a waiting draft (as the card and the step log show it)."""
    if tool not in citations.DRAFT_TOOLS:
        return None
    run = session.get(Run, run_id)
    return citations.check(session, str(arguments.get("message") or ""), run.messages or [], tool_use_id)


def hint_waiting(service: RunService, run_id: int, out: Any) -> None:
    """The run waits for a person: which run, ticket and customer, and how to decide it."""
    named = named_run(service, run_id)
    drafts = drafts_of(service, named)
    what = "a reply to the customer" if all(d.message is not None for d in drafts) else \
        ", ".join(d.view["tool"] for d in drafts)
    print(plain(f"\n{named.label(start=True)} waits for a person to decide {what}. From anywhere, any time:\n"
                f"  kitebase approve {run_id} [--edit TEXT]   or   kitebase reject {run_id} --reason TEXT\n"
                f"  (`kitebase drafts` lists every draft that waits)"), file=out)


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
    """`kitebase approve RUN [--edit TEXT] [--yes]`, `kitebase reject RUN --reason TEXT`: the waiting draft is
    shown as the card shows it (customer, ticket, the exact text, its sources and checks) before anything is
    decided; approving asks first unless --yes."""
    service = RunService(open_database(settings), settings)
    out = sys.stderr if args.json else sys.stdout
    with service.db.session() as session:
        named = naming.resolve(session, args.run, kind=settings.desk, want=naming.WAITING)
    drafts = drafts_of(service, named)
    if not drafts:
        raise BadInput(f"{named.label(start=True)} has no draft waiting any more. `kitebase drafts` lists those "
                       "that wait.")
    actor = actor_of(args, settings)
    if args.decision == "approve" and args.message is not None and len(drafts) > 1:
        raise BadInput(f"{named.label(start=True)} waits on {len(drafts)} calls; --edit changes one reply. "
                       f"Decide them one by one at the prompt: kitebase approve {named.run_id}")
    refused = may_not_decide(service, actor, drafts[0])
    if refused:
        raise BadInput(refused)
    if args.decision == "approve" and args.message is not None:
        problems = service.check_call(drafts[0].view["tool"], {**drafts[0].view["input"], "message": args.message})
        if problems:
            raise BadInput("Nothing was sent and the draft still waits: your edit " + "; ".join(problems))
    for draft in drafts:
        show(draft, settings, out)
        if args.decision == "reject":
            decision = service.decide(draft.approval_id, action="reject", actor=actor, reason=args.reason,
                                      expected_fingerprint=draft.view["fingerprint"])
        else:
            action, message = "approve", None
            if args.message is not None:
                action, message = "edit", args.message
                copy = customer_copy(service.db, settings, args.message)
                print("  Your edit changes what the customer reads:", file=out)
                show_diff(draft.customer_copy or str(draft.view["input"]), copy, out)
                print("  The customer will receive exactly this instead:", file=out)
                box(copy, out)
            if not args.yes and not confirmed(draft, out):
                return EXIT_STOPPED
            decision = service.decide(draft.approval_id, action=action, actor=actor, message=message,
                                      expected_fingerprint=draft.view["fingerprint"])  # the draft shown
        if lost(decision, named, out, service.db):
            return EXIT_STOPPED
        print(redact(f"{decision.message.rstrip('.')}: {named.label()}."), file=out)
    return drive(service, named.run_id, args, out)


def may_not_decide(service: RunService, actor: str, draft: Any) -> str | None:
    """Why the terminal's user may not decide this draft, or None. With KITEBASE_APPROVERS set, the terminal is
    judged like a Slack user of its id (--as, KITEBASE_CLI_USER): only approvers decide, as on the card. Unset, the
    terminal is the operator's (it holds the database) and decides."""
    if not service.settings.approvers:
        return None
    why = service.people.why_not_decide(actor, draft.view["run"]["started_by"], draft.view.get("reminded_at") is not None)
    return plain(f"{why} (The terminal acts as {actor}: --as USER or KITEBASE_CLI_USER.)") if why else None


def confirmed(draft: Any, out: Any) -> bool:
    """The person says yes at the terminal; without a terminal, nothing is sent without --yes."""
    what = "this reply to the customer" if draft.message is not None else f"this {draft.view['tool']} call"
    if not sys.stdin.isatty():
        print(f"Nothing was sent: approving needs a yes. Run it at a terminal to be asked, or add --yes to approve "
              f"{what} as shown.", file=out)
        return False
    while True:
        answer = (ask(f"Send {what}? [y]es / [n]o: ", out) or "n").strip().lower()
        if answer in ("y", "yes"):
            return True
        if answer in ("n", "no"):
            print(f"Nothing was sent; the draft still waits (kitebase approve {draft.run.run_id}).", file=out)
            return False
        print("  Please answer y or n.", file=out)


def actor_of(args: argparse.Namespace, settings: Settings) -> str:
    """Who the terminal acts as: --as, else KITEBASE_CLI_USER, else "cli"."""
    return str(getattr(args, "actor", None) or settings.cli_user)


def cmd_resume(args: argparse.Namespace, settings: Settings) -> int:
    service = RunService(open_database(settings), settings)
    with service.db.session() as session:
        named = naming.resolve(session, args.run, kind=settings.desk)
    if named.status == RunStatus.COMPLETED:
        raise BadInput(f"{named.label(start=True)} is completed; resuming it would only call the model again. "
                       f"`kitebase follow-up {named.run_id} TEXT` adds to its conversation, `kitebase replay "
                       f"{named.run_id}` shows it.")
    if named.status in TERMINAL:
        refused = service.people.why_not_steer(actor_of(args, settings), "resume a stopped or escalated run")
        if refused:
            raise BadInput(plain(f"{refused} (The terminal acts as {actor_of(args, settings)}: --as USER or "
                                 "KITEBASE_CLI_USER.)"))
        service.reopen(named.run_id, actor=actor_of(args, settings), note=args.note)
    out = sys.stderr if args.json else sys.stdout
    if named.status in TERMINAL:
        print(f"{named.label(start=True)} was {named.status.replace('_', ' ')}; resumed by {actor_of(args, settings)} "
              "with a fresh allowance" + (" and your note." if args.note else "."), file=out, flush=True)
    if named.status == RunStatus.AWAITING_APPROVAL:
        print(f"{named.label(start=True)} waits for a decision.", file=out)
    return drive(service, named.run_id, args, out)


def cmd_follow_up(args: argparse.Namespace, settings: Settings) -> int:
    service = RunService(open_database(settings), settings)
    with service.db.session() as session:
        named = naming.resolve(session, args.run, kind=settings.desk)
    service.follow_up(named.run_id, args.text, actor=actor_of(args, settings))
    out = sys.stderr if args.json else sys.stdout
    return drive(service, named.run_id, args, out)
