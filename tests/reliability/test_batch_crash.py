"""One fix for many across a dying `serve`: a real `kitebase serve` (embedded desk, offline model, ULEAD the
approver) works KITE-142 from a signed mention, its reply is approved, **Draft for these 2** is clicked, and the
process is SIGKILLed: right after the click is acknowledged, once one child has its draft while the other is
still in its model call, while Slack posts the batch card (posted, the answer never heard), or right after
**Approve all** is acknowledged; and on the Zendesk desk (the stand-in) while the first reply Approve all causes is
held in Zendesk, applied only after the process died. The restarted process's start-up and sweeps continue what
the dead one left: exactly two children (none lost, none twice), both drafted, one batch card posted in the
parent's thread (later changes are chat.update), and Approve all sends exactly one reply on each ticket, each
linked as an incident of KITE-142 (4821)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from bot.db.engine import Database, create_schema
from bot.desk.zendesk import sync
from bot.desk.zendesk.desk import client_for
from standins.anthropic_server import MessagesAPIServer
from standins.brains import offline_brain
from standins.serve_process import SECRET, ServeProcess
from standins.slack_requests import SlackSender
from standins.slack_server import SlackAPIServer
from standins.zendesk_server import ZendeskServer
from tests.conftest import make_settings
from tests.helpers import PATIENCE, wait_until
from tests.reliability.test_process_crashes import rows, scalar

KB_DATA = Path(__file__).resolve().parents[2] / "kb_data"
ZD_SECRET = "whsec-test"
GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
CHANNEL = "CSUPPORT"
TICKETS = ["KITE-144", "KITE-163"]
CARD_TITLE = "The fix approved on KITE-142"


class Flow:
    """The Slack side of one test: what the stand-in shows, and the clicks a lead makes on it."""

    def __init__(self, slack: SlackAPIServer, serve: ServeProcess, goal: str = GOAL,
                 tickets: list[str] | None = None) -> None:
        self.slack, self.serve, self.goal, self.tickets = slack, serve, goal, tickets or TICKETS
        self.sender = SlackSender(serve.url, SECRET)
        self.thread = ""

    def button(self, action_id: str) -> dict[str, Any] | None:
        """The newest message in the parent's thread showing button `action_id` (as Slack shows it now)."""
        for message in reversed(self.slack.thread(CHANNEL, self.thread)):
            for block in message.get("blocks") or []:
                for element in block.get("elements", []) if block.get("type") == "actions" else []:
                    if element.get("action_id") == action_id:
                        return {**element, "ts": message["ts"]}
        return None

    def wait_for_button(self, action_id: str, text: str | None = None) -> dict[str, Any]:
        def shown() -> dict[str, Any] | None:
            found = self.button(action_id)
            return found if found is not None and (text is None or found["text"]["text"] == text) else None

        return wait_until(shown, f"the {action_id} button{f' reading {text!r}' if text else ''} in the thread")

    def click(self, found: dict[str, Any]) -> None:
        status, body = self.sender.click(found["action_id"], found["value"], message_ts=found["ts"],
                                         thread_ts=self.thread)
        assert status == 200, (status, body)

    def approved_parent(self) -> dict[str, Any]:
        """KITE-142 worked from a mention and its reply approved: the Draft for these N button."""
        self.thread, (status, _) = self.sender.mention(self.goal)
        assert status == 200
        self.click(self.wait_for_button("approve_reply"))
        offer = self.wait_for_button("draft_for_these")
        assert offer["text"]["text"] == "Draft for these 2"
        assert json.loads(offer["value"])["tickets"] == self.tickets
        return offer

    def card_posts(self) -> list[dict[str, Any]]:
        return [c for c in self.slack.calls_to("chat.postMessage") if (c.get("text") or "").startswith(
            "The fix approved on ")]


# --- what the database says ------------------------------------------------------------------------------------

def children(url: str) -> list[tuple[int, str, str]]:
    return [(int(i), str(t), str(s)) for i, t, s in
            rows(url, "SELECT id, ticket_id, status FROM run WHERE batch_id IS NOT NULL ORDER BY id")]


