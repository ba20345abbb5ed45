"""One model budget for all processes (bot/agent/budget.py): what the API's rate-limit headers teach, shared
through the database, and a run that waits for its turn instead of calling into a 429."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.agent import loop as loop_module
from bot.agent.budget import SharedModelBudget, budget_key, parse_limits
from bot.slack_ui.blocks import step_lines
from tests.helpers import service_with, steps_of
from tests.scripted import ScriptedModel, respond, text, use

GOAL = "handle KITE-142"


class Clock:
    """One controlled time for the database's clock and the process's (the budget reads both)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self, session=None) -> float:
        return self.now


def headers(now: float, *, limit: int, remaining: int, seconds_to_full: float, name: str = "requests") -> dict:
    reset = datetime.fromtimestamp(now + seconds_to_full, UTC).isoformat().replace("+00:00", "Z")
    return {f"anthropic-ratelimit-{name}-limit": str(limit), f"anthropic-ratelimit-{name}-remaining": str(remaining),
            f"anthropic-ratelimit-{name}-reset": reset}


def test_the_rate_comes_from_the_reset_time_or_is_the_limit_per_minute():
    now = 1_800_000_000.0
    assert parse_limits(headers(now, limit=60, remaining=30, seconds_to_full=3), now)["requests"]["rate"] == \
        pytest.approx(10.0)  # a faster clock than the API's (a stand-in's): learned from the reset time
    assert parse_limits(headers(now, limit=60, remaining=59, seconds_to_full=1), now)["requests"]["rate"] == 1.0
    assert parse_limits({"anthropic-ratelimit-requests-limit": "x"}, now) == {}
    assert budget_key("sk-ant-secret", None, "claude-opus-5") != budget_key("sk-ant-secret", None, "claude-sonnet-5")
    assert "secret" not in budget_key("sk-ant-secret", None, "claude-opus-5")


def test_two_processes_share_one_budget(db):
    clock = Clock()
    serve, worker = (SharedModelBudget(db, "org-a", clock=clock, db_clock=clock) for _ in range(2))
    assert serve.reserve(input_tokens=2000, output_tokens=1000) == 0, "unknown budget: the call goes"

    serve.observe(headers(clock.now, limit=60, remaining=2, seconds_to_full=58))  # 1 request a second
    assert serve.reserve(input_tokens=2000, output_tokens=1000) == 0
    assert worker.reserve(input_tokens=2000, output_tokens=1000) == 0
    wait = worker.reserve(input_tokens=2000, output_tokens=1000)
    assert wait == pytest.approx(1.0), "the other process's calls count: this one waits its turn"
    clock.now += wait
    assert serve.reserve(input_tokens=2000, output_tokens=1000) == 0

    # An answer reporting more than is left here does not give back what others have taken meanwhile...
    worker.observe(headers(clock.now, limit=60, remaining=40, seconds_to_full=20))
    assert worker.snapshot()["dimensions"]["requests"]["available"] < 1
    # ...and one reporting less is believed.
    clock.now += 30
    worker.observe(headers(clock.now, limit=60, remaining=0, seconds_to_full=60))
    assert serve.reserve(input_tokens=1, output_tokens=1) == pytest.approx(1.0)


def test_a_429_pauses_every_process_and_token_limits_count(db):
    clock = Clock()
    serve, worker = (SharedModelBudget(db, "org-b", clock=clock, db_clock=clock) for _ in range(2))
    serve.pause(7.5)
    assert worker.reserve(input_tokens=1, output_tokens=1) == pytest.approx(7.5)
    clock.now += 8
    worker.observe(headers(clock.now, limit=40_000, remaining=5_000, seconds_to_full=52.5, name="input-tokens"))
    assert worker.reserve(input_tokens=4_000, output_tokens=1) == 0
    assert serve.reserve(input_tokens=4_000, output_tokens=1) == pytest.approx(3_000 / (35_000 / 52.5))
    # A call larger than the whole limit waits for a full bucket, not for ever.
    clock.now += 120
    assert serve.reserve(input_tokens=90_000, output_tokens=1) == 0


class Budget:
    """A budget that makes the run wait `waits` (seconds, in turn) before its calls."""

    def __init__(self, waits: list[float]):
        self.waits, self.asked = list(waits), 0

    def reserve(self, *, input_tokens: int, output_tokens: int, waiter: str | None = None) -> float:
        self.asked += 1
        return self.waits.pop(0) if self.waits else 0.0

    def leave(self, waiter: str) -> None:
        self.left = waiter


class WaitingModel(ScriptedModel):
    def __init__(self, script, budget):
        super().__init__(script, name="claude-opus-5")
        self.budget = budget


