"""`kitebase queue`: the human queue at the terminal. The listing, and `take`, `resume` and `close` a run in it,
named as people name runs (its number as `kitebase runs` shows it, or its ticket), under the rule Slack's queue
buttons ask (bot/runs/lifecycle/people.py): the terminal acts as `--as` or KITEBASE_CLI_USER."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bot.cli_decide import plain
from bot.cli_output import visible
from bot.cli_run import EXIT_BAD_INPUT, EXIT_OK, actor_of, drive, open_database
from bot.config import Settings
from bot.runs.lifecycle.escalations import QueueAct, Target
from bot.runs.lifecycle.service import RunService
from bot.runs.reports import queries

RUN_HELP = "the run: its number as `kitebase runs` shows it (12), or its ticket (KITE-142) for its latest run"


def add_queue_command(sub: Any) -> None:
    queue = sub.add_parser("queue", help="runs handed to a person, with reason and summary; take, resume or close one")
    queue.add_argument("--json", action="store_true")
    queue.set_defaults(handler=cmd_queue)
    acts = queue.add_subparsers(dest="queue_action", metavar="{take,resume,close}")

    take = acts.add_parser("take", help="take a run in the queue: it is yours (the queue says who has it)")
    _run_and_actor(take)
    take.set_defaults(handler=cmd_take)

    resume = acts.add_parser("resume", help="continue a run from the queue with a fresh allowance")
    _run_and_actor(resume)
    resume.add_argument("--note", help="a note for the agent")
    resume.add_argument("--approve", choices=["prompt", "auto", "reject"],
                        help="what to do when the agent wants to reply to a customer")
    resume.add_argument("--json", action="store_true", help="print one JSON object at the end")
    resume.set_defaults(handler=cmd_resume_from_queue)

    close = acts.add_parser("close", help="close a run's escalation with a note on how it was resolved")
    _run_and_actor(close)
    close.add_argument("--note", required=True, help="how it was resolved")
    close.set_defaults(handler=cmd_close)


def _run_and_actor(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help=RUN_HELP)
    parser.add_argument("--as", dest="actor", help="who acts (default: KITEBASE_CLI_USER, else `cli`)")


def cmd_queue(args: argparse.Namespace, settings: Settings) -> int:
    db = open_database(settings)
    with db.session() as session:
        items = queries.queue(session)
    if args.json:
        print(json.dumps(items, ensure_ascii=False, indent=1))
        return EXIT_OK
    if not items:
        print("The human queue is empty.")
    for item in items:
        print(queue_item(item))
    return EXIT_OK


def queue_item(item: dict[str, Any]) -> str:
    """One run in the queue (what is due first on top): which, why in words, who has it, what is due on its
    ticket, and the commands to act on it."""
    run = item["run_id"]
    head = " · ".join(str(x) for x in (f"Run {run}", item["ticket_id"], item.get("customer"), item["why"]) if x)
    who = f" · taken by {item['claimed_by']}" if item["claimed_by"] else ""
    lines = [head + who, *([f"  {item['due']}"] if item.get("due") else []), f"  Reason: {item['reason']}"]
    lines += [f"  {line}" for line in (item["summary"] or "").splitlines()]
    for message in item.get("held") or []:
        lines.append(f"  {visible(message['author'])} wrote again (waits for a person to resume the run): "
                     f"“{visible(message['body'])}”")
    take = "" if item["claimed_by"] else f"kitebase queue take {run}   "
    lines += [f"  Act: {take}kitebase queue resume {run} [--note TEXT]   kitebase queue close {run} --note TEXT",
              f"  History: kitebase replay {run}", ""]
    return "\n".join(lines)


def cmd_take(args: argparse.Namespace, settings: Settings) -> int:
    service = RunService(open_database(settings), settings)
    return _said(service.take_from_queue(Target(name=args.run), actor=actor_of(args, settings)))


def cmd_close(args: argparse.Namespace, settings: Settings) -> int:
    service = RunService(open_database(settings), settings)
    return _said(service.close_from_queue(Target(name=args.run), actor=actor_of(args, settings), note=args.note))


def cmd_resume_from_queue(args: argparse.Namespace, settings: Settings) -> int:
    """Resume the run as `kitebase resume` does: reopened (its escalations marked resumed), then driven here."""
    service = RunService(open_database(settings), settings)
    args.actor = actor_of(args, settings)
    act = service.resume_from_queue(Target(name=args.run), actor=args.actor, note=args.note)
    if not act.done or act.run_id is None:
        return _said(act)
    out = sys.stderr if args.json else sys.stdout
    print(act.sentence, file=out, flush=True)
    return drive(service, act.run_id, args, out)



def _said(act: QueueAct) -> int:
    if act.done:
        print(act.sentence)
        return EXIT_OK
    print(plain(f"kitebase: {act.sentence}"), file=sys.stderr)
    return EXIT_BAD_INPUT
