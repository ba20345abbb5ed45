"""`kitebase`: run the agent on a ticket, look at runs and the human queue, replay runs, search the desk."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import col, select

from bot.agent.replay import timeline
from bot.cli_also import add_also_command
from bot.cli_decide import print_drafts
from bot.cli_desk import add_desk_commands
from bot.cli_eval import add_eval_command
from bot.cli_intake import add_intake_commands
from bot.cli_output import one_line
from bot.cli_queue import add_queue_command
from bot.cli_reports import add_report_commands
from bot.cli_run import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_STOPPED,
    Interrupted,
    cmd_decide,
    cmd_follow_up,
    cmd_resume,
    cmd_run,
    open_database,
)
from bot.cli_stop import add_stop_command
from bot.config import Settings
from bot.db.models import Run, Step, get_or_raise
from bot.db.open import DatabaseUnusable
from bot.desk import DeskError
from bot.desk.sla import PoliciesUnusable, read_policies
from bot.redact import redact
from bot.runs import BadInput
from bot.runs.lifecycle import naming
from bot.runs.reports import queries
from bot.telemetry import tracing
from bot.telemetry.logs import configure_logging
from bot.vocabulary import TERMINAL, RunStatus
from tools import REGISTRY, ToolContext, execute

logger = logging.getLogger(__name__)

RUN_HELP = "the run: its number as `kitebase runs` shows it, or its ticket (KITE-142) for that ticket's live or latest run"
AS_HELP = "who the terminal acts as (recorded with the decision; default KITEBASE_CLI_USER, else cli)"
GUARD_OPTIONS = {"max_steps": int, "token_budget": int, "cost_budget_usd": float, "deadline_seconds": float,
                 "max_repeats": int}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        overrides: dict[str, Any] = {k: getattr(args, k) for k in GUARD_OPTIONS if getattr(args, k, None) is not None}
        if getattr(args, "offline", False):
            overrides["offline"] = True
        settings = Settings(**overrides)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'setting'}: {e['msg']}" for e in exc.errors())
        print(f"kitebase: bad setting: {problems}", file=sys.stderr)
        return EXIT_BAD_INPUT
    configure_logging(logging.INFO if args.verbose else logging.WARNING, settings.log_format)
    tracing.setup(settings)  # OTLP spans when OTEL_EXPORTER_OTLP_ENDPOINT is set; else nothing at all
    try:
        if settings.desk == "embedded":  # the reply targets' file, named before anything runs (bot/desk/sla.py)
            read_policies(settings.sla_policies_path)
        return args.handler(args, settings)
    except Interrupted as exc:
        print(redact(f"\nkitebase: {exc}"), file=sys.stderr)
        return EXIT_STOPPED
    except BrokenPipeError:  # `kitebase runs | head -1`: the reader has what it wanted
        quiet_stdout()
        return EXIT_OK
    except BadInput as exc:
        print(redact(f"kitebase: {exc}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except (DatabaseUnusable, PoliciesUnusable) as exc:
        print(redact(f"kitebase: {exc}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except DeskError as exc:  # the desk refused or could not be reached: its sentence says what to do
        print(redact(f"kitebase: {exc}"), file=sys.stderr)
        return EXIT_STOPPED
    except SQLAlchemyError as exc:  # the database failed mid-command: one line; the traceback with -v
        logger.debug("database error", exc_info=True)
        line = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        print(redact(f"kitebase: the database failed ({line}); what was stored is intact, try again"), file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("\nkitebase: interrupted; what was stored stays stored (`kitebase runs` shows where each run stands).",
              file=sys.stderr)
        return EXIT_STOPPED


def quiet_stdout() -> None:
    """Standard output's reader went away: further writes (and the flush at exit) go nowhere, without a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kitebase", description="The Kitebase ticket agent.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens (to stderr)")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="work a ticket: kitebase run \"handle KITE-142\"")
    run.add_argument("goal", help="the request, naming a ticket id")
    run.add_argument("--approve", choices=["prompt", "auto", "reject"],
                     help="what to do when the agent wants to reply to a customer (default: prompt on a terminal, "
                          "otherwise leave the run waiting)")
    run.add_argument("--as", dest="actor", help=AS_HELP)
    run.add_argument("--offline", action="store_true", help="use the offline model even if ANTHROPIC_API_KEY is set")
    for name, kind in GUARD_OPTIONS.items():
        run.add_argument("--" + name.replace("_", "-"), type=kind, dest=name, help=f"KITEBASE_{name.upper()}")
    run.add_argument("--json", action="store_true", help="print one JSON object at the end (turns go to stderr)")
    run.set_defaults(handler=cmd_run)

    for name, help_text in (("approve", "approve a waiting reply (optionally with an edit) and continue the run"),
                            ("reject", "reject a waiting reply with a reason and continue the run")):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("run", help=RUN_HELP)
        p.add_argument("--as", dest="actor", help=AS_HELP)
        if name == "approve":
            p.add_argument("--edit", dest="message", help="send this text instead of the draft (the difference is shown)")
            p.add_argument("--yes", action="store_true", help="approve without asking (for scripts); the draft is "
                           "still printed")
        else:
            p.add_argument("--reason", required=True)
        p.add_argument("--approve", choices=["prompt", "auto", "reject"])
        p.add_argument("--json", action="store_true")
        p.set_defaults(handler=cmd_decide, decision=name)

    drafts = sub.add_parser("drafts", help="every draft that waits for a decision (run, ticket, customer, age, who "
                            "may decide)")
    drafts.add_argument("--json", action="store_true")
    drafts.set_defaults(handler=cmd_drafts)

    add_also_command(sub)
    add_stop_command(sub)

    resume = sub.add_parser("resume", help="continue a stored run (after a crash, or a stopped run with a fresh allowance)")
    resume.add_argument("run", help=RUN_HELP)
    resume.add_argument("--note", help="a note for the agent when continuing a stopped run")
    resume.add_argument("--approve", choices=["prompt", "auto", "reject"])
    resume.add_argument("--as", dest="actor", help=AS_HELP)
    resume.add_argument("--json", action="store_true")
    resume.set_defaults(handler=cmd_resume)

    follow = sub.add_parser("follow-up", help="add to a finished run's conversation and continue it")
    follow.add_argument("run", help=RUN_HELP)
    follow.add_argument("text")
    follow.add_argument("--approve", choices=["prompt", "auto", "reject"])
    follow.add_argument("--as", dest="actor", help=AS_HELP)
    follow.add_argument("--json", action="store_true")
    follow.set_defaults(handler=cmd_follow_up)

    runs = sub.add_parser("runs", help="the latest runs")
    runs.add_argument("--limit", type=int, default=20)
    runs.add_argument("--json", action="store_true")
    runs.set_defaults(handler=cmd_runs)

    add_queue_command(sub)

    replay = sub.add_parser("replay", help="a stored run as a readable timeline")
    replay.add_argument("run", help=RUN_HELP)
    replay.add_argument("--check", action="store_true",
                        help="also re-run the stored model responses through the loop on a scratch copy of the desk "
                             "and report whether it behaves the same")
    replay.set_defaults(handler=cmd_replay)

    search = sub.add_parser("search", help="search the desk exactly as the agent's tools do")
    search.add_argument("what", choices=["help", "tickets"])
    search.add_argument("query", nargs="?", default="")
    search.add_argument("--like", help="tickets with the same problem as this one (compares its title, first "
                        "message, error text and tags; leaves it out)")
    search.add_argument("--status", choices=["any", "open", "pending", "closed"], default="any")
    search.add_argument("--limit", type=int)
    search.add_argument("--json", action="store_true")
    search.set_defaults(handler=cmd_search)

    db = sub.add_parser("db", help="database maintenance")
    db.add_argument("action", choices=["upgrade"], help="create or update the schema and load the desk")
    db.set_defaults(handler=cmd_db)

    add_report_commands(sub)
    add_desk_commands(sub)
    add_intake_commands(sub)
    add_eval_command(sub)

    sweep = sub.add_parser("sweep", help="run every timer once, now (for operators, cron and tests)")
    sweep.add_argument("--json", action="store_true")
    sweep.set_defaults(handler=cmd_sweep)

    serve = sub.add_parser("serve", help="the Slack app (HTTP mode, or Socket Mode with SLACK_APP_TOKEN)")
    serve.set_defaults(handler=cmd_serve)

    worker = sub.add_parser("worker", help="continue runs from the PostgreSQL task queue (KITEBASE_EXECUTION=queue)")
    worker.set_defaults(handler=cmd_worker)
    return parser