def drafts(url: str) -> dict[str, int]:
    """How many drafts (approval rows) each child's ticket has."""
    found = rows(url, "SELECT r.ticket_id, COUNT(a.id) FROM run r JOIN approval a ON a.run_id = r.id "
                      "WHERE r.batch_id IS NOT NULL GROUP BY r.ticket_id")
    return {str(t): int(n) for t, n in found}


def replies(url: str, ticket: str) -> int:
    return int(scalar(url, "SELECT COUNT(*) FROM ticket_message WHERE ticket_id = :t AND role = 'staff' "
                           "AND author = 'Kitebase Support'", t=ticket))


def link_of(url: str, ticket: str) -> tuple[str | None, str | None]:
    (found,) = rows(url, "SELECT type, problem_id FROM ticket WHERE id = :t", t=ticket)
    return found[0], found[1]


def outbox_settled(url: str) -> bool:
    return scalar(url, "SELECT COUNT(*) FROM outbox WHERE status = 'pending' AND kind IN "
                       "('batch', 'final', 'card', 'timeline')") == 0


def both_drafted(url: str, tickets: list[str] = TICKETS) -> bool:
    kids = children(url)
    return (len(kids) >= 2 and all(s == "awaiting_approval" for _, _, s in kids)
            and sorted(drafts(url)) == tickets)


# --- the stand-ins and the process -----------------------------------------------------------------------------

@pytest.fixture
def slack():
    server = SlackAPIServer().start()
    yield server
    server.stop()


def serve_for(database_url: str, slack: SlackAPIServer, model_url: str | None, tmp_path: Path) -> ServeProcess:
    return ServeProcess(database_url, slack.url, model_url, tmp_path / "serve.log", KITEBASE_APPROVERS="ULEAD",
                        KITEBASE_LEASE_SECONDS=str(100 * PATIENCE))  # a dead owner is seen as dead, not waited out


