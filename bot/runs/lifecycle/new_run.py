"""The one way a run is created: a Slack request (bot/runs/intake/record.py) and `kitebase run`
(RunService.start) both insert it here, queued, the goal its first message."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, exists, insert, select
from sqlmodel import Session

from bot.db import clock
from bot.db.models import Run, Ticket, table_of
from bot.vocabulary import Allowance, RunStatus, Usage


def insert_run(session: Session, *, goal: str, ticket_id: str, model: str, started_by: str | None,
               origin: dict[str, Any], thread_key: str | None, request: str | None = None,
               batch_id: int | None = None) -> int | None:
    """The one way a run is created (a Slack request, or `kitebase run` through RunService.start): queued, the
    goal its first message, in one statement that inserts nothing when the ticket does not exist (None). When
    the ticket already has a live run, the database's one-live-run-per-ticket index refuses the row
    (IntegrityError) and the caller says so. Its times are the database's. `request` is a first message longer
    than the goal (a fan-out child's: the approved reply it starts from); `batch_id` the batch it drafts for."""
    values = {"goal": goal, "ticket_id": ticket_id, "status": RunStatus.QUEUED, "model": model,
              "started_by": started_by, "origin": origin, "thread_key": thread_key, "batch_id": batch_id,
              "messages": [{"role": "user", "content": [{"type": "text", "text": request or goal}]}],
              **_NEW_RUN, "known_ticket": ticket_id}
    run_id = session.connection().execute(_INSERT_RUN, values).scalar()
    return None if run_id is None else int(run_id)


_RUN, _TICKET = table_of(Run), table_of(Ticket)
_NEW_RUN = {"steps": 0, "cost_usd": 0.0, **Usage().model_dump(), **Allowance().model_dump()}  # the rest NULL
_RUN_COLUMNS = [_RUN.c[name] for name in ("goal", "ticket_id", "status", "model", "started_by", "origin", "thread_key",
                                          "batch_id", "messages", *_NEW_RUN)]
_INSERT_RUN = insert(_RUN).from_select(
    [*(c.name for c in _RUN_COLUMNS), "created_at", "updated_at"],
    select(*[bindparam(c.name, type_=c.type) for c in _RUN_COLUMNS], clock.now(), clock.now()).where(
        exists().where(_TICKET.c.id == bindparam("known_ticket")))).returning(_RUN.c.id)
