"""Search over the desk: candidates from the database's own full-text index (FTS5 on SQLite, a GIN index on
PostgreSQL), ranked in Python by one BM25F over their stored analysis and the desk's statistics, so nothing of
the desk stays in a process's memory. See ranking.py for the searches, analyzer.py for the terms."""

from bot.search.catch_up import index_ticket, index_tickets
from bot.search.ranking import Hit, UnknownTicket, search_help, search_tickets, similar_tickets
from bot.search.words import EmptyQuery

__all__ = ["EmptyQuery", "Hit", "UnknownTicket", "index_ticket", "index_tickets", "search_help", "search_tickets", "similar_tickets"]
