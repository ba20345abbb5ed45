"""`kitebase queue`: the human queue at the terminal."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bot.cli_run import EXIT_OK, open_database
from bot.config import Settings
from bot.runs.reports import queries


def add_queue_command(sub: Any) -> None:
    queue = sub.add_parser("queue", help="runs handed to a person, with reason and summary")
    queue.add_argument("--json", action="store_true")
    queue.set_defaults(handler=cmd_queue)


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
        who = f" · claimed by {item['claimed_by']}" if item["claimed_by"] else ""
        print(f"Run {item['run_id']} · {item['ticket_id']} · {item['kind']}{who}\n  Reason: {item['reason']}")
        for line in (item["summary"] or "").splitlines():
            print(f"  {line}")
        print(f"  History: kitebase replay {item['run_id']}   Continue: kitebase resume {item['run_id']} --note ...\n")
    return EXIT_OK
