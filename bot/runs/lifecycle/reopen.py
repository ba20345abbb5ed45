"""A finished run gets more to do (a follow-up, or a person's "resume"): its history grows by one user
message, it gets a fresh allowance and goes back to `queued`, in the caller's transaction."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, func, select

from bot import outbox
from bot.agent import history
from bot.db.models import Run, Step, id_of
from bot.runs import BadInput
from bot.runs.lifecycle.checkpoint import apply_state, stamp, state_from_run
from bot.vocabulary import LIVE, RunStatus

NOT_RUN = "Not run: the run stopped before this call."


def reopen_in(session: Session, run: Run, text: str, *, opening: dict[str, Any]) -> None:
    """Queue `run` again with `text` added; raises BadInput while it is still live."""
    session.refresh(run, with_for_update=True)
    if run.status in LIVE:
        raise BadInput(f"Run {run.id} is still {run.status.replace('_', ' ')}; wait for it to finish.")
    state = state_from_run(run, [])
    state.messages, _ = history.repair(state.messages, NOT_RUN)
    state.messages = history.append_user_text(state.messages, text)
    state.start_segment()
    state.allowance.segment_first_message = max(0, len(state.messages) - 1)
    state.status, state.reason, state.answer = RunStatus.QUEUED, None, None  # checked by apply_state
    apply_state(run, state)
    run.finished_at = None
    run.stop_requested_by, run.stop_requested_at = None, None  # a stopped run resumed: its stop is behind it
    session.add(run)
    session.flush()  # the one-live-run-per-ticket index speaks here
    stamp(session, id_of(run))
    outbox.timeline(session, run, _next_step(session, run), opening)
    outbox.homes_changed(session)


def _next_step(session: Session, run: Run) -> int:
    return (session.exec(select(func.max(Step.number)).where(Step.run_id == run.id)).one() or 0) + 1