def test_a_run_waiting_for_capacity_says_so_and_the_wait_is_not_running_time(db, settings, monkeypatch):
    monkeypatch.setattr(loop_module, "CAPACITY_NOTE_SECONDS", 0.1)
    budget = Budget([0.4, 0.4, 0.0, 0.3, 0.0])  # both turns wait; the thread hears of it once
    model = WaitingModel([respond(text("Reading it."), use("get_ticket", ticket_id="KITE-142")),
                          respond(text("Done."))], budget)
    service = service_with(db, settings, model, deadline_seconds=0.5)
    run_id = service.start(GOAL)
    state = service.resume(run_id)

    assert state.status == "completed", state.reason  # 1.1 s of waiting, against a 0.5 s deadline
    steps = steps_of(db, run_id)
    assert [s.kind for s in steps] == ["wait", "model", "model"], "one line for the wait, not one per check"
    assert steps[0].text.startswith("waiting for model capacity")
    assert state.allowance.segment_active_seconds < 0.5
    line = step_lines({"kind": "wait", "text": steps[0].text})
    assert line == [":hourglass: " + steps[0].text]


def test_a_wait_past_the_capacity_limit_escalates_with_a_sentence(db, settings):
    model = WaitingModel([respond(text("never sent"))], Budget([3600.0]))
    service = service_with(db, settings, model, capacity_wait_seconds=60)
    run_id = service.start(GOAL)
    state = service.resume(run_id)
    assert state.status == "escalated" and state.stop_kind == "model_error"
    assert "KITEBASE_CAPACITY_WAIT_SECONDS" in state.reason and model.sent == []


def test_a_budget_that_cannot_be_read_does_not_stop_the_run(db, settings):
    class Broken:
        def reserve(self, **_):
            raise RuntimeError("the database went away")

    model = WaitingModel([respond(text("Done."))], Broken())
    state = service_with(db, settings, model).resume(service_with(db, settings, model).start(GOAL))
    assert state.status == "completed"


def test_concurrent_reservations_never_take_more_than_is_left(db):
    import threading

    clock = Clock()
    SharedModelBudget(db, "org-c", clock=clock, db_clock=clock).observe(
        headers(clock.now, limit=1000, remaining=10, seconds_to_full=10_000))  # hardly refills meanwhile
    granted, lock = [], threading.Lock()

    def process() -> None:
        budget = SharedModelBudget(db, "org-c", clock=clock, db_clock=clock)
        for _ in range(5):
            if budget.reserve(input_tokens=1, output_tokens=1) == 0:
                with lock:
                    granted.append(1)

    threads = [threading.Thread(target=process) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(granted) == 10


def test_many_short_waits_add_up_to_one_line_in_the_thread(db, settings, monkeypatch):
    monkeypatch.setattr(loop_module, "CAPACITY_NOTE_SECONDS", 0.2)  # a busy morning: many runs, each wait short
    model = WaitingModel([respond(text("Done."))], Budget([0.06] * 6))
    service = service_with(db, settings, model)
    run_id = service.start(GOAL)
    assert service.resume(run_id).status == "completed"
    assert [s.kind for s in steps_of(db, run_id)] == ["wait", "model"]


def test_waiting_calls_get_their_turn_in_the_order_they_first_asked(db):
    clock = Clock()
    serve, worker = (SharedModelBudget(db, "org-d", clock=clock, db_clock=clock) for _ in range(2))
    serve.observe(headers(clock.now, limit=60, remaining=0, seconds_to_full=60))  # empty, one a second
    assert serve.reserve(input_tokens=1, output_tokens=1, waiter="early") == pytest.approx(1.0)
    clock.now += 0.5
    assert worker.reserve(input_tokens=1, output_tokens=1, waiter="late") >= 1.0, "one waiter ahead of it"
    clock.now += 0.6  # a request's worth has come back: the late one asks first, but the early one is served
    assert worker.reserve(input_tokens=1, output_tokens=1, waiter="late") > 0
    assert worker.reserve(input_tokens=1, output_tokens=1) > 0, "a newcomer queues behind both"
    assert serve.reserve(input_tokens=1, output_tokens=1, waiter="early") == 0
    clock.now += 1.0
    assert worker.reserve(input_tokens=1, output_tokens=1, waiter="late") == 0
    assert serve.snapshot()["waiting"] == 0


def test_a_waiter_that_stops_asking_leaves_the_queue(db):
    clock = Clock()
    budget = SharedModelBudget(db, "org-e", clock=clock, db_clock=clock)
    budget.observe(headers(clock.now, limit=60, remaining=0, seconds_to_full=60))
    budget.reserve(input_tokens=1, output_tokens=1, waiter="dead")  # its process dies now
    clock.now += 1.5
    assert budget.reserve(input_tokens=1, output_tokens=1, waiter="alive") > 0, "behind the dead one, for now"
    clock.now += 15
    assert budget.reserve(input_tokens=1, output_tokens=1, waiter="alive") == 0, "the dead one's place expired"
    budget.reserve(input_tokens=1, output_tokens=1, waiter="quitter")
    budget.leave("quitter")
    assert budget.snapshot()["waiting"] == 0
