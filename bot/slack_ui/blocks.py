"""The run's thread: its timeline (streamed, or one message updated in place), notices and the ending.
Each builder returns (text, blocks); every piece of user or model text is escaped, in `text` too."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from bot.durations import describe
from bot.slack_ui.limits import (
    MAX_BLOCKS_MESSAGE,
    MESSAGE_TEXT,
    button,
    clip,
    context,
    escape,
    fit_blocks,
    mrkdwn_section,
    split_text,
)
from bot.slack_ui.notice import ai_notice, with_notice
from bot.vocabulary import RunStatus

APPROVE, EDIT, REJECT = "approve_reply", "edit_reply", "reject_reply"
EDIT_MODAL, REJECT_MODAL, CLOSE_MODAL = "edit_reply_modal", "reject_reply_modal", "close_escalation_modal"
CLAIM, RESUME, CLOSE = "claim_escalation", "resume_run", "close_escalation"
FEEDBACK, FEEDBACK_MODAL = "run_feedback", "run_feedback_modal"
APPROVE_ALL, DRAFT_FOR_THESE = "approve_batch", "draft_for_these"  # one fix for many (bot/slack_ui/batch.py)
STOP = "stop_run"  # the Stop button on a working run's timeline
Message = tuple[str, list[dict[str, Any]]]
TIMELINE_LINES = 40


def slack_time(when: datetime) -> str:
    """A timestamp every reader sees in their own time zone, with a UTC fallback."""
    return f"<!date^{int(when.timestamp())}^{{time}}|{when:%H:%M} UTC>"


def slack_date(when: datetime) -> str:
    """A day and time every reader sees in their own time zone ("today at 14:05"), with a UTC fallback."""
    return f"<!date^{int(when.timestamp())}^{{date_short_pretty}} at {{time}}|{when:%Y-%m-%d %H:%M} UTC>"


_RUNNING = re.compile(r"^(?P<label>.+?) (?:due in |breached )")  # a target whose time runs (sla.describe)


def due_text(line: str | None, breach_at: datetime | None = None) -> str:
    """A ticket's due line (bot/runs/reports/due.py) as mrkdwn, or nothing: ":alarm_clock: first reply due in
    14 min · Enterprise · urgent"; the clock only while a target runs or is paused (tier and priority alone get
    none). `breach_at`, for a message never drawn again (a snapshot such as the /kitebase queue answer): the
    breach as a time Slack shows in each reader's zone ("first reply due today at 14:05"), not "in 14 min"."""
    if not line:
        return ""
    first, *rest = line.split(" · ")
    running = _RUNNING.match(first)
    if running and breach_at is not None:
        return " · ".join([f":alarm_clock: {escape(running['label'])} due {slack_date(breach_at)}",
                           *map(escape, rest)])
    return f":alarm_clock: {escape(line)}" if running or " paused " in first else escape(line)


def mention_ids(text: str) -> str:
    """Bare Slack user ids (as the agent names approvers) become mentions (in escaped text only)."""
    return re.sub(r"(?<![<@\w])(U[A-Z0-9]{4,})\b", r"<@\1>", text)


def who(actor: str | None) -> str:
    return f"<@{actor}>" if actor and re.fullmatch(r"[UW][A-Z0-9]+", actor) else escape(actor or "someone")


def usage_line(steps: int, tokens: int, cost: float, run_id: int) -> str:
    return f"run #{run_id} · {steps} model call{'s' if steps != 1 else ''} · {tokens:,} tokens · ${cost:.4f}"


# --- the timeline ------------------------------------------------------------------------------------

def _said(step: dict[str, Any]) -> list[str]:
    """The agent's interim thought before its tool calls (its thinking summary, then what it wrote), the model
    that answered when it was not the run's own, or why the run stopped or waits."""
    if step["kind"] == "model" and step.get("stop_reason") in ("tool_use", "pause_turn"):
        thought = " — ".join(" ".join(part.split()) for part in (step.get("thinking"), step.get("text")) if part)
        by = f" _(answered by `{escape(step['model'])}`)_" if step.get("model") else ""
        return [":thought_balloon: " + escape(clip(thought, 600)) + by] if thought or by else []
    if step["kind"] == "wait":
        return [":hourglass: " + escape(clip(step.get("text") or "", 300))]
    if step["kind"] in ("guard", "error", "stop"):
        return [":octagonal_sign: " + mention_ids(escape(clip(step.get("text") or "", 300)))]
    return []


