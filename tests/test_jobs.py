"""The periodic jobs under a controlled clock: expiry, recovery of dead workers' runs, stuck runs."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlmodel import col

from bot.db.models import Run, utcnow
from bot.runs.execution import sweeps
from bot.runs.execution.timers import build_scheduler
from bot.runs.lifecycle.service import RunService
from tests.helpers import approvals_of, assert_well_formed, escalations_of, run_row, staff_replies

GOAL = "handle KITE-142"


def waiting_run(db, settings) -> tuple[RunService, int]:
    service = RunService(db, settings)
    run_id = service.start(GOAL)
    assert service.resume(run_id).status == "awaiting_approval"
    return service, run_id


def test_jobs_have_ids_coalesce_and_never_overlap(db, settings):
    service = RunService(db, settings)
    scheduler = build_scheduler(settings, service, lambda run_id: None)
    jobs = {job.id: job for job in scheduler.get_jobs()}
    assert set(jobs) == {"expire-approvals", "remind-approvals", "recover-runs", "refresh-homes", "refresh-due",
                         "queue-digest", "forget-processes"}
    for job in jobs.values():
        assert job.coalesce is True and job.max_instances == 1


def test_approvals_expire_after_the_ttl_and_the_run_escalates(db, settings):
    service, run_id = waiting_run(db, settings)
    created = approvals_of(db, run_id)[0].created_at
    now = [created + timedelta(hours=23)]
    scheduler = build_scheduler(settings, service, lambda run_id: None, clock=lambda: now[0])
    expire = scheduler.get_job("expire-approvals").func

    expire()
    assert run_row(db, run_id).status == "awaiting_approval", "inside the 24 h TTL nothing happens"
    now[0] = created + timedelta(hours=24, minutes=1)
    expire()
    expire()  # running it again is harmless
    run = run_row(db, run_id)
    assert run.status == "escalated" and "within 24 h" in run.reason
    assert approvals_of(db, run_id)[0].status == "expired"
    assert staff_replies(db, "KITE-142") == [], "an expired draft is never sent"
    assert_well_formed(run.messages)
    [draft] = [b for m in run.messages if m["role"] == "assistant" for b in m["content"]
               if b.get("type") == "tool_use" and b["name"] == "reply_to_customer"]
    [expired] = [b for b in run.messages[-1]["content"] if b.get("tool_use_id") == draft["id"]]
    assert expired["is_error"] is True  # the draft's result; the turn's reads (issue 50) succeeded beside it
    assert [e.kind for e in escalations_of(db, run_id)] == ["approval_expired"]


def test_two_processes_expiring_at_once_escalate_once(db, settings):
    _, run_id = waiting_run(db, settings)
    later = utcnow() + timedelta(days=2)
    services = [RunService(db, settings, owner=f"proc-{i}") for i in range(2)]
    barrier = threading.Barrier(2)

    def sweep(service):
        barrier.wait()
        sweeps.expire_approvals(service, later, settings.approval_ttl_seconds)

    threads = [threading.Thread(target=sweep, args=(s,)) for s in services]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert run_row(db, run_id).status == "escalated"
    assert len(escalations_of(db, run_id)) == 1


def test_a_dead_workers_run_is_continued(db, settings):
    service = RunService(db, settings)
    run_id = service.start(GOAL)
    with db.session() as session:  # a worker took the run and died: its lease ran out
        session.execute(update(Run).where(col(Run.id) == run_id).values(
            status="running", lease_owner="dead-host:4242", lease_expires_at=utcnow() - timedelta(seconds=5)))
    resumed = []
    scheduler = build_scheduler(settings, service, lambda rid: resumed.append(service.resume(rid)))
    scheduler.get_job("recover-runs").func()
    assert [s.status for s in resumed] == ["awaiting_approval"]
    assert run_row(db, run_id).lease_owner is None


def test_a_live_lease_is_left_alone(db, settings):
    service = RunService(db, settings)
    run_id = service.start(GOAL)
    with db.session() as session:
        session.execute(update(Run).where(col(Run.id) == run_id).values(
            status="running", lease_owner="busy-host:1", lease_expires_at=utcnow() + timedelta(seconds=60)))
    dispatched = []
    resumed, escalated = sweeps.recover_runs(service, utcnow(), lambda rid: dispatched.append(rid),
                                             stuck_after_seconds=900, stale_seconds=15)
    assert dispatched == resumed == escalated == []


def test_a_stuck_run_escalates(db, settings):
    service = RunService(db, settings)
    run_id = service.start(GOAL)
    with db.session() as session:
        session.execute(update(Run).where(col(Run.id) == run_id).values(
            status="running", lease_owner="wedged:7", lease_expires_at=utcnow() + timedelta(hours=1)))
    later = utcnow() + timedelta(hours=2)
    _, escalated = sweeps.recover_runs(service, later, lambda rid: None, stuck_after_seconds=600,
                                       stale_seconds=15)
    run = run_row(db, run_id)
    assert escalated == [run_id] and run.status == "escalated" and "stuck" in run.reason
    assert escalations_of(db, run_id)[0].kind == "stuck"


def test_the_running_scheduler_fires_the_expiry_job(db, settings):
    """The real BackgroundScheduler runs the job; the job reads the fake clock (25 h later)."""
    import time as real_time
    from datetime import UTC, datetime

    _, run_id = waiting_run(db, settings)
    later = approvals_of(db, run_id)[0].created_at + timedelta(hours=25)
    service = RunService(db, settings)
    scheduler = build_scheduler(settings, service, lambda rid: None, clock=lambda: later)
    scheduler.start()
    try:
        scheduler.get_job("expire-approvals").modify(next_run_time=datetime.now(UTC))  # due now, not in 5 min
        deadline = real_time.monotonic() + 20
        while run_row(db, run_id).status != "escalated" and real_time.monotonic() < deadline:
            real_time.sleep(0.05)
    finally:
        scheduler.shutdown(wait=True)
    assert run_row(db, run_id).status == "escalated"
    assert approvals_of(db, run_id)[0].status == "expired"


def test_a_poll_that_mirrored_tickets_runs_the_intake_pass_at_once(db, settings, tmp_path, monkeypatch):
    """The poll and intake timers start together and the poll's interval is a multiple of the intake's: without
    the nudge every polled arrival waited a whole KITEBASE_INTAKE_EVERY (bench/intake_latency.py measured it)."""
    from datetime import UTC, datetime

    from bot.desk.zendesk.sync import SyncReport
    from bot.runs.execution import desk_work

    rules = tmp_path / "rules.toml"
    rules.write_text('[[rule]]\nname = "all"\nchannel = "C0INTAKE"\n', encoding="utf-8")
    settings = settings.model_copy(update={"desk": "zendesk", "zendesk_url": "http://127.0.0.1:9",
                                           "intake_rules": rules})
    reports = [SyncReport(tickets=0), None, SyncReport(tickets=2)]  # None: another process held the sync
    monkeypatch.setattr(desk_work, "poll", lambda db, settings: reports.pop(0))
    scheduler = build_scheduler(settings, RunService(db, settings), lambda run_id: None)
    scheduler.start(paused=True)
    try:
        timer = scheduler.get_job("intake").next_run_time
        poll = scheduler.get_job("zendesk-poll").func
        poll()
        poll()
        assert scheduler.get_job("intake").next_run_time == timer, "nothing mirrored: the intake keeps its timer"
        poll()
        assert scheduler.get_job("intake").next_run_time <= datetime.now(UTC) < timer
        assert scheduler.get_job("intake").trigger.interval.total_seconds() == settings.intake_every_seconds
    finally:
        scheduler.shutdown(wait=False)


def test_a_poll_that_records_arrivals_while_a_pass_runs_gets_one_more_pass(db, settings, tmp_path, monkeypatch):
    """APScheduler skips a job whose instances are all running, so a poll's nudge that lands during an intake pass
    was lost (bench/intake_latency.py --poll-only saw it at one poll in ten): the intake job allows a second
    instance, which waits for the pass under way and passes right after it; passes never overlap."""
    import threading
    import time

    from bot.desk.zendesk.sync import SyncReport
    from bot.runs.execution import desk_work

    rules = tmp_path / "rules.toml"
    rules.write_text('[[rule]]\nname = "all"\nchannel = "C0INTAKE"\n', encoding="utf-8")
    settings = settings.model_copy(update={"desk": "zendesk", "zendesk_url": "http://127.0.0.1:9",
                                           "intake_rules": rules, "approvers": frozenset({"ULEAD"}),
                                           "intake_every_seconds": 3600, "zendesk_poll_seconds": 3600})
    monkeypatch.setattr(desk_work, "poll", lambda db, settings: SyncReport(tickets=1))
    passes: list[tuple[str, int]] = []
    inside, go_on = threading.Event(), threading.Event()

    def intake(db, settings, rules, dispatch):  # the first pass is slow: the poll lands while it runs
        passes.append(("start", len(passes)))
        if len(passes) == 1:
            inside.set()
            go_on.wait(10)
        passes.append(("end", len(passes)))

    monkeypatch.setattr(desk_work, "intake", intake)
    scheduler = build_scheduler(settings, RunService(db, settings), lambda run_id: None)
    for job in scheduler.get_jobs():
        if job.id not in ("intake", "zendesk-poll"):
            scheduler.remove_job(job.id)
    scheduler.start()
    try:
        scheduler.get_job("intake").modify(next_run_time=datetime.now(UTC))
        assert inside.wait(10)
        scheduler.get_job("zendesk-poll").func()  # records arrivals while the pass runs: run_soon
        time.sleep(0.5)
        assert [kind for kind, _ in passes] == ["start"], "the second pass waits for the first"
        go_on.set()
        deadline = time.monotonic() + 10
        while len(passes) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        scheduler.shutdown(wait=True)
    assert [kind for kind, _ in passes] == ["start", "end", "start", "end"], "one more pass, after the first"
