"""Ranking parameters. Tuned on the tuning half of the evaluation set (`python -m bench.search_tune`),
never on the held-out half; `python -m bench.search_eval` reports both halves."""

from __future__ import annotations

from dataclasses import dataclass

from bot.search.bm25f import FieldParams


@dataclass(frozen=True)
class SearchParams:
    help: FieldParams = FieldParams(weights=(1.5, 1.0, 1.0), b=(0.75, 0.0, 0.9), k1=2.0)  # heading, article, body
    tickets: FieldParams = FieldParams(weights=(1.5, 1.5, 3.0, 1.5, 0.5), b=(0.5, 0.0, 0.75, 0.0, 0.75), k1=1.2)
    phrase_weight: float = 0.5  # a word that is part of a synonym phrase, next to the phrase's concept
    max_terms: int = 24  # a longer query keeps its rarest words
    # "like this ticket": how much each of its fields contributes to the query (title, tags, first, errors, rest)
    like_fields: tuple[float, ...] = (1.0, 0.6, 2.0, 1.0, 2.0)
    like_terms: int = 48
    like_seed_terms: int = 16  # candidates are the best matches of the ticket's rarest terms...
    like_pool: int = 200  # ... this many of them
    # how many candidates are checked both ways (a cost: set by the latency at 100,000 tickets, not tuned):
    like_candidates: int = 8  # the best forward matches by words
    like_vector_candidates: int = 4  # ... and the closest by vector (vectors.py) among the candidates
    like_vector_weight: float = 0.6  # the vectors' share of the similarity (the words' mutual similarity: the rest)
    like_min_similarity: float = 0.35  # blended similarity a hit needs
    like_relative: float = 0.85  # ... and this share of the best hit's similarity


PARAMS = SearchParams()
