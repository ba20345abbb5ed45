"""The tools on their own: validation, clear errors, full-text search, idempotent side effects."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from bot.search.words import EmptyQuery, query_terms
from tests.helpers import staff_replies
from tools import REGISTRY, ToolContext, execute, ticket_ids_in


@pytest.fixture
def ctx(db, settings):
    return ToolContext(db=db, settings=settings)


def call(ctx, name, **arguments):
    return execute(REGISTRY, ctx, name, arguments)


def test_every_tool_has_a_name_description_and_strict_schema():
    assert set(REGISTRY) == {"get_ticket", "search_tickets", "search_help", "reply_to_customer", "update_ticket",
                             "record_triage", "escalate_to_human"}
    for tool in REGISTRY.values():
        assert len(tool.description) > 80 and tool.input_schema["type"] == "object"
        assert tool.input_schema.get("additionalProperties") is False


def test_get_ticket_reads_the_worked_example(ctx):
    result = call(ctx, "get_ticket", ticket_id="kite-142")
    data = json.loads(result.text)
    assert not result.is_error and data["id"] == "KITE-142" and data["customer"]["name"] == "Northwind Studio"
    assert data["title"] == "Customer locked out after SSO change" and data["conversation"][0]["role"] == "customer"


@pytest.mark.parametrize("raw, message", [
    ("KITE-999", "No ticket 'KITE-999'. Ids look like KITE-142"),
    ("142; DROP TABLE ticket", "is not a ticket id. Ids look like KITE-142."),
    ("", "Invalid arguments for get_ticket"),
])
def test_get_ticket_errors_say_what_to_do(ctx, raw, message):
    result = call(ctx, "get_ticket", ticket_id=raw)
    assert result.is_error and message in result.text


def test_wrong_argument_types_and_extra_arguments(ctx):
    assert "Invalid arguments" in call(ctx, "search_tickets", query="sso", limit="five").text
    assert "Additional properties" in call(ctx, "get_ticket", ticket_id="KITE-142", verbose=True).text
    assert "Invalid arguments" in execute(REGISTRY, ctx, "get_ticket", ["KITE-142"]).text


def test_search_help_returns_anchored_sections(ctx):
    result = call(ctx, "search_help", query="locked out of my account after the SSO change", limit=2)
    assert result.text.startswith("[account-recovery#2] Locked out of your account")
    assert len(result.data) == 2


def test_search_tickets_finds_the_same_problem_elsewhere(ctx):
    result = call(ctx, "search_tickets", query="sso locked out okta", exclude_ticket_id="KITE-142", limit=5)
    ids = [h["id"] for h in result.data]
    assert "KITE-144" in ids and "KITE-139" in ids and "KITE-142" not in ids
    open_only = call(ctx, "search_tickets", query="sso locked out okta", status="open")
    assert all(h["status"] == "open" for h in open_only.data) and "KITE-139" not in [h["id"] for h in open_only.data]


def test_search_misses_what_is_not_there(ctx):
    result = call(ctx, "search_tickets", query="submarine periscope")
    assert not result.is_error and result.data == [] and "No tickets match" in result.text


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=1, max_size=80))
def test_any_query_text_is_safe(ctx, query):
    for name in ("search_tickets", "search_help"):
        result = call(ctx, name, query=query)
        assert isinstance(result.text, str)
        if result.is_error:
            assert "no searchable words" in result.text


def test_query_terms_drop_operators_and_stop_words():
    assert query_terms('Error: "export*" (code 500) NOT found OR timeout') == ["error", "export", "code", "500",
                                                                             "found", "timeout"]
    with pytest.raises(EmptyQuery):
        query_terms('"*" AND OR NOT ()')


def test_reply_is_idempotent_per_tool_call(ctx, db):
    first_ctx = ToolContext(db=ctx.db, settings=ctx.settings, tool_use_id="toolu_once")
    first = call(first_ctx, "reply_to_customer", ticket_id="KITE-142", message="Hello from support")
    again = call(first_ctx, "reply_to_customer", ticket_id="KITE-142", message="Hello from support")
    assert not first.is_error and "already sent" in again.text
    assert len(staff_replies(db, "KITE-142")) == 1


def test_update_ticket_is_internal_and_needs_a_change(ctx):
    assert "Nothing to change" in call(ctx, "update_ticket", ticket_id="KITE-142").text
    result = call(ctx, "update_ticket", ticket_id="KITE-142", status="pending", assignee="", note="checked IdP")
    assert not result.is_error and "status open → pending" in result.text and "not visible" in result.text
    assert "Invalid arguments" in call(ctx, "update_ticket", ticket_id="KITE-142", status="deleted").text


def test_ticket_ids_in_free_text():
    assert ticket_ids_in("handle kite 142 and KITE-144, then KITE-142 again") == ["KITE-142", "KITE-144"]
    assert ticket_ids_in("nothing here") == []


def test_an_article_introduction_is_headed_by_its_title_once():
    from tools.help_center import _hit_text

    intro = {"id": "welcome#0", "heading": "Welcome", "article": "Welcome", "body": "Hi.", "internal": False}
    section = {**intro, "id": "welcome#1", "heading": "Start here"}
    assert _hit_text(intro).splitlines()[0] == "[welcome#0] Welcome"
    assert _hit_text(section).splitlines()[0] == "[welcome#1] Start here — Welcome"
