"""Small helpers shared by tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlmodel import col, select

from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Approval, Escalation, Run, Step, TicketMessage
from bot.runs.lifecycle.service import RunService

# How long a test waits for something before it calls it hung. Only a hang detector: what a test checks never
# rests on it (a test that needs "promptly" makes the slow path impossible instead, e.g. a lease far longer than
# this), so a busy machine only makes a test slower, never red.
PATIENCE = 300.0


def wait_until(check: Callable[[], Any], what: str, timeout: float = PATIENCE) -> Any:
    """Poll `check` until it returns something true, and return that; AssertionError naming `what` if it never
    does within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(0.05)


def service_with(db: Database, settings: Settings, model: Any, **overrides: Any) -> RunService:
    if overrides:
        settings = settings.model_copy(update=overrides)
    return RunService(db, settings, model_factory=lambda: model)


def all_runs(db: Database) -> list[Run]:
    with db.session() as session:
        return list(session.exec(select(Run)).all())


def run_row(db: Database, run_id: int) -> Run:
    with db.session() as session:
        return session.get(Run, run_id)


def steps_of(db: Database, run_id: int) -> list[Step]:
    with db.session() as session:
        return list(session.exec(select(Step).where(Step.run_id == run_id).order_by(col(Step.number))).all())


def approvals_of(db: Database, run_id: int) -> list[Approval]:
    with db.session() as session:
        return list(session.exec(select(Approval).where(Approval.run_id == run_id).order_by(col(Approval.id))).all())


def escalations_of(db: Database, run_id: int) -> list[Escalation]:
    with db.session() as session:
        return list(session.exec(select(Escalation).where(Escalation.run_id == run_id)).all())


def staff_replies(db: Database, ticket_id: str) -> list[TicketMessage]:
    with db.session() as session:
        return list(session.exec(select(TicketMessage).where(TicketMessage.ticket_id == ticket_id,
                                                             TicketMessage.role == "staff",
                                                             TicketMessage.author == "Kitebase Support")).all())


def assert_well_formed(messages: list[dict[str, Any]]) -> None:
    """The Messages API's shape rules, checked independently of the code under test."""
    assert messages[0]["role"] == "user"
    for before, after in zip(messages, messages[1:], strict=False):
        assert before["role"] != after["role"], "roles must alternate"
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        asked = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        if not asked:
            continue
        assert i + 1 < len(messages), "an unanswered tool_use ends the history"
        answer = messages[i + 1]["content"]
        kinds = [b["type"] for b in answer]
        n = kinds.count("tool_result")
        assert kinds[:n] == ["tool_result"] * n, "tool results come first"
        assert sorted(b["tool_use_id"] for b in answer[:n]) == sorted(asked), "each tool_use answered exactly once"


def intake_through(db: Database, settings: Settings, rules: list[Any], harness: Any) -> list[int]:
    """One intake pass whose runs the Slack harness's app dispatches, then what it shows delivered: the run ids."""
    from bot.runs.execution.desk_work import intake

    started: list[int] = []
    intake(db, settings, rules, lambda run_id: (started.append(run_id), harness.ctx.dispatch(run_id)))
    harness.drain()
    return started
