"""Issue 50: a like-ticket search hands the model two tiers, "likely the same problem" and "worth a look", each hit
with what tells a cause from a symptom, within a token budget; the offline model reads a ticket only worth a look
before it names it, and one fix for many offers only the tickets a run confirmed."""

from __future__ import annotations

import json
import statistics

import pytest

from bench.claims import claim
from bench.gen_desks import build_desk, write_desk
from bench.gen_desks.domains import DOMAINS
from bench.search_systems import tokens
from bot import search
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk
from bot.runs.intake.fan_out import confirmed, set_aside
from tests.conftest import make_settings
from tools import REGISTRY, ToolContext, execute
from tools.tickets import LIKE_NOTE, like_hits

HELD_OUT = [name for name, domain in DOMAINS.items() if domain["half"] == "held-out"]




def test_like_a_ticket_gives_both_tiers_with_what_tells_a_cause(settings, db):
    result = execute(REGISTRY, ToolContext(db=db, settings=settings), "search_tickets", {"like_ticket_id": "KITE-142"})
    assert not result.is_error
    data = json.loads(result.text)  # the text the model reads is one JSON object
    assert data["like"] == "KITE-142" and data["note"] == LIKE_NOTE.format(like="KITE-142")
    likely = [h["id"] for h in data["likely_same_problem"]]
    worth = [h["id"] for h in data["worth_a_look"]]
    assert "KITE-144" in likely  # the Okta certificate lock-out: today's bar keeps it
    assert "KITE-162" in worth and "KITE-162" not in likely  # the Azure conditional-access block: a near miss
    assert 1 <= len(likely) + len(worth) <= 8 and not set(likely) & set(worth)
    assert "KITE-142" not in likely + worth
    for hit in data["likely_same_problem"] + data["worth_a_look"]:
        assert {"id", "title", "customer", "status", "opened", "staff_latest", "matched", "tags"} <= set(hit)
        assert hit["opened"].endswith("ago")
    staff = {h["id"]: h["staff_latest"] for h in data["worth_a_look"]}
    assert staff["KITE-162"].startswith("reply ") and "AADSTS53000" in staff["KITE-162"]  # the cause, named by staff
    # the data behind the text carries each hit's tier, and the text reads back the same
    assert [(h["id"], h["tier"]) for h in like_hits(result.text)] == [(h["id"], h["tier"]) for h in result.data]


def test_the_likely_tier_is_what_the_cut_off_alone_returns(settings, db):
    """The "likely" tier is today's desk-adapted bar, unchanged: its precision is today's."""
    ctx = ToolContext(db=db, settings=settings)
    with db.session() as session:
        for ticket in ("KITE-142", "KITE-131", "KITE-106", "KITE-162"):
            alone = [h.id for h in search.similar_tickets(session, ticket, limit=5)]
            data = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": ticket}).data
            assert [h["id"] for h in data if h["tier"] == "likely"] == alone, ticket


def test_a_status_filter_and_an_excluded_ticket_apply_to_both_tiers(settings, db):
    ctx = ToolContext(db=db, settings=settings)
    everything = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142"}).data
    shut = [h["id"] for h in everything if h["status"] == "closed"]
    assert shut, "KITE-139 and KITE-118 are closed"
    opened = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142", "status": "open"}).data
    assert opened and all(h["status"] == "open" for h in opened)
    left = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142",
                                                     "exclude_ticket_id": everything[-1]["id"]}).data
    assert everything[-1]["id"] not in [h["id"] for h in left]


