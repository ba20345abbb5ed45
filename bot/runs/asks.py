"""What a person asks of a run from Slack, one call each: look up the draft, ask the rule (who may decide, who
may stop: bot/runs/lifecycle/people.py), record the decision or the stop. A listener parses the payload, makes
one of these calls, continues the run it names and answers with the sentence it returns."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot import outbox
from bot.runs import BadInput
from bot.runs.intake import control, fan_out, suggestions
from bot.runs.intake.record import Intake, Request, record
from bot.runs.lifecycle import escalations
from bot.runs.lifecycle.people import mentions
from bot.runs.lifecycle.service import RunService
from bot.runs.lifecycle.stops import StopOutcome
from bot.runs.reports import batches, feedback, for_slack
from bot.vocabulary import ApprovalStatus

DONE = ("approved", "edited", "rejected")


@dataclass(frozen=True)
class Answer:
    """What came of a person's ask: the runs to continue (what they asked was recorded), and/or the sentence
    only they should see, as Slack mrkdwn: the rule's sentences mention people; whatever names someone as
    recorded (a decision's, a claim's) is escaped here (`_plain`)."""

    runs: tuple[int, ...] = ()
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
        return Answer(told=_plain(decision.message))
    return Answer(runs=(decision.run_id,) if decision.run_id is not None else ())


def stop(service: RunService, run_id: int, user: str) -> Answer:
    """A person's Stop: recorded if they may (the person who asked, the approvers). The run is then continued
    by whoever holds it, which stops it; its thread says "Stopped by"."""
    outcome = service.stop(run_id, actor=user)
    if outcome.outcome == "stopping":
        return Answer(runs=(run_id,))
    return Answer(told=_told(outcome))


def stop_thread(service: RunService, *, channel: str, thread_ts: str, user: str) -> Answer:
    """Slack's own Stop on the agent session of a run's thread."""
    outcome = service.stop_thread(channel=channel, thread_ts=thread_ts, actor=user)
    if outcome.outcome == "stopping" and outcome.run_id is not None:
        return Answer(runs=(outcome.run_id,))
    return Answer(told=None if outcome.outcome == "not_found" else _told(outcome))


def draft_for_these(service: RunService, run_id: int | None, user: str, tickets: list[str]) -> Answer:
    """**Draft for these N**: the batch of a run whose reply was approved (who may: as for its drafts)."""
    if run_id is None or not tickets:
        return Answer(told="That button is broken (it names no run or tickets); nothing was started.")
    problem = service.people.why_not_decide(user, batches.run_started_by(service.db, run_id))
    if problem:
        return Answer(told=problem)
    try:
        started = fan_out.start(service.db, run_id, actor=user, model=service.model_name,
                                desk_kind=service.settings.desk, tickets=tickets)
    except BadInput as exc:
        return Answer(told=_plain(str(exc)))
    children = () if started.existed else tuple(child for child, _ in started.children)
    return Answer(runs=children, told=_plain(started.sentence()) if started.existed or started.skipped else None)


def approve_all(service: RunService, batch_id: int | None, user: str, shown: dict[int, str]) -> Answer:
    """**Approve all** on a batch card: each draft the card showed (approval id → fingerprint), decided once."""
    view = batches.batch(service.db, batch_id) if batch_id is not None and shown else None
    if batch_id is None or view is None:
        return Answer(told="This batch no longer exists; nothing was sent.")
    problem = service.people.why_not_decide(user, view["requested_by"])
    if problem:
        return Answer(told=problem)
    try:
        decided = service.approve_all(batch_id, actor=user, shown=shown)
    except BadInput as exc:
        return Answer(told=_plain(str(exc)))
    said = decided.sentence()
    return Answer(runs=tuple(decided.run_ids), told=_plain(said) if said else None)


def _who(actor: str | None) -> str:
    return f"<@{actor}>" if actor and re.fullmatch(r"[UW][A-Z0-9]+", actor) else (actor or "someone")


def escalation_for(service: RunService, escalation_id: int | None, user: str) -> tuple[dict[str, Any] | None, str | None]:
    """An escalation in the human queue `user` may act on (the approvers; anyone while none are set)."""
    problem = service.people.why_not_steer(user, escalations.STEER)
    if problem:
        return None, problem
    escalation = for_slack.escalation(service.db, escalation_id) if escalation_id is not None else None
    return (escalation, None) if escalation is not None else (None, "That escalation no longer exists.")


def claim(service: RunService, escalation_id: int | None, user: str) -> Answer:
    """**I'll take it**: the one orchestration the terminal's `kitebase queue take` uses too."""
    return _queue_answer(lambda target: service.take_from_queue(target, actor=user), escalation_id)


def resume(service: RunService, escalation_id: int | None, user: str) -> Answer:
    """**Resume run**: the escalated (or stopped) run continues with a fresh allowance."""
    return _queue_answer(lambda target: service.resume_from_queue(target, actor=user), escalation_id, go_on=True)


def close(service: RunService, escalation_id: int | None, user: str, note: str) -> Answer:
    """The close form's note (raises BadInput when it is empty)."""
    return _queue_answer(lambda target: service.close_from_queue(target, actor=user, note=note), escalation_id)


