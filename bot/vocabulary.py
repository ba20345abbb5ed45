"""The words every layer shares: where a run stands and what it has used, its working state, and the stored
statuses and kinds of approvals, escalations, outbox rows and steps. Storage, the agent, the run layer and
the Slack code all speak it; it imports nothing of ours (a leaf, as pydantic-ai's `usage.py` is).

A status or kind that is stored is a member here, never a bare string elsewhere; the members are `str`s, so
they compare equal to the values in the database and in JSON."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Self

from sqlmodel import SQLModel

# --- statuses ------------------------------------------------------------------------------------------------


class RunStatus(StrEnum):
    """Where a run is (transitions: bot/runs/lifecycle/states.py)."""

    QUEUED = "queued"
    RUNNING = "running"
    AWAITING_APPROVAL = "awaiting_approval"
    COMPLETED = "completed"
    ESCALATED = "escalated"
    FAILED = "failed"
    STOPPED = "stopped"  # a person pressed Stop: nothing more ran; `kitebase resume` or Resume run continues it


LIVE = (RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.AWAITING_APPROVAL)  # at most one live run per ticket
TERMINAL = frozenset({RunStatus.COMPLETED, RunStatus.ESCALATED, RunStatus.FAILED, RunStatus.STOPPED})


class SessionStatus(StrEnum):
    """A run thread's Slack agent session (agents.sessions.setStatus: docs/slack-agent.md), derived from the run."""

    PROCESSING = "processing"  # the agent works: Slack shows its native Stop button
    SUSPENDED = "suspended"  # it waits for a person (a draft for approval)
    ACTIVE = "active"  # it has answered; a follow-up in the thread continues it
    CLOSED = "closed"  # stopped, escalated to a person, or failed


SESSION_STATUS = {RunStatus.QUEUED: SessionStatus.PROCESSING, RunStatus.RUNNING: SessionStatus.PROCESSING,
                  RunStatus.AWAITING_APPROVAL: SessionStatus.SUSPENDED, RunStatus.COMPLETED: SessionStatus.ACTIVE,
                  RunStatus.ESCALATED: SessionStatus.CLOSED, RunStatus.FAILED: SessionStatus.CLOSED,
                  RunStatus.STOPPED: SessionStatus.CLOSED}


class ApprovalStatus(StrEnum):
    """A gated call's draft: waiting for a person, or what became of it."""

    PENDING = "pending"
    APPROVED = "approved"
    EDITED = "edited"  # approved with a person's changes
    REJECTED = "rejected"
    EXPIRED = "expired"  # nobody decided within KITEBASE_APPROVAL_TTL
    WITHDRAWN = "withdrawn"  # the run was stopped while the draft waited: never sent


DECIDED_BY_PEOPLE = (ApprovalStatus.APPROVED, ApprovalStatus.EDITED, ApprovalStatus.REJECTED)
SENT = (ApprovalStatus.APPROVED, ApprovalStatus.EDITED)  # the call was run


class EscalationStatus(StrEnum):
    OPEN = "open"
    CLAIMED = "claimed"
    CLOSED = "closed"


UNRESOLVED = (EscalationStatus.OPEN, EscalationStatus.CLAIMED)  # still in the human queue


class OutboxStatus(StrEnum):
    PENDING = "pending"  # something Slack does not show yet
    SENT = "sent"
    FAILED = "failed"  # Slack refused it for good
    HELD = "held"  # its channel refuses the bot (not in it, archived...): posted once the bot can post there


class OutboxKind(StrEnum):
    """What an outbox row shows in Slack (bot/outbox/render.py has a `_<kind>` for each)."""

    TIMELINE = "timeline"  # a stretch of a run's steps: one message updated in place, or a stream
    CARD = "card"  # a draft waiting for a decision, then its decision
    FINAL = "final"  # a run's ending
    BATCH = "batch"  # one fix for many: a batch's children on one card
    REQUEST = "request"  # a slash command's or an intake rule's first message, the run's thread under it
    NOTICE = "notice"  # a sentence in a thread (a reminder too)
    EPHEMERAL = "ephemeral"  # a sentence only one person sees
    QUEUE = "queue"  # an escalation in the human queue
    TRANSCRIPT = "transcript"  # the run's whole history, uploaded under its queue post
    DIGEST = "digest"  # the day's queue and figures
    HOME = "home"  # a person's App Home
    AGENT_SESSION = "agent_session"  # the status of a run thread's Slack agent session
    PROMPTS = "prompts"  # the suggested prompts of a person's Messages tab
    ANSWER = "answer"  # the answer to a suggested prompt, in its DM thread


