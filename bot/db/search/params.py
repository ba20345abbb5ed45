"""Ranking parameters. Tuned on the tuning half of the evaluation set (`python -m bench.search_tune`),
never on the held-out half; `python -m bench.search_eval` reports both halves."""

from __future__ import annotations

from dataclasses import dataclass

from bot.db.search.bm25f import FieldParams


@dataclass(frozen=True)
class SearchParams:
    help: FieldParams = FieldParams(weights=(2.0, 1.0, 1.0), b=(0.5, 0.5, 0.75), k1=1.2)  # heading, article, body
    tickets: FieldParams = FieldParams(weights=(2.0, 1.5, 1.0, 1.5, 0.5), b=(0.5, 0.3, 0.75, 0.5, 0.75), k1=1.2)
    phrase_weight: float = 0.5  # a word that is part of a synonym phrase, next to the phrase's concept
    max_terms: int = 12  # a longer query keeps its rarest words
    # "like this ticket": how much each of its fields contributes to the query (title, tags, first, errors, rest)
    like_fields: tuple[float, ...] = (1.0, 1.0, 0.6, 1.0, 0.3)
    like_terms: int = 24
    like_min_similarity: float = 0.25  # a hit scores at least this share of the ticket's own score


PARAMS = SearchParams()
