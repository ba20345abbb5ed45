"""The run state machine: every allowed transition, in one place."""

from __future__ import annotations

STATES = ("queued", "running", "awaiting_approval", "completed", "escalated", "failed")
TRANSITIONS: dict[str, frozenset[str]] = {
    "queued": frozenset({"running", "escalated", "failed"}),
    "running": frozenset({"running", "awaiting_approval", "completed", "escalated", "failed"}),
    "awaiting_approval": frozenset({"awaiting_approval", "running", "escalated", "failed"}),
    # A finished run is reopened by a follow-up or a resume; it goes back through `queued`.
    "completed": frozenset({"queued"}),
    "escalated": frozenset({"queued"}),
    "failed": frozenset({"queued"}),
}


class IllegalTransition(RuntimeError):
    pass


def check(old: str, new: str) -> None:
    if old == new and old in ("queued", "completed", "escalated", "failed"):
        return  # storing the same state again (e.g. a checkpoint after the final step) changes nothing
    if new not in TRANSITIONS.get(old, frozenset()):
        raise IllegalTransition(f"a run cannot go from {old} to {new}")