class ArrivalState(StrEnum):
    """Where a desk arrival (a new ticket, a customer's new message) stands with the intake rules."""

    NEW = "new"  # not looked at yet, or a follow-up held while its ticket's run is live
    WAITING = "waiting"  # taken by a rule, in its backlog (over a cap, or the rule is paused)
    STARTED = "started"  # became a run (or continued one)
    SKIPPED = "skipped"  # a rule matched but the ticket is not for the agent now (on hold, answered...)
    IGNORED = "ignored"  # no rule takes it (or it is not an arrival a rule looks at)


OPEN_ARRIVALS = (ArrivalState.NEW, ArrivalState.WAITING)


class ChildState(StrEnum):
    """Where a fan-out child stands on its batch card (derived from its run and its draft, never stored)."""

    WORKING = "working"  # queued, running, or revising after a rejection
    DRAFT = "draft"  # its draft waits for a decision
    SENDING = "sending"  # approved, the reply not yet sent
    SENT = "sent"
    NOT_SENT = "not_sent"  # approved, but the desk refused the reply
    DECLINED = "declined"  # the fix does not apply: its "Declined:" reason
    FINISHED = "finished"  # ended without a draft or a "Declined:" line
    HANDED_OVER = "handed_over"  # escalated, failed
    CALL_WAITS = "call_waits"  # another gated call (a ticket change) waits for a decision on its own card


CHILD_DONE = (ChildState.SENT, ChildState.NOT_SENT, ChildState.DECLINED, ChildState.HANDED_OVER, ChildState.FINISHED)


# --- kinds ---------------------------------------------------------------------------------------------------


class StepKind(StrEnum):
    MODEL = "model"  # a model call and what the loop did with its reply
    GUARD = "guard"  # a guard stopped the run before a model call
    ERROR = "error"  # the model call failed, or the run failed
    STOP = "stop"  # the run was stopped from outside (stuck, expired)
    APPROVAL = "approval"  # people decided on the turn's gated calls
    WAIT = "wait"  # the run waits for the organization's model budget before its next call


class ArrivalKind(StrEnum):
    TICKET = "ticket"  # a ticket new on the desk
    MESSAGE = "message"  # a customer's new public message on a ticket already there


class StopKind(StrEnum):
    """Why a run ended without an answer: the run's `stop_kind` and its escalation's `kind`."""

    GUARD = "guard"
    MODEL_ERROR = "model_error"
    MODEL_REQUEST = "model_request"  # the agent asked for a person (escalate_to_human)
    REFUSAL = "refusal"
    TRUNCATED = "truncated"  # max_tokens
    STOP_SEQUENCE = "stop_sequence"
    CONTEXT_WINDOW = "context_window"
    PAUSED = "paused"
    EMPTY_ANSWER = "empty_answer"
    MALFORMED_HISTORY = "malformed_history"
    UNKNOWN_STOP_REASON = "unknown_stop_reason"
    TOOL_ERROR = "tool_error"
    APPROVAL_EXPIRED = "approval_expired"
    STUCK = "stuck"
    FAILURE = "failure"  # an internal error
    STOPPED = "stopped"  # a person pressed Stop


_STOP_WORDS = {
    StopKind.MODEL_REQUEST: "the agent asked for a person",
    StopKind.REFUSAL: "the model refused",
    StopKind.FAILURE: "failed",
    StopKind.MODEL_ERROR: "the model could not be reached",
    StopKind.TRUNCATED: "its answer was cut off (too long)",
    StopKind.STOP_SEQUENCE: "the model stopped early",
    StopKind.CONTEXT_WINDOW: "the conversation outgrew the model",
    StopKind.PAUSED: "the model kept pausing",
    StopKind.EMPTY_ANSWER: "the model gave no answer",
    StopKind.MALFORMED_HISTORY: "its history was damaged",
    StopKind.UNKNOWN_STOP_REASON: "the model stopped for an unknown reason",
    StopKind.TOOL_ERROR: "a tool failed",
    StopKind.APPROVAL_EXPIRED: "a draft waited too long for a decision",
    StopKind.STUCK: "it got stuck",
    StopKind.STOPPED: "stopped by a person",
}
# the guard's reason names its limit by its setting (bot/agent/guards.py)
_GUARD_WORDS = (("KITEBASE_MAX_STEPS", "hit its step limit"), ("KITEBASE_TOKEN_BUDGET", "spent its token budget"),
                ("KITEBASE_COST_BUDGET_USD", "spent its dollar budget"),
                ("KITEBASE_DEADLINE_SECONDS", "ran out of time"), ("KITEBASE_MAX_REPEATS", "kept repeating a call"))


