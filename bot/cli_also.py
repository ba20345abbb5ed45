"""`kitebase also RUN [--tickets A,B]`: one fix for many at the terminal. The children of run RUN's batch work
side by side (as under `serve`), then each draft is shown with its customer and sources and decided as
--approve says (a prompt per ticket on a terminal); the approved children continue, and each ticket's outcome
is printed."""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bot.cli_decide import drafts_of, lost, prompt_decision
from bot.cli_run import EXIT_OK, EXIT_STOPPED, actor_of, approve_mode, named_run, report_desk_writes
from bot.config import Settings
from bot.db.open import open_database
from bot.redact import redact
from bot.runs.execution.desk_work import start_sender
from bot.runs.execution.processes import Liveness
from bot.runs.intake import fan_out
from bot.runs.lifecycle import naming
from bot.runs.lifecycle.service import RunService
from bot.runs.reports import batches
from bot.vocabulary import ChildState

SIDE_BY_SIDE = 4  # children worked at once (the model budget paces them further)


def add_also_command(sub: Any) -> None:
    also = sub.add_parser("also", help="draft the fix approved on a run for the other tickets with the same problem")
    also.add_argument("run", help="a completed run whose reply was approved: its number, or its ticket (KITE-142)")
    also.add_argument("--tickets", help="comma-separated tickets (default: the open ones its report names)")
    also.add_argument("--approve", choices=["prompt", "auto", "reject"],
                      help="what to do with the drafts (default: prompt on a terminal, otherwise leave them waiting)")
    also.add_argument("--as", dest="actor", help="who starts the batch and decides (default KITEBASE_CLI_USER, else cli)")
    also.add_argument("--json", action="store_true", help="print one JSON object at the end")
    also.set_defaults(handler=cmd_also)


def cmd_also(args: argparse.Namespace, settings: Settings) -> int:
    service = RunService(open_database(settings), settings)
    out = sys.stderr if args.json else sys.stdout
    tickets = [t for t in (args.tickets or "").split(",") if t.strip()] if args.tickets is not None else None
    with service.db.session() as session:
        run_id = naming.resolve(session, args.run, kind=settings.desk).run_id
    started = fan_out.start(service.db, run_id, actor=actor_of(args, settings), model=service.model_name,
                            desk_kind=settings.desk, tickets=tickets)
    print(redact(started.sentence()), file=out, flush=True)
    liveness = Liveness(service.db, service.owner, "cli").start()
    desk_sender = start_sender(service.db, settings)
    try:
        runs = [run_id for run_id, _ in started.children]
        _work(service, [] if started.existed else runs)
        mode = approve_mode(args)
        view = _view(service, started.batch_id)
        _show(view, out)
        if mode != "later" and view["pending"]:
            approved = _decide(service, view, mode, actor_of(args, settings), out)
            _work(service, approved)
            view = _view(service, started.batch_id)
            print("\nOutcome:", file=out)
            _show(view, out, drafts=False)
        elif view["pending"]:
            print("\nDecide each draft from anywhere: kitebase approve ID [--edit TEXT]   or   "
                  "kitebase reject ID --reason TEXT", file=out)
        if desk_sender is not None:
            for run_id in runs:
                report_desk_writes(desk_sender, service, run_id, out)
    finally:
        if desk_sender is not None:
            desk_sender.stop()
        liveness.stop()
    if args.json:
        print(redact(json.dumps(_json(view), ensure_ascii=False, default=str)))
    return EXIT_OK if view["done"] and not any(c["state"] == ChildState.HANDED_OVER for c in view["children"]) \
        else EXIT_STOPPED


def _work(service: RunService, run_ids: list[int]) -> None:
    """Each run as far as it goes now, side by side."""
    if run_ids:
        with ThreadPoolExecutor(max_workers=min(SIDE_BY_SIDE, len(run_ids))) as pool:
            list(pool.map(service.resume, run_ids))


def _view(service: RunService, batch_id: int) -> dict[str, Any]:
    view = batches.batch(service.db, batch_id)
    if view is None:
        raise AssertionError(f"batch {batch_id} vanished")
    return view


def _show(view: dict[str, Any], out: Any, *, drafts: bool = True) -> None:
    for child in view["children"]:
        ticket = child.get("ticket") or {}
        approval = child.get("approval") or {}
        print(f"\n{child['ticket_id']} · {ticket.get('customer', '?')} · run {child['run_id']}: "
              f"{_line(child)}", file=out)
        if drafts and child["state"] == ChildState.DRAFT:
            print(f"  ┌ draft (approval {approval['id']}) " + "─" * 40, file=out)
            for line in approval["message"].splitlines():
                print("  │ " + line, file=out)
            print("  └" + "─" * 60, file=out)
            cited = ", ".join(s["id"] for s in (approval.get("sources") or {}).get("cited") or []) or "nothing"
            print(f"  cites {cited}", file=out)
    for skipped in view["skipped"]:
        print(f"\n{skipped['ticket_id']}: not drafted ({skipped['reason']})", file=out)


def _line(child: dict[str, Any]) -> str:
    approval = child.get("approval") or {}
    state = child["state"]
    if state == ChildState.SENT:
        return f"replied ({approval['status']} by {approval['decided_by']})" + (
            "; linked as an incident" if child["linked"] else "")
    if state in (ChildState.DECLINED, ChildState.FINISHED):
        return f"declined: {child['declined']}"
    if state == ChildState.HANDED_OVER:
        return f"handed to a person ({child['run_status']}): {child['reason']}"
    return {ChildState.DRAFT: "a draft waits", ChildState.WORKING: "still working",
            ChildState.CALL_WAITS: f"{', '.join(child.get('waiting_calls') or ['a call'])} waits: `kitebase approve "
                                   f"{child['run_id']}` shows it",
            ChildState.SENDING: "approved, sending",
            ChildState.NOT_SENT: f"approved but not sent: {(approval.get('result') or {}).get('text', '')}"}[state]


def _decide(service: RunService, view: dict[str, Any], mode: str, actor: str, out: Any) -> list[int]:
    """The children whose draft was decided here (approved, edited or rejected: each continues)."""
    decided = []
    if mode == "auto":
        shown = {a["id"]: a["fingerprint"] for a in view["pending"]}
        result = service.approve_all(view["id"], actor=actor, shown=shown)
        print(f"\n→ approved automatically (--approve auto) as {actor}", file=out)
        return result.run_ids
    for child in view["children"]:
        if child["state"] != ChildState.DRAFT:
            continue
        approval_id = child["approval"]["id"]
        if mode == "reject":
            decision = service.decide(approval_id, action="reject", actor=actor,
                                      reason="rejected at the terminal (--approve reject)")
        else:
            outcomes = [prompt_decision(service, draft, actor, out)
                        for draft in drafts_of(service, named_run(service, child["run_id"]))]
            if all(o in ("approved", "edited", "rejected") for o in outcomes) and outcomes:
                decided.append(child["run_id"])
            continue
        if not lost(decision, named_run(service, child["run_id"]), out) and decision.run_id is not None:
            decided.append(decision.run_id)
    return decided


def _json(view: dict[str, Any]) -> dict[str, Any]:
    return {"batch_id": view["id"], "parent_run_id": view["parent_run_id"], "problem": view["problem"],
            "children": [{"run_id": c["run_id"], "ticket_id": c["ticket_id"], "state": c["state"],
                          "declined": c["declined"], "linked": c["linked"],
                          "approval_id": (c.get("approval") or {}).get("id"),
                          "approval_status": (c.get("approval") or {}).get("status")} for c in view["children"]],
            "skipped": view["skipped"]}
