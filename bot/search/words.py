"""Plain search words from free text, shared by the analyser, the tools and the offline model.

Queries are reduced to plain words, so operators, quotes and punctuation typed by a person or a model are
searched for as words, never interpreted.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
STOPWORDS = frozenset(
    ["a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being", "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "me", "more", "most", "my", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "hi", "hello", "thanks", "thank", "please", "customer", "customers", "ticket", "tickets", "kitebase", "near"]
)
MAX_TERMS = 16


class EmptyQuery(ValueError):
    """The query has no searchable words once operators and stop words are removed."""


def query_terms(query: str) -> list[str]:
    """Plain lower-case search words from free text, stop words and duplicates dropped."""
    seen: list[str] = []
    for match in _WORD.finditer(query.lower()):
        word = match.group(0).replace("’", "'").split("'")[0]
        if len(word) < 2 or word in STOPWORDS or word in seen:
            continue
        seen.append(word)
    if not seen:
        raise EmptyQuery(query)
    return seen[:MAX_TERMS]
