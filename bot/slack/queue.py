"""The human queue in Slack: escalations posted to KITEBASE_ESCALATION_CHANNEL with the run's transcript,
and the App Home views of the people who look at it."""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import col, select

from bot.agent.replay import timeline
from bot.agent.trace import redact
from bot.db.models import Escalation, Run, Step
from bot.runs import queries
from bot.slack.context import SlackContext
from bot.slack_ui import blocks as ui

logger = logging.getLogger(__name__)


def post_escalations(ctx: SlackContext, run_id: int) -> None:
    """Post every escalation of this run not yet in Slack: message, buttons and the transcript file."""
    channel = ctx.settings.escalation_channel
    with ctx.db.session() as session:
        run = session.get(Run, run_id)
        pending = session.exec(select(Escalation).where(Escalation.run_id == run_id, col(Escalation.status) == "open")
                               ).all()
        pending = [e for e in pending if not (e.origin or {}).get("queue_ts")]
        steps = list(session.exec(select(Step).where(Step.run_id == run_id).order_by(col(Step.number))).all())
    if not pending:
        return
    origin = run.origin or {}
    link = _permalink(ctx, origin.get("channel"), origin.get("thread_ts"))
    for escalation in pending:
        text, blocks = ui.build_escalation(escalation_id=escalation.id, run_id=run_id, ticket_id=run.ticket_id or "-",
                                           kind=escalation.kind, reason=escalation.reason,
                                           summary=escalation.summary or "", thread_link=link)
        target = channel or origin.get("channel")
        if not target:
            continue
        try:
            ts = ctx.post(target, text, blocks, thread_ts=None if channel else origin.get("thread_ts"))
            transcript = redact(timeline(run, steps, result_chars=2000), _secrets(ctx))
            ctx.client.files_upload_v2(channel=target, thread_ts=ts, content=transcript,
                                       filename=f"run-{run_id}-transcript.txt", title=f"Run #{run_id} transcript",
                                       initial_comment="The full logged history of this run.")
        except Exception:
            logger.exception("could not post escalation %s to Slack", escalation.id)
            continue
        with ctx.db.session() as session:
            row = session.get(Escalation, escalation.id)
            row.origin = {**(row.origin or {}), "queue_channel": target, "queue_ts": ts}
            session.add(row)


def update_escalation_message(ctx: SlackContext, escalation_id: int, *, status: str, actor: str) -> None:
    with ctx.db.session() as session:
        escalation = session.get(Escalation, escalation_id)
        run = session.get(Run, escalation.run_id)
    where = escalation.origin or {}
    if not where.get("queue_ts"):
        return
    origin = run.origin or {}
    text, blocks = ui.build_escalation(escalation_id=escalation.id, run_id=run.id, ticket_id=run.ticket_id or "-",
                                       kind=escalation.kind, reason=escalation.reason, summary=escalation.summary or "",
                                       thread_link=_permalink(ctx, origin.get("channel"), origin.get("thread_ts")),
                                       status=status, actor=actor)
    try:
        ctx.update(where["queue_channel"], where["queue_ts"], text, blocks)
    except Exception:
        logger.exception("could not update escalation message %s", escalation_id)


def refresh_homes(ctx: SlackContext, users: set[str] | None = None) -> None:
    """Re-publish App Home for the people who opened it (and the approvers)."""
    viewers = set(users or ()) | set(ctx.home_viewers) | {a for a in ctx.settings.approvers if a.startswith("U")}
    if not viewers:
        return
    view = home_view(ctx)
    for user in viewers:
        try:
            ctx.client.views_publish(user_id=user, view=view)
        except Exception:
            logger.exception("could not publish App Home for %s", user)


def home_view(ctx: SlackContext) -> dict:
    with ctx.db.session() as session:
        return ui.build_home(queue=queries.queue(session), approvals=queries.waiting_approvals(session),
                             runs=queries.latest_runs(session, 15))


def _permalink(ctx: SlackContext, channel: str | None, ts: str | None) -> str | None:
    if not channel or not ts:
        return None
    try:
        return ctx.client.chat_getPermalink(channel=channel, message_ts=ts)["permalink"]
    except Exception:
        logger.exception("no permalink for %s/%s", channel, ts)
        return None


def _secrets(ctx: SlackContext) -> list[str]:
    s = ctx.settings
    return [v.get_secret_value() for v in (s.slack_bot_token, s.slack_signing_secret, s.slack_app_token,
                                           s.anthropic_api_key) if v is not None]


def mark_expired(ctx: SlackContext, approvals: list) -> None:
    """Update expired drafts in place: buttons gone, 'Expired' shown."""
    from bot.db.models import utcnow
    from bot.slack_ui.blocks import build_approval_decided

    for approval in approvals:
        origin = approval.origin or {}
        if not origin.get("ts"):
            continue
        text, blocks = build_approval_decided(ticket_id=(approval.tool_input or {}).get("ticket_id", ""),
                                              customer="the customer", message=(approval.tool_input or {}).get("message", ""),
                                              status="expired", actor="timer", when=utcnow(),
                                              reason="nobody decided in time; nothing was sent")
        try:
            ctx.update(origin["channel"], origin["ts"], text, blocks)
        except Exception:
            logger.exception("could not mark approval %s expired in Slack", approval.id)


def people_with_pending_work(ctx: SlackContext) -> set[str]:
    with ctx.db.session() as session:
        waiting = queries.waiting_approvals(session)
        claimed = [q["claimed_by"] for q in queries.queue(session) if q.get("claimed_by")]
    return {w["started_by"] for w in waiting if w.get("started_by")} | set(claimed)


def post_digest(ctx: SlackContext, now: datetime) -> bool:
    """Once a day (whichever process gets there first): the open queue, to the escalation channel."""
    from bot.runs import deliveries

    channel = ctx.settings.escalation_channel
    if not channel or not deliveries.claim(ctx.db, f"digest:{now:%Y-%m-%d}"):
        return False
    with ctx.db.session() as session:
        items = queries.queue(session)
    text, blocks = ui.build_queue_message(items)
    ctx.post(channel, f"Daily digest: {text}", blocks)
    return True
