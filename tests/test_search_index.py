"""How the desk search works: the analyser, the index kept in step with the rows, the tools' hits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import text

from bot import search
from bot.db.engine import Database
from bot.search import typos
from bot.search.analyzer import Analyzer
from bot.search.catch_up import catch_up
from bot.search.params import PARAMS
from bot.search.queries import query_terms
from bot.search.terms import totals
from tools import REGISTRY, ToolContext, execute


@pytest.fixture
def ctx(db, settings):
    return ToolContext(db=db, settings=settings)


def call(ctx, name, **arguments):
    return execute(REGISTRY, ctx, name, arguments)


def test_synonyms_add_a_concept_on_both_sides():
    analyzer = Analyzer()
    assert "~twofa" in analyzer.query("MFA codes") and "~twofa" in analyzer.terms("Two-factor authentication")
    assert "~bank_transfer" in analyzer.query("can we pay by wire?")
    assert "~signin" in analyzer.terms("people logging in") and "~signin" in analyzer.query("log-in")
    assert analyzer.terms("organisation") == analyzer.terms("organization")


def test_the_stems_are_snowballs_english_stems_whichever_implementation_runs():
    """The stored analysis of every document holds stems: the C stemmer (PyStemmer, which snowballstemmer uses
    when it is installed) must give exactly what the pure-Python Snowball stemmer gives, or documents analysed
    by one and queries by the other would stop matching."""
    from snowballstemmer.english_stemmer import EnglishStemmer

    analyzer, reference = Analyzer(), EnglishStemmer()
    assert type(analyzer._stemmer).__module__ == "Stemmer", "PyStemmer is installed and used"
    desk = Path(__file__).resolve().parents[1] / "kb_data"
    texts = [(desk / "tickets.json").read_text(encoding="utf-8")]
    texts += [path.read_text(encoding="utf-8") for path in sorted((desk / "help").glob("*.md"))]
    words = {w for text in texts for w in analyzer.words(text) if w.isalpha()}
    assert len(words) > 2000
    assert {w: analyzer.stem(w) for w in words} == {w: reference.stemWord(w) for w in words}


def test_typos_are_fixed_only_for_unknown_words():
    vocabulary = {"webhook": 4, "signature": 3, "okta": 5, "form": 2}
    assert typos.correct("webhok", vocabulary) == "webhook"
    assert typos.correct("signiture", vocabulary) == "signature"
    assert typos.correct("okta", vocabulary) == "okta"
    assert typos.correct("frm", vocabulary) == "frm"  # too short to guess
    assert Analyzer().query("webhok signiture", vocabulary).keys() >= {"webhook", "signatur"}


def test_operators_and_quotes_stay_plain_words():
    weights = Analyzer().query('"sso" AND (login OR NEAR(x*)) NOT ^ -okta title:export')
    assert all(re.fullmatch(r"~?\w+", term) for term in weights), weights
    assert {"sso", "login", "okta", "titl", "export"} <= weights.keys()


def test_a_long_pasted_message_keeps_its_rarest_words(db):
    message = ("Hi there, hope you are all well and having a good week. I wanted to ask about something that has "
               "been bothering the whole team for a while now, since the start of the month really. " * 3
               + "The Jira importer says 1,412 attachments skipped.")
    with db.session() as session:
        catch_up(session)
        terms = query_terms(session, "help", message, totals(session, "help", 3), PARAMS.phrase_weight,
                            PARAMS.max_terms)
        assert len(terms) <= PARAMS.max_terms and {"jira", "skip"} <= {t.name for t in terms}
        assert search.search_help(session, message, limit=1)[0].id == "jira-import#3"


def test_the_index_follows_writes_from_any_process(ctx, settings):
    assert call(ctx, "search_tickets", query="zanzibar").data == []
    other_process = Database.from_url(settings.database_url)  # another engine: nothing shared in memory
    other = ToolContext(db=other_process, settings=settings, tool_use_id="toolu_other")
    assert not call(other, "reply_to_customer", ticket_id="KITE-153", message="Try again from Zanzibar.").is_error
    other_process.engine.dispose()
    hits = call(ctx, "search_tickets", query="zanzibar").data
    assert [h["id"] for h in hits] == ["KITE-153"] and "Zanzibar" in hits[0]["matched"][0]


def test_tickets_and_help_sections_changed_by_any_writer_are_searched_at_once(ctx, db):
    """Rows written behind the app's back (another program, a desk import, SQL by hand) reach the next search:
    the database's triggers put what changed in search_pending, nothing waits for a timer."""
    assert call(ctx, "search_tickets", query="quokka").data == []
    assert call(ctx, "search_help", query="quokka").text.startswith("No help")
    with db.engine.begin() as conn:
        conn.execute(text("INSERT INTO ticket (id, customer_id, title, status, priority, tags, created_at, "
                          "updated_at) SELECT 'KITE-990', customer_id, 'Quokka sticker sheet missing', 'open', "
                          "'low', tags, created_at, updated_at FROM ticket WHERE id = 'KITE-142'"))
        conn.execute(text("UPDATE help_section SET body = body || ' Quokka stickers ship with every invoice.' "
                          "WHERE id = 'account-recovery#2'"))
    assert [h["id"] for h in call(ctx, "search_tickets", query="quokka").data] == ["KITE-990"]
    assert [h["id"] for h in call(ctx, "search_help", query="quokka").data] == ["account-recovery#2"]
    with db.engine.begin() as conn:
        conn.execute(text("DELETE FROM ticket WHERE id = 'KITE-990'"))
    assert call(ctx, "search_tickets", query="quokka").data == []