def step_lines(step: dict[str, Any]) -> list[str]:
    """One stored step as timeline lines: the agent's thought, then one line per tool call."""
    return _said(step) + [tool_line(call) for call in step.get("tool_calls") or []]


def tool_line(call: dict[str, Any]) -> str:
    args = given if isinstance(given := call.get("input"), dict) else {}
    subject = args.get("ticket_id") or args.get("query") or args.get("reason") or ""
    icon = {"held": ":raised_hand:", "refused": ":no_entry_sign:", "approved": ":white_check_mark:",
            "edited": ":pencil2:", "rejected": ":x:", "expired": ":hourglass:"}.get(
        str(call.get("status")), ":warning:" if call.get("is_error") else ":white_check_mark:")
    detail = " ".join(str(call.get("result", "")).split())
    return f"{icon} `{escape(str(call.get('name')))}` {escape(clip(str(subject), 80))} → {escape(clip(detail, 140))}"


def step_chunks(step: dict[str, Any]) -> list[dict[str, Any]]:
    """The same step as streaming chunks: the thought as text, each tool call as a task of the timeline."""
    chunks: list[dict[str, Any]] = [{"type": "markdown_text", "text": clip(line, 1500) + "\n"} for line in _said(step)]
    for call in step.get("tool_calls") or []:
        args = given if isinstance(given := call.get("input"), dict) else {}
        status = {"held": "pending"}.get(call.get("status"), "error" if call.get("is_error") else "complete")
        title = f"{call.get('name')} {args.get('ticket_id') or args.get('query') or ''}".strip()
        chunks.append({"type": "task_update", "id": str(call.get("id")), "title": clip(escape(title), 200),
                       "status": status, "output": clip(escape(" ".join(str(call.get("result", "")).split())), 200)})
    return chunks


def timeline_status(run_status: str, closed: bool) -> str:
    """The line under a stretch of the timeline. A closed stretch is drawn with the run's status as it is when
    Slack gets it: after an outage, a stretch closed by a draft may be delivered once the run works again."""
    if not closed:
        return ":hourglass_flowing_sand: working…"
    return _CLOSED.get(run_status, f"run {escape(run_status or 'unknown')}")


_CLOSED: dict[str, str] = {
    RunStatus.QUEUED: ":arrow_down: continued further down this thread",
    RunStatus.RUNNING: ":arrow_down: continued further down this thread",
    RunStatus.AWAITING_APPROVAL: ":raised_hand: waiting for a person to decide on the draft below",
    RunStatus.COMPLETED: ":white_check_mark: finished (the answer is below)",
    RunStatus.ESCALATED: ":octagonal_sign: stopped and handed to the human queue (below)",
    RunStatus.FAILED: ":octagonal_sign: failed and handed to the human queue (below)",
    RunStatus.STOPPED: ":black_square_for_stop: stopped by a person (below)"}


def timeline_header(run_id: int, ticket_id: str | None, model: str | None, opening: dict[str, Any],
                    due: str | None = None) -> str:
    """Why this stretch of the timeline opens, as mrkdwn (people and user text escaped here), and what is due on
    the ticket (`due`: its line, while the stretch is open)."""
    opened = _opening(run_id, ticket_id, model, opening)
    return f"{opened}\n{due_text(due)}" if due else opened


def _opening(run_id: int, ticket_id: str | None, model: str | None, opening: dict[str, Any]) -> str:
    ticket = escape(ticket_id or "-")
    kind, actor = opening.get("kind"), opening.get("actor")
    if kind == "start":
        return (f":hourglass_flowing_sand: On it: working *{ticket}* (run #{run_id}, model `{escape(model or '')}`). "
                "I'll show my steps here and ask before anything reaches the customer.")
    if kind == "follow_up":
        return (f":arrows_counterclockwise: Continuing run #{run_id} with {who(actor)}'s follow-up "
                "(a fresh allowance of steps and tokens).")
    if kind == "customer":
        return (f":incoming_envelope: The customer wrote again on *{ticket}* ({escape(str(actor or 'the customer'))}): "
                f"continuing run #{run_id} with a fresh allowance.")
    if kind == "resumed":
        return f":arrows_counterclockwise: {who(actor)} resumed run #{run_id} with a fresh allowance."
    return f"Continuing run #{run_id} on *{ticket}*."


