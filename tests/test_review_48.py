"""Review of issue 48 (rules reload, unreachable channels, held messages, customer files): each test here is a
reproduction of a finding, marked xfail(strict) until the product is fixed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from bot.db.models import DeskArrival, Escalation, Outbox, Run
from bot.runs.intake import arrivals
from bot.runs.intake.rules import parse
from bot.vocabulary import ArrivalState, RunStatus
from tests.test_desk_add import _pass, cli, database, lines  # noqa: F401
from tests.test_intake_rule_changes import BILLING, URGENT, _intake_job, rules_file  # noqa: F401
from tests.test_intake_rules import _arrival, _new_ticket
from tests.test_intake_rules import _pass as _rules_pass

# --- rules changing ------------------------------------------------------------------------------------------


def test_an_arrival_not_yet_decided_when_its_rule_is_renamed_is_taken_by_the_renamed_rule(
        db: Any, rules_file: Any) -> None:  # noqa: F811
    """A ticket recorded while 'urgent-sso' is in force, but not yet decided (the pass runs every 2 s, or a burst
    is longer than one pass's 200), when the rule is renamed: the renamed rule came into force after it arrived
    and the old one is gone, so it is ignored for good as 'no rule takes it'."""
    path, settings = rules_file
    job, started = _intake_job(db, settings)
    job()  # 'urgent-sso' in force
    ticket = _new_ticket(db, 1)  # matches urgent-sso; not decided yet
    path.write_text(URGENT.replace('"urgent-sso"', '"sso-urgent"'), encoding="utf-8")
    job()
    arrival = _arrival(db, ticket)
    assert (arrival.state, arrival.rule) == (ArrivalState.STARTED, "sso-urgent"), (arrival.state, arrival.reason)



def test_an_arrival_recorded_just_before_its_rule_is_added_is_not_ignored_for_good(db: Any, rules_file: Any) -> None:  # noqa: F811
    """docs/intake.md: an added rule takes 'what no rule took in the 24 hours before'. A billing ticket recorded
    a moment before 'billing' is added to the file, and not yet decided, is ignored for good instead."""
    path, settings = rules_file
    job, started = _intake_job(db, settings)
    job()
    invoice = _new_ticket(db, 2, priority="normal", tags=("billing",))
    path.write_text(URGENT + BILLING, encoding="utf-8")
    job()
    job()
    arrival = _arrival(db, invoice)
    assert (arrival.state, arrival.rule) == (ArrivalState.STARTED, "billing"), (arrival.state, arrival.reason)



def test_a_database_error_while_a_changed_file_is_taken_up_does_not_keep_the_old_rules_for_good(
        db: Any, rules_file: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """RulesFile.current() records the file's bytes as seen before it records the rules in the database: one
    failed statement there (a connection dropped, a lock timeout) and every later pass compares equal bytes and
    keeps the old rules until someone edits the file again."""
    path, settings = rules_file
    job, started = _intake_job(db, settings)
    job()
    path.write_text(URGENT + BILLING, encoding="utf-8")
    real = arrivals.standing
    calls = {"n": 0}

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("connection reset")
        return real(*args, **kwargs)

    monkeypatch.setattr(arrivals, "standing", flaky)
    job()  # the scheduler logs the exception and goes on
    monkeypatch.setattr(arrivals, "standing", real)
    invoice = _new_ticket(db, 3, priority="normal", tags=("billing",))
    job()
    job()
    arrival = _arrival(db, invoice)
    assert (arrival.state, arrival.rule) == (ArrivalState.STARTED, "billing"), (arrival.state, arrival.reason)


# --- volume ---------------------------------------------------------------------------------------------------


def test_a_removed_rules_backlog_does_not_keep_a_renamed_rules_backlog_from_being_read(
        db: Any, settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """open_ids reads the backlog of rules no longer in the file oldest first, BATCH (200) at a time, all such
    rules together. A removed rule's backlog that no rule takes (say 200 billing tickets waiting while billing was
    paused) stays first in that list at every pass, so a renamed rule's older-but-later tickets are never read:
    one rule waits on another, at a backlog size the issue names. BATCH is 2 here to keep the test small."""
    monkeypatch.setattr(arrivals, "BATCH", 2)
    settings = settings.model_copy(update={"approvers": frozenset({"ULEAD"})})
    before = parse(URGENT + BILLING)
    arrivals.standing(db, before)
    invoices = [_new_ticket(db, n, priority="normal", tags=("billing",)) for n in (10, 11, 12)]
    sso = _new_ticket(db, 13)
    with db.session() as session:  # both rules were paused: their tickets wait in their backlogs
        for ticket, rule in [*((t, "billing") for t in invoices), (sso, "urgent-sso")]:
            session.execute(update(DeskArrival).where(col(DeskArrival.ticket_id) == ticket).values(
                state=ArrivalState.WAITING, rule=rule, reason=f"rule '{rule}' is paused"))
    after = parse(URGENT.replace('"urgent-sso"', '"sso-urgent"'))  # billing removed, urgent-sso renamed
    for _ in range(3):
        _rules_pass(db, settings, after)
    arrival = _arrival(db, sso)
    assert (arrival.state, arrival.rule) == (ArrivalState.STARTED, "sso-urgent"), (arrival.state, arrival.reason)


# --- people acting at the same moment ----------------------------------------------------------------------------


def test_a_take_that_lands_while_the_pass_continues_an_open_hand_off_is_not_undone(
        cli: Any, database: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A run handed off (open escalation); the customer writes; the intake pass reads the hand-off as open (nobody's
    word yet) and, in the same transaction, requeues the run. A lead's Take committed in between (it updates only the
    escalation row, never locks the run) is not seen: the run works again while the queue says 'taken by U0LEAD2'.
    Reproduced by committing the take right after the pass read the hand-off (PostgreSQL, read committed)."""
    from bot.runs.lifecycle import held
    from bot.runs.lifecycle.escalations import Target
    from bot.runs.lifecycle.service import RunService
    from bot.vocabulary import EscalationStatus
    from tests.test_desk_add import database_settings
    from tests.test_person_holds import MESSAGE, _escalate, _started_run

    if database.engine.dialect.name == "sqlite":
        pytest.skip("an interleaving of two writers: PostgreSQL")
    run_id = _started_run(cli, database, tmp_path)
    _escalate(database, run_id, EscalationStatus.OPEN, None)
    cli("desk", "add", lines(tmp_path, MESSAGE, name="m.jsonl"))
    settings = database_settings(cli).model_copy(update={"approvers": frozenset({"U0LEAD2"})})
    service = RunService(database, settings)
    real = held.person_hold
    taken: list[Any] = []

    import threading

    def then_take(session: Any, run: Any) -> Any:
        """The lead's Take, from another thread, right after the pass looked (and locked the run)."""
        found = real(session, run)
        if not taken:
            taken.append(threading.Thread(target=lambda: taken.append(
                service.take_from_queue(Target(name=str(run_id)), actor="U0LEAD2"))))
            taken[0].start()
            taken[0].join(timeout=1.0)
            assert taken[0].is_alive(), "the take waits for the pass's transaction (the run's row is locked)"
        return found

    monkeypatch.setattr(held, "person_hold", then_take)
    from bot.runs.intake import arrivals as intake_arrivals
    monkeypatch.setattr(intake_arrivals.held, "person_hold", then_take)
    assert _pass(cli, database) == [run_id], "the hand-off was open when the pass looked: the message continues it"
    taken[0].join(timeout=30)
    act = taken[1]
    assert not act.done and "resumed by the customer's new message" in act.sentence, act.sentence
    with database.session() as session:
        run = session.get(Run, run_id)
        escalation = session.exec(select(Escalation).where(Escalation.run_id == run_id)).one()
        assert (escalation.status, run.status) == ("resumed", RunStatus.QUEUED), \
            "the queue says what happened: the take was refused, not recorded over a working run"


