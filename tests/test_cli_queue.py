"""`kitebase queue take|resume|close RUN` through the real `kitebase` entry point, in a process of its own: the
terminal acts on the human queue by the run's name (its number, or its ticket), under the same rule as Slack's
queue buttons."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Escalation
from bot.runs.lifecycle.people import People
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import StopKind, stop_words

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
KITEBASE = str(Path(sys.executable).with_name("kitebase"))


@pytest.fixture
def escalated(database_url, monkeypatch, capsys) -> str:
    """A run on KITE-142 that hit its step limit (run 1), in the human queue."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert main(["run", GOAL, "--max-steps", "2", "--approve", "auto", "--json"]) == 3
    capsys.readouterr()
    return database_url


def kitebase(url: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KITEBASE, *args], capture_output=True, text=True, timeout=180,
                          env={**os.environ, "DATABASE_URL": url, **env}, cwd=Path(__file__).parents[1])


def escalation(url: str) -> Escalation:
    db = Database.from_url(url)
    try:
        with db.session() as session:
            row = session.get(Escalation, 1)
            assert row is not None
            return row
    finally:
        db.engine.dispose()


def test_the_listing_says_why_in_words_and_how_to_act(escalated):
    done = kitebase(escalated, "queue")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Run 1 · KITE-142 · " in out and "hit its step limit" in out and "guard" not in out.split("\n")[0]
    assert "KITEBASE_MAX_STEPS" in out, "the reason as recorded, too"
    for command in ("kitebase queue take 1", "kitebase queue resume 1", "kitebase queue close 1 --note",
                    "kitebase replay 1"):
        assert command in out, command
    [item] = json.loads(kitebase(escalated, "queue", "--json").stdout)
    assert item["why"] == "hit its step limit" and item["customer"] and item["kind"] == "guard"


def test_take_then_close_at_the_terminal(escalated):
    done = kitebase(escalated, "queue", "take", "1", "--as", "lead-priya")
    assert done.returncode == 0, done.stderr
    assert "lead-priya" in done.stdout and "run 1" in done.stdout.lower()
    row = escalation(escalated)
    assert (row.status, row.claimed_by) == ("claimed", "lead-priya")
    assert "taken by lead-priya" in kitebase(escalated, "queue").stdout

    needs_note = kitebase(escalated, "queue", "close", "1", "--as", "lead-priya")
    assert needs_note.returncode == 2 and "--note" in needs_note.stderr
    done = kitebase(escalated, "queue", "close", "1", "--note", "Called the customer; fixed by hand.",
                    KITEBASE_CLI_USER="lead-priya")
    assert done.returncode == 0, done.stderr
    row = escalation(escalated)
    assert row.status == "closed" and "fixed by hand" in (row.note or "") and row.claimed_by == "lead-priya"
    assert "The human queue is empty." in kitebase(escalated, "queue").stdout
    again = kitebase(escalated, "queue", "take", "1", "--as", "lead-sam")
    assert again.returncode == 2 and "is not in the human queue" in again.stderr and "closed by lead-priya" in \
        again.stderr


def test_a_closed_item_cannot_be_resumed_from_the_queue(escalated):
    assert kitebase(escalated, "queue", "close", "1", "--note", "Refunded.", "--as", "lead-priya").returncode == 0
    refused = kitebase(escalated, "queue", "resume", "1", "--as", "lead-priya")
    assert refused.returncode == 2 and "its last hand-off was closed by lead-priya" in refused.stderr
    assert escalation(escalated).status == "closed"


def test_a_second_take_says_who_has_it(escalated):
    assert kitebase(escalated, "queue", "take", "1", "--as", "lead-priya").returncode == 0
    again = kitebase(escalated, "queue", "take", "1", "--as", "lead-sam")
    assert again.returncode == 2 and "lead-priya" in again.stderr and "already" in again.stderr.lower()
    assert escalation(escalated).claimed_by == "lead-priya"