def build_timeline(header: str, steps: list[dict[str, Any]], status: str, stop_run: int | None = None) -> Message:
    """The timeline as one message updated in place (when streaming is not available). `header` is mrkdwn.
    `stop_run`: the run works now, and the message carries its **Stop** button (gone once the stretch closes)."""
    lines = [line for step in steps for line in step_lines(step)]
    if len(lines) > TIMELINE_LINES:
        lines = [f"_… {len(lines) - TIMELINE_LINES} earlier lines left out_", *lines[-TIMELINE_LINES:]]
    body = "\n".join(lines)
    blocks = [mrkdwn_section(header)]
    blocks += [mrkdwn_section(chunk) for chunk in split_text(body, 2900)] if body else []
    blocks.append(context(status))
    stop = [build_stop_button(stop_run)] if stop_run is not None else []
    fitted = fit_blocks(blocks, MAX_BLOCKS_MESSAGE - 1 - len(stop))  # room for Stop and the AI notice
    return clip("\n".join([header, *lines, status]), MESSAGE_TEXT), with_notice([*fitted, *stop])


def build_stop_button(run_id: int) -> dict[str, Any]:
    """Stop: the run ends at once (an unfinished model call is abandoned), runs no further tool, sends nothing."""
    return {"type": "actions", "block_id": f"stop_{run_id}", "elements": [stop_element(run_id, "Stop", "danger")]}


def stop_element(run_id: int, label: str, style: str | None = None) -> dict[str, Any]:
    """The Stop button itself (the timeline's, and the approval card's **Stop run**), with its confirmation."""
    return {**button(label, STOP, json.dumps({"run_id": run_id}), style=style),
            "confirm": {"title": {"type": "plain_text", "text": "Stop this run?"},
                        "text": {"type": "mrkdwn", "text": f"Run #{run_id} stops now and runs no further tool; "
                                 "nothing is sent to the customer. It can be resumed later."},
                        "confirm": {"type": "plain_text", "text": "Stop"},
                        "deny": {"type": "plain_text", "text": "Keep it"}}}


def build_request(user: str, goal: str) -> Message:
    """A slash command's request, shown in the channel; the run answers in its thread."""
    line = f"{who(user)} asked: {escape(goal)}"
    return line, with_notice([mrkdwn_section(line)])


def build_intake_request(rule: str, ticket: str, title: str | None, why: list[str], due: str | None = None) -> Message:
    """The first message of a run an intake rule started (no one asked): which rule took which ticket and why,
    and what is due on it (`due`, while the run is live); the run answers in its thread."""
    subject = f" ({escape(clip(title, 150))})" if title else ""
    line = (f":inbox_tray: Rule *{escape(rule)}* picked up ticket *{escape(ticket)}*{subject}: "
            f"{escape(', '.join(why))}. I'll work it in this thread and ask before anything reaches the customer.")
    if due:
        line += f"\n{due_text(due)}"
    return line, with_notice([mrkdwn_section(line)])


def build_notice(text: str) -> Message:
    """A sentence of ours in a thread (mrkdwn: it may mention people or channels; any user text in it was
    escaped where the sentence was made)."""
    return text, with_notice([mrkdwn_section(":information_source: " + text)])