def test_the_result_fits_its_budget_however_long_the_staff_wrote(settings, db):
    """Eight hits whose staff wrote pages still make a result within about 1,400 tokens."""
    from sqlmodel import select

    from bot.db.models import TicketMessage

    ctx = ToolContext(db=db, settings=settings)
    ids = [h["id"] for h in execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142"}).data]
    with db.session() as session:
        for message in session.exec(select(TicketMessage).where(TicketMessage.ticket_id.in_(ids))).all():
            message.body = message.body + " The cause, at length: " + "a long explanation of it " * 80
            session.add(message)
        session.commit()
    result = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142"})
    assert len(json.loads(result.text)["worth_a_look"]) >= 3
    assert tokens(result.text) <= 1500 and len(result.text) <= 4200


def test_kitebase_search_tickets_like_shows_both_tiers(cli):
    code, out, _ = cli("search", "tickets", "--like", "KITE-142")
    assert code == 0 and '"likely_same_problem": [' in out and '"worth_a_look": [' in out
    assert "read one (get_ticket) before you call it the same problem" in out
    code, out, _ = cli("search", "tickets", "--like", "KITE-142", "--json")
    hits = json.loads(out)
    assert code == 0 and {h["tier"] for h in hits} == {"likely", "worth_a_look"}
    assert [h["id"] for h in hits if h["tier"] == "likely"][0] == "KITE-144"


def test_a_report_s_set_aside_tickets_are_read_off_its_last_lines():
    report = ("Replied to Acme on KITE-142.\nOther customers with the same kind of problem open:\n"
              "- KITE-144 Harbor Pine: “Okta” (open, unassigned)\n"
              "Set aside (read, and another problem as far as I can tell):\n"
              "- KITE-162 Quarry Lane Health: “Azure”: it shows another error\n- KITE-164 Silverline: “Entra”\n")
    assert set_aside(report, "embedded") == {"KITE-162", "KITE-164"}
    assert set_aside("**Set aside:** KITE-150 (a setting), KITE-151.\nNext: KITE-152", "embedded") == \
        {"KITE-150", "KITE-151"}
    assert set_aside("KITE-150 has the same problem; KITE-151 too.", "embedded") == set()
    # generous on purpose: a line that speaks of setting aside holds back every ticket it names
    assert set_aside("Nothing was set aside for KITE-150.", "embedded") == {"KITE-150"}


def test_one_fix_for_many_offers_only_the_tickets_the_run_confirmed(cli, settings, db):
    """The worked example reads the three closest tickets only worth a look and sets them aside: the batch is
    offered for the two likely ones only, never for a ticket set aside nor for one worth a look it never read."""
    from bot.db.models import Run
    from bot.runs.intake.fan_out import offer

    code, out, err = cli("run", "handle KITE-142, and tell me if other customers have hit the same problem",
                         "--approve", "auto")
    assert code == 0
    assert "Set aside (read, and another problem as far as I can tell):" in out
    with db.session() as session:
        run = session.get(Run, 1)
        assert run is not None and run.answer
        offered = offer(session, run, "embedded")
        allowed = confirmed(run, "embedded")
    assert offered == ["KITE-144", "KITE-163"]
    assert not {"KITE-164", "KITE-162", "KITE-210"} & allowed  # read, and set aside
    assert {"KITE-144", "KITE-163", "KITE-139"} <= allowed  # likely (KITE-139 is closed: named, not offered)
    assert "The same fix may help KITE-144 and KITE-163:" in out


def test_a_worth_a_look_ticket_named_unread_is_never_offered(settings, db):
    """A model that names a ticket it was only told is worth a look, without reading it: no batch for it."""
    from bot.db.models import Run

    ctx = ToolContext(db=db, settings=settings)
    result = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142"})
    worth = [h["id"] for h in result.data if h["tier"] == "worth_a_look" and h["status"] == "open"]
    likely = [h["id"] for h in result.data if h["tier"] == "likely" and h["status"] == "open"]
    assert worth and likely
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "handle KITE-142"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "search_tickets",
                                           "input": {"like_ticket_id": "KITE-142"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": result.text}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "get_ticket",
                                           "input": {"ticket_id": worth[0]}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "{}"}]},
    ]
    answer = f"Same problem: {', '.join(likely + worth)}."
    run = Run(id=99, goal="handle KITE-142", ticket_id="KITE-142", status="completed", answer=answer,
              messages=messages, model="kitebase-offline")
    allowed = confirmed(run, "embedded")
    assert not set(worth[1:]) & allowed  # named, never read
    assert worth[0] in allowed and set(likely) <= allowed  # read, or likely


