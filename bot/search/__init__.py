"""Search over the desk: one BM25F ranking in Python over an index built from the database rows, so
SQLite and PostgreSQL rank the same. See ranking.py for the searches, analyzer.py for the terms."""

from bot.search.ranking import Hit, UnknownTicket, search_help, search_tickets, similar_tickets
from bot.search.store import index_ticket, index_tickets
from bot.search.words import EmptyQuery

__all__ = ["EmptyQuery", "Hit", "UnknownTicket", "index_ticket", "index_tickets", "search_help", "search_tickets", "similar_tickets"]
