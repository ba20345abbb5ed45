"""The lines of a document that matched a query, so the model (and a person) sees why it is a hit."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from bot.search.analyzer import Analyzer

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def matched_lines(analyzer: Analyzer, texts: Iterable[str], query: Mapping[str, float],
                  idf: Callable[[str], float], limit: int = 2, width: int = 180) -> list[str]:
    """Up to `limit` sentences holding the most (rarest) query terms, best first."""
    scored = []
    for position, sentence in enumerate(s.strip() for text in texts for s in _SENTENCE.split(text)):
        if not sentence:
            continue
        found = analyzer.term_set(sentence) & query.keys()
        if found:
            scored.append((-sum(query[t] * idf(t) for t in sorted(found)), position, sentence))
    return [_clip(sentence, width) for _, _, sentence in sorted(scored)[:limit]]


def _clip(sentence: str, width: int) -> str:
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= width else sentence[: width - 1].rstrip() + "…"
