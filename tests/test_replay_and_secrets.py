"""Stored runs replay through the loop as regression tests; secrets never reach logs or transcripts."""

from __future__ import annotations

import json
import logging

from sqlmodel import select

from bot.agent.offline import OfflineModel
from bot.agent.replay import timeline
from bot.db.models import Run, Step
from bot.runs.reports.rerun import rerun
from standins.anthropic_server import MessagesAPIServer
from standins.brains import offline_brain
from tests.helpers import approvals_of, service_with, steps_of
from tests.test_anthropic_client import client_for
from tools import REGISTRY, Tool, ToolResult

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


def finished_run(db, settings, model):
    service = service_with(db, settings, model)
    run_id = service.start(GOAL)
    service.resume(run_id)
    [approval] = approvals_of(db, run_id)
    service.decide(approval.id, action="edit", actor="lead", message="Hi Dana, the bypass link is on its way.")
    service.resume(run_id)
    with db.session() as session:
        return session.get(Run, run_id), steps_of(db, run_id)


def test_a_stored_run_replays_the_same_through_the_loop(db, settings):
    run, steps = finished_run(db, settings, OfflineModel())
    assert run.status == "completed"
    report = rerun(run, steps, settings)
    assert report.same, report.text
    assert run.answer.startswith("Replied to Northwind Studio on KITE-142 (edited by lead before sending)")


def test_replay_reports_where_a_changed_tool_diverges(db, settings, monkeypatch):
    run, steps = finished_run(db, settings, OfflineModel())
    broken = Tool("search_help", REGISTRY["search_help"].description, REGISTRY["search_help"].input_schema,
                  lambda ctx, **kw: ToolResult("help center down", is_error=True))
    monkeypatch.setitem(REGISTRY, "search_help", broken)
    report = rerun(run, steps, settings)
    assert not report.same and "step 2" in report.text and "search_help" in report.text


def test_timeline_reads_like_a_story(db, settings):
    run, steps = finished_run(db, settings, OfflineModel())
    text = timeline(run, steps)
    assert "turn 1 · stop_reason=tool_use" in text and "approval: reply_to_customer edited by lead" in text
    assert "Answer:" in text and "KITE-144" in text


def test_secrets_stay_out_of_logs_step_logs_and_transcripts(db, settings, tmp_path, caplog):
    key = "sk-ant-test-0123456789"
    log_path = tmp_path / "steps.jsonl"
    settings = settings.model_copy(update={"step_log_path": log_path})
    caplog.set_level(logging.DEBUG)
    with MessagesAPIServer(offline_brain) as server:
        run, steps = finished_run(db, settings, client_for(server))
    step_log = log_path.read_text()
    assert len(step_log.splitlines()) == len(steps)
    assert all(json.loads(line)["run"] == run.id for line in step_log.splitlines())
    with db.session() as session:
        stored = json.dumps([r.model_dump(mode="json") for r in session.exec(select(Run)).all()]
                            + [s.model_dump(mode="json") for s in session.exec(select(Step)).all()])
    for place in (step_log, caplog.text, stored, timeline(run, steps)):
        assert key not in place


def test_tokens_in_ticket_text_are_redacted_from_the_step_log(db, settings, tmp_path):
    from bot.agent import trace

    line = trace.step_line(1, {"tool_calls": [{"result": "my token is xoxb-123456-abcdef and sk-ant-api03-xyzxyz"}]})
    assert "xoxb-123456" not in line and "sk-ant-api03" not in line and line.count("[redacted]") == 2
