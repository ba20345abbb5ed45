"""Re-run a stored run through the loop on a scratch copy of the desk, feeding it the recorded model
responses and the recorded decisions, and report whether the loop behaves the same way.

This is how a stored run becomes a regression test: if a change to the loop or the tools makes the
same model responses lead to different tool calls, errors or an other ending, the report says where.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from bot.agent.replay import ReplayModel
from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.models import Approval, Missing, Run, Step, get_or_raise, id_of
from bot.db.seed import seed_desk
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import ApprovalStatus, RunStatus


@dataclass(frozen=True)
class RerunReport:
    same: bool
    differences: list[str]
    text: str


def rerun(run: Run, steps: list[Step], settings: Settings) -> RerunReport:
    with tempfile.TemporaryDirectory() as scratch:
        scratch_settings = settings.model_copy(update={"database_url": f"sqlite:///{Path(scratch) / 'replay.db'}",
                                                       "step_log_path": None})
        db = Database.from_url(scratch_settings.database_url)
        create_schema(db.engine)
        seed_desk(db, scratch_settings.data_dir)
        model = ReplayModel(steps, name=run.model)
        service = RunService(db, scratch_settings, model_factory=lambda: model, owner="replay")
        new_id = service.start(run.goal, started_by=run.started_by, origin={"surface": "replay", "of": run.id})
        decisions = [c for s in steps if s.kind == "approval" for c in s.tool_calls or []]
        state = service.resume(new_id)
        while state is not None and state.status == RunStatus.AWAITING_APPROVAL and decisions:
            decision = decisions.pop(0)
            with db.session() as session:
                approval = session.exec(select(Approval).where(Approval.run_id == new_id,
                                                               Approval.status == ApprovalStatus.PENDING)).first()
            if approval is None:  # the run waits, so one of its drafts is pending
                raise Missing(f"run {new_id} waits for approval but has no pending draft")
            _apply(service, id_of(approval), decision)
            state = service.resume(new_id)
        with db.session() as session:
            replayed = list(session.exec(select(Step).where(Step.run_id == new_id).order_by(col(Step.number))).all())
            final = get_or_raise(session, Run, new_id)
        differences = _compare(run, steps, final, replayed)
        db.engine.dispose()
    if differences:
        text = "Replay check: DIFFERENT\n" + "\n".join(f"- {d}" for d in differences)
    else:
        text = f"Replay check: same tool calls, same errors and the same ending ({final.status}) over {final.steps} model calls."
    return RerunReport(not differences, differences, text)


def _apply(service: RunService, approval_id: int, decision: dict[str, Any]) -> None:
    status = decision.get("status")
    if status == ApprovalStatus.EDITED:
        service.decide(approval_id, action="edit", actor="replay", message=(decision.get("input") or {}).get("message"))
    elif status == ApprovalStatus.REJECTED:
        reason = str(decision.get("result", "")).split("Their reason: ", 1)[-1].split(". Revise")[0] or "replayed"
        service.decide(approval_id, action="reject", actor="replay", reason=reason)
    else:
        service.decide(approval_id, action="approve", actor="replay")


def _signature(steps: list[Step]) -> list[tuple[Any, ...]]:
    return [(s.kind, s.stop_reason, tuple((c.get("name"), c.get("status"), bool(c.get("is_error")))
                                          for c in s.tool_calls or []))
            for s in steps if s.kind in ("model", "guard", "error")]


def _compare(original: Run, old_steps: list[Step], final: Run, new_steps: list[Step]) -> list[str]:
    differences = []
    old, new = _signature(old_steps), _signature(new_steps)
    for index, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            differences.append(f"step {index}: recorded {a}, replayed {b}")
    if len(old) != len(new):
        differences.append(f"recorded {len(old)} steps, replayed {len(new)}")
    if original.status != final.status:
        differences.append(f"recorded ending {original.status}, replayed {final.status} ({final.reason})")
    return differences
