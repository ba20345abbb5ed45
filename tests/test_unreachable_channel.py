"""Issue 48, item 7: no draft is invisible. A rule's channel the bot is not in: `serve` says so at start and records it;
the rule starts no runs meanwhile (its tickets wait in its backlog with the reason); a run's thread there is held,
never marked sent, and its card reaches the approvers another way (the escalation channel, else a direct message)
with the reason; inviting the bot (Slack's member_joined_channel, over signed HTTP) posts the thread as it would have
been and the rule starts runs again; `kitebase intake status` and `intake check` list the channel.

Through the real Bolt app over signed HTTP, the real outbox sender and the Slack stand-in (which answers
`not_in_channel` in a public channel the bot is not in, as Slack does), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from sqlmodel import col, select

from bot.cli import main
from bot.db.models import ChannelReach, DeskArrival, Outbox
from bot.runs.execution.desk_work import intake
from bot.runs.intake.rules import load
from bot.vocabulary import ArrivalState, OutboxStatus, RunStatus
from standins.serve_process import ServeProcess
from standins.slack_harness import start_harness
from standins.slack_server import SlackAPIServer
from tests.helpers import run_row
from tests.test_desk_add_slack import RULES, TICKET

CHANNEL = "C0INTAKE"  # the rule's channel (tests/test_desk_add_slack.py RULES)
SECOND = {"customer": "northwind-studio", "title": "SSO users cannot reach the dashboard",
          "body": "After the Okta change nobody on the team reaches the dashboard through SSO.",
          "tags": ["sso"], "priority": "high"}


def _outbox(db: Any, run_id: int) -> list[Outbox]:
    with db.session() as session:
        return list(session.exec(select(Outbox).where(col(Outbox.run_id) == run_id).order_by(col(Outbox.id))).all())


def _reach(db: Any, channel: str) -> ChannelReach | None:
    with db.session() as session:
        return session.get(ChannelReach, channel)


def _arrival(db: Any, ticket_id: str) -> DeskArrival:
    with db.session() as session:
        row = session.exec(select(DeskArrival).where(DeskArrival.ticket_id == ticket_id)
                           .order_by(col(DeskArrival.id).desc())).first()
        assert row is not None
        return row


def _buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for b in message.get("blocks") or [] if b.get("type") == "actions" for e in b["elements"]]


class _Intake:
    """The rules file, the CLI's environment, `desk add` and intake passes against a harness."""

    def __init__(self, settings: Any, db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str], **overrides: Any):
        rules_file = tmp_path / "rules.toml"
        rules_file.write_text(RULES, encoding="utf-8")
        monkeypatch.setenv("DATABASE_URL", settings.database_url)
        monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(rules_file))
        self.rules = load(rules_file)
        self.settings = settings.model_copy(update={"intake_rules": rules_file, "approvers": frozenset({"ULEAD"}),
                                                    **overrides})
        self.db, self.tmp_path, self.capsys = db, tmp_path, capsys
        self.slack = SlackAPIServer().start()
        self.slack.remove_bot(CHANNEL)  # the bot was never invited to the rule's channel
        self.harness, self._stop = start_harness(self.settings, db, slack=self.slack)

    def stop(self) -> None:
        try:
            self._stop()
        finally:
            self.slack.stop()

    def add(self, item: dict[str, Any]) -> None:
        path = self.tmp_path / "add.jsonl"
        path.write_text(json.dumps(item) + "\n", encoding="utf-8")
        assert main(["desk", "add", str(path)]) == 0
        self.capsys.readouterr()

    def cli(self, *argv: str) -> str:
        assert main(list(argv)) == 0
        return self.capsys.readouterr().out

    def take(self) -> list[int]:
        started: list[int] = []
        intake(self.db, self.settings, self.rules,
               lambda run_id: (started.append(run_id), self.harness.ctx.dispatch(run_id)))
        self.harness.drain()
        return started


@pytest.fixture
def unjoined(settings: Any, db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str]) -> Any:
    world = _Intake(settings, db, tmp_path, monkeypatch, capsys)
    try:
        yield world
    finally:
        world.stop()


