"""The figures a support lead reads after a week: how runs ended, how drafts fared with the people who decide
on them, how long drafts waited, what a ticket cost, which guards tripped, and the feedback.

Everything counts the runs started in a window [since, until) and what happened to them (their drafts,
escalations and feedback), read from what the runs store. Plain data: the CLI prints it, Slack renders it.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from datetime import datetime, timedelta
from difflib import SequenceMatcher
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Approval, Escalation, Run, id_of
from bot.durations import describe
from bot.runs.lifecycle import citations
from bot.runs.lifecycle.approvals import chosen_message
from bot.runs.lifecycle.citations import DRAFT_TOOLS
from bot.runs.reports import feedback
from bot.vocabulary import DECIDED_BY_PEOPLE, LIVE, SENT, ApprovalStatus, RunStatus, StopKind

GUARD_KINDS = {"KITEBASE_MAX_STEPS": "max_steps", "KITEBASE_TOKEN_BUDGET": "token_budget",
               "KITEBASE_COST_BUDGET_USD": "cost_budget", "KITEBASE_DEADLINE_SECONDS": "deadline",
               "KITEBASE_MAX_REPEATS": "repetition"}


def changed_share(before: str, after: str) -> float:
    """The share of the text a person changed, by words: 0 for the same text, 1 for a complete rewrite."""
    a, b = (before or "").split(), (after or "").split()
    if not a and not b:
        return 0.0
    return round(1 - SequenceMatcher(None, a, b, autojunk=False).ratio(), 3)


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile (p90: the value 90 % of the values are at or below)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def guard_kind(reason: str) -> str:
    return next((kind for setting, kind in GUARD_KINDS.items() if setting in (reason or "")), "other")


def runs_in(session: Session, since: datetime, until: datetime) -> list[Run]:
    return list(session.exec(select(Run).where(col(Run.created_at) >= since, col(Run.created_at) < until)
                             .order_by(col(Run.id))).all())


def figures(session: Session, since: datetime, until: datetime) -> dict[str, Any]:
    runs = runs_in(session, since, until)
    ids = [id_of(r) for r in runs]
    escalations = list(session.exec(select(Escalation).where(col(Escalation.run_id).in_(ids))
                                    .order_by(col(Escalation.id))).all()) if ids else []
    drafts = list(session.exec(select(Approval).where(col(Approval.run_id).in_(ids),
                                                      col(Approval.tool_name).in_(DRAFT_TOOLS))
                               .order_by(col(Approval.id))).all()) if ids else []
    return {"since": since.isoformat(), "until": until.isoformat(), "runs": _endings(runs, escalations),
            "drafts": _drafts(drafts), "cost": _cost(runs), "guards": _guards(escalations),
            "feedback": feedback.counts(session, since, until)}


def _endings(runs: list[Run], escalations: list[Escalation]) -> dict[str, Any]:
    statuses = Counter("open" if r.status in LIVE else r.status for r in runs)
    latest = {e.run_id: e.kind for e in escalations}  # ordered by id: the newest escalation of each run wins
    stopped = Counter(latest.get(id_of(r), "unknown") for r in runs if r.status == RunStatus.ESCALATED)
    return {"total": len(runs), "completed": statuses[RunStatus.COMPLETED], "escalated": statuses[RunStatus.ESCALATED],
            "failed": statuses[RunStatus.FAILED], "stopped": statuses[RunStatus.STOPPED], "open": statuses["open"],
            "escalated_by": dict(stopped.most_common())}


def _drafts(drafts: list[Approval]) -> dict[str, Any]:
    statuses = Counter(a.status for a in drafts)
    by_people = sum(statuses[s] for s in DECIDED_BY_PEOPLE)
    approved = statuses[ApprovalStatus.APPROVED] + statuses[ApprovalStatus.EDITED]
    edits = [changed_share(str((a.tool_input or {}).get("message", "")), str((a.edited_input or {}).get("message", "")))
             for a in drafts if a.status == ApprovalStatus.EDITED]
    sent = [chosen_message(a) for a in drafts if a.status in SENT and not (a.result or {}).get("is_error")]
    cited = Counter(anchor for text in sent for anchor in citations.cited(text))
    waits = [(a.decided_at - a.created_at).total_seconds() for a in drafts
             if a.status in DECIDED_BY_PEOPLE and a.decided_at is not None]
    return {"total": len(drafts), "sent_as_written": statuses[ApprovalStatus.APPROVED], "edited": statuses[ApprovalStatus.EDITED],
            "rejected": statuses[ApprovalStatus.REJECTED], "expired": statuses[ApprovalStatus.EXPIRED], "pending": statuses[ApprovalStatus.PENDING],
            "reminded": sum(1 for a in drafts if a.reminded_at is not None),
            "approval_rate": round(approved / by_people, 3) if by_people else None,
            "edit_changed_median": statistics.median(edits) if edits else None,
            "wait_median_seconds": statistics.median(waits) if waits else None,
            "wait_p90_seconds": percentile(waits, 0.9),
            "sent_replies": len(sent), "sent_citations": dict(cited.most_common()),
            "sent_uncited": sum(1 for text in sent if not citations.cited(text))}


def _cost(runs: list[Run]) -> dict[str, Any]:
    total = sum(r.cost_usd for r in runs)
    tickets = len({r.ticket_id for r in runs if r.ticket_id})
    return {"total_usd": round(total, 4), "tickets": tickets,
            "per_ticket_usd": round(total / tickets, 4) if tickets else None}


def _guards(escalations: list[Escalation]) -> dict[str, int]:
    return dict(Counter(guard_kind(e.reason) for e in escalations if e.kind == "guard").most_common())


def window(until: datetime, seconds: float) -> tuple[datetime, datetime]:
    return until - timedelta(seconds=seconds), until


# --- the figures as rows (label, value, detail): the CLI's table, Slack's table and App Home fields -------

KIND_LABELS = {StopKind.MODEL_REQUEST: "agent asked for a person", StopKind.APPROVAL_EXPIRED: "draft expired",
               StopKind.GUARD: "guard tripped", StopKind.STUCK: "stuck", StopKind.REFUSAL: "model refused",
               StopKind.TRUNCATED: "reply cut off", StopKind.MODEL_ERROR: "model error",
               StopKind.TOOL_ERROR: "tool error", StopKind.FAILURE: "internal failure",
               StopKind.EMPTY_ANSWER: "empty answer", StopKind.PAUSED: "paused turn",
               StopKind.CONTEXT_WINDOW: "context full", StopKind.STOP_SEQUENCE: "stopped early",
               StopKind.MALFORMED_HISTORY: "history malformed", StopKind.UNKNOWN_STOP_REASON: "unknown stop reason",
               StopKind.STOPPED: "stopped by a person"}


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _wait(drafts: dict[str, Any]) -> str:
    if drafts["wait_median_seconds"] is None:
        return "-"
    return f"median {describe(drafts['wait_median_seconds'])} · p90 {describe(drafts['wait_p90_seconds'])}"


def _cited(drafts: dict[str, Any]) -> str:
    """The sections the sent replies cite most (as sent: a person's edit, not the model's draft)."""
    top = list(drafts["sent_citations"].items())[:3]
    return " · ".join(f"{anchor} ×{n}" for anchor, n in top)


def rows(fig: dict[str, Any]) -> list[tuple[str, str, str]]:
    runs, drafts, cost, fb = fig["runs"], fig["drafts"], fig["cost"], fig["feedback"]
    why = " · ".join(f"{KIND_LABELS.get(k, k)} {n}" for k, n in runs["escalated_by"].items())
    decided = drafts["sent_as_written"] + drafts["edited"] + drafts["rejected"]
    per_ticket = "-" if cost["per_ticket_usd"] is None else f"${cost['per_ticket_usd']:.4f}"
    guards = " · ".join(f"{k} {n}" for k, n in fig["guards"].items())
    return [
        ("Runs", str(runs["total"]), ""),
        ("  completed", str(runs["completed"]), ""),
        ("  escalated", str(runs["escalated"]), why),
        ("  failed", str(runs["failed"]), ""),
        ("  stopped by a person", str(runs["stopped"]), "`kitebase resume` or Resume run continues one" if runs["stopped"] else ""),
        ("  still open", str(runs["open"]), ""),
        ("Drafts decided by people", str(decided), f"approval rate {_share(drafts['approval_rate'])}"),
        ("  sent as written", str(drafts["sent_as_written"]), ""),
        ("  edited", str(drafts["edited"]),
         "" if drafts["edit_changed_median"] is None else f"median {drafts['edit_changed_median']:.0%} of the text changed"),
        ("  rejected", str(drafts["rejected"]), ""),
        ("Replies sent citing help", f"{drafts['sent_replies'] - drafts['sent_uncited']} of {drafts['sent_replies']}",
         _cited(drafts)),
        ("Drafts expired", str(drafts["expired"]), "nobody decided in time; nothing was sent" if drafts["expired"]
         else ""),
        ("Drafts reminded", str(drafts["reminded"]), "waited past KITEBASE_APPROVAL_REMIND_AFTER" if drafts["reminded"]
         else ""),
        ("Card → decision", _wait(drafts), ""),
        ("Cost", f"${cost['total_usd']:.4f}", f"{per_ticket} per ticket over {cost['tickets']} ticket{'' if cost['tickets'] == 1 else 's'}"),
        ("Guard trips", str(sum(fig["guards"].values())), guards),
        ("Feedback", f"up {fb['up']} · down {fb['down']}", ""),
    ]
