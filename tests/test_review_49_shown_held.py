"""Review of issue 49 (reviewer 2, "shown"): what held. The due-refresh pass touches only cards Slack shows as
last drawn: never a held row (a channel that refuses the bot), a failed one, one never sent, or one already
waiting for the sender; two passes at once (two processes) bump a row once; a decided card is left alone even when
its kept line is out of date."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import col, select

from bot.db import clock
from bot.db.models import Approval, Outbox, Run, Ticket
from bot.desk import sla
from bot.runs.execution import due_refresh
from bot.vocabulary import ApprovalStatus, OutboxKind, OutboxStatus, RunStatus

CASES = {  # ticket: (card row status, ts, approval status)
    "KITE-H0": (OutboxStatus.SENT, "1.000001", ApprovalStatus.PENDING),
    "KITE-H1": (OutboxStatus.HELD, "1.000002", ApprovalStatus.PENDING),
    "KITE-H2": (OutboxStatus.FAILED, "1.000003", ApprovalStatus.PENDING),
    "KITE-H3": (OutboxStatus.PENDING, None, ApprovalStatus.PENDING),
    "KITE-H4": (OutboxStatus.SENT, "1.000005", ApprovalStatus.APPROVED),
    "KITE-H5": (OutboxStatus.SENT, "1.000006", ApprovalStatus.EXPIRED),
}


def _cards(db: Any) -> dict[str, int]:
    ids = {}
    with db.session() as session:
        base = session.get(Ticket, "KITE-144")
        now = clock.read_now(session)
        for n, (ticket_id, (status, ts, decided)) in enumerate(CASES.items()):
            ticket = Ticket(id=ticket_id, customer_id=base.customer_id, title="t", status="open", priority="urgent",
                            created_at=now, updated_at=now)
            sla.store(session, ticket, sla.Due("first_reply", "active", now + timedelta(minutes=30 + n), 30))
            session.add(ticket)
            run = Run(goal=f"handle {ticket_id}", ticket_id=ticket_id, model="kitebase-offline",
                      status=RunStatus.AWAITING_APPROVAL if decided == ApprovalStatus.PENDING else RunStatus.COMPLETED)
            session.add(run)
            session.flush()
            approval = Approval(run_id=int(run.id or 0), tool_use_id=f"t{n}", tool_name="reply_to_customer",
                                tool_input={"ticket_id": ticket_id, "message": "Hi"}, fingerprint="f", status=decided)
            session.add(approval)
            session.flush()
            row = Outbox(key=f"card:{approval.id}", kind=OutboxKind.CARD, run_id=run.id, ref_id=approval.id,
                         channel="CSUPPORT", ts=ts, priority=0, version=1,
                         sent_version=1 if status != OutboxStatus.PENDING else 0, status=status,
                         state={"due": "first reply due in 99 min"})
            session.add(row)
            session.flush()
            ids[ticket_id] = int(row.id or 0)
    return ids


def _versions(db: Any) -> dict[int, tuple[int, str]]:
    with db.session() as session:
        return {int(r.id or 0): (r.version, r.status)
                for r in session.exec(select(Outbox).where(col(Outbox.kind) == OutboxKind.CARD)).all()}


def test_a_pass_bumps_only_a_waiting_card_slack_shows_and_a_second_pass_not_again(db: Any) -> None:
    ids = _cards(db)
    before = _versions(db)
    assert due_refresh.refresh(db) == 1
    assert due_refresh.refresh(db) == 0, "the row already waits for the sender: a second pass leaves it"
    after = _versions(db)
    changed = [t for t, i in ids.items() if after[i] != before[i]]
    assert changed == ["KITE-H0"], changed
    assert after[ids["KITE-H0"]] == (2, OutboxStatus.PENDING)
    assert after[ids["KITE-H1"]][1] == OutboxStatus.HELD and after[ids["KITE-H2"]][1] == OutboxStatus.FAILED