@pytest.mark.parametrize("name", HELD_OUT)
def test_the_offline_report_names_no_ticket_worth_a_look_it_did_not_read(name, database_url, tmp_path):
    """On every held-out generated desk (seed 1), every like-ticket case worked by the offline model: the report
    names, as the same problem or set aside, no ticket it was only told is worth a look unless it read it. And
    what the model is given holds the desk's true matches (both tiers: at least 0.95 of them) within 1,500
    tokens at the 95th percentile."""
    folder = tmp_path / name
    write_desk(build_desk(name, 1), folder)
    settings = make_settings(database_url, data_dir=folder)
    db = Database.from_url(database_url)
    create_schema(db.engine)
    seed_desk(db, folder)
    ctx = ToolContext(db=db, settings=settings)
    groups = json.loads((folder / "groups.json").read_text(encoding="utf-8"))["groups"]
    unread, reports, set_aside_seen, worth_read, recall, sizes = [], 0, 0, 0, [], []
    try:
        for group in groups:
            for ticket in group["tickets"]:
                found = claim(ctx, ticket)
                same = set(group["tickets"]) - {ticket}
                recall.append(len(same & set(found.likely + found.worth)) / len(same))
                sizes.append(found.given_tokens)
                unread += [(ticket, t) for t in found.named_unread]
                if found.report is not None:
                    reports += 1
                    set_aside_seen += bool(found.set_aside)
                    worth_read += len(set(found.worth) & found.read)
                    # every ticket the report names is one it was given as likely, or one it read
                    assert (found.named | found.set_aside) <= set(found.likely) | found.read, (ticket, found.report)
    finally:
        db.engine.dispose()
    assert unread == []
    assert reports >= 0.9 * sum(len(g["tickets"]) for g in groups)  # nearly every case reaches a report
    assert worth_read > 0 and set_aside_seen > 0  # it did read tickets worth a look, and set some aside
    assert statistics.fmean(recall) >= 0.95
    assert statistics.quantiles(sizes, n=20)[-1] <= 1500  # the 95th percentile


def test_a_result_cut_short_still_tells_the_tiers_apart(settings, db):
    """A deployment that cuts tool results (KITEBASE_TOOL_RESULT_MAX_CHARS) leaves the model a cut text: the
    offer and the card still read which ids were likely and which only worth a look."""
    result = execute(REGISTRY, ToolContext(db=db, settings=settings), "search_tickets", {"like_ticket_id": "KITE-142"})
    whole = like_hits(result.text)
    assert whole is not None
    cut_at = result.text.index('"worth_a_look": [') + 400  # into the second tier
    cut = result.text[:cut_at]
    assert like_hits(cut) is None  # not JSON: the offline model's reading stays strict
    partial = like_hits(cut, partial=True)
    assert partial and [(h["id"], h["tier"]) for h in partial] == [(h["id"], h["tier"]) for h in whole][:len(partial)]
    assert {h["tier"] for h in partial} == {"likely", "worth_a_look"}


def test_a_small_limit_never_shows_weaker_tickets_in_place_of_likely_ones(settings, db):
    """limit bounds the likely tier; when it leaves a likely ticket out, nothing weaker is shown instead."""
    ctx = ToolContext(db=db, settings=settings)
    whole = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142"}).data
    likely = [h["id"] for h in whole if h["tier"] == "likely"]
    assert len(likely) >= 2
    one = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142", "limit": 1}).data
    assert [(h["id"], h["tier"]) for h in one] == [(likely[0], "likely")]
    enough = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-142", "limit": len(likely)}).data
    assert [h["id"] for h in enough] == [h["id"] for h in whole]


def test_hits_the_budget_leaves_out_are_named_to_the_model():
    """Twelve likely hits with long titles do not fit in 4,200 bytes: the weakest go, and the result says which."""
    from tools.tickets import LIKE_BYTES, like_text

    hits = [{"id": f"KITE-{300 + i}", "tier": "likely" if i < 12 else "worth_a_look",
             "title": f"Nobody on the {i}th floor can sign in after the certificate change " * 2,
             "customer": f"Customer {i}", "status": "open", "assignee": None, "tags": ["sso", "login", "okta"],
             "opened": "2 days ago", "matched": ["Signature could not be validated " * 5],
             "staff_latest": "reply 1 day ago: " + "the certificate was rotated " * 20, "score": 0.9 - i / 100}
            for i in range(14)]
    text, shown = like_text("KITE-142", hits)
    data = json.loads(text)
    assert len(text.encode()) <= LIKE_BYTES and len(shown) < 12
    assert [h["id"] for h in data["likely_same_problem"]] == [h["id"] for h in hits[:len(shown)]]
    left = [h["id"] for h in hits[len(shown):]]
    assert data["not_shown"].startswith(f"{len(left) - 2} more likely the same problem (")
    assert all(i in data["not_shown"] for i in left) and "2 more worth a look" in data["not_shown"]
    assert all(h["staff_latest"] and len(h["staff_latest"]) > 20 for h in data["likely_same_problem"])
