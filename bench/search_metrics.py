"""Metrics of the search evaluation: help recall@k and MRR, similar-ticket recall@5 and precision@5."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class HelpCase:
    query: str
    answers: frozenset[str]
    kind: str
    half: str  # "tune" or "held-out"


@dataclass(frozen=True)
class SimilarCase:
    ticket: str
    same: frozenset[str]  # the other tickets with the same root cause
    near_misses: frozenset[str]
    half: str


def help_scores(ranked: Sequence[str], answers: frozenset[str]) -> dict[str, float]:
    first = next((i for i, key in enumerate(ranked) if key in answers), None)
    return {"help_r1": float(first == 0), "help_r2": float(first is not None and first < 2),
            "help_mrr": 0.0 if first is None else 1.0 / (first + 1)}


def similar_scores(returned: Sequence[str], case: SimilarCase, k: int = 5) -> dict[str, float]:
    top = list(returned)[:k]
    found = len(case.same.intersection(top))
    return {"sim_r5": found / min(k, len(case.same)),
            "sim_p5": found / len(top) if top else 0.0,
            "near_miss": float(bool(case.near_misses.intersection(top)))}


def average_precision(ranked: Sequence[str], relevant: frozenset[str]) -> float:
    """The mean over the relevant documents of the precision at the rank where each was found (0 if never)."""
    hits, total = 0, 0.0
    for rank, key in enumerate(ranked, start=1):
        if key in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant) if relevant else 0.0


def mean(rows: Sequence[dict[str, float]], key: str) -> float:
    values = [row[key] for row in rows if key in row]
    return statistics.fmean(values) if values else float("nan")


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))] if ordered else float("nan")