def stop_words(kind: str, reason: str | None) -> str:
    """Why a run stopped, in the words a lead uses (the queue at the terminal and in Slack): from its escalation's
    `kind` (a StopKind, or the run's status) and, for a guard or a person's stop, its recorded reason."""
    text = reason or ""
    if kind == StopKind.GUARD:
        return next((words for setting, words in _GUARD_WORDS if setting in text), "hit one of its limits")
    if kind == StopKind.STOPPED and text.startswith("stopped by "):
        return text.split(";", 1)[0].strip()
    if kind in _STOP_WORDS:
        return _STOP_WORDS[StopKind(kind)]
    return str(kind or "unknown").replace("_", " ")


# --- what a run uses -----------------------------------------------------------------------------------------


class Counters(SQLModel):
    """A group of counters declared once: a value of its own (in the run state and the step log) and, mixed into
    a table, the same-named columns (bot/db/models.py). `of` and `store` copy the group from or into any row."""

    @classmethod
    def of(cls, row: object) -> Self:
        return cls(**{name: getattr(row, name) for name in cls.model_fields})

    def store(self, row: object) -> None:
        for name in type(self).model_fields:
            setattr(row, name, getattr(self, name))


class Usage(Counters):
    """Tokens: of one model call (its response and its step), or summed over a run (the run state and `Run`)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    def add(self, other: Usage) -> None:
        for name in Usage.model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @classmethod
    def from_api(cls, usage: Any) -> Usage:
        get = usage.get if isinstance(usage, dict) else lambda k, d=None: getattr(usage, k, d)
        return cls(input_tokens=int(get("input_tokens", 0) or 0), output_tokens=int(get("output_tokens", 0) or 0),
                   cache_read_tokens=int(get("cache_read_input_tokens", 0) or 0),
                   cache_write_tokens=int(get("cache_creation_input_tokens", 0) or 0))


class Allowance(Counters):
    """What the current allowance has used (a follow-up or a resume starts a fresh one); the guards compare it
    with the limits. Also the `segment_*` columns of `Run`."""

    segment_steps: int = 0
    segment_tokens: int = 0
    segment_cost_usd: float = 0.0
    segment_active_seconds: float = 0.0
    segment_first_message: int = 0  # index in messages where this allowance began


# --- a run's working state: everything the loop needs, all of it storable as JSON ----------------------------


def fingerprint(name: str, arguments: dict[str, Any]) -> str:
    """A stable hash of a tool call: the same tool with the same arguments gives the same value."""
    canonical = json.dumps({"name": name, "input": arguments}, sort_keys=True, ensure_ascii=False,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass
class PendingCall:
    tool_use_id: str
    name: str
    input: dict[str, Any]  # as it will be executed (its ticket id resolved)
    fingerprint: str
    other_ticket: bool = False  # a write to a ticket the run was not started for


@dataclass
class StepRecord:
    number: int
    kind: StepKind = StepKind.MODEL
    stop_reason: str | None = None
    model: str | None = None  # the model that answered (a model step)
    text: str | None = None
    response: list[dict[str, Any]] | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    latency_ms: int = 0
    cost_usd: float = 0.0


@dataclass
class RunState:
    goal: str
    messages: list[dict[str, Any]]
    model: str = ""
    ticket_id: str | None = None  # the ticket the run was started for
    status: RunStatus = RunStatus.RUNNING
    stop_kind: str | None = None  # a StopKind when the run ended without an answer
    reason: str | None = None
    answer: str | None = None
    summary: str | None = None
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    allowance: Allowance = field(default_factory=Allowance)
    pause_count: int = 0
    pending_results: list[dict[str, Any]] = field(default_factory=list)
    pending_calls: list[PendingCall] = field(default_factory=list)

    def start_segment(self) -> None:
        """A fresh allowance of steps, tokens, dollars and time (follow-ups and resumes)."""
        self.allowance = Allowance(segment_first_message=len(self.messages))
        self.pause_count = 0