def build_final(*, run_id: int, status: str, answer: str | None, reason: str | None, steps: int, tokens: int,
                cost: float, offer: list[str] | None = None, batch_started: bool = False,
                stopped_by: str | None = None) -> Message:
    """The run's ending. `offer`: the other open tickets its report names, when its reply was approved (the
    **Draft for these N** button); `batch_started`: that button was pressed (the batch card is in the thread)."""
    usage = usage_line(steps, tokens, cost, run_id)
    if status == RunStatus.COMPLETED:
        safe = escape(answer or "")
        text = clip(safe, MESSAGE_TEXT - 200)
        blocks = [mrkdwn_section(chunk) for chunk in split_text(mention_ids(safe), 2900)]
    elif status == RunStatus.STOPPED:
        line = (f"Stopped by {who(stopped_by)}. Nothing more ran after the stop, and nothing was sent to the "
                "customer that an approver had not approved before it.")
        text = line.replace(who(stopped_by), escape(stopped_by or "someone"))
        blocks = [mrkdwn_section(f":black_square_for_stop: {line}\nRun #{run_id} keeps everything it found: "
                                 f"*Resume run* in the human queue or `kitebase resume {run_id}` continues it.")]
    else:
        text = escape(f"Stopped ({status}): {reason}")
        blocks = [mrkdwn_section(f":octagonal_sign: *Stopped ({status})*: {escape(reason or '')}\n"
                                 "I've handed this to the human queue with everything I found.")]
    extra = _offer_blocks(run_id, offer, batch_started) if status == RunStatus.COMPLETED else []
    return text, [*fit_blocks([*blocks, context(usage)], MAX_BLOCKS_MESSAGE - 2 - len(extra)), *extra,
                  ai_notice(), build_feedback(run_id)]


def _offer_blocks(run_id: int, offer: list[str] | None, batch_started: bool) -> list[dict[str, Any]]:
    if batch_started:
        return [context(":busts_in_silhouette: Drafts of this fix for the other tickets are on the batch card in "
                        "this thread.")]
    if not offer:
        return []
    value = json.dumps({"run_id": run_id, "tickets": offer})
    named = ", ".join(escape(t) for t in offer)
    return [{"type": "actions", "block_id": f"offer-{run_id}", "elements": [
                button(f"Draft for these {len(offer)}", DRAFT_FOR_THESE, value, "primary")]},
            context(f"{named}: each is read on its own and gets a draft of this fix in its customer's words, or a "
                    "reason why not, on one card. Only approvers can start it; nothing is sent without a decision.")]


def build_feedback(run_id: int) -> dict[str, Any]:
    """Slack's thumbs up / down under a run's ending (a context_actions block with feedback_buttons)."""
    return {"type": "context_actions", "block_id": f"feedback-{run_id}", "elements": [{
        "type": "feedback_buttons", "action_id": FEEDBACK,
        "positive_button": {"text": {"type": "plain_text", "text": "Good"}, "value": f"up:{run_id}",
                            "accessibility_label": f"Run #{run_id} was useful"},
        "negative_button": {"text": {"type": "plain_text", "text": "Not good"}, "value": f"down:{run_id}",
                            "accessibility_label": f"Run #{run_id} was not useful (you can say why)"}}]}


def mention(slack_id: str) -> str:
    """A configured user or user-group id as a mention (anything else is shown as escaped text)."""
    if re.fullmatch(r"S[A-Z0-9]+", slack_id):
        return f"<!subteam^{slack_id}>"
    return who(slack_id)


def build_reminder(*, ticket_id: str, customer: str, tool: str, waited_seconds: float, expires_at: str,
                   approvers: list[str], backups: list[str], due: str | None = None, waited: bool = False) -> Message:
    """A draft has waited long, or its ticket nears its breach (`due`: "first reply due in 12 min · Enterprise ·
    urgent"), or both at once (`due` and `waited`): who may decide, when it expires (nothing is sent before)."""
    people = ", ".join(mention(a) for a in approvers) or "Approvers"
    kind = "draft reply" if tool == "reply_to_customer" else f"`{escape(tool)}` call"
    what = f"the {kind} to *{escape(customer)}* on *{escape(ticket_id)}*"
    expires = slack_time(datetime.fromisoformat(expires_at))
    long = f"has waited {describe(waited_seconds)} for a decision"
    waited_line = (f"{escape(due)}: {what} {long if waited else 'still waits for a decision'}" if due
                   else f"{what} {long}")
    line = (f":bell: {people}: {waited_line} (the card is above in this thread). Nothing is sent until "
            f"someone decides; it expires at {expires}, and then the run goes to the human queue.")
    if backups:
        line += f" Backup approvers {', '.join(mention(b) for b in backups)} may decide from now on."
    return line, with_notice([mrkdwn_section(line)])
