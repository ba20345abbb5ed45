"""Try the Slack app without a workspace: the real Bolt app over signed HTTP, its Web API calls going to a
local stand-in of Slack, and every message it posts printed as a lead would read it. Cards, queue posts and App
Home say what is due on each ticket, such as "next reply due in 25 min · Business · high" (kb_data's tickets are
from November 2026: KITE-142, the ticket the demo handles first, is moved to now, so its target, kb_data/sla.toml's,
runs; the others say how long ago they breached). Three minutes pass once (shown by moving the ticket's times three
minutes earlier, as tests/test_due_shown.py does) and the due-refresh timer draws the card again.

    .venv/bin/python scripts/try_slack.py ["handle KITE-142, and tell me if other customers have hit the same problem"]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datetime import UTC, datetime, timedelta  # noqa: E402

from sqlmodel import select  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.db import clock  # noqa: E402
from bot.db.engine import Database, create_schema  # noqa: E402
from bot.db.models import Ticket, TicketMessage  # noqa: E402
from bot.db.seed import seed_desk  # noqa: E402
from bot.desk import open_desk, sla  # noqa: E402
from bot.runs.execution import due_refresh  # noqa: E402
from standins.slack_harness import start_harness  # noqa: E402

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
RECENT = {"KITE-142": 25}  # the demo's ticket: its reply target breaches in this many minutes (KITE-150's first reply
# was made, so it has none running, and shows tier and priority only)


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def shift(db: Database, ticket_id: str, delta: timedelta) -> None:
    """Every time of the ticket `delta` later (negative: earlier, which is what time passing does to a due line)."""
    with db.session() as session:
        ticket = session.get(Ticket, ticket_id)
        ticket.created_at = ticket.created_at + delta
        ticket.due_at = ticket.due_at + delta if ticket.due_at is not None else None
        moved = dict(ticket.sla or {})
        for key in ("breach_at", "first_reply_due"):
            if moved.get(key):
                moved[key] = (_aware(datetime.fromisoformat(moved[key])) + delta).isoformat()
        ticket.sla = moved or None
        session.add(ticket)
        for message in session.exec(select(TicketMessage).where(TicketMessage.ticket_id == ticket_id)).all():
            message.created_at = message.created_at + delta
            session.add(message)


def make_recent(db: Database, settings: Settings) -> None:
    """The demo's ticket moved to now: its reply target breaches RECENT minutes from the database's now."""
    for ticket_id, minutes in RECENT.items():
        with db.session() as session:
            sla.refresh(session, [ticket_id], sla.read_policies(settings.sla_policies_path))
        with db.session() as session:
            ticket, now = session.get(Ticket, ticket_id), clock.read_now(session)
            due = sla.Due.from_json(ticket.sla) if ticket is not None else None
            breach = due.breach_at if due is not None else None
        if breach is not None:  # 30 s short of a whole minute: the line reads the same while the demo runs
            shift(db, ticket_id, now + timedelta(minutes=minutes, seconds=-30) - _aware(breach))


def three_minutes_pass(db: Database, harness, seen: int) -> int:
    """Three minutes pass for the demo's ticket; the due-refresh timer's pass draws the card again."""
    print("\n(three minutes pass: the due-refresh timer runs and draws again what reads differently now)")
    shift(db, "KITE-142", timedelta(minutes=-3))
    due_refresh.refresh(db)
    harness.drain()
    return show(harness, seen)


def block_text(block: dict) -> str:
    kind = block.get("type")
    if kind == "section" and block.get("fields"):
        return fields_text(block["fields"])
    if kind in ("section", "header"):
        text = block.get("text", {}).get("text", "")
        return f"▌{text.upper()}" if kind == "header" else text
    if kind == "context":
        return " ".join(e.get("text", "") for e in block.get("elements", []))
    if kind == "actions":
        return "[" + "] [".join(e["text"]["text"] for e in block["elements"]) + "]"
    if kind == "context_actions":
        return "  ".join(f"[👍 {e['positive_button']['text']['text']}] [👎 {e['negative_button']['text']['text']}]"
                         for e in block["elements"] if e["type"] == "feedback_buttons")
    if kind == "table":
        return table_text(block["rows"])
    return f"<{kind}>"


def fields_text(fields: list[dict]) -> str:
    """Section fields as Slack lays them out: two columns."""
    cells = [f["text"].replace("\n", ": ", 1).replace("*", "").replace("_", "") for f in fields]
    width = max(len(c) for c in cells[0::2]) + 3
    return "\n".join(f"{left:<{width}}{right}" for left, right in zip(cells[0::2], cells[1::2] + [""], strict=False))


def table_text(rows: list[list[dict]]) -> str:
    texts = [[c.get("text", "") for c in row] for row in rows]
    widths = [max(len(r[i]) for r in texts if i < len(r)) for i in range(len(texts[0]))]
    lines = ["│ " + " │ ".join(t.ljust(w) for t, w in zip(row, widths, strict=False)) + " │" for row in texts]
    rule = "├" + "┼".join("─" * (w + 2) for w in widths) + "┤"
    return "\n".join([lines[0], rule, *lines[1:]])


def show(harness, start: int) -> int:
    calls = harness.slack.calls
    for call in calls[start:]:
        method, args = call["method"], call["args"]
        if method in ("chat.postMessage", "chat.update", "chat.postEphemeral"):
            where = f"#{args.get('channel')}" + (" (thread)" if args.get("thread_ts") else "")
            verb = {"chat.postMessage": "posts", "chat.update": "updates", "chat.postEphemeral": "whispers"}[method]
            print(f"\n── {verb} in {where}")
            body = [block_text(b) for b in args.get("blocks") or []] or [args.get("text", "")]
            for line in "\n".join(body).splitlines():
                print(f"   {line}")
        elif method in ("chat.startStream", "chat.appendStream", "chat.stopStream"):
            for chunk in args.get("chunks") or []:
                if chunk["type"] == "markdown_text":
                    print(f"   ~ {chunk['text'].strip()}")
                elif chunk["type"] == "task_update":
                    print(f"   ~ [{chunk['status']}] {chunk['title']} → {chunk.get('output', '')[:100]}")
            for block in args.get("blocks") or []:  # chat.stopStream's, under the finished stream
                print(f"   ~ {block_text(block)}")
        elif method == "files.completeUploadExternal":
            print(f"\n── uploads a transcript to #{args.get('channel_id')}")
    return len(calls)


def feedback_click(harness, value: str) -> None:
    harness.send.interaction({
        "type": "block_actions", "team": {"id": "T0TEAM"}, "user": {"id": "ULEAD"}, "api_app_id": "A0APP",
        "trigger_id": "trig-feedback", "channel": {"id": "CSUPPORT"},
        "container": {"type": "message", "message_ts": "1.0", "channel_id": "CSUPPORT"},
        "actions": [{"type": "feedback_buttons", "action_id": "run_feedback", "block_id": "feedback-1",
                     "value": value, "action_ts": "1.0"}]})


def one_fix_for_many(harness, seen: int) -> int:
    """The ending offers the same fix for the other tickets its report names: press it, then Approve all."""
    for action, label in (("draft_for_these", "Draft for these N"), ("approve_batch", "Approve all")):
        try:
            value = harness.shown_button(action)["value"]
        except AssertionError:
            return seen
        print(f"\n@lead clicks [{label}]")
        harness.send.click(action, value)
        harness.drain()
        seen = show(harness, seen)
    return seen


def stopped(harness, seen: int) -> int:
    """Another ticket, stopped from the slash command while its draft waits; then Resume run from the queue."""
    print("\n@lead in #CSUPPORT: @Kitebase handle KITE-150")
    harness.send.mention("handle KITE-150")
    harness.drain()
    seen = show(harness, seen)
    print("\n@lead: /kitebase stop KITE-150")
    _, body = harness.send.command("stop KITE-150")
    print(f"  (only @lead sees) {body}")
    harness.drain()
    seen = show(harness, seen)
    resume = harness.shown_button("resume_run")
    print("\n@lead clicks [Resume run] on the queue post")
    harness.send.click("resume_run", resume["value"], message_ts=resume["ts"], channel=resume["channel"])
    harness.drain()
    return show(harness, seen)


def show_home(view: dict) -> None:
    """App Home as the lead sees it, drawn in a box."""
    lines = [line for block in view["blocks"] for line in ("", *block_text(block).splitlines())][1:]
    width = max(len(line) for line in lines) + 2
    print("┌" + "─" * width + "┐")
    for line in lines:
        print(f"│ {line:<{width - 1}}│")
    print("└" + "─" * width + "┘")


def main() -> None:
    goal = sys.argv[1] if len(sys.argv) > 1 else GOAL
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(database_url=f"sqlite:///{scratch}/try.db")
        db = Database.from_url(settings.database_url)
        create_schema(db.engine)
        seed_desk(db, settings.data_dir)
        open_desk(settings, db)  # what is due on each open ticket (kb_data/sla.toml), as the desk keeps it
        make_recent(db, settings)
        harness, stop = start_harness(settings, db)
        try:
            print(f"@lead in #CSUPPORT: @Kitebase {goal}")
            harness.send.mention(goal)
            harness.drain()
            seen = show(harness, 0)
            try:
                card = harness.approval_card()
            except AssertionError:
                return
            seen = three_minutes_pass(db, harness, seen)
            print("\n@lead clicks [Approve and send]")
            harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
            harness.drain()
            seen = show(harness, seen)
            print("\n@lead clicks [👍 Good] under the answer")
            feedback_click(harness, "up:1")
            harness.drain()
            seen = show(harness, seen)
            seen = one_fix_for_many(harness, seen)
            seen = stopped(harness, seen)
            print("\n@lead opens the Kitebase App Home")
            harness.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": "D1", "tab": "home"})
            harness.drain()
            show_home(harness.slack.home_views["ULEAD"])
        finally:
            stop()
            db.engine.dispose()


if __name__ == "__main__":
    main()
