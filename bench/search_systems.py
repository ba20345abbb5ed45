"""The searches the evaluation compares, all reading the same seeded database.

- `kitebase`: the agent's tools exactly as `kitebase search help|tickets --like` call them;
- `engine FTS (before)`: the database's own full-text search as the tools used it before
  (SQLite FTS5 bm25 / PostgreSQL ts_rank; `--like` searched the ticket's title and tags), its tables
  built in the scratch database from the seeded rows (bench/engine_fts.py);
- `BM25 (bm25s)`: plain BM25 over the same text (English stop words, the same Snowball stemmer), for
  similar tickets the ticket's title, tags and first message as the query, cut (like ours) at a share
  of its own score and a share of the best hit's, both chosen on the tuning half.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import bm25s
import snowballstemmer
from sqlmodel import col, select

from bench import engine_fts
from bot.db.engine import Database
from bot.db.models import HelpSection, Ticket, TicketMessage
from bot.search.words import query_terms
from tools import REGISTRY, ToolContext, execute


class Timed:
    """Keeps the latency of every call, in milliseconds."""

    def __init__(self) -> None:
        self.ms: dict[str, list[float]] = {"help": [], "tickets": []}

    def run(self, kind: str, fn: Callable[[], list[str]]) -> list[str]:
        started = time.perf_counter()
        result = fn()
        self.ms.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
        return result


class KitebaseTools(Timed):
    name = "kitebase"

    def __init__(self, ctx: ToolContext):
        super().__init__()
        self.ctx = ctx
        self.given: dict[str, tuple[list[str], int]] = {}  # like a ticket: both tiers' ids, the result's tokens

    def help(self, query: str) -> list[str]:
        return self.run("help", lambda: self._ids("search_help", {"query": query, "limit": 5}))

    def similar(self, ticket_id: str) -> list[str]:
        """The "likely the same problem" tier (what the search judged); both tiers and the size of what the
        model is given are kept in `given`."""
        def search() -> list[str]:
            result = execute(REGISTRY, self.ctx, "search_tickets", {"like_ticket_id": ticket_id, "limit": 5})
            if result.is_error:
                raise RuntimeError(result.text)
            hits = result.data or []
            self.given[ticket_id] = ([hit["id"] for hit in hits], tokens(result.text))
            return [hit["id"] for hit in hits if hit.get("tier", "likely") == "likely"]
        return self.run("tickets", search)

    def ticket_words(self, query: str) -> list[str]:
        """Tickets by words (timed only: the set judges help answers and similar tickets; the tool takes 500
        characters of query)."""
        return self.run("words", lambda: self._ids("search_tickets", {"query": query[:500], "limit": 5}))

    def _ids(self, tool: str, arguments: dict) -> list[str]:
        result = execute(REGISTRY, self.ctx, tool, arguments)
        if result.is_error:
            raise RuntimeError(result.text)
        return [hit["id"] for hit in result.data]


def tokens(text: str) -> int:
    """The tokens of a tool result as the Llama 2 tokenizer cuts it (it ships with wordllama, which the search's
    vectors use). Claude's own tokenizer is not published; a 32,000-token vocabulary cuts English and JSON into
    more pieces than larger vocabularies do, so this errs high (about 3.2 characters a token on these results,
    against the 4 the Messages API stand-in assumes)."""
    return len(_llama().encode(text).ids)


_TOKENIZER: list[object] = []


def _llama():  # type: ignore[no-untyped-def]
    if not _TOKENIZER:
        from tokenizers import Tokenizer

        from bot.search.vectors import TOKENIZER_FILE, model_files

        tokenizer = Tokenizer.from_file(str(model_files().joinpath(*TOKENIZER_FILE)))
        tokenizer.no_truncation()
        tokenizer.no_padding()
        _TOKENIZER.append(tokenizer)
    return _TOKENIZER[0]


class EngineFts(Timed):
    name = "engine FTS (before)"

    def __init__(self, db: Database):
        super().__init__()
        self.db = db
        engine_fts.build(db)  # the product no longer keeps these tables

    def help(self, query: str) -> list[str]:
        def search() -> list[str]:
            with self.db.session() as session:
                return [key for key, _ in engine_fts.search_help_ids(session, query_terms(query), limit=5)]
        return self.run("help", search)

    def similar(self, ticket_id: str) -> list[str]:
        def search() -> list[str]:
            with self.db.session() as session:
                ticket = session.get(Ticket, ticket_id)
                terms = query_terms(" ".join([ticket.title, *(ticket.tags or [])]))
                return [key for key, _ in engine_fts.search_ticket_ids(session, terms, status=None, limit=5,
                                                                        exclude=ticket_id)]
        return self.run("tickets", search)


class PlainBm25(Timed):
    name = "BM25 (bm25s)"

    def __init__(self, db: Database):
        super().__init__()
        self._stem = snowballstemmer.stemmer("english").stemWords
        with db.session() as session:
            sections = session.exec(select(HelpSection).order_by(col(HelpSection.id))).all()
            tickets = session.exec(select(Ticket).order_by(col(Ticket.id))).all()
            messages: dict[str, list[str]] = {}
            for ticket_id, body in session.exec(select(TicketMessage.ticket_id, TicketMessage.body)
                                                .order_by(col(TicketMessage.created_at), col(TicketMessage.id))):
                messages.setdefault(ticket_id, []).append(body)
        self.help_ids = [s.id for s in sections]
        self.help_index = self._index([f"{s.heading}\n{s.article_title}\n{s.body}" for s in sections])
        self.ticket_ids = [t.id for t in tickets]
        self.ticket_text = {t.id: " ".join([t.title, *(t.tags or [])]) + "\n" + "\n".join(messages.get(t.id, []))
                            for t in tickets}
        self.like_text = {t.id: " ".join([t.title, *(t.tags or []), *messages.get(t.id, [])[:1]]) for t in tickets}
        self.ticket_index = self._index([self.ticket_text[i] for i in self.ticket_ids])
        self.cutoff = (0.0, 0.0)  # (share of the ticket's own score, share of the best hit's)

    def _tokens(self, texts: list[str]) -> list[list[str]]:
        return bm25s.tokenize(texts, stopwords="en", stemmer=self._stem, return_ids=False, show_progress=False)

    def _index(self, texts: list[str]) -> bm25s.BM25:
        index = bm25s.BM25()
        index.index(self._tokens(texts), show_progress=False)
        return index

    def _retrieve(self, index: bm25s.BM25, ids: list[str], text: str, k: int) -> list[tuple[str, float]]:
        tokens = self._tokens([text])
        if not tokens[0]:
            return []
        docs, scores = index.retrieve(tokens, k=min(k, len(ids)), show_progress=False)
        return [(ids[d], float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    def help(self, query: str) -> list[str]:
        return self.run("help", lambda: [k for k, _ in self._retrieve(self.help_index, self.help_ids, query, 5)])

    def similar_scored(self, ticket_id: str) -> list[tuple[str, float]]:
        """Other tickets with their share of the ticket's own score, best first."""
        ranked = self._retrieve(self.ticket_index, self.ticket_ids, self.like_text[ticket_id], 6)
        own = dict(ranked).get(ticket_id) or (ranked[0][1] if ranked else 1.0)
        return [(key, score / own) for key, score in ranked if key != ticket_id][:5]

    def similar(self, ticket_id: str) -> list[str]:
        return self.run("tickets", lambda: self.cut(self.similar_scored(ticket_id), *self.cutoff))

    @staticmethod
    def cut(scored: list[tuple[str, float]], own_share: float, best_share: float) -> list[str]:
        best = max((share for _, share in scored), default=0.0)
        return [key for key, share in scored if share >= max(own_share, best_share * best)]
