"""`kitebase stop RUN`: the terminal's Stop. The same stop as Slack's (bot/runs/lifecycle/stops.py); the
terminal is the operator's, so the rule of who may stop is not asked here."""

from __future__ import annotations

import argparse
import time
from typing import Any

from bot.cli_run import EXIT_BAD_INPUT, EXIT_OK, EXIT_STOPPED, actor_of
from bot.config import Settings
from bot.db.open import open_database
from bot.runs.lifecycle import naming
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import LIVE, RunStatus

WAIT_SECONDS = 10.0  # for a worker elsewhere to honour the stop (it looks every half second)


def add_stop_command(sub: Any) -> None:
    stop = sub.add_parser("stop", help="stop a run now: no further tool, nothing sent; `kitebase resume` continues it")
    stop.add_argument("run", help="the run: its number as `kitebase runs` shows it, or its ticket (KITE-142)")
    stop.add_argument("--as", dest="actor", help="who stops it (shown in the run's thread; default KITEBASE_CLI_USER, "
                      "else cli)")
    stop.set_defaults(handler=cmd_stop)


def cmd_stop(args: argparse.Namespace, settings: Settings) -> int:
    service = RunService(open_database(settings), settings)
    with service.db.session() as session:
        named = naming.resolve(session, args.run, kind=settings.desk, want=naming.LIVE_FIRST)
    args.run_id, label = named.run_id, named.label(start=True)
    outcome = service.stop(args.run_id, actor=actor_of(args, settings), person=False)
    if outcome.outcome != "stopping":
        print(outcome.message)
        return EXIT_BAD_INPUT if outcome.outcome in ("not_found", "not_running") else EXIT_STOPPED
    print(outcome.message)
    service.resume(args.run_id)  # a run waiting for a decision, or queued, stops here; a working one in its worker
    status = _wait_until_stopped(service, args.run_id)
    if status == RunStatus.STOPPED:
        print(f"{label} stopped. It keeps its history: `kitebase replay {args.run_id}` shows it, "
              f"`kitebase resume {args.run_id}` continues it.")
        return EXIT_OK
    if status in LIVE:
        print(f"{label} is held by a worker that has not looked yet; it stops at that worker's next check.")
        return EXIT_STOPPED
    print(f"{label} ended before the stop took effect (it is {status}).")
    return EXIT_OK


def _wait_until_stopped(service: RunService, run_id: int) -> str:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        state = service.load_state(run_id)
        status = state.status if state is not None else "gone"
        if status not in LIVE or time.monotonic() > deadline:
            return status
        time.sleep(0.2)
