"""Review of issue 49 (reviewer 1): triage tags on the run's own ticket, on both databases (embedded desk)."""

from __future__ import annotations

from typing import Any

from bot.db.models import Run, Ticket
from bot.runs.lifecycle import triage


def test_a_second_triage_of_the_same_run_leaves_one_tag_of_each_kind(db: Any, settings: Any) -> None:
    """An intake run (rule with triage_tags = true) records its triage, then records it again later (a model
    re-triages after reading more, or the run continues on the customer's follow-up and triages the new message).
    Tags are only ever added: the ticket ends with intent_billing and intent_bug, sentiment_neutral and
    sentiment_angry, suggested_low and suggested_urgent, and a Zendesk view or trigger on sentiment_angry or
    suggested_low now matches a ticket whose latest triage says otherwise."""
    with db.session() as session:
        run = Run(goal="handle KITE-142 (picked up by rule 'all': any)", ticket_id="KITE-142", status="running",
                  origin={"surface": "intake", "channel": "C0ALL", "rule": "all", "triage_tags": True})
        session.add(run)
        session.flush()
        session.expunge(run)
    first = {"intent": "billing", "language": "en", "sentiment": "neutral", "priority": "low"}
    second = {"intent": "bug", "language": "en", "sentiment": "angry", "priority": "urgent"}
    triage.write_tags(db, settings, run, first, "toolu_1")
    triage.write_tags(db, settings, run, second, "toolu_2")
    with db.session() as session:
        tags = list((session.get(Ticket, "KITE-142") or Ticket()).tags or [])
    for kind in ("intent_", "sentiment_", "suggested_"):
        assert sum(t.startswith(kind) for t in tags) == 1, f"{kind}*: {tags}"
