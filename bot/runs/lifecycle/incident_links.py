"""A fan-out child whose reply reached its customer: its ticket becomes an incident of the batch's problem."""

from __future__ import annotations

import logging

from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Approval, Batch, Run
from bot.desk import DeskError, open_desk
from bot.vocabulary import SENT

logger = logging.getLogger(__name__)


def link_sent(db: Database, settings: Settings, run: Run, decided: list[Approval]) -> None:
    """A child's reply reached its customer: its ticket becomes an incident of the batch's problem, through the
    desk's own exactly-once writes (keyed by the approval). Called on every settle of the child's decisions, so
    a process that died between the reply and the link links on the next resume; linking twice changes
    nothing. A link the desk refuses is logged: the reply was sent, and the lead can link by hand."""
    sent = [a for a in decided if a.tool_name == "reply_to_customer" and a.status in SENT
            and a.result is not None and not a.result.get("is_error")]
    if run.batch_id is None or not sent or run.ticket_id is None:
        return
    with db.session() as session:
        batch = session.get(Batch, run.batch_id)
    if batch is None:
        return
    for approval in sent:
        try:
            open_desk(settings, db).link_incidents(batch.problem_ticket_id, [run.ticket_id], run_id=run.id,
                                                   key=f"approval-{approval.id}")
        except DeskError as exc:
            logger.warning("run %s: %s was answered but not linked to %s: %s", run.id, run.ticket_id,
                           batch.problem_ticket_id, exc)