def test_a_hand_off_the_customers_message_continued_leaves_the_queue(
        cli: Any, database: Any, tmp_path: Path) -> None:  # noqa: F811
    """The customer's news continues an open hand-off (nobody took it): the run works again, but its queue item
    stays open with Take / Resume run, so a lead may take a run the agent is already working (and a Resume run
    click answers 'still queued')."""
    from bot.vocabulary import UNRESOLVED, EscalationStatus
    from tests.test_person_holds import MESSAGE, _escalate, _started_run

    run_id = _started_run(cli, database, tmp_path)
    _escalate(database, run_id, EscalationStatus.OPEN, None)
    cli("desk", "add", lines(tmp_path, MESSAGE, name="m.jsonl"))
    assert _pass(cli, database) == [run_id]
    with database.session() as session:
        escalation = session.exec(select(Escalation).where(Escalation.run_id == run_id)).one()
        assert escalation.status not in UNRESOLVED, f"the run works again, the queue still says {escalation.status}"



def test_a_lead_who_takes_the_stale_queue_item_is_overridden_by_the_next_customer_message(
        cli: Any, database: Any, tmp_path: Path) -> None:  # noqa: F811
    """Follows from the one above, with no race: the lead takes the queue item that still shows (the Take succeeds,
    the item says 'taken by U0LEAD2'), the run then ends as it does, and the customer's next message restarts it
    on its own: person_hold looks at a take only while the run is ESCALATED."""
    from bot.runs.lifecycle.escalations import Target
    from bot.runs.lifecycle.service import RunService
    from bot.vocabulary import EscalationStatus
    from tests.test_desk_add import database_settings
    from tests.test_person_holds import MESSAGE, _escalate, _set, _started_run

    run_id = _started_run(cli, database, tmp_path)
    _escalate(database, run_id, EscalationStatus.OPEN, None)
    cli("desk", "add", lines(tmp_path, MESSAGE, name="m.jsonl"))
    assert _pass(cli, database) == [run_id]
    settings = database_settings(cli).model_copy(update={"approvers": frozenset({"U0LEAD2"})})
    from bot.runs import BadInput
    with pytest.raises(BadInput, match="not in the human queue: it is queued; its last hand-off was resumed by the "
                                       "customer's new message"):  # no stale item to take
        RunService(database, settings).take_from_queue(Target(name=str(run_id)), actor="U0LEAD2")
    _set(database, run_id, status=RunStatus.ESCALATED)  # the run hands off again: a new item a lead may take
    with database.session() as session:
        session.add(Escalation(run_id=run_id, kind="model_request", reason="a refund", summary="", status="open"))
    act = RunService(database, settings).take_from_queue(Target(name=str(run_id)), actor="U0LEAD2")
    assert act.done, act.sentence
    cli("desk", "add", lines(tmp_path, {"ticket_id": "KITE-218", "body": "Any news?"}, name="m2.jsonl"))
    assert _pass(cli, database) == [], "taken by U0LEAD2: only a person continues it"


