"""`kitebase desk status|sync|retry|add`: which desk the agent works, how fresh its mirror is, its writes, and
new tickets and customers' messages for the embedded desk."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlmodel import func, select

from bot.cli_run import EXIT_OK, EXIT_STOPPED, open_database
from bot.config import Settings
from bot.db.models import DeskWrite
from bot.desk import sla
from bot.durations import describe
from bot.runs import BadInput
from bot.runs.reports import queries


def add_desk_commands(sub: Any) -> None:
    desk = sub.add_parser("desk", help="the desk the agent works: status, sync (Zendesk), failed writes, add")
    what = desk.add_subparsers(dest="desk_command", required=True)
    status = what.add_parser("status", help="backend, last sync, counts, the export cursor's lag, writes")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=cmd_desk_status)
    sync = what.add_parser("sync", help="one pass of the Zendesk sync; exits when caught up")
    sync.add_argument("--full", action="store_true", help="start the export again from ZENDESK_SYNC_SINCE")
    sync.set_defaults(handler=cmd_desk_sync)
    retry = what.add_parser("retry", help="send the writes that failed again (after fixing what they said)")
    retry.set_defaults(handler=cmd_desk_retry)
    add = what.add_parser("add", help="new tickets and customers' messages for the embedded desk, from JSON lines")
    add.add_argument("file", metavar="FILE", help="one JSON object a line ('-' reads stdin); docs/intake.md")
    add.add_argument("--json", action="store_true")
    add.set_defaults(handler=cmd_desk_add)


def desk_status(settings: Settings) -> dict[str, Any]:
    db = open_database(settings)
    with db.session() as session:
        counts = queries.desk_counts(session)
        writes = dict(session.exec(select(DeskWrite.status, func.count()).group_by(DeskWrite.status)).all())
    status: dict[str, Any] = {"desk": settings.desk, **counts, "writes": writes}
    if settings.desk == "zendesk":
        from bot.desk.zendesk import sync

        row = sync.state(db)
        synced = _aware(row.synced_at if row is not None else None)
        help_row = sync.state(db, sync.HELP)
        help_read = _aware(help_row.synced_at if help_row is not None else None)
        status.update({"url": settings.zendesk_url, "last_sync": synced.isoformat() if synced else None,
                       "lag_seconds": round((datetime.now(UTC) - synced).total_seconds()) if synced else None,
                       "export_pages": row.pages if row else 0, "cursor_stored": bool(row and row.cursor),
                       "help_center": {"last_sync": help_read.isoformat() if help_read else None,
                                       "problem": help_row.problem if help_row else None},
                       "webhook": webhook_place(settings)})
    return status


def _aware(when: datetime | None) -> datetime | None:
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when


def webhook_place(settings: Settings) -> dict[str, Any]:
    """Where Zendesk's webhook arrives: POST /zendesk/webhook on `kitebase serve`'s PORT, beside /slack/events
    in HTTP mode, or on the port serve opens for it in Socket Mode (bot/server.py); off without a secret."""
    return {"enabled": settings.zendesk_webhook_secret is not None, "path": "/zendesk/webhook",
            "port": settings.port, "slack": "socket_mode" if settings.slack_app_token is not None else "http",
            "poll_seconds": settings.zendesk_poll_seconds}


def _webhook_line(hook: dict[str, Any]) -> str:
    poll = f"the poll every {describe(hook['poll_seconds'])}"
    if not hook["enabled"]:
        return (f"Webhooks: off (ZENDESK_WEBHOOK_SECRET is unset); {poll} brings changes, plus Zendesk's "
                "one-minute export delay.")
    where = ("beside /slack/events" if hook["slack"] == "http" else
             "the port `kitebase serve` opens for it in Socket Mode, beside GET /healthz")
    return (f"Webhooks: POST {hook['path']} on :{hook['port']} ({where}); point Zendesk's webhook at "
            f"https://YOUR-HOST{hook['path']}. {poll[0].upper()}{poll[1:]} catches what they miss.")


def cmd_desk_status(args: argparse.Namespace, settings: Settings) -> int:
    status = desk_status(settings)
    if args.json:
        print(json.dumps(status, ensure_ascii=False))
        return EXIT_OK
    line = (f"Desk: {status['desk']} · {status['customers']} customers, {status['tickets']} tickets, "
            f"{status['sections']} help sections")
    if status["desk"] == "zendesk":
        lag = status["lag_seconds"]
        line += (f"\nZendesk {status['url']}: last sync "
                 + (f"{status['last_sync']} ({describe(max(lag, 1))} ago)" if lag is not None else "never")
                 + f", {status['export_pages']} export page(s) read")
        help_center = status["help_center"]
        line += "\n" + (help_center["problem"] or "Help Center: " + (f"last read {help_center['last_sync']}"
                                                                     if help_center["last_sync"] else "not read yet"))
        line += "\n" + _webhook_line(status["webhook"])
    writes = status["writes"]
    if writes:
        line += "\nWrites: " + ", ".join(f"{n} {state}" for state, n in sorted(writes.items()))
        if writes.get("failed"):
            line += " (see `kitebase queue`; `kitebase desk retry` sends them again)"
    print(line)
    return EXIT_OK


def cmd_desk_sync(args: argparse.Namespace, settings: Settings) -> int:
    if settings.desk != "zendesk":
        raise BadInput("The embedded desk has nothing to sync (it is loaded from KITEBASE_DATA_DIR). Set "
                       "KITEBASE_DESK=zendesk and ZENDESK_URL to mirror a Zendesk account.")
    from bot.runs.execution import desk_work, processes

    db = open_database(settings)
    report = desk_work.poll(db, settings, full=args.full)  # one pass at a time, whoever runs it
    if report is None:
        holder = processes.holder(db, desk_work.SYNC_LOCK) or "another process"
        print(f"Zendesk sync: {holder} is syncing now, and its pass brings the mirror up to date "
              "(`kitebase desk status` shows it). Run this again once it is done.", file=sys.stderr)
        return EXIT_STOPPED
    print(f"Zendesk sync: {report.line()}.")
    return EXIT_OK if report.caught_up else EXIT_STOPPED


def cmd_desk_retry(args: argparse.Namespace, settings: Settings) -> int:
    from bot.desk.zendesk.writes import retry_failed

    count = retry_failed(open_database(settings))
    print(f"{count} failed write(s) queued again; a running `kitebase serve` or `worker` sends them, or the next "
          "`kitebase run`.")
    return EXIT_OK


def cmd_desk_add(args: argparse.Namespace, settings: Settings) -> int:
    """New tickets and customers' messages on the embedded desk (bot/desk/embedded_add.py), recorded for the
    intake rules when KITEBASE_INTAKE_RULES is set, as a Zendesk arrival is."""
    if settings.desk != "embedded":
        raise BadInput("On KITEBASE_DESK=zendesk tickets arrive from Zendesk (its webhook and `kitebase desk "
                       "sync`); `kitebase desk add` adds to the embedded desk only. Create the ticket in Zendesk.")
    from bot.desk import embedded_add

    where = "stdin" if args.file == "-" else args.file
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot read {where} ({exc.strerror or exc}).") from None
    except UnicodeDecodeError:
        raise BadInput(f"{where} is not UTF-8 text; save it as UTF-8 JSON lines.") from None
    try:
        items = embedded_add.parse(text, where)
        db = open_database(settings)
        intake = settings.intake_rules is not None
        if intake:  # a bad rules file is said now; the rules are in force from now, so these are theirs
            from bot.runs.intake import arrivals, rules

            arrivals.standing(db, rules.load(settings.intake_rules))
        report = embedded_add.add(db, items, arrivals=intake, where=where,
                                  policies=sla.read_policies(settings.sla_policies_path))
    except embedded_add.BadLines as exc:
        raise BadInput(str(exc)) from None
    intake_line = ("Recorded for the intake: the next intake pass (in `kitebase serve` or `worker`, every "
                   f"{describe(settings.intake_every_seconds)}) takes them by the rules in KITEBASE_INTAKE_RULES."
                   if report.recorded else
                   "Intake is off: nothing will pick these up until KITEBASE_INTAKE_RULES is set (docs/intake.md).")
    if args.json:
        print(json.dumps({"added": [asdict(a) for a in report.added], "tickets": report.count("ticket"),
                          "messages": report.count("message"), "new_customers": report.new_customers,
                          "intake": report.recorded}, ensure_ascii=False))
        return EXIT_OK
    for item in report.added:
        if item.kind == "ticket":
            who = f"{item.customer} (new customer, id {item.customer_id})" if item.new_customer else item.customer
            print(f"{item.ticket_id}: new ticket for {who}: {json.dumps(item.title, ensure_ascii=False)} "
                  f"(line {item.line})")
        else:
            print(f"{item.ticket_id}: message from {item.author} (line {item.line})")
    print(f"Added {report.count('ticket')} ticket(s) and {report.count('message')} message(s) to the embedded desk"
          + (f" ({report.new_customers} new customer(s))" if report.new_customers else "") + ". " + intake_line)
    return EXIT_OK
