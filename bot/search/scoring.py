"""BM25F (bm25f.py) over a search's candidates: their stored analysis against the desk's statistics.

score(d, q) = Σ_t  q_t · idf(t) · tf'(t, d) · (k1 + 1) / (k1 + tf'(t, d))
tf'(t, d)   = Σ_f  w_f · tf(t, d, f) / (1 − b_f + b_f · len(d, f) / avglen(f))

The documents are the few hundred candidates the database's full-text index offered (fts.py); df, the number
of documents and the field lengths are the whole desk's (terms.py). So a candidate gets the score it would get
if every document were scored, and the ranking does not depend on the database.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bot.search.bm25f import FieldParams
from bot.search.persist import Stored
from bot.search.terms import Totals


def idf(df: int, docs: int) -> float:
    return math.log(1 + (docs - df + 0.5) / (df + 0.5))


@dataclass(frozen=True)
class Desk:
    """The statistics a score needs: the kind's totals and the df of the terms in play (by number)."""

    totals: Totals
    df: Mapping[int, int]

    def idf(self, number: int) -> float:
        return idf(self.df.get(number, 0), self.totals.docs)

    def norm(self, params: FieldParams) -> tuple[tuple[float, float, float], ...]:
        n = self.totals.docs
        return tuple((w, 1 - b, b * n / total if total else 0.0)
                     for w, b, total in zip(params.weights, params.b, self.totals.lengths, strict=True))


def tf_rows(tfs: np.ndarray, lengths: np.ndarray, norm: tuple[tuple[float, float, float], ...]) -> np.ndarray:
    """tf' = Σ_f w_f · tf_f / (1 − b_f + b_f · len_f / avg_f), field by field in order, for rows of field
    frequencies; `lengths` are the rows' documents' field lengths."""
    tf = np.zeros(len(tfs), dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for f, (w, one_minus_b, b_avg) in enumerate(norm):
            counts = tfs[:, f].astype(np.float64)
            tf = tf + np.where(counts > 0, w * counts / (one_minus_b + b_avg * lengths[:, f]), 0.0)
    return tf


def scores(docs: Sequence[Stored], query: Mapping[int, float], desk: Desk, params: FieldParams) -> list[float | None]:
    """Each document's BM25F score under `query` (term number → weight), None for one matching no query term.
    Contributions are added term by term in the query's order."""
    numbers = [n for n, w in query.items() if w > 0 and desk.df.get(n, 0) > 0]
    if not docs or not numbers:
        return [None] * len(docs)
    k1, norm = params.k1, desk.norm(params)
    boosts = np.array([query[n] * desk.idf(n) * (k1 + 1) for n in numbers], dtype=np.float64)
    hit = np.zeros((len(docs), len(numbers)), dtype=bool)
    tf = np.zeros((len(docs), len(numbers)), dtype=np.float64)
    # every document's terms at once: which of them the query holds, and in which of its columns
    counts = np.fromiter((len(doc.terms) for doc in docs), dtype=np.int64, count=len(docs))
    if counts.sum():
        held = np.concatenate([doc.terms for doc in docs])
        columns = np.array(numbers, dtype=np.int64)
        order = np.argsort(columns, kind="stable")
        wanted = columns[order]
        at = np.minimum(np.searchsorted(wanted, held), len(wanted) - 1)
        found = wanted[at] == held
        r = np.repeat(np.arange(len(docs)), counts)[found]
        c = order[at[found]]
        tfs = np.concatenate([doc.tfs for doc in docs])[found]
        lengths = np.stack([doc.lengths for doc in docs]).astype(np.float64)[r]
        hit[r, c] = True
        tf[r, c] = tf_rows(tfs, lengths, norm)
    parts = np.where(hit, boosts[None, :] * tf / (k1 + tf), 0.0)
    totals = np.add.accumulate(parts, axis=1)[:, -1]  # a running sum in the query's order
    matched = np.asarray(hit.any(axis=1), dtype=bool)
    return [float(total) if m else None for total, m in zip(totals.tolist(), matched.tolist(), strict=True)]


def ranked(docs: Sequence[Stored], found: Sequence[float | None], limit: int | None,
           exclude: str | None = None) -> list[tuple[Stored, float]]:
    """The matching documents best first; ties (to 9 digits) by the newer document, then key."""
    items = [(doc, score) for doc, score in zip(docs, found, strict=True) if score is not None and doc.key != exclude]
    items.sort(key=lambda item: (-round(item[1], 9), -item[0].updated, item[0].key))
    return items if limit is None else items[:limit]
