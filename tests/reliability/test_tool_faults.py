"""Tools misbehaving: raising, hanging past their timeout, answering a megabyte; and arbitrary arguments."""

from __future__ import annotations

import threading

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tests.helpers import PATIENCE, assert_well_formed, run_row, service_with, steps_of
from tests.scripted import ScriptedModel, respond, text, use
from tools import REGISTRY, Tool, ToolContext, ToolResult, execute


def with_tool(monkeypatch, name, fn, read_only=True):
    original = REGISTRY[name]
    monkeypatch.setitem(REGISTRY, name, Tool(name, original.description, original.input_schema, fn,
                                             read_only=read_only))


def one_lookup_run(db, settings, **overrides):
    model = ScriptedModel([respond(text("Looking."), use("search_help", query="locked out sso"),
                                   use("get_ticket", ticket_id="KITE-142")),
                           respond(text("Done looking."))])
    service = service_with(db, settings, model, **overrides)
    run_id = service.start("handle KITE-142")
    return service.resume(run_id), run_id


def results_of(db, run_id):
    return {c["name"]: c for s in steps_of(db, run_id) for c in s.tool_calls or []}


def test_a_tool_that_raises_gives_the_model_a_sentence_and_the_log_the_traceback(db, settings, monkeypatch, caplog):
    def broken(ctx, **kwargs):
        raise RuntimeError("secret internals: db password hunter2")

    with_tool(monkeypatch, "search_help", broken)
    state, run_id = one_lookup_run(db, settings)
    call = results_of(db, run_id)["search_help"]
    assert state.status == "completed" and call["is_error"]
    assert "internal error" in call["result"] and "hunter2" not in call["result"]
    assert "hunter2" in caplog.text, "the log has the exception"
    assert results_of(db, run_id)["get_ticket"]["is_error"] is False, "the other lookup still ran"


def test_a_tool_that_hangs_is_abandoned_at_its_timeout(db, settings, monkeypatch):
    """The tool answers only after the run has returned: the run went on without it (a tool that slept 10 s and
    a run that had to end within 5 s raced a slow machine)."""
    release, answered = threading.Event(), threading.Event()

    def hangs(ctx, **kwargs):
        release.wait(PATIENCE)
        answered.set()
        return ToolResult("too late")

    with_tool(monkeypatch, "search_help", hangs)
    try:
        state, run_id = one_lookup_run(db, settings, tool_timeout_seconds=1.0)
        assert not answered.is_set(), "the run did not wait for the tool"
    finally:
        release.set()
    call = results_of(db, run_id)["search_help"]
    assert state.status == "completed" and call["is_error"] and "did not answer within 1 s" in call["result"]
    assert_well_formed(run_row(db, run_id).messages)


def test_a_megabyte_result_is_cut_with_a_marker(db, settings, monkeypatch):
    with_tool(monkeypatch, "search_help", lambda ctx, **kwargs: ToolResult("x" * 1_000_000))
    state, run_id = one_lookup_run(db, settings)
    sent = run_row(db, run_id).messages[2]["content"][0]["content"]
    assert len(sent) < 9_000 and sent.endswith("[truncated: 8,000 of 1,000,000 chars]")


arguments = st.dictionaries(st.sampled_from(["ticket_id", "query", "limit", "status", "message", "note",
                                             "assignee", "reason", "like_ticket_id", "exclude_ticket_id", "x"]),
                            st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9), st.text(max_size=300),
                                      st.lists(st.integers(), max_size=3), st.just("KITE-142"), st.just("kite 0144")),
                            max_size=5)


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(REGISTRY) + ["no_such_tool"]), args=st.one_of(arguments, st.text(max_size=20),
                                                                                 st.lists(st.integers(), max_size=2)))
def test_any_arguments_give_a_result_never_an_exception(db, settings, name, args):
    result = execute(REGISTRY, ToolContext(db=db, settings=settings, run_id=None, tool_use_id=None), name, args)
    assert isinstance(result.text, str) and result.text
    assert len(result.text) <= settings.tool_result_max_chars + 100
