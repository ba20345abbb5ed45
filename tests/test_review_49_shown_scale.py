"""Review of issue 49 (reviewer 2, "shown"): 500 waiting drafts.

The due-refresh pass reads each kind's tickets in one query, but when any App Home is shown it also reads
queries.queue and queries.waiting_approvals, which look up each item's customer one ticket at a time
(customer_name: two session.get per draft), and the renderer reads the same lists again for every App Home it
publishes (up to MOST_HOMES = 50 a pass, every minute while drafts wait). Counted here: the statements of one
pass with 500 waiting drafts and one App Home shown (no timing: a count)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

from sqlalchemy import event
from sqlmodel import select

from bot.db import clock
from bot.db.models import Approval, Outbox, Run, Ticket
from bot.desk import sla
from bot.runs.execution import due_refresh
from bot.vocabulary import ApprovalStatus, OutboxKind, OutboxStatus, RunStatus

DRAFTS = 500


def _waiting_drafts(db: Any) -> None:
    with db.session() as session:
        base = session.get(Ticket, "KITE-144")
        now = clock.read_now(session)
        for n in range(DRAFTS):
            ticket = Ticket(id=f"KITE-R{n}", customer_id=base.customer_id, title=f"load {n}", status="open",
                            priority="urgent", created_at=now, updated_at=now)
            sla.store(session, ticket, sla.Due("first_reply", "active", now + timedelta(minutes=30 + n), 30))
            session.add(ticket)
            run = Run(goal=f"handle KITE-R{n}", ticket_id=f"KITE-R{n}", status=RunStatus.AWAITING_APPROVAL,
                      model="kitebase-offline", started_by="ULEAD")
            session.add(run)
            session.flush()
            approval = Approval(run_id=int(run.id or 0), tool_use_id=f"t{n}", tool_name="reply_to_customer",
                                tool_input={"ticket_id": f"KITE-R{n}", "message": "Hi"}, fingerprint="f",
                                status=ApprovalStatus.PENDING)
            session.add(approval)
            session.flush()
            session.add(Outbox(key=f"card:{approval.id}", kind=OutboxKind.CARD, run_id=run.id, ref_id=approval.id,
                               channel="CSUPPORT", ts=f"1.{n:06d}", priority=0, version=1, sent_version=1,
                               status=OutboxStatus.SENT, state={"due": "stale"}))
        session.add(Outbox(key="home:ULEAD", kind=OutboxKind.HOME, user="ULEAD", priority=3, version=1,
                           sent_version=1, status=OutboxStatus.SENT, state={"due": []}))


def test_a_pass_over_500_waiting_drafts_reads_them_in_a_bounded_number_of_statements(db: Any) -> None:
    _waiting_drafts(db)
    statements: list[str] = []
    engine = db.engine

    def count(*args: Any) -> None:
        statements.append(str(args[2])[:60])

    event.listen(engine, "before_cursor_execute", count)
    try:
        bumped = due_refresh.refresh(db)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert bumped == due_refresh.MOST_MESSAGES + 1
    with db.session() as session:
        assert len(session.exec(select(Outbox).where(Outbox.status == OutboxStatus.PENDING)).all()) == bumped
    kinds = Counter(s[:40] for s in statements).most_common(3)
    assert len(statements) < 50, f"one pass ran {len(statements)} statements for {DRAFTS} drafts: {kinds}"