# --- hostile input ----------------------------------------------------------------------------------------------


def test_a_held_customer_message_cannot_ping_the_channel_from_the_runs_thread(
        cli: Any, database: Any, tmp_path: Path) -> None:  # noqa: F811
    """held.shown() puts the customer's text (and name) into a notice's mrkdwn unescaped; build_notice says 'any
    user text in it was escaped where the sentence was made'. A customer who writes `<!channel>` on a stopped run
    notifies everyone in the rule's channel, and `<https://evil.example|Reset your SSO here>` becomes a disguised link
    in a message from the bot."""
    from bot.slack_ui.blocks import build_notice
    from tests.test_person_holds import _notices, _set, _started_run

    run_id = _started_run(cli, database, tmp_path)
    _set(database, run_id, status=RunStatus.STOPPED, stop_requested_by="U0LEAD1")
    hostile = "<!channel> urgent <https://evil.example/|Reset your SSO here> <@U0CEO>"
    cli("desk", "add", lines(tmp_path, {"ticket_id": "KITE-218", "body": hostile}, name="m.jsonl"))
    assert _pass(cli, database) == []
    [notice] = [n for n in _notices(database) if "urgent" in n]
    text, blocks = build_notice(notice)
    shown = text + str(blocks)
    assert "<!channel>" not in shown and "<https://evil.example/|" not in shown and "<@U0CEO>" not in shown, notice


# --- Slack refusing -------------------------------------------------------------------------------------------