def test_a_non_approver_is_refused_with_slacks_sentence(escalated):
    settings = Settings(database_url=escalated, approvers=frozenset({"ULEAD"}))
    db = Database.from_url(escalated)
    try:
        sentence = People(settings, RunService(db, settings).people.groups).why_not_steer(
            "UOTHER", "act on the human queue")
    finally:
        db.engine.dispose()
    assert sentence and "<@ULEAD>" in sentence
    refused = kitebase(escalated, "queue", "take", "1", "--as", "UOTHER", KITEBASE_APPROVERS="ULEAD")
    assert refused.returncode == 2 and sentence.replace("<@ULEAD>", "@ULEAD") in refused.stderr, \
        "Slack's sentence, its mentions as a terminal reads them"
    assert "<@" not in refused.stderr
    refused = kitebase(escalated, "queue", "close", "1", "--note", "x", KITEBASE_APPROVERS="ULEAD")
    assert refused.returncode == 2 and "Only the approvers" in refused.stderr, "the terminal user, `cli`, is none"
    assert escalation(escalated).status == "open"
    done = kitebase(escalated, "queue", "take", "1", KITEBASE_APPROVERS="ULEAD", KITEBASE_CLI_USER="ULEAD")
    assert done.returncode == 0, done.stderr


def test_naming_the_run_by_its_ticket(escalated):
    done = kitebase(escalated, "queue", "take", "KITE-142", "--as", "lead-priya")
    assert done.returncode == 0, done.stderr
    assert escalation(escalated).claimed_by == "lead-priya"
    nothing = kitebase(escalated, "queue", "take", "KITE-999")
    assert nothing.returncode == 2 and "KITE-999" in nothing.stderr


def test_resume_continues_the_run_and_marks_it_resumed(escalated):
    done = kitebase(escalated, "queue", "resume", "KITE-142", "--note", "Try the owner bypass link.",
                    "--as", "lead-priya")
    assert done.returncode == 3, done.stderr  # not a terminal: the run's draft waits for a decision
    assert "Approval needed" in done.stdout or "waits for approval" in done.stdout
    row = escalation(escalated)
    assert row.status == "resumed" and row.claimed_by == "lead-priya"
    assert "The human queue is empty." in kitebase(escalated, "queue").stdout
    again = kitebase(escalated, "queue", "take", "1", "--as", "lead-sam")
    assert again.returncode == 2 and "is not in the human queue: it is awaiting approval" in again.stderr


def test_reasons_in_words():
    assert stop_words(StopKind.MODEL_REQUEST, "the agent asked: x") == "the agent asked for a person"
    assert stop_words(StopKind.GUARD, "step limit reached: 2 of 2 model calls (KITEBASE_MAX_STEPS)") == \
        "hit its step limit"
    assert stop_words(StopKind.REFUSAL, "") == "the model refused"
    assert stop_words(StopKind.FAILURE, "boom") == "failed"
    assert stop_words(StopKind.STOPPED, "stopped by UOPS") == "stopped by UOPS"
    assert stop_words("something new", "") == "something new"


def test_slack_shows_the_same_words():
    from bot.slack_ui.queue import build_escalation, build_home, build_queue_message

    reason = "step limit reached: 2 of 2 model calls (KITEBASE_MAX_STEPS) and the agent had not finished"
    _, blocks = build_escalation(escalation_id=1, run_id=1, ticket_id="KITE-142", kind="guard", reason=reason,
                                 summary="s", thread_link=None)
    assert "*Why:* hit its step limit: step limit reached" in str(blocks) and "guard" not in str(blocks)
    item = {"run_id": 1, "ticket_id": "KITE-142", "kind": "stopped", "reason": "stopped by ULEAD01", "claimed_by": None}
    assert "stopped by <@ULEAD01>" in str(build_queue_message([item])[1])
    assert "stopped by <@ULEAD01>" in str(build_home(queue=[item], approvals=[], runs=[]))
