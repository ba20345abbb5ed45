"""Review of issue 50 (fixed; each test failed before the fix). The finding: like_text's 4,200-character budget holds only for short titles/tags/customers. The fixed part of
each hit (title, customer, tags, ...) is never cut, so long titles and many tags (within the embedded desk's own
limits: title 250, customer 200, 30 tags) blow the budget, and past KITEBASE_TOOL_RESULT_MAX_CHARS (8,000 by
default) the JSON is cut and no longer parses (the tiers are lost to fan-out, the card and the summary). And the
budget counts characters, not tokens: CJK text is several tokens a character."""
from __future__ import annotations

import json

import pytest
from sqlmodel import select

from bench.search_systems import tokens
from bot.db.models import Customer, Ticket, TicketMessage
from tools import REGISTRY, ToolContext, execute
from tools.tickets import like_hits, like_text


def _search(ctx):
    return execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142"})


def _report(label, result):
    try:
        json.loads(result.text)
        parses = True
    except ValueError:
        parses = False
    print(f"\n[{label}] chars={len(result.text)} tokens={tokens(result.text)} hits={len(result.data)} "
          f"json_parses={parses} like_hits={'None' if like_hits(result.text) is None else len(like_hits(result.text))}")
    return parses


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_long_titles_many_tags_long_customer_names(settings, db):
    ctx = ToolContext(db=db, settings=settings)
    first = _search(ctx)
    _report("as seeded", first)
    ids = [h["id"] for h in first.data]
    with db.session() as session:
        for t in session.exec(select(Ticket).where(Ticket.id.in_(ids))).all():
            t.title = (t.title + " — " + "still failing for every user in the EU and US regions after the change " * 4)[:250]
            t.tags = list(t.tags or []) + [f"tag-{t.id.lower()}-{i:02d}-topic" for i in range(30 - len(t.tags or []))]
            session.add(t)
            c = session.get(Customer, t.customer_id)
            c.name = (c.name + " Holdings International Group, EMEA Division, Regional Operations Center ")[:200] * 1
            session.add(c)
        session.commit()
    result = _search(ctx)
    parses = _report("titles 250, 30 tags", result)
    assert len(result.text) <= 4200, "over the 4,200-character budget"
    assert parses


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_cjk_text_is_within_characters_but_not_tokens(settings, db):
    ctx = ToolContext(db=db, settings=settings)
    ids = [h["id"] for h in _search(ctx).data]
    cjk = "单点登录失败，证书更换后所有用户都无法登录，显示身份提供者的响应无法验证。请尽快处理，谢谢。"
    with db.session() as session:
        for t in session.exec(select(Ticket).where(Ticket.id.in_(ids))).all():
            t.title = (t.title + " " + cjk * 3)[:120]
            session.add(t)
        for m in session.exec(select(TicketMessage).where(TicketMessage.ticket_id.in_(ids))).all():
            m.body = m.body + " " + cjk * 10
            session.add(m)
        session.commit()
    result = _search(ctx)
    _report("CJK titles and staff replies", result)
    assert tokens(result.text) <= 1500, "the like result is over the 1,500-token bound of issue 50"


def test_cut_with_no_share_keeps_the_whole_matched_line():
    """When the hits' fixed fields leave no share (share // 3 == 0), mirror.cut(line, 0) returns the line almost
    whole instead of nothing."""
    from bot.desk.mirror import cut

    line = "x" * 10 + " " + "y " * 300
    print(f"\ncut(line of {len(line)}, 0) -> {len(cut(line, 0))} chars; cut(line, 1) -> {cut(line, 1)!r}")
    assert len(cut(line, 0)) <= 1


def test_like_text_with_fat_hits_and_a_long_matched_line():
    hits = [{"id": f"KITE-{i}", "tier": "likely" if i < 2 else "worth_a_look", "title": "T" * 250,
             "customer": "C" * 200, "status": "open", "assignee": None, "tags": [f"tag{j:02d}" for j in range(30)],
             "opened": "3 days ago", "matched": ["error: " + "word " * 400], "staff_latest": "reply 1 day ago: " + "z " * 200,
             "score": 0.5} for i in range(8)]
    text, _ = like_text("KITE-1", hits)
    matched_len = max(len(m) for h in json.loads(text)["likely_same_problem"] for m in h["matched"])
    print(f"\nlike_text: {len(text)} chars (budget 4,200); longest matched line kept: {matched_len} chars")
    assert len(text) <= 4200
