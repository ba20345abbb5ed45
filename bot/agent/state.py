"""The loop's working state: everything a run needs, all of it storable as JSON."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.agent.model import Counters, Usage


class RunStatus(StrEnum):
    """Where a run is; the values are the strings the database stores (transitions: bot/runs/states.py)."""

    QUEUED = "queued"
    RUNNING = "running"
    AWAITING_APPROVAL = "awaiting_approval"
    COMPLETED = "completed"
    ESCALATED = "escalated"
    FAILED = "failed"


LIVE = (RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.AWAITING_APPROVAL)  # at most one live run per ticket
TERMINAL = frozenset({RunStatus.COMPLETED, RunStatus.ESCALATED, RunStatus.FAILED})


def fingerprint(name: str, arguments: dict[str, Any]) -> str:
    """A stable hash of a tool call: the same tool with the same arguments gives the same value."""
    canonical = json.dumps({"name": name, "input": arguments}, sort_keys=True, ensure_ascii=False,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class Allowance(Counters):
    """What the current allowance has used (a follow-up or a resume starts a fresh one); the guards compare it
    with the limits. Also the `segment_*` columns of `Run`."""

    segment_steps: int = 0
    segment_tokens: int = 0
    segment_cost_usd: float = 0.0
    segment_active_seconds: float = 0.0
    segment_first_message: int = 0  # index in messages where this allowance began


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
    kind: str = "model"  # model | guard | stop | approval | error
    stop_reason: str | None = None
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
    stop_kind: str | None = None
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
