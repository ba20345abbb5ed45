"""A short "week" of real runs over the desk through the `kitebase` command, then `kitebase stats` and
`kitebase gaps` over it (docs/design.md shows their output).

    .venv/bin/python scripts/demo_week.py [--fast] [--db PATH]

Thirteen tickets are worked with `kitebase run`; a lead approves some drafts as written, edits some lightly,
rewrites some, rejects some, leaves one waiting until the reminder (`kitebase sweep`) and lets one expire;
one run is started with `--max-steps 2` and trips its guard; feedback is given with `kitebase feedback`.
Everything happens in real time: drafts expire after KITEBASE_APPROVAL_TTL=3m (the reminder goes out after
KITEBASE_APPROVAL_REMIND_AFTER=1m), so the script takes about four minutes (`--fast`: 40 s / 10 s).

The model is the offline model's decisions served through the local Messages API stand-in
(standins/anthropic_server.py), so the real Anthropic client and the price table run: costs are those of
KITEBASE_MODEL (claude-opus-5-5) on the stand-in's token counts (characters / 4, no cache hits).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.agent.offline import OfflineModel  # noqa: E402
from bot.db.engine import Database  # noqa: E402
from bot.db.models import Approval  # noqa: E402
from standins.anthropic_server import MessagesAPIServer, reply  # noqa: E402

KITEBASE = [sys.executable, "-m", "bot.cli"]  # `kitebase`, from this checkout
REWRITES = {  # the lead keeps the greeting and the sign-off and writes the rest
    "KITE-141": "The currency of an invoice follows the billing address on file when the invoice is issued. We "
                "have re-issued the invoice in USD; you will find it under Settings → Billing → Invoices, and "
                "future invoices will be in USD too.",
    "KITE-159": "The 'Changes couldn't be saved' banner came from this morning's incident on our side "
                "(status.kitebase.com has the details). What you typed while it showed was kept in your browser "
                "and saved once we recovered; please reload the page to see it.",
}
LIGHT_EDIT = ("If that doesn't get you back on track, reply here and we'll work through it with you.",
              "If you are still locked out in 15 minutes, reply here and we'll unlock the account for you.")
REJECTIONS = {
    "KITE-209": "Wrong article: this is about comment notification emails, not exporting the workspace.",
    "KITE-172": "The yellow banner is the offline/retry banner, not API rate limits; ask for the browser console log.",
}


def offline_through_the_api(body: dict) -> dict:
    """The offline model's next turn, answered over HTTP like the Messages API."""
    turn = OfflineModel().complete(system="", tools=body.get("tools", []), messages=body["messages"],
                                   max_tokens=body.get("max_tokens", 4096))
    return reply(*turn.content, stop_reason=turn.stop_reason)


class Desk:
    def __init__(self, env: dict[str, str]):
        self.env = env
        self.approval: dict[str, int] = {}  # ticket -> the approval its draft waits on
        self.drafted: dict[str, float] = {}  # ticket -> when its draft started waiting (time.monotonic)

    def kitebase(self, *args: str, show: bool = True) -> subprocess.CompletedProcess:
        if show:
            shown = [a if len(a) < 70 else a[:60].split("\n")[0] + "…" for a in args]
            print("$ kitebase " + " ".join(f"'{a}'" if " " in a else a for a in shown), flush=True)
        return subprocess.run([*KITEBASE, *args], env=self.env, cwd=ROOT, capture_output=True, text=True,
                              check=False)

    def run(self, ticket: str, *extra: str) -> None:
        done = self.kitebase("run", f"handle {ticket}", "--json", *extra)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        waiting = re.search(r"waits for approval (\d+)", done.stderr)
        if waiting:
            self.approval[ticket], self.drafted[ticket] = int(waiting.group(1)), time.monotonic()
        print(f"  run {result['run_id']}: {result['status']}" + (f", draft {waiting.group(1)}" if waiting else ""))

    def draft(self, ticket: str) -> str:
        db = Database.from_url(self.env["DATABASE_URL"])
        with db.session() as session:
            text = str((session.get(Approval, self.approval[ticket]).tool_input or {}).get("message", ""))
        db.engine.dispose()
        return text

    def approve(self, ticket: str, *extra: str) -> None:
        self.kitebase("approve", str(self.approval[ticket]), "--as", "lead", "--json", *extra)

    def reject(self, ticket: str, reason: str) -> None:
        self.kitebase("reject", str(self.approval[ticket]), "--reason", reason, "--as", "lead", "--json")


def rewrite(draft: str, body: str) -> str:
    paragraphs = draft.split("\n\n")
    return "\n\n".join([paragraphs[0], body, paragraphs[-1]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="TTL 40 s, reminder after 10 s")
    parser.add_argument("--db", help="SQLite file to write (default: a temporary one)")
    args = parser.parse_args()
    ttl, remind = (40, 10) if args.fast else (180, 60)
    path = Path(args.db) if args.db else Path(tempfile.mkdtemp()) / "week.db"
    path.unlink(missing_ok=True)
    with MessagesAPIServer(responder=offline_through_the_api) as api:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{path}", "ANTHROPIC_API_KEY": "demo-key-not-secret",
               "ANTHROPIC_BASE_URL": api.url, "KITEBASE_APPROVAL_TTL": f"{ttl}s",
               "KITEBASE_APPROVAL_REMIND_AFTER": f"{remind}s"}
        env.pop("KITEBASE_OFFLINE", None)
        week(Desk(env), ttl, remind)
        print(f"\nDatabase: {path}\n")
        for command in (("stats",), ("gaps",)):
            done = Desk(env).kitebase(*command)
            print(done.stdout)


def sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))


def week(desk: Desk, ttl: int, remind: int) -> None:
    for ticket in ("KITE-142", "KITE-106", "KITE-118", "KITE-153", "KITE-141", "KITE-209", "KITE-172",
                   "KITE-159", "KITE-138", "KITE-215", "KITE-126", "KITE-184"):
        desk.run(ticket)
    desk.run("KITE-110", "--max-steps", "2")

    desk.approve("KITE-142")
    desk.approve("KITE-215")
    desk.approve("KITE-118")
    desk.approve("KITE-153", "--edit", desk.draft("KITE-153").replace(*LIGHT_EDIT))
    for ticket, body in REWRITES.items():
        desk.approve(ticket, "--edit", rewrite(desk.draft(ticket), body))
    for ticket, reason in REJECTIONS.items():
        desk.reject(ticket, reason)
    desk.kitebase("feedback", "1", "up", "--as", "lead")
    desk.kitebase("feedback", "1", "up", "--as", "priya")
    desk.kitebase("feedback", "5", "down", "--as", "lead", "--note", "Cited the PO-number article for a currency "
                                                                       "question; I rewrote the reply.")
    sleep_until(desk.drafted["KITE-106"] + remind / 2)
    desk.approve("KITE-106")  # decided after a while, before any reminder

    sleep_until(max(desk.drafted[t] for t in ("KITE-138", "KITE-126", "KITE-184")) + remind + 2)
    print(desk.kitebase("sweep").stdout.strip())  # reminders for the three drafts still waiting
    desk.approve("KITE-138")
    desk.approve("KITE-184")
    sleep_until(desk.drafted["KITE-126"] + ttl + 2)
    print(desk.kitebase("sweep").stdout.strip())  # KITE-126's draft expires: nothing is sent, the run escalates



if __name__ == "__main__":
    main()
