"""Every guard fires before a model call, ends the run as escalated with its reason, a summary and the
whole history, and opens an escalation for the human queue."""

from __future__ import annotations

import pytest

from bot.agent.loop import AgentLoop
from bot.vocabulary import RunState, Usage
from tests.helpers import assert_well_formed, escalations_of, run_row, service_with
from tests.scripted import ScriptedModel, respond, text, use
from tools import REGISTRY

GOAL = "handle KITE-142"


def wandering(messages):
    """A model that never finishes: a new search every turn."""
    n = sum(1 for m in messages if m["role"] == "assistant")
    return respond(text(f"Searching again ({n})."), use("search_tickets", query=f"sso attempt{n}"))


def start(db, settings, model, **overrides):
    service = service_with(db, settings, model, **overrides)
    run_id = service.start(GOAL)
    return run_id, service.resume(run_id)


def assert_escalated_with_history(db, run_id, state, limit_word):
    assert state.status == "escalated" and state.stop_kind == "guard"
    assert limit_word in state.reason
    stored = run_row(db, run_id)
    assert stored.status == "escalated" and stored.messages == state.messages
    assert_well_formed(stored.messages)
    [escalation] = escalations_of(db, run_id)
    assert escalation.kind == "guard" and limit_word in escalation.reason
    assert "search_tickets" in escalation.summary


def test_max_steps(db, settings):
    model = ScriptedModel(wandering)
    run_id, state = start(db, settings, model, max_steps=3)
    assert len(model.sent) == 3
    assert_escalated_with_history(db, run_id, state, "KITEBASE_MAX_STEPS")
    assert "3 of 3" in state.reason


def test_token_budget_counts_cache_reads_and_writes(db, settings):
    usage = Usage(input_tokens=100, output_tokens=50, cache_read_tokens=600, cache_write_tokens=250)  # 1,000 a call
    model = ScriptedModel(lambda m: respond(*wandering(m).content, usage=usage))
    run_id, state = start(db, settings, model, token_budget=2500)
    assert len(model.sent) == 3, "checked before each call: 2,000 < 2,500 allows a third call, 3,000 stops"
    assert_escalated_with_history(db, run_id, state, "KITEBASE_TOKEN_BUDGET")


def test_dollar_budget_uses_the_price_table(db, settings):
    usage = Usage(input_tokens=10_000, output_tokens=1_000)  # $0.075 a call on claude-opus-5
    model = ScriptedModel(lambda m: respond(*wandering(m).content, usage=usage), name="claude-opus-5")
    run_id, state = start(db, settings, model, cost_budget_usd=0.20)
    assert len(model.sent) == 3
    assert state.cost_usd == pytest.approx(0.225)
    assert_escalated_with_history(db, run_id, state, "KITEBASE_COST_BUDGET_USD")


def test_wall_clock_deadline_with_a_controlled_clock(db, settings):
    now = [0.0]

    def slow_model(messages):
        now[0] += 40  # every model call takes 40 s of wall clock
        return wandering(messages)

    model = ScriptedModel(slow_model)
    loop = AgentLoop(model=model, registry=REGISTRY, settings=settings.model_copy(update={"deadline_seconds": 100}),
                     db=db, clock=lambda: now[0])
    state = RunState(goal=GOAL, messages=[{"role": "user", "content": GOAL}])
    loop.run(state, lambda s, step: None)
    assert state.status == "escalated" and "KITEBASE_DEADLINE_SECONDS" in state.reason
    assert len(model.sent) == 3, "40 s and 80 s are inside 100 s; at 120 s the next call is refused"
    assert "120.0s of 100s" in state.reason


def test_repetition_first_warns_then_stops(db, settings):
    same = lambda m: respond(text("Once more."), use("search_help", query="locked out"))  # noqa: E731
    model = ScriptedModel(same)
    run_id, state = start(db, settings, model, max_repeats=2)
    results = [m[-1]["content"][0] for m in model.sent[1:]] + [state.messages[-1]["content"][0]]
    assert not results[0].get("is_error") and not results[1].get("is_error")
    assert results[2]["is_error"] and "Change course" in results[2]["content"], "the third identical call gets a note"
    assert results[3]["is_error"] and "stopping" in results[3]["content"]
    assert len(model.sent) == 4
    assert_escalated_with_history_generic(db, run_id, state)


def assert_escalated_with_history_generic(db, run_id, state):
    assert state.status == "escalated" and state.stop_kind == "guard" and "repetition" in state.reason
    assert "KITEBASE_MAX_REPEATS" in state.reason
    assert_well_formed(run_row(db, run_id).messages)
    assert escalations_of(db, run_id)[0].kind == "guard"


def test_a_follow_up_gets_a_fresh_allowance(db, settings):
    model = ScriptedModel(wandering)
    run_id, state = start(db, settings, model, max_steps=2)
    assert state.status == "escalated"
    service = service_with(db, settings, model, max_steps=2)
    service.reopen(run_id, actor="lead", note="try the help center")
    state = service.resume(run_id)
    assert len(model.sent) == 4, "two more calls on a fresh allowance"
    assert state.steps == 4 and state.allowance.segment_steps == 2
    assert "try the help center" in model.sent[2][-1]["content"][-1]["text"]
    assert_well_formed(state.messages)