def test_status_filter_reads_the_current_status(ctx):
    assert "KITE-162" in [h["id"] for h in call(ctx, "search_tickets", query="AADSTS53000", status="open").data]
    call(ctx, "update_ticket", ticket_id="KITE-162", status="closed")
    assert call(ctx, "search_tickets", query="AADSTS53000", status="open").data == []
    assert [h["id"] for h in call(ctx, "search_tickets", query="AADSTS53000", status="closed").data] == ["KITE-162"]


def test_like_a_ticket(ctx):
    result = call(ctx, "search_tickets", like_ticket_id="kite-162")
    assert [h["id"] for h in result.data if h["tier"] == "likely"] == ["KITE-166"]
    hit = result.data[0]
    assert {"id", "title", "customer", "status", "matched"} <= hit.keys() and hit["matched"]
    alone = call(ctx, "search_tickets", like_ticket_id="KITE-214")  # a problem no other ticket has
    assert '"likely_same_problem": []' in alone.text and all(h["tier"] == "worth_a_look" for h in alone.data)
    assert "No ticket 'KITE-999'" in call(ctx, "search_tickets", like_ticket_id="KITE-999").text
    assert "no searchable words" in call(ctx, "search_tickets", query="  ").text
    with_words = call(ctx, "search_tickets", like_ticket_id="KITE-142", query="certificate", limit=3).data
    assert "KITE-142" not in [h["id"] for h in with_words]


def test_help_hits_show_the_lines_that_matched(ctx):
    result = call(ctx, "search_help", query="AADSTS53003 on the warehouse scanners", limit=2)
    first = result.data[0]
    assert first["id"] == "sign-in-problems#3" and "AADSTS53003" in first["matched"][0]
    assert result.text.startswith("[sign-in-problems#3] Blocked by your organisation's access policy — ")


FIRST_SEARCH_SETTLES = """
import gc, sys
from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk
from tools import REGISTRY, ToolContext, execute

url = sys.argv[1]
settings = Settings(database_url=url)
db = Database.from_url(url)
create_schema(db.engine)
seed_desk(db, settings.data_dir)
before = gc.get_freeze_count()
assert not execute(REGISTRY, ToolContext(db=db, settings=settings), "search_help", {"query": "sso"}).is_error
walked = len(gc.get_objects())  # what a full collection walks now
print(before, gc.get_freeze_count(), walked)
"""


def test_the_first_search_of_a_process_moves_what_is_alive_out_of_full_collections(tmp_path):
    """A full garbage collection used to walk everything imported and loaded (55-80 ms on these machines, landing
    in whichever search came next); after the first search of a process it walks only what came since."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", FIRST_SEARCH_SETTLES, f"sqlite:///{tmp_path}/settle.db"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    before, frozen, walked = (int(x) for x in done.stdout.split())
    assert before == 0 and frozen > 50_000  # the libraries, what the first search read
    assert walked < frozen / 10


def test_settling_hands_freed_memory_back_on_glibc():
    import platform

    from bot import heap

    heap.settle("a test")
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert heap._malloc_trim, "malloc_trim is found in the C library the interpreter runs on"