def test_a_draft_in_a_channel_the_bot_is_not_in_reaches_the_escalation_channel_and_the_invite_posts_the_thread(
        unjoined: _Intake, db: Any) -> None:
    h, slack = unjoined.harness, unjoined.slack
    unjoined.add(TICKET)
    [run_id] = unjoined.take()
    assert run_row(db, run_id).status == RunStatus.AWAITING_APPROVAL

    # Slack refused the rule's channel: nothing of the run's thread is marked sent, and nothing is in that channel
    assert any(c["method"] == "chat.postMessage" and c["args"].get("channel") == CHANNEL
               and c["response"].get("error") == "not_in_channel" for c in slack.calls)
    assert not [key for key in slack.messages if key[0] == CHANNEL]
    thread_rows = [r for r in _outbox(db, run_id) if r.channel == CHANNEL]
    assert {r.kind for r in thread_rows} >= {"request", "timeline", "card"}
    assert all(r.status == OutboxStatus.HELD and r.ts is None for r in thread_rows), \
        [(r.key, r.status) for r in thread_rows]
    reach = _reach(db, CHANNEL)
    assert reach is not None and reach.error == "not_in_channel"

    # the draft reaches the approvers in the escalation channel, with the reason and working buttons
    queue = h.ctx.settings.escalation_channel
    [away] = [m for (channel, _), m in slack.messages.items() if channel == queue and _buttons(m)]
    assert f"I couldn't post in <#{CHANNEL}>" in away["text"] and "invite @Kitebase" in away["text"]
    assert "Reply to Northwind Studio on KITE-218?" in json.dumps(away["blocks"])
    assert "approve_reply" in {b["action_id"] for b in _buttons(away)}

    # meanwhile the rule starts no runs: its next ticket waits in its backlog, with the reason
    unjoined.add(SECOND)
    assert unjoined.take() == []
    waiting = _arrival(db, "KITE-219")
    assert waiting.state == ArrivalState.WAITING
    assert waiting.reason is not None and waiting.reason.startswith(f"the bot can't post in {CHANNEL}: the bot "
                                                                     f"isn't in {CHANNEL}; invite @Kitebase")

    # status and check say which channel, and what to do
    for command in ("status", "check"):
        out = unjoined.cli("intake", command)
        assert "The bot can't post in 1 channel(s)" in out, out
        assert f"  {CHANNEL}: the bot isn't in {CHANNEL}; invite @Kitebase to it" in out
        listed = json.loads(unjoined.cli("intake", command, "--json"))["unreachable"]
        assert [(c["channel"], c["error"]) for c in listed] == [(CHANNEL, "not_in_channel")]
        assert listed[0]["held"] >= 3

    # a lead invites the bot: Slack's member_joined_channel reaches the app, and the thread is posted as it would
    # have been: the rule's message first, the timeline and the card in its thread
    status, _ = h.invite(CHANNEL)
    assert status == 200
    h.drain()
    reach = _reach(db, CHANNEL)
    assert reach is not None and reach.error is None
    rows = [r for r in _outbox(db, run_id) if r.channel == CHANNEL]
    assert all(r.status == OutboxStatus.SENT and (r.ts or r.kind == "agent_session") for r in rows), \
        [(r.key, r.status) for r in rows]
    posted = [c["args"] for c in slack.calls if c["method"] == "chat.postMessage"
              and c["args"].get("channel") == CHANNEL and c["response"].get("ok")]
    assert posted[0]["text"].startswith(":inbox_tray: Rule *sso-loops* picked up ticket *KITE-218*")
    top = next(c["response"]["ts"] for c in slack.calls if c["args"] is posted[0])
    assert all(p.get("thread_ts") == top for p in posted[1:])
    thread = slack.thread(CHANNEL, top)
    assert any("On it: working *KITE-218*" in (m.get("text") or "") for m in thread)
    [card] = [m for m in thread if _buttons(m)
              and "approve_reply" in {b["action_id"] for b in _buttons(m)}]

    # and the rule starts runs again: the waiting ticket starts
    assert len(unjoined.take()) == 1
    assert _arrival(db, "KITE-219").state == ArrivalState.STARTED
    assert "The bot can't post" not in unjoined.cli("intake", "status")

    # the copy's button decides the same approval; both cards show the decision
    approve = next(b for b in _buttons(away) if b["action_id"] == "approve_reply")
    h.send.click("approve_reply", approve["value"], message_ts=away["ts"], channel=queue)
    h.drain()
    assert run_row(db, run_id).status == RunStatus.COMPLETED
    assert not _buttons(slack.messages[(CHANNEL, card["ts"])]), "the thread's card shows the decision"
    assert not _buttons(slack.messages[(queue, away["ts"])]), "and so does the copy"