def test_a_channel_where_only_admins_may_post_is_not_released_by_the_five_minute_look(
        settings: Any, db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """reach.REFUSED counts `restricted_action` (a channel whose posting is limited to admins, a workspace
    preference) as the channel refusing the bot, but the sender's look again every five minutes asks only
    conversations.info, which says is_member true and not archived: the channel is recorded reachable, its held
    rows go out and are refused again, and meanwhile the rule starts runs whose threads cannot be posted. It flaps
    every five minutes for as long as the restriction stands."""
    from tests.test_unreachable_channel import CHANNEL, TICKET, _Intake, _reach

    world = _Intake(settings, db, tmp_path, monkeypatch, capsys)
    try:
        world.slack.invite(CHANNEL)  # the bot is a member of the channel...
        real = world.slack._member_guard

        def admins_only(method: str, args: dict[str, Any]) -> None:  # ...but only admins may post there
            if method == "chat.postMessage" and args.get("channel") == CHANNEL:
                from standins.slack_server import _SlackError
                raise _SlackError("restricted_action")
            real(method, args)

        world.slack._member_guard = admins_only  # type: ignore[method-assign]
        world.add(TICKET)
        assert len(world.take()) == 1
        reach = _reach(db, CHANNEL)
        assert reach is not None and reach.error == "restricted_action"
        from bot.outbox.sender import look
        from bot.runs.intake import reach as reach_module

        # what the sender's recheck() does every RECHECK_SECONDS (called here with its own look, so the test does
        # not race the sender re-posting the released rows)
        problems = reach_module.check(db, world.settings, {CHANNEL: "a channel that refused the bot"},
                                      lambda channel: look(world.harness.sender.client, channel))
        assert problems, "conversations.info cannot see a posting restriction; the look released the channel"
    finally:
        world.stop()



def test_a_pause_is_not_dropped_when_the_paused_rule_is_renamed(db: Any, rules_file: Any, caplog: Any) -> None:  # noqa: F811
    """A lead paused 'urgent-sso' (its channel is flooded); someone renames it in the file. The reload even guesses
    the rename ("rule 'sso-urgent' added (rule 'urgent-sso' renamed?)"), but the renamed rule is a new row, not
    paused, and takes the paused rule's whole backlog at once: the lead's pause is undone and no line says so."""
    from bot.cli import main  # noqa: F401
    from bot.db.models import IntakeRule

    path, settings = rules_file
    job, started = _intake_job(db, settings)
    job()
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == "urgent-sso")
                        .values(paused=True, paused_by="U0LEAD1"))
    tickets = [_new_ticket(db, n) for n in (30, 31, 32)]
    job()
    assert started == [] and {_arrival(db, t).state for t in tickets} == {ArrivalState.WAITING}
    path.write_text(URGENT.replace('"urgent-sso"', '"sso-urgent"'), encoding="utf-8")
    job()
    assert started == [], f"paused by U0LEAD1, yet the rename started {len(started)} run(s) of its backlog"


# --- bad input ----------------------------------------------------------------------------------------------------


def test_a_message_with_many_attachments_stays_within_a_tool_results_limit() -> None:
    """held.continuation cuts each body at the limit, then appends files_line() uncut, and always keeps the newest
    message whatever its size: a customer message with a hundred attachments (or a few with very long links) goes
    to the model far over KITEBASE_TOOL_RESULT_MAX_CHARS, the very thing item 10 caps."""
    from bot.runs.lifecycle import held

    files = [{"name": f"screenshot-{n:03d}-" + "x" * 120 + ".png", "content_type": "image/png", "size": 123_456,
              "url": f"https://acme.zendesk.com/attachments/token/{'t' * 40}/?name=screenshot-{n:03d}.png"}
             for n in range(100)]
    message = DeskArrival(id=1, kind="message", key="m:1", ticket_id="KITE-1", author="Dana", body="See attached.",
                          fields={"attachments": files}, state=ArrivalState.NEW)
    text = held.continuation("KITE-1", [message], 8_000)
    assert len(text) < 10_000, f"{len(text):,} characters for a limit of 8,000"


def test_a_post_refused_just_before_the_invite_does_not_block_the_channel_again(db: Any, settings: Any) -> None:
    """A post is in flight when the lead invites the bot: Slack answers it not_in_channel, the invite's
    member_joined_channel is handled (reachable), then the sender records the refusal (refused): the channel is
    recorded as refusing the bot although the bot is in it, and the rule starts nothing until the sender's next look
    (RECHECK_SECONDS, five minutes; none at all while no serve leads the outbox). refused() could keep the row held
    but leave a reach row younger than the post's claim alone."""
    from bot import outbox
    from bot.db.models import ChannelReach
    from bot.runs.intake import reach

    with db.session() as session:
        outbox.notice(session, channel="C0SSO", thread_ts=None, text="hello", key="notice:inflight")
    with db.session() as session:
        row = session.exec(select(Outbox).where(Outbox.key == "notice:inflight")).one()
        session.expunge(row)
    reach.reachable(db, "C0SSO")  # the invite's event, handled while the post was on its way
    reach.refused(db, settings, row, "not_in_channel", "not_in_channel")  # the post's answer, recorded after
    with db.session() as session:
        found = session.get(ChannelReach, "C0SSO")
        assert found is not None and found.error is None, "the bot is in the channel; the rule holds for 5 min"