def _queue_answer(act: Callable[[escalations.Target], escalations.QueueAct], escalation_id: int | None,
                  go_on: bool = False) -> Answer:
    """Slack shows what happened on the queue post itself: the person hears only why nothing did."""
    if escalation_id is None:
        return Answer(told="That escalation no longer exists.")
    try:
        done = act(escalations.Target(escalation_id=escalation_id))
    except BadInput as exc:
        if str(exc) == escalations.NEEDS_NOTE:
            raise
        return Answer(told=_plain(str(exc)))
    if not done.done:
        return Answer(told=done.sentence if done.rule else _plain(done.sentence))
    return Answer(runs=(done.run_id,) if go_on and done.run_id is not None else ())


# --- what Slack's surfaces read and record beside decisions (listeners never hold the database) ---------------

def queue(service: RunService) -> list[dict[str, Any]]:
    """The human queue's open items (/kitebase queue)."""
    return for_slack.queue(service.db)


def ticket_status(service: RunService, ticket_id: str) -> dict[str, Any] | None:
    """The latest run of a ticket (/kitebase status, /kitebase stop KITE-142)."""
    return for_slack.ticket_status(service.db, ticket_id)


def give_feedback(service: RunService, run_id: int, user: str, value: str) -> None:
    """A thumbs up or down on a run's answer (raises BadInput for a value that is neither)."""
    feedback.record(service.db, run_id, user=user, value=value)


def feedback_note(service: RunService, run_id: int, user: str, note: str) -> None:
    feedback.add_note(service.db, run_id, user=user, note=note)


def messages_tab_opened(service: RunService, user: str, channel: str) -> None:
    """`user` opened the app's Messages tab: Slack shows them the suggested prompts."""
    suggestions.opened(service.db, user=user, channel=channel)


@dataclass(frozen=True)
class IntakeAnswer:
    """What `/kitebase intake …` shows: why `user` may not (`refused`), the rules' status, or what changed."""

    refused: str | None = None
    status: dict[str, Any] | None = None
    changes: list[dict[str, Any]] | None = None


def intake(service: RunService, user: str, action: str, rule: str | None) -> IntakeAnswer:
    """Look at (`status`) or steer (`pause`, `resume`: one rule, or all) the intake, for the approvers only
    (raises BadInput for intake off, a bad rules file or an unknown rule)."""
    if not service.people.may_decide(user, None):
        if not service.settings.approvers:
            return IntakeAnswer(refused="Only the approvers (KITEBASE_APPROVERS) may look at or steer the intake, "
                                        "and none are set; `kitebase intake status|pause|resume` works from the "
                                        "command line.")
        return IntakeAnswer(refused="Only the approvers may look at or steer the intake: "
                                    + ", ".join(mentions(service.settings.approvers)) + ".")
    if action == "status":
        return IntakeAnswer(status=control.status(service.db, service.settings).as_dict())
    flip = control.pause if action == "pause" else control.resume
    return IntakeAnswer(changes=[vars(c) for c in flip(service.db, service.settings, rule, user)])


def arrive(service: RunService, request: Request) -> Intake:
    """A person's request (a mention, a DM, a slash command), recorded in one transaction."""
    return record(service.db, request, model=service.model_name, max_goal_chars=service.settings.max_goal_chars,
                  desk=service.settings.desk, decides=service.people.may_decide)


def _told(outcome: StopOutcome) -> str:
    """The rule's sentence as it is (it mentions who may); any other as text."""
    return outcome.message if outcome.outcome == "not_allowed" else _plain(outcome.message)


def _plain(text: str) -> str:
    """A sentence that names people or tickets as they were recorded, shown as text (Slack's escaping: never a
    mention or a link)."""
    return outbox.plain(text)