def test_when_the_escalation_channel_refuses_the_bot_too_the_draft_goes_to_the_approvers_directly(
        unjoined: _Intake, db: Any) -> None:
    h, slack = unjoined.harness, unjoined.slack
    queue = h.ctx.settings.escalation_channel
    slack.remove_bot(queue)
    unjoined.add(TICKET)
    [run_id] = unjoined.take()
    assert run_row(db, run_id).status == RunStatus.AWAITING_APPROVAL
    [dm] = [m for (channel, _), m in slack.messages.items() if channel == "ULEAD"]
    assert f"I couldn't post in <#{CHANNEL}>" in dm["text"] and "invite @Kitebase" in dm["text"]
    assert "approve_reply" in {b["action_id"] for b in _buttons(dm)}
    assert {r.error for r in (_reach(db, CHANNEL), _reach(db, queue)) if r} == {"not_in_channel"}
    assert not [key for key in slack.messages if key[0] in (CHANNEL, queue)]

    h.invite(CHANNEL)
    h.drain()
    assert all(r.status == OutboxStatus.SENT for r in _outbox(db, run_id) if r.channel == CHANNEL)
    assert [key for key in slack.messages if key[0] == CHANNEL], "the thread is posted once the bot is in"


def test_a_member_joined_channel_of_someone_else_changes_nothing(unjoined: _Intake, db: Any) -> None:
    h = unjoined.harness
    unjoined.add(TICKET)
    [run_id] = unjoined.take()
    event = {**unjoined.slack.invite(CHANNEL), "user": "UOTHER"}
    unjoined.slack.remove_bot(CHANNEL)  # the bot is still not in it: someone else joined
    assert h.send.event(event)[0] == 200
    h.drain()
    assert all(r.status == OutboxStatus.HELD for r in _outbox(db, run_id) if r.channel == CHANNEL)
    reach = _reach(db, CHANNEL)
    assert reach is not None and reach.error == "not_in_channel"


def test_serve_says_at_start_which_channels_it_cannot_post_in_and_records_them(
        settings: Any, db: Any, tmp_path: Path) -> None:
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text(RULES + '\n[[rule]]\nname = "archived"\nchannel = "C0OLD"\ntags = ["billing"]\n',
                          encoding="utf-8")
    with SlackAPIServer() as slack:
        slack.channels[CHANNEL] = {"name": "sso-help"}
        slack.remove_bot(CHANNEL)
        slack.archive("C0OLD")
        log = tmp_path / "serve.log"
        serve = ServeProcess(settings.database_url, slack.url, None, log,
                             KITEBASE_INTAKE_RULES=str(rules_file), KITEBASE_APPROVERS="ULEAD").start()
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and log.read_text().count("Kitebase can't post in") < 2:
                time.sleep(0.1)
            text = log.read_text()
        finally:
            serve.stop()
    assert ("Kitebase can't post in #sso-help (C0INTAKE), the channel of rule 'sso-loops': the bot isn't in "
            "#sso-help (C0INTAKE); invite @Kitebase to it (`/invite @Kitebase` in the channel). Until then the rule "
            "starts no runs: its tickets wait in its backlog.") in text, text
    assert "Kitebase can't post in #channel-c0old (C0OLD), the channel of rule 'archived': #channel-c0old (C0OLD) is archived" in text
    assert "CQUEUE" not in text.split("Kitebase can't post in", 1)[1], "the escalation channel is fine"
    assert {c["channel"] for c in slack.calls_to("conversations.info")} >= {CHANNEL, "C0OLD", "CQUEUE"}
    assert (_reach(db, CHANNEL).error, _reach(db, "C0OLD").error) == ("not_in_channel", "is_archived")  # type: ignore[union-attr]
    queue = _reach(db, "CQUEUE")
    assert queue is not None and queue.error is None