def first_text(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


def after_recovery(flow: Flow, url: str, *, approved: bool = False) -> None:
    """What must hold once the restarted process has continued everything the dead one left."""
    if not approved:
        wait_until(lambda: both_drafted(url), "both children's drafts after the restart")
        approve_all = flow.wait_for_button("approve_batch", "Approve all 2")
        wait_until(lambda: outbox_settled(url), "the batch card delivered")
        approve_all = flow.wait_for_button("approve_batch", "Approve all 2")  # as the card shows it now
        assert sorted(t for _, t, _ in children(url)) == TICKETS, "one child per ticket: none lost, none twice"
        assert drafts(url) == {t: 1 for t in TICKETS}, "one draft per child"
        assert [replies(url, t) for t in TICKETS] == [0, 0], "nothing reaches a customer before Approve all"
        flow.click(approve_all)
    wait_until(lambda: all(s == "completed" for _, _, s in children(url)) and len(children(url)) == 2,
               "both children completed after Approve all")
    wait_until(lambda: all(link_of(url, t) == ("incident", "KITE-142") for t in TICKETS), "both tickets linked")
    wait_until(lambda: outbox_settled(url), "the batch card's last change delivered")
    kids = children(url)
    assert sorted(t for _, t, _ in kids) == TICKETS, kids
    assert {t: replies(url, t) for t in TICKETS} == {t: 1 for t in TICKETS}, "exactly one reply per ticket"
    assert link_of(url, "KITE-142")[0] == "problem"
    assert scalar(url, "SELECT COUNT(*) FROM batch") == 1
    posts = flow.card_posts()
    assert len(posts) == 1, [p.get("text") for p in posts]
    assert posts[0]["thread_ts"] == flow.thread and posts[0]["channel"] == CHANNEL
    final = flow.slack.thread(CHANNEL, flow.thread)
    shown = [m for m in final if (m.get("text") or "").startswith("The fix approved on ")]
    assert len(shown) == 1, "one batch card in the parent's thread"
    assert "approve_batch" not in json.dumps(shown[0].get("blocks")), "decided: no Approve all left on the card"
    with_buttons = [m["ts"] for m in final if "approve_reply" in json.dumps(m.get("blocks"))]
    assert with_buttons == [], "every draft in the thread is decided"


# --- the tests -------------------------------------------------------------------------------------------------

def test_killed_right_after_draft_for_these_is_acknowledged(database_url: str, slack: SlackAPIServer,
                                                            tmp_path: Path) -> None:
    serve = serve_for(database_url, slack, None, tmp_path).start()
    flow = Flow(slack, serve)
    try:
        offer = flow.approved_parent()
        flow.click(offer)
        serve.kill()  # the batch and its children are recorded (the click was acknowledged); nothing more is sure
        serve.start()
        after_recovery(flow, database_url)
    finally:
        serve.stop()


def test_killed_once_one_child_has_its_draft_and_the_other_is_in_its_model_call(
        database_url: str, slack: SlackAPIServer, tmp_path: Path) -> None:
    """The offline model's brain behind the Messages API stand-in, so the test can hold KITE-163's child in its
    model call (its lease held by the process that dies) until KITE-144's child has its draft."""
    held, killed = threading.Event(), threading.Event()

    def brain(body: dict[str, Any]) -> dict[str, Any]:
        if first_text(body).startswith("handle KITE-163: it may have") and not killed.is_set():
            held.set()
            killed.wait()  # answered only once the process that asked is dead
        return offline_brain(body)

    with MessagesAPIServer(brain) as model:
        serve = serve_for(database_url, slack, model.url, tmp_path).start()
        flow = Flow(slack, serve)
        try:
            offer = flow.approved_parent()
            flow.click(offer)
            wait_until(lambda: held.is_set() and drafts(database_url).get("KITE-144") == 1,
                       "KITE-144's draft while KITE-163's child waits on the model")
            assert "KITE-163" not in drafts(database_url)
            serve.kill()
            killed.set()
            serve.start()
            after_recovery(flow, database_url)
            owners = rows(database_url, "SELECT DISTINCT s.worker FROM step s JOIN run r ON r.id = s.run_id "
                                        "WHERE r.ticket_id = 'KITE-163' AND s.worker IS NOT NULL")
            assert len(owners) >= 1
        finally:
            killed.set()
            serve.stop()


def test_killed_right_after_approve_all_is_acknowledged(database_url: str, slack: SlackAPIServer,
                                                        tmp_path: Path) -> None:
    serve = serve_for(database_url, slack, None, tmp_path).start()
    flow = Flow(slack, serve)
    try:
        flow.click(flow.approved_parent())
        wait_until(lambda: both_drafted(database_url), "both children's drafts")
        wait_until(lambda: outbox_settled(database_url), "the batch card delivered")
        flow.click(flow.wait_for_button("approve_batch", "Approve all 2"))
        serve.kill()  # both drafts are approved (acknowledged); the replies, the links, the card: not yet sure
        serve.start()
        after_recovery(flow, database_url, approved=True)
    finally:
        serve.stop()


def test_killed_while_slack_posts_the_batch_card(database_url: str, slack: SlackAPIServer, tmp_path: Path) -> None:
    """Slack has posted the batch card, but `serve` dies before it hears the answer (so it never stored the
    card's ts): the restarted process finds the card in the thread (its metadata names the outbox row) and
    updates it instead of posting a second one."""
    held, killed = threading.Event(), threading.Event()
    answer = slack._handle

    def posted_then_unanswered(method: str, *args: Any) -> Any:
        result = answer(method, *args)
        text = str((result[1].get("message") or {}).get("text") or "")
        if method == "chat.postMessage" and text.startswith(CARD_TITLE) and not killed.is_set():
            held.set()
            killed.wait()  # applied and recorded by Slack; the answer goes to a process that is gone
        return result

    slack._handle = posted_then_unanswered  # type: ignore[method-assign]
    serve = serve_for(database_url, slack, None, tmp_path).start()
    flow = Flow(slack, serve)
    try:
        flow.click(flow.approved_parent())
        wait_until(held.is_set, "the batch card posted in Slack")
        serve.kill()
        killed.set()
        serve.start()
        after_recovery(flow, database_url)
    finally:
        killed.set()
        serve.stop()


def test_on_zendesk_killed_while_the_first_reply_after_approve_all_is_in_flight(
        database_url: str, slack: SlackAPIServer, tmp_path: Path) -> None:
    """On the Zendesk desk (the stand-in, kb_data loaded: KITE-142 is ticket 4821): Approve all is acknowledged,
    the first ticket write it causes (a child's reply) reaches Zendesk and is held there, `serve` dies, and only
    then Zendesk applies it. The restarted process looks the unknown write up before it sends anything again:
    one public comment on each incident, each linked to 4821, and one batch card."""
    with ZendeskServer(export_delay=0) as zd:
        zd.load_kb_data(KB_DATA)
        env = {"KITEBASE_DESK": "zendesk", "ZENDESK_URL": zd.url, "ZENDESK_EMAIL": "bot@kitebase.example",
               "ZENDESK_API_TOKEN": "zd-test-token", "ZENDESK_WEBHOOK_SECRET": ZD_SECRET,
               "ZENDESK_SYNC_SINCE": "1000d", "KITEBASE_HELP_CENTER_URL": "",
               "ZENDESK_TIMEOUT_SECONDS": "2"}  # a dead sender's claim on a write lasts 3 x 2 + 10 s, not 70 s
        settings = make_settings(database_url, desk="zendesk", zendesk_url=zd.url,
                                 zendesk_email="bot@kitebase.example", zendesk_api_token="zd-test-token")
        db = Database.from_url(database_url)
        create_schema(db.engine)
        assert sync.sync(client_for(settings), db, since_seconds=1000 * 86400).caught_up  # the first fill
        db.engine.dispose()
        incidents = [4823, 4842]
        before = {t: len(zd.comments_of(t)) for t in incidents}

        def public_added(ticket: int) -> int:
            return sum(c["public"] for c in zd.comments_of(ticket)[before[ticket]:])

        serve = ServeProcess(database_url, slack.url, None, tmp_path / "serve.log", KITEBASE_APPROVERS="ULEAD",
                             KITEBASE_LEASE_SECONDS=str(100 * PATIENCE), **env).start()
        flow = Flow(slack, serve, "handle #4821, and tell me if other customers have hit the same problem",
                    [str(t) for t in incidents])
        try:
            flow.click(flow.approved_parent())
            wait_until(lambda: both_drafted(database_url, flow.tickets), "both children's drafts")
            wait_until(lambda: outbox_settled(database_url), "the batch card delivered")
            assert [public_added(t) for t in incidents] == [0, 0]
            puts = len(zd.requests_to("PUT", "/api/v2/tickets/"))
            (held,) = zd.hold_writes(1)
            flow.click(flow.wait_for_button("approve_batch", "Approve all 2"))
            assert held.arrived.wait(PATIENCE), "the first write after Approve all"
            serve.kill()
            held.release()  # Zendesk applies it now: the process that sent it never hears so
            wait_until(lambda: len(zd.requests_to("PUT", "/api/v2/tickets/")) > puts, "the held write applied")
            serve.start()
            wait_until(lambda: all(s == "completed" for _, _, s in children(database_url)),
                       "both children completed after the restart")
            wait_until(lambda: scalar(database_url, "SELECT COUNT(*) FROM desk_write WHERE status NOT IN "
                                                    "('sent', 'failed')") == 0, "every desk write settled")
            wait_until(lambda: all((zd.tickets[t].get("type"), zd.tickets[t].get("problem_id"))
                                   == ("incident", 4821) for t in incidents), "both incidents linked in Zendesk")
            wait_until(lambda: outbox_settled(database_url), "the batch card's last change delivered")
            assert {t: public_added(t) for t in incidents} == {t: 1 for t in incidents}, "one public comment each"
            assert zd.tickets[4821]["type"] == "problem"
            assert scalar(database_url, "SELECT COUNT(*) FROM desk_write WHERE status = 'failed'") == 0
            assert sorted(t for _, t, _ in children(database_url)) == flow.tickets
            assert len(flow.card_posts()) == 1
            held_put = zd.requests_to("PUT", "/api/v2/tickets/")[puts]
            assert (held_put["body"]["ticket"].get("comment") or {}).get("public"), "the held write was a reply"
        finally:
            zd.clear_faults()  # never leave a write held behind a failed assertion
            serve.stop()