# --- set-up --------------------------------------------------------------------------------------

# --- looking -------------------------------------------------------------------------------------

def cmd_runs(args: argparse.Namespace, settings: Settings) -> int:
    db = open_database(settings)
    with db.session() as session:
        rows = queries.latest_runs(session, args.limit)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return EXIT_OK
    if not rows:
        print("No runs yet. Try: kitebase run \"handle KITE-142\"")
    for r in rows:
        print(f"#{r['run_id']:<4} {r['ticket_id'] or '-':<9} {r['status']:<18} {r['steps']:>2} calls "
              f"{r['total_tokens']:>8,} tok ${r['cost_usd']:.4f}  {one_line(r['goal'], 60)}")
        if r["reason"]:
            print(f"      {one_line(r['reason'], 110)}")
        handoff = r["handoff"]
        if handoff and r["status"] in TERMINAL - {RunStatus.COMPLETED} and handoff["status"] != "open":
            state = "taken" if handoff["status"] == "claimed" else handoff["status"]
            print(f"      in the human queue: {state}" + (f" by {handoff['by']}" if handoff["by"] else "")
                  + (f": {one_line(handoff['note'].rsplit(' (closed by ', 1)[0], 80)}"
                     if handoff["status"] == "closed" and handoff["note"] else ""))
    return EXIT_OK


