"""Stop: Slack's own Stop (agent_session_stopped), the Stop button, /kitebase stop and `kitebase stop` end a run
at once (an unfinished model call is abandoned), run no further tool, send nothing, say "Stopped by" in the
thread, and leave the run resumable. Through the real Bolt app, the real anthropic client against the Messages
API stand-in, and a real database."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr
from sqlmodel import select

from bot.agent import history
from bot.agent.loop import AgentLoop
from bot.cli import main
from bot.db.models import Escalation, Run, Ticket
from bot.runs.lifecycle.members import GroupMembers
from bot.runs.lifecycle.people import People
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import RunState
from standins.anthropic_server import MessagesAPIServer
from standins.brains import offline_brain
from standins.slack_harness import Harness, start_harness
from tests.helpers import approvals_of, run_row, service_with, staff_replies, steps_of, wait_until
from tests.scripted import ScriptedModel, respond, text, use
from tools import REGISTRY

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
# One per round of the race below: the offline model does not send a reply the ticket already holds.
TICKETS = ("KITE-142", "KITE-144", "KITE-163", "KITE-150", "KITE-120", "KITE-162", "KITE-189", "KITE-131")


class SlowModel:
    """The Messages API stand-in answering as the offline model, except that its second call hangs until
    `release` (a model call that takes long)."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.calls = 0
        self.server = MessagesAPIServer(responder=self._brain)

    def _brain(self, body: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if self.calls == 2:
            self.gate.wait(30)
        return offline_brain(body)

    def settings(self) -> dict[str, Any]:
        return {"anthropic_api_key": SecretStr("sk-ant-test-0123456789"), "anthropic_base_url": self.server.url,
                "model": "claude-opus-5", "model_max_retries": 0}


@pytest.fixture
def slow() -> Iterator[SlowModel]:
    model = SlowModel()
    model.server.start()
    try:
        yield model
    finally:
        model.gate.set()
        model.server.stop()


def start(settings, db, slow: SlowModel, **update: Any) -> tuple[Harness, Any]:
    return start_harness(settings.model_copy(update={**slow.settings(), "approvers": frozenset({"ULEAD"}), **update}),
                         db)


def stopped_during_the_call(db, run_id: int, slow: SlowModel) -> bool:
    """The run is stored stopped while its model call still hangs at the stand-in (it hangs until released, up to
    30 s): the stop abandoned the call instead of waiting for it. How fast is bench/stop_latency.py's figure."""
    wait_until(lambda: run_row(db, run_id).status == "stopped", "the run to stop", timeout=25)
    return slow.server.answered == 1 and not slow.gate.is_set()


def assert_stopped_cleanly(h: Harness, db, run_id: int, ts: str, slow: SlowModel) -> None:
    h.drain()
    run = run_row(db, run_id)
    assert run.status == "stopped" and run.stop_requested_by == "ULEAD"
    assert staff_replies(db, "KITE-142") == [] and approvals_of(db, run_id) == [], "nothing drafted, nothing sent"
    assert steps_of(db, run_id)[-1].kind == "stop" and steps_of(db, run_id)[-1].text == "stopped by ULEAD"
    assert not history.problems(run.messages), "the stored history can be sent again on resume"
    assert any("Stopped by <@ULEAD>" in str(m.get("blocks")) for m in h.slack.thread("CSUPPORT", ts)), \
        "the thread says who stopped it"
    slow.gate.set()  # the abandoned call ends now: its reply is dropped, nothing more happens
    wait_until(lambda: slow.server.answered >= 2, "the abandoned call to end")
    time.sleep(0.3)
    assert run_row(db, run_id).status == "stopped" and len(steps_of(db, run_id)) == len(steps_of(db, run_id))
    assert slow.calls == 2, "no model call after the stop"


def test_slacks_own_stop_during_a_slow_model_call(settings, db, slow):
    h, stop = start(settings, db, slow)
    try:
        ts, _ = h.send.mention(GOAL)
        wait_until(lambda: slow.calls == 2, "the second model call to hang")
        status, _ = h.send.agent_session_stopped(channel="CSUPPORT", thread_ts=ts, user="ULEAD")
        assert status == 200
        assert stopped_during_the_call(db, 1, slow)
        assert_stopped_cleanly(h, db, 1, ts, slow)
        assert h.slack.session_statuses("CSUPPORT", ts)[-1] == "closed", "Slack's Stop leaves the session closed"
        # The human queue has it, with Resume run: the run continues from where it stopped and drafts the reply.
        with db.session() as session:
            escalation = session.get(Escalation, 1)
            assert escalation is not None and escalation.kind == "stopped"
        resume = h.shown_button("resume_run")
        h.send.click("resume_run", resume["value"], message_ts=resume["ts"], channel=resume["channel"])
        h.drain()
        assert run_row(db, 1).status == "awaiting_approval" and run_row(db, 1).stop_requested_by is None
        h.approval_card()
        assert h.slack.session_statuses("CSUPPORT", ts)[-2:] == ["processing", "suspended"], "resumed, then waiting"
    finally:
        stop()


def test_the_stop_button_on_the_timeline(settings, db, slow):
    h, stop = start(settings, db, slow, slack_streaming=False)  # the timeline is a message carrying Stop
    try:
        ts, _ = h.send.mention(GOAL)
        wait_until(lambda: slow.calls == 2, "the second model call to hang")
        wait_until(lambda: _shown_stop(h), "the Stop button to be shown")
        button = h.shown_button("stop_run")
        assert button["value_json"] == {"run_id": 1} and button["channel"] == "CSUPPORT"
        h.send.click("stop_run", button["value"], message_ts=button["ts"])
        assert stopped_during_the_call(db, 1, slow)
        assert_stopped_cleanly(h, db, 1, ts, slow)
        assert not _shown_stop(h), "a stopped run shows no Stop button"
    finally:
        stop()


def _shown_stop(h: Harness) -> bool:
    try:
        h.shown_button("stop_run")
    except AssertionError:
        return False
    return True


def test_a_colleague_who_may_not_stop_changes_nothing(settings, db, slow):
    h, stop = start(settings, db, slow, slack_streaming=False)
    try:
        ts, _ = h.send.mention(GOAL)
        wait_until(lambda: slow.calls == 2, "the second model call to hang")
        wait_until(lambda: _shown_stop(h), "the Stop button to be shown")
        button = h.shown_button("stop_run")
        h.send.click("stop_run", button["value"], message_ts=button["ts"], user="UOTHER")
        h.send.command("stop 1", user="UOTHER")
        told = wait_until(lambda: [e for e in h.slack.calls_to("chat.postEphemeral") if e["user"] == "UOTHER"],
                          "the colleague to be told")
        assert "Only the person who asked for run #1 and the approvers can stop it (<@ULEAD>); it goes on." \
            in told[0]["text"]
        slow.gate.set()
        h.drain()
        assert run_row(db, 1).status == "awaiting_approval" and run_row(db, 1).stop_requested_by is None
    finally:
        stop()


def test_kitebase_stop_at_the_terminal_stops_a_run_working_in_serve(settings, db, slow, monkeypatch, capsys):
    h, stop = start(settings, db, slow)
    try:
        ts, _ = h.send.mention(GOAL)
        wait_until(lambda: slow.calls == 2, "the second model call to hang")
        monkeypatch.setenv("DATABASE_URL", settings.database_url)
        code = main(["stop", "1", "--as", "ULEAD"])
        out = capsys.readouterr().out
        assert code == 0 and "Run 1 (KITE-142, Northwind Studio) stopped" in out and "kitebase resume 1" in out, out
        assert stopped_during_the_call(db, 1, slow)
        assert_stopped_cleanly(h, db, 1, ts, slow)
        assert main(["stop", "1"]) == 2 and "there is nothing to stop" in capsys.readouterr().out
        assert main(["stop", "99"]) == 2 and "There is no run 99" in capsys.readouterr().err
    finally:
        stop()


def test_slash_stop_withdraws_a_waiting_draft_and_resume_drafts_again(lead, db):
    ts, _ = lead.send.mention(GOAL)
    lead.drain()
    card = lead.approval_card()
    status, body = lead.send.command("stop KITE-142")
    assert status == 200 and "Stopping run #1" in body
    lead.drain()
    assert run_row(db, 1).status == "stopped" and staff_replies(db, "KITE-142") == []
    [approval] = approvals_of(db, 1)
    assert approval.status == "withdrawn" and approval.decided_by == "ULEAD"
    shown = lead.slack.messages[("CSUPPORT", card["ts"])]
    assert "Withdrawn" in str(shown["blocks"]) and not any(b["type"] == "actions" for b in shown["blocks"])
    lead.send.click("approve_reply", card["value"], message_ts=card["ts"])  # a late click sends nothing
    lead.drain()
    assert staff_replies(db, "KITE-142") == []
    assert any("withdrawn" in e["text"] for e in lead.slack.calls_to("chat.postEphemeral"))
    assert not history.problems(run_row(db, 1).messages)
    status, body = lead.send.command("stop 1")
    assert "there is nothing to stop" in body
    resume = lead.shown_button("resume_run")
    lead.send.click("resume_run", resume["value"], message_ts=resume["ts"], channel=resume["channel"])
    lead.drain()
    assert run_row(db, 1).status == "awaiting_approval"
    assert [a.status for a in approvals_of(db, 1)] == ["withdrawn", "pending"]


@pytest.mark.parametrize("rounds", [8])
def test_a_stop_racing_an_approve_has_one_outcome(settings, db, rounds):
    """Approve and Stop at the same moment, again and again: either the approval was recorded first (the reply
    goes once, then the run stops) or the stop was (the draft is withdrawn, nothing goes); never both, never
    neither."""
    from bot.agent.offline import OfflineModel

    service = service_with(db, settings, OfflineModel(), approvers=frozenset({"ULEAD"}))
    # The Approve and the Stop land in two processes (two owners of the run's lease), as two Slack requests may.
    stopper = RunService(db, service.settings, model_factory=OfflineModel, owner="another-process")
    outcomes = []
    for round_ in range(rounds):
        ticket = TICKETS[round_ % len(TICKETS)]  # a ticket's thread grows with each reply sent: spread them
        sent_before = len(staff_replies(db, ticket))
        run_id = service.start(f"handle {ticket}", started_by="ULEAD")
        service.resume(run_id)
        [approval] = [a for a in approvals_of(db, run_id)]
        barrier, said = threading.Barrier(2), {}

        def approve(run_id: int = run_id, approval_id: int = approval.id, said: dict = said,
                    barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            said["approve"] = service.decide(approval_id, action="approve", actor="ULEAD")
            service.resume(run_id)

        def stop(run_id: int = run_id, said: dict = said, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            said["stop"] = stopper.stop(run_id, actor="ULEAD")
            stopper.resume(run_id)

        threads = [threading.Thread(target=approve), threading.Thread(target=stop)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        service.resume(run_id)  # whoever lost the lease race: the run is continued to its end
        decided = approvals_of(db, run_id)[0].status
        sent = len(staff_replies(db, ticket)) - sent_before
        # The stop lands on a live run; or, when the approve's thread recorded its decision and worked the run to
        # its end before the stop's thread was scheduled at all, on a finished one, which it says in a sentence.
        assert said["stop"].outcome in ("stopping", "not_running"), said["stop"]
        if said["stop"].outcome == "not_running":
            assert decided == "approved" and run_row(db, run_id).status == "completed", (round_, decided)
            assert "nothing to stop" in said["stop"].message
        # Stopped; or, when the stop landed in the moment the run's last turn was being stored, finished (the loop
        # looks once more after the last turn, but not inside the checkpoint's own transaction).
        assert run_row(db, run_id).status in ("stopped", "completed"), (round_, decided)
        if decided == "approved":
            assert said["approve"].outcome == "approved" and sent == 1
        else:
            assert decided == "withdrawn" and sent == 0
            assert said["approve"].outcome == "already_decided" and "stopped the run" in said["approve"].message
        outcomes.append(decided)
    assert set(outcomes) <= {"approved", "withdrawn"}


def test_no_tool_runs_after_a_stop_and_the_history_stays_whole(db, settings):
    """The loop asks before each call with side effects: a stop that lands after the first write leaves the
    second unrun, answered "Not run", and the run stopped."""
    asked = {"n": 0}

    def stop_after_first_write() -> str | None:
        asked["n"] += 1
        return "ULEAD" if asked["n"] > 2 else None  # 1: before the model call, 2: before the first write

    model = ScriptedModel([respond(text("Noting, then closing."),
                                   use("update_ticket", ticket_id="KITE-142", note="Same export bug as KITE-144."),
                                   use("update_ticket", ticket_id="KITE-142", status="solved"))])
    loop = AgentLoop(model=model, registry=REGISTRY, settings=settings, db=db, stop_check=stop_after_first_write)
    state = RunState(goal="x", messages=[{"role": "user", "content": "handle KITE-142"}], ticket_id="KITE-142")
    loop.run(state, lambda s, step: None)
    assert state.status == "stopped" and state.reason == "stopped by ULEAD"
    first, second = state.messages[-1]["content"]
    assert first["content"].startswith("Updated KITE-142") and second["content"] == "Not run: ULEAD stopped the run."
    assert not history.problems(state.messages) and len(model.sent) == 1
    with db.session() as session:
        assert session.get(Ticket, "KITE-142").status != "solved"


def test_a_stop_before_the_model_is_called_makes_no_call(db, settings):
    model = ScriptedModel([])
    loop = AgentLoop(model=model, registry=REGISTRY, settings=settings, db=db, stop_check=lambda: "UOPS")
    state = RunState(goal="x", messages=[{"role": "user", "content": "handle KITE-142"}])
    loop.run(state, lambda s, step: None)
    assert state.status == "stopped" and model.sent == []


def test_who_may_stop(settings, db):
    members = GroupMembers(db)
    people = People(settings.model_copy(update={"approvers": frozenset({"ULEAD", "SLEADS"})}), members)
    members.store({"SLEADS": frozenset({"UGROUPIE"})})
    assert people.why_not_stop("UASKER", 1, "UASKER") is None, "the person who asked"
    assert people.why_not_stop("ULEAD", 1, "UASKER") is None and people.why_not_stop("UGROUPIE", 1, None) is None
    assert "Only the person who asked for run #1" in (people.why_not_stop("UOTHER", 1, "UASKER") or "")
    nobody = People(settings, members)
    assert nobody.why_not_stop("UASKER", 2, "UASKER") is None
    assert "kitebase stop" in (nobody.why_not_stop("UOTHER", 2, None) or "")


def test_slacks_own_stop_in_a_slash_commands_thread(settings, db, slow):
    """A /kitebase run threads under its "asked:" message: Slack's Stop there names that message's ts."""
    h, stop = start(settings, db, slow)
    try:
        h.send.command("handle KITE-142")
        wait_until(lambda: slow.calls == 2, "the second model call to hang")
        asked = wait_until(lambda: [c for c in h.slack.calls_to("chat.postMessage") if "asked:" in c["text"]],
                           "the asked: message")
        ts = next(ts for (channel, ts), m in h.slack.messages.items() if m.get("text") == asked[0]["text"])
        h.send.event({"type": "agent_session_stopped", "channel": "CSUPPORT", "thread_ts": ts, "user": "ULEAD",
                      "streaming_message_ts": [], "event_ts": f"{time.time():.6f}"})
        assert stopped_during_the_call(db, 1, slow)
        assert_stopped_cleanly(h, db, 1, ts, slow)
    finally:
        stop()


def test_an_approve_click_and_a_stop_command_at_once_in_slack(lead, db):
    """The race through the Bolt app: the card's Approve and `/kitebase stop` sent at the same moment, on four
    tickets. Each ends one way: the reply sent once and the run stopped after it, or the draft withdrawn and
    nothing sent."""
    for run_id, ticket in enumerate(TICKETS[:4], start=1):
        lead.send.mention(f"handle {ticket}")
        lead.drain()
        card = lead.approval_card()
        barrier = threading.Barrier(2)

        def approve(card: dict = card, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            lead.send.click("approve_reply", card["value"], message_ts=card["ts"])

        def stop(run_id: int = run_id, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            lead.send.command(f"stop {run_id}")

        threads = [threading.Thread(target=approve), threading.Thread(target=stop)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        lead.drain()
        [approval] = approvals_of(db, run_id)
        assert run_row(db, run_id).status == "stopped", ticket
        assert (approval.status, len(staff_replies(db, ticket))) in (("approved", 1), ("withdrawn", 0)), ticket


def test_stop_run_on_the_approval_card(lead, db):
    """A run waiting for a decision has no working timeline to stop from: its card offers **Stop run** beside
    Approve, Edit and Reject."""
    lead.send.mention(GOAL)
    lead.drain()
    card = lead.approval_card()
    button = lead.shown_button("stop_run")
    assert button["ts"] == card["ts"] and button["value_json"] == {"run_id": 1}
    lead.send.click("stop_run", button["value"], message_ts=button["ts"], user="UOTHER")
    lead.drain()
    assert run_row(db, 1).status == "awaiting_approval", "a colleague's click changes nothing"
    lead.send.click("stop_run", button["value"], message_ts=button["ts"])
    lead.drain()
    assert run_row(db, 1).status == "stopped" and [a.status for a in approvals_of(db, 1)] == ["withdrawn"]
    shown = lead.slack.messages[("CSUPPORT", card["ts"])]
    assert not any(b["type"] == "actions" for b in shown["blocks"]), "the decided card has no buttons"
    assert staff_replies(db, "KITE-142") == []


def test_a_stopped_run_whose_worker_died_is_stopped_by_the_stuck_sweep(db, settings):
    """A stop recorded while the run's worker was dying: the sweep that takes the run over stops it (the
    person's stop), instead of handing it to the queue as stuck."""
    from sqlalchemy import update

    from bot.agent.offline import OfflineModel

    service = service_with(db, settings, OfflineModel())
    run_id = service.start(GOAL, started_by="ULEAD")
    with db.session() as session:  # a worker took it, then died mid-turn; the lead pressed Stop meanwhile
        session.execute(update(Run).where(Run.id == run_id).values(status="running", lease_owner="dead-worker"))
    assert service.stop(run_id, actor="ULEAD", person=False).outcome == "stopping"
    assert service.escalate_stuck(run_id, reason="no progress for 600 s: the run is stuck")
    run = run_row(db, run_id)
    assert run.status == "stopped" and run.reason == "stopped by ULEAD"
    with db.session() as session:
        [escalation] = session.exec(select(Escalation).where(Escalation.run_id == run_id)).all()
    assert escalation.kind == "stopped", "in the queue as stopped, with Resume run, not as stuck"
