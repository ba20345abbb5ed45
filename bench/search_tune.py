"""Tune the ranking parameters on the tuning half of the evaluation set only: `python -m bench.search_tune`.

Coordinate ascent over a coarse grid per parameter (two passes), on SQLite (the ranking is the same on
PostgreSQL). For similar tickets, the words' parameters first, words alone (recall@5 + precision@5), then
the vectors' share of the blend by how well it orders the candidates before any cut-off (mean average
precision: recall@5 + precision@5 is nearly saturated by the words alone on the tuning half and cannot tell
blends apart), then the cut-offs for that blend. Prints the best parameters as Python to paste into
bot/search/params.py; the held-out half is never looked at here. `python -m bench.search_eval` then reports both halves.
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
from collections.abc import Callable

from bench.search_eval import fresh_database, load_cases
from bench.search_metrics import average_precision, help_scores, mean, similar_scores
from bot import search
from bot.search.bm25f import FieldParams
from bot.search.params import PARAMS, SearchParams

GRID = {"w": (0.5, 1.0, 1.5, 2.0, 3.0, 4.0), "b": (0.0, 0.25, 0.5, 0.75, 0.9), "k1": (0.6, 0.9, 1.2, 1.6, 2.0)}


def _field_steps(name: str, fp: FieldParams) -> list[tuple[str, Callable[[SearchParams, float], SearchParams], tuple]]:
    steps = [(f"{name}.k1", lambda p, v: dataclasses.replace(p, **{name: dataclasses.replace(
        getattr(p, name), k1=v)}), GRID["k1"])]
    for i in range(len(fp.weights)):
        steps.append((f"{name}.w[{i}]", _set_tuple(name, "weights", i), GRID["w"]))
        steps.append((f"{name}.b[{i}]", _set_tuple(name, "b", i), GRID["b"]))
    return steps


def _set_tuple(name: str, attr: str, i: int) -> Callable[[SearchParams, float], SearchParams]:
    def apply(p: SearchParams, v: float) -> SearchParams:
        fp = getattr(p, name)
        values = list(getattr(fp, attr))
        values[i] = v
        return dataclasses.replace(p, **{name: dataclasses.replace(fp, **{attr: tuple(values)})})
    return apply


def _like_field(i: int) -> Callable[[SearchParams, float], SearchParams]:
    def apply(p: SearchParams, v: float) -> SearchParams:
        values = list(p.like_fields)
        values[i] = v
        return dataclasses.replace(p, like_fields=tuple(values))
    return apply


def _plain(attr: str) -> Callable[[SearchParams, float], SearchParams]:
    return lambda p, v: dataclasses.replace(p, **{attr: v})


def coordinate_ascent(params: SearchParams, steps, score: Callable[[SearchParams], float]) -> SearchParams:
    best = score(params)
    for _ in range(2):
        for label, apply, values in steps:
            for value in values:
                candidate = apply(params, value)
                quality = score(candidate)
                if quality > best + 1e-9:
                    best, params = quality, candidate
                    print(f"  {label} = {value}: {best:.4f}")
    return params


def main() -> int:
    help_cases, similar = load_cases()
    help_tune = [c for c in help_cases if c.half == "tune"]
    similar_tune = [c for c in similar if c.half == "tune"]
    with tempfile.TemporaryDirectory() as scratch:
        db, _ = fresh_database("SQLite", None, scratch)
        with db.session() as session:
            def help_quality(p: SearchParams) -> float:
                rows = [help_scores([h.id for h in search.search_help(session, c.query, limit=5, params=p)], c.answers)
                        for c in help_tune]
                return mean(rows, "help_r2") + mean(rows, "help_mrr")

            def similar_quality(p: SearchParams) -> float:
                rows = [similar_scores([h.id for h in search.similar_tickets(session, c.ticket, limit=5, params=p)], c)
                        for c in similar_tune]
                return mean(rows, "sim_r5") + mean(rows, "sim_p5")

            print("help (recall@2 + MRR on the tuning half):")
            help_steps = _field_steps("help", PARAMS.help) + [
                ("phrase_weight", _plain("phrase_weight"), (0.0, 0.25, 0.5, 0.75, 1.0)),
                ("max_terms", _plain("max_terms"), (6, 8, 10, 12, 16, 24))]
            params = coordinate_ascent(PARAMS, help_steps, help_quality)
            print("similar tickets (recall@5 + precision@5 on the tuning half):")
            cut_offs = [  # first, so that the words' parameters are judged at their own best cut-offs
                ("like_min_similarity", _plain("like_min_similarity"), tuple(round(0.05 * i, 2) for i in range(16))),
                ("like_relative", _plain("like_relative"), (0.0, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9))]
            similar_steps = cut_offs + _field_steps("tickets", params.tickets) + [
                (f"like_fields[{i}]", _like_field(i), (0.0, 0.3, 0.6, 1.0, 1.5, 2.0)) for i in range(5)] + [
                ("like_terms", _plain("like_terms"), (8, 12, 16, 24, 32, 48))]
            # like_candidates and like_vector_candidates (how many candidates are checked both ways) are a cost,
            # set by the like-ticket latency at 100,000 tickets (bench item 7), not tuned here
            words_alone = coordinate_ascent(dataclasses.replace(params, like_vector_weight=0.0), similar_steps,
                                            similar_quality)

            def ranking_quality(p: SearchParams) -> float:
                """Mean average precision of the candidates in blended order, before any cut-off."""
                open_ = dataclasses.replace(p, like_min_similarity=0.0, like_relative=0.0)
                return statistics.fmean(average_precision(
                    [h.id for h in search.similar_tickets(session, c.ticket, limit=50, params=open_)], c.same)
                    for c in similar_tune)

            print("the vectors' share of the similarity (mean average precision before the cut-offs):")
            params = coordinate_ascent(words_alone,  # from the words alone (a share of 0): found, not confirmed
                                       [("like_vector_weight", _plain("like_vector_weight"),
                                         (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8))], ranking_quality)
            print("the cut-offs for that blend (recall@5 + precision@5):")
            params = coordinate_ascent(params, cut_offs, similar_quality)
        db.engine.dispose()
    print("\nPARAMS =", params)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