def cmd_drafts(args: argparse.Namespace, settings: Settings) -> int:
    db = open_database(settings)
    if args.json:
        with db.session() as session:  # a person names a draft by its run: the approval's own id is left out
            rows = [{k: v for k, v in row.items() if k != "approval_id"} for row in queries.waiting_approvals(session)]
        print(json.dumps(rows, ensure_ascii=False, indent=1, default=str))
    else:
        print_drafts(db, settings, sys.stdout)
    return EXIT_OK


def cmd_replay(args: argparse.Namespace, settings: Settings) -> int:
    db = open_database(settings)
    with db.session() as session:
        run = get_or_raise(session, Run, naming.resolve(session, args.run, kind=settings.desk).run_id)
        steps = list(session.exec(select(Step).where(Step.run_id == run.id).order_by(col(Step.number))).all())
    print(timeline(run, steps))
    if args.check:
        from bot.runs.reports.rerun import rerun

        report = rerun(run, steps, settings)
        print("\n" + report.text)
        return EXIT_OK if report.same else EXIT_STOPPED
    return EXIT_OK


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    db = open_database(settings)
    ctx = ToolContext(db=db, settings=settings)
    if args.what == "help":
        if args.like:
            raise BadInput("--like works with `search tickets`.")
        arguments: dict[str, Any] = {"query": args.query, "limit": args.limit or 3}
        result = execute(REGISTRY, ctx, "search_help", arguments)
    else:
        arguments = {"query": args.query, "status": args.status, "limit": args.limit or 5}
        if args.like:
            arguments["like_ticket_id"] = args.like
        elif not args.query.strip():
            raise BadInput("Give words to search for, or --like KITE-142.")
        result = execute(REGISTRY, ctx, "search_tickets", arguments)
    if result.is_error:
        raise BadInput(result.text)
    if args.json:
        print(json.dumps(result.data or [], ensure_ascii=False, indent=1))
    else:
        print(result.text)
    return EXIT_OK


def cmd_db(args: argparse.Namespace, settings: Settings) -> int:
    db = open_database(settings)
    if db.dialect == "postgresql":
        from bot.runs.execution.workqueue import ensure_schema

        ensure_schema(settings)
    from bot.search.catch_up import drain

    stored = drain(db.engine)  # what the migrations and writers left for the search (progress on a big desk)
    with db.session() as session:
        counts = queries.desk_counts(session)
    print(f"Schema ready. Desk: {counts['customers']} customers, {counts['tickets']} tickets, "
          f"{counts['sections']} help sections." + (f" Search: {stored} documents indexed." if stored else ""))
    return EXIT_OK


def cmd_sweep(args: argparse.Namespace, settings: Settings) -> int:
    """Every timer once, now (expiry, recovery of dead processes' runs, stuck runs, App Home, the digest).
    Runs it continues are continued here (embedded) or queued for the workers (queue mode); what Slack must
    show is written to the outbox, delivered by whichever process sends."""
    from bot.runs.execution.sweeps import database_now, sweep_all
    from bot.runs.lifecycle.service import RunService

    service = RunService(open_database(settings), settings)
    if settings.execution == "queue":
        from bot.runs.execution.workqueue import QueueDispatcher

        dispatch: Any = QueueDispatcher(settings)
    else:
        dispatch = lambda run_id: service.resume(run_id)  # noqa: E731
    report = sweep_all(service, database_now(service.db), dispatch)
    if args.json:
        print(json.dumps(report.__dict__))
    else:
        print(f"Sweep: {report.text()}.")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from bot.server import serve

    refused = _intake_refused(settings, "serve")
    return refused if refused is not None else serve(settings)


def cmd_worker(args: argparse.Namespace, settings: Settings) -> int:
    from bot.worker import run_worker

    refused = _intake_refused(settings, "worker")
    return refused if refused is not None else run_worker(settings)


def _intake_refused(settings: Settings, command: str) -> int | None:
    """Why `serve` or `worker` must not start with these intake settings (its exit code), or None. A bad rules
    file raises its sentence (the intake would take the wrong tickets). Rules without KITEBASE_APPROVERS: no
    person starts an intake run, so only approvers may decide on its drafts, and there would be none."""
    from bot.runs.intake.rules import load

    if load(settings.intake_rules) and not settings.approvers:
        print(f"kitebase {command}: KITEBASE_INTAKE_RULES is set but KITEBASE_APPROVERS is empty. No person starts "
              "an intake run, so only the approvers may decide on its drafts, and no one could: set "
              "KITEBASE_APPROVERS (Slack user or user-group ids), or unset KITEBASE_INTAKE_RULES.", file=sys.stderr)
        return EXIT_BAD_INPUT
    return None


if __name__ == "__main__":
    raise SystemExit(main())
