"""What a person asks of a run from Slack, one call each: look up the draft, ask the rule (who may decide, who
may stop: bot/runs/lifecycle/people.py), record the decision or the stop. A listener parses the payload, makes
one of these calls, continues the run it names and answers with the sentence it returns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.runs.lifecycle.service import RunService
from bot.runs.reports import for_slack
from bot.vocabulary import ApprovalStatus

DONE = ("approved", "edited", "rejected")


@dataclass(frozen=True)
class Answer:
    """What came of a person's ask: `run_id` to continue (the decision or stop was recorded), and/or the
    sentence only they should see (mrkdwn of ours; names as recorded are escaped by the caller's builder)."""

    run_id: int | None = None
    told: str | None = None


def draft_for(service: RunService, approval_id: int | None, user: str) -> tuple[dict[str, Any] | None, str | None]:
    """The waiting draft `user` may decide on (as its card shows it), else None and the sentence saying why not."""
    approval = for_slack.approval(service.db, approval_id) if approval_id is not None else None
    if approval is None:
        return None, "This draft no longer exists; nothing was sent."
    if approval["status"] != ApprovalStatus.PENDING:
        return None, (f"This reply was already {approval['status']} by {_who(approval['decided_by'])}; "
                      "nothing more was sent.")
    problem = service.people.why_not_decide(user, approval["run"]["started_by"], approval.get("reminded_at") is not None)
    return (None, problem) if problem else (approval, None)


def decide(service: RunService, approval_id: int | None, user: str, action: str, *, fingerprint: str | None,
           message: str | None = None, reason: str | None = None) -> Answer:
    """A person's Approve / Edit / Reject: recorded if they may make it (the first decision wins). Raises
    BadInput for an edit that fails its checks (the draft still waits)."""
    approval, problem = draft_for(service, approval_id, user)
    if approval is None:
        return Answer(told=problem)
    decision = service.decide(int(approval["id"]), action=action, actor=user, message=message, reason=reason,
                              expected_fingerprint=fingerprint)
    if decision.outcome not in DONE:
        return Answer(told=decision.message)
    return Answer(run_id=decision.run_id)


def stop(service: RunService, run_id: int, user: str) -> Answer:
    """A person's Stop: recorded if they may (the person who asked, the approvers). The run is then continued
    by whoever holds it, which stops it; its thread says "Stopped by"."""
    outcome = service.stop(run_id, actor=user)
    if outcome.outcome == "stopping":
        return Answer(run_id=run_id)
    return Answer(told=outcome.message)


def stop_thread(service: RunService, *, channel: str, thread_ts: str, user: str) -> Answer:
    """Slack's own Stop on the agent session of a run's thread."""
    outcome = service.stop_thread(channel=channel, thread_ts=thread_ts, actor=user)
    if outcome.outcome == "stopping":
        return Answer(run_id=outcome.run_id)
    return Answer(told=None if outcome.outcome == "not_found" else outcome.message)


def _who(actor: str | None) -> str:
    return f"<@{actor}>" if actor and re.fullmatch(r"[UW][A-Z0-9]+", actor) else (actor or "someone")
