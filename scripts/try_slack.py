"""Try the Slack app without a workspace: the real Bolt app over signed HTTP, its Web API calls going to a
local stand-in of Slack, and every message it posts printed as a lead would read it.

    .venv/bin/python scripts/try_slack.py ["handle KITE-142, and tell me if other customers have hit the same problem"]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.config import Settings  # noqa: E402
from bot.db.engine import Database, create_schema  # noqa: E402
from bot.db.seed import seed_desk  # noqa: E402
from tests.slack_harness import start_harness  # noqa: E402

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


def block_text(block: dict) -> str:
    kind = block.get("type")
    if kind in ("section", "header"):
        return block.get("text", {}).get("text", "")
    if kind == "context":
        return " ".join(e.get("text", "") for e in block.get("elements", []))
    if kind == "actions":
        return "[" + "] [".join(e["text"]["text"] for e in block["elements"]) + "]"
    return f"<{kind}>"


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
        elif method in ("chat.startStream", "chat.appendStream"):
            for chunk in args.get("chunks") or []:
                if chunk["type"] == "markdown_text":
                    print(f"   ~ {chunk['text'].strip()}")
                elif chunk["type"] == "task_update":
                    print(f"   ~ [{chunk['status']}] {chunk['title']} → {chunk.get('output', '')[:100]}")
        elif method == "files.completeUploadExternal":
            print(f"\n── uploads a transcript to #{args.get('channel_id')}")
    return len(calls)


def main() -> None:
    goal = sys.argv[1] if len(sys.argv) > 1 else GOAL
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(database_url=f"sqlite:///{scratch}/try.db")
        db = Database.from_url(settings.database_url)
        create_schema(db.engine)
        seed_desk(db, settings.data_dir)
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
            print("\n@lead clicks [Approve and send]")
            harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
            harness.drain()
            show(harness, seen)
        finally:
            stop()
            db.engine.dispose()


if __name__ == "__main__":
    main()
