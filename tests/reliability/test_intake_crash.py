"""Intake across a dying `serve`: a real `kitebase serve` on the Zendesk desk (the stand-in), intake on, SIGKILLed
right after it acknowledged a ticket's webhook, after the ticket's card was posted, and while a ticket arrived
with no process up at all. The same tickets come again by the poll, a redelivered webhook and a fresh trigger:
each gets exactly one run and one first message in the rule's channel."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from bot.db.engine import Database, create_schema
from bot.desk.zendesk import sync
from bot.desk.zendesk.desk import client_for
from standins.serve_process import ServeProcess
from standins.slack_server import SlackAPIServer
from standins.zendesk_server import ZendeskServer
from tests.conftest import make_settings
from tests.helpers import wait_until
from tests.reliability.test_process_crashes import rows, scalar
from tests.test_desk_zendesk import KB_DATA, SECRET, signed

RULES = """\
[[rule]]
name = "urgent-sso"
channel = "C0URGENT"
tags = ["sso"]
"""


def test_each_ticket_gets_one_run_whatever_path_it_takes_and_whenever_serve_dies(database_url: str,
                                                                                 tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES, encoding="utf-8")
    with ZendeskServer(export_delay=0) as zd:
        zd.load_kb_data(KB_DATA)
        env = {"KITEBASE_DESK": "zendesk", "ZENDESK_URL": zd.url, "ZENDESK_EMAIL": "bot@kitebase.example",
               "ZENDESK_API_TOKEN": "zd-test-token", "ZENDESK_WEBHOOK_SECRET": SECRET, "ZENDESK_SYNC_SINCE": "1000d",
               "ZENDESK_POLL_SECONDS": "1", "KITEBASE_INTAKE_RULES": str(rules), "KITEBASE_INTAKE_EVERY": "0.3",
               "KITEBASE_APPROVERS": "ULEAD", "KITEBASE_HELP_CENTER_URL": ""}
        settings = make_settings(database_url, desk="zendesk", zendesk_url=zd.url,
                                 zendesk_email="bot@kitebase.example", zendesk_api_token="zd-test-token")
        db = Database.from_url(database_url)
        create_schema(db.engine)
        assert sync.sync(client_for(settings), db, since_seconds=1000 * 86400).caught_up  # the first fill
        db.engine.dispose()
        dana = zd.user_by_email("dana.whitfield@example.com")
        assert dana is not None

        def new_ticket(n: int) -> int:
            return zd.add_ticket(f"SSO loop {n}", f"Everyone is sent back to the login page ({n}).", dana["id"],
                                 status="new", priority="urgent", tags=["sso"])

        def webhook(port: int, ticket: int, headers: dict[str, str] | None = None) -> dict[str, str]:
            body = json.dumps(zd.ticket_webhook_payload(ticket)).encode()
            headers = headers or {**signed(body), "content-type": "application/json"}
            request = urllib.request.Request(f"http://127.0.0.1:{port}/zendesk/webhook", data=body, headers=headers,
                                             method="POST")
            with urllib.request.urlopen(request, timeout=10) as response:
                assert response.status in (200, 202)
            return headers

        slack = SlackAPIServer().start()

        def first_messages(ticket: int) -> int:
            return sum(f"picked up ticket *{ticket}*" in (c.get("text") or "")
                       for c in slack.calls_to("chat.postMessage"))

        def cards() -> list[dict[str, object]]:
            return [c for c in slack.calls_to("chat.postMessage") if "approve_reply" in json.dumps(c.get("blocks"))]

        def runs(ticket: int) -> int:
            return int(scalar(database_url, "SELECT COUNT(*) FROM run WHERE ticket_id = :t", t=str(ticket)))

        serve = ServeProcess(database_url, slack.url, None, tmp_path / "serve.log", **env).start()
        tickets: list[int] = []
        try:
            # 1. killed right after it acknowledged the webhook: the poll of the next process finds the ticket
            tickets.append(first := new_ticket(1))
            headers = webhook(serve.port, first)
            serve.kill()
            serve.start()
            webhook(serve.port, first, headers)  # Zendesk redelivers what it may not have got
            # 2. killed after the card was posted: the redelivery and a new trigger start nothing more
            tickets.append(second := new_ticket(2))
            headers = webhook(serve.port, second)
            wait_until(lambda: first_messages(second) == 1 and runs(second) == 1, "the second ticket's thread")
            serve.kill()
            # 3. arrived while nothing ran: only the poll brings it
            tickets.append(new_ticket(3))
            serve.start()
            webhook(serve.port, second, headers)
            webhook(serve.port, second)
            webhook(serve.port, first)
            # a last ticket, after everything: once it has its run, every pass that could repeat one has run
            sentinel = new_ticket(4)
            webhook(serve.port, sentinel)
            wait_until(lambda: runs(sentinel) == 1 and first_messages(sentinel) == 1, "the last ticket's run")
            wait_until(lambda: scalar(database_url, "SELECT COUNT(*) FROM run WHERE status IN ('queued', 'working')")
                       == 0, "every run to reach its draft")
            # everything the runs wrote for Slack delivered (the last process sends what the dead ones left), and
            # only then counted: a first message still in the outbox is late, not lost
            wait_until(lambda: len(cards()) == 4 and scalar(
                database_url, "SELECT COUNT(*) FROM outbox WHERE kind IN ('request', 'card') AND status = 'pending'")
                == 0, "the four threads' first messages and cards in Slack")
            assert {t: (runs(t), first_messages(t)) for t in tickets} == {t: (1, 1) for t in tickets}, [
                (c.get("channel"), c.get("thread_ts"), (c.get("text") or "")[:90])
                for c in slack.calls_to("chat.postMessage")]
            states = rows(database_url, "SELECT ticket_id, kind, state FROM desk_arrival ORDER BY id")
            assert sorted((t, k, s) for t, k, s in states) == sorted(
                (str(t), "ticket", "started") for t in [*tickets, sentinel]), states
            assert len(cards()) == 4 and all(c["channel"] == "C0URGENT" for c in cards())
            statuses = rows(database_url, "SELECT status FROM run")
            assert [s for (s,) in statuses] == ["awaiting_approval"] * 4, statuses
        finally:
            serve.stop()
            slack.stop()