def test_the_stand_in_answers_as_slack_does_in_channels_the_bot_is_not_in() -> None:
    with SlackAPIServer() as slack:
        client = WebClient(token="xoxb-test", base_url=slack.url + "/api/")
        client.chat_postMessage(channel="C1", text="joined by default")
        slack.remove_bot("C1")
        slack.remove_bot("G1")
        slack.archive("C2")
        for channel, error in (("C1", "not_in_channel"), ("G1", "channel_not_found"), ("C2", "is_archived")):
            with pytest.raises(SlackApiError) as raised:
                client.chat_postMessage(channel=channel, text="hi")
            assert raised.value.response["error"] == error
        info = client.conversations_info(channel="C1")["channel"]
        assert (info["is_member"], info["is_archived"]) == (False, False)
        assert client.conversations_info(channel="C2")["channel"]["is_archived"] is True
        with pytest.raises(SlackApiError) as raised:
            client.conversations_info(channel="G1")
        assert raised.value.response["error"] == "channel_not_found"
        event = slack.invite("C1", inviter="ULEAD")
        assert {k: event[k] for k in ("type", "user", "channel", "channel_type", "inviter")} == {
            "type": "member_joined_channel", "user": slack.bot_user_id, "channel": "C1", "channel_type": "C",
            "inviter": "ULEAD"}
        assert client.chat_postMessage(channel="C1", text="invited")["ok"]
        assert client.conversations_info(channel="C1")["channel"]["is_member"] is True


def test_a_channel_where_only_admins_may_post_is_tried_by_posting_one_waiting_message(
        unjoined: _Intake, db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """restricted_action (only admins may post there): conversations.info shows the bot a member, so neither the
    sender's five-minute look nor an invite releases the channel; the look tries the oldest held message again,
    and only when it is posted (an admin lifted the restriction) is the channel released and the thread posted."""
    from bot.runs.intake import reach as reach_module
    from standins.slack_server import _SlackError

    released: list[str] = []
    real_reachable = reach_module.reachable

    def reachable(db: Any, channel: str, name: str | None = None) -> int:
        released.append(channel)
        return real_reachable(db, channel, name)

    monkeypatch.setattr(reach_module, "reachable", reachable)
    h, slack = unjoined.harness, unjoined.slack
    slack.invite(CHANNEL)  # the bot is a member of the channel (no event: it was there all along)...
    real = slack._member_guard
    restricted = [True]

    def admins_only(method: str, args: dict[str, Any]) -> None:  # ...but only admins may post there
        if restricted[0] and method == "chat.postMessage" and args.get("channel") == CHANNEL:
            raise _SlackError("restricted_action")
        real(method, args)

    slack._member_guard = admins_only  # type: ignore[method-assign]
    unjoined.add(TICKET)
    [run_id] = unjoined.take()
    reach = _reach(db, CHANNEL)
    assert reach is not None and reach.error == "restricted_action"

    def tries() -> list[dict[str, Any]]:
        return [c for c in slack.calls if c["method"] == "chat.postMessage" and c["args"].get("channel") == CHANNEL]

    def thread_rows() -> list[Outbox]:
        return [r for r in _outbox(db, run_id) if r.channel == CHANNEL]

    before = len(tries())
    h.sender.recheck()  # what the sender does every RECHECK_SECONDS
    h.drain()
    assert len(tries()) == before + 1, "one held message is tried again"
    assert tries()[-1]["args"]["text"].startswith(":inbox_tray: Rule *sso-loops* picked up ticket *KITE-218*")
    assert _reach(db, CHANNEL).error == "restricted_action"  # type: ignore[union-attr]
    assert all(r.status == OutboxStatus.HELD for r in thread_rows()), [(r.key, r.status) for r in thread_rows()]
    unjoined.add(SECOND)
    assert unjoined.take() == [], "the rule still starts no runs"

    assert h.send.event(slack.invite(CHANNEL))[0] == 200  # an invite does not lift an admins-only channel
    h.drain()
    assert _reach(db, CHANNEL).error == "restricted_action"  # type: ignore[union-attr]
    assert CHANNEL not in released, "released by a look or an invite, then refused again"

    restricted[0] = False  # an admin lets the bot post there: the next look's try is posted, and that releases it
    h.sender.recheck()
    h.drain()
    assert _reach(db, CHANNEL).error is None  # type: ignore[union-attr]
    assert all(r.status == OutboxStatus.SENT for r in thread_rows()), [(r.key, r.status) for r in thread_rows()]
    assert CHANNEL in released
    assert len(unjoined.take()) == 1
