"""The run state machine: every allowed transition, in one place. Whatever changes a run's status (the
checkpoint, the claim that starts a queued run, a failure, a reopening) goes through `check` or `move`."""

from __future__ import annotations

from typing import Protocol

from bot.vocabulary import RunStatus

QUEUED, RUNNING, AWAITING = RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.AWAITING_APPROVAL
COMPLETED, ESCALATED, FAILED = RunStatus.COMPLETED, RunStatus.ESCALATED, RunStatus.FAILED
STOPPED = RunStatus.STOPPED

TRANSITIONS: dict[RunStatus, frozenset[RunStatus]] = {
    QUEUED: frozenset({RUNNING, ESCALATED, FAILED, STOPPED}),
    RUNNING: frozenset({RUNNING, AWAITING, COMPLETED, ESCALATED, FAILED, STOPPED}),
    AWAITING: frozenset({AWAITING, RUNNING, ESCALATED, FAILED, STOPPED}),
    # A finished or stopped run is reopened by a follow-up or a resume; it goes back through `queued`.
    COMPLETED: frozenset({QUEUED}),
    ESCALATED: frozenset({QUEUED}),
    FAILED: frozenset({QUEUED}),
    STOPPED: frozenset({QUEUED}),
}
_SAME_IS_NO_CHANGE = frozenset({QUEUED, COMPLETED, ESCALATED, FAILED, STOPPED})
_KNOWN = frozenset(RunStatus)


class IllegalTransition(RuntimeError):
    pass


class HasStatus(Protocol):
    status: RunStatus


def check(old: str, new: RunStatus) -> None:
    """Raise IllegalTransition unless a run may go from `old` (as stored) to `new`."""
    if old == new and old in _SAME_IS_NO_CHANGE:
        return  # storing the same state again (e.g. a checkpoint after the final step) changes nothing
    if old not in _KNOWN or new not in TRANSITIONS[RunStatus(old)]:
        raise IllegalTransition(f"a run cannot go from {old} to {new}")


def move(run: HasStatus, new: RunStatus) -> RunStatus:
    """Check the transition and set `run.status` (a Run row or a RunState); returns the old status."""
    old = run.status
    check(old, new)
    run.status = new
    return RunStatus(old)
