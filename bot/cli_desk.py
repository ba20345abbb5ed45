"""`kitebase desk status|sync|retry`: which desk the agent works, how fresh its mirror is, and its writes."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from sqlmodel import func, select

from bot.cli_run import EXIT_OK, EXIT_STOPPED, open_database
from bot.config import Settings
from bot.db.models import DeskWrite
from bot.durations import describe
from bot.runs import BadInput
from bot.runs.reports import queries


def add_desk_commands(sub: Any) -> None:
    desk = sub.add_parser("desk", help="the desk the agent works: status, sync (Zendesk), failed writes")
    what = desk.add_subparsers(dest="desk_command", required=True)
    status = what.add_parser("status", help="backend, last sync, counts, the export cursor's lag, writes")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=cmd_desk_status)
    sync = what.add_parser("sync", help="one pass of the Zendesk sync; exits when caught up")
    sync.add_argument("--full", action="store_true", help="start the export again from ZENDESK_SYNC_SINCE")
    sync.set_defaults(handler=cmd_desk_sync)
    retry = what.add_parser("retry", help="send the writes that failed again (after fixing what they said)")
    retry.set_defaults(handler=cmd_desk_retry)


def desk_status(settings: Settings) -> dict[str, Any]:
    db = open_database(settings)
    with db.session() as session:
        counts = queries.desk_counts(session)
        writes = dict(session.exec(select(DeskWrite.status, func.count()).group_by(DeskWrite.status)).all())
    status: dict[str, Any] = {"desk": settings.desk, **counts, "writes": writes}
    if settings.desk == "zendesk":
        from bot.desk.zendesk import sync

        row = sync.state(db)
        synced = row.synced_at if row is not None else None
        if synced is not None and synced.tzinfo is None:
            synced = synced.replace(tzinfo=UTC)
        status.update({"url": settings.zendesk_url, "last_sync": synced.isoformat() if synced else None,
                       "lag_seconds": round((datetime.now(UTC) - synced).total_seconds()) if synced else None,
                       "export_pages": row.pages if row else 0, "cursor_stored": bool(row and row.cursor)})
    return status


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
    from bot.desk.zendesk import sync
    from bot.desk.zendesk.desk import client_for

    db = open_database(settings)
    report = sync.sync(client_for(settings), db, since_seconds=settings.zendesk_sync_since_seconds,
                       full=args.full)
    print(f"Zendesk sync: {report.line()}.")
    return EXIT_OK if report.caught_up else EXIT_STOPPED


def cmd_desk_retry(args: argparse.Namespace, settings: Settings) -> int:
    from bot.desk.zendesk.writes import retry_failed

    count = retry_failed(open_database(settings))
    print(f"{count} failed write(s) queued again; a running `kitebase serve` or `worker` sends them, or the next "
          "`kitebase run`.")
    return EXIT_OK
