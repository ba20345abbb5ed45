"""Search engine, measured before keeping: `python -m bench.search_engines [--tickets 100000] [--sections 10000]`.

Two engines under the same analyser and the same ranking code, on the same data:

- `packed`: the product's engine (bot/search/packed.py, BM25F over fields), used as the product uses it;
  on the evaluation desk also through the agent's tools (`kitebase`, as `python -m bench.search_eval`);
- `bm25s`: the bm25s library (the test extra's BM25, numpy backend: numba and scipy are not installed) fed
  the terms of the project's analyser (bot.search.analyzer.Analyzer through persist.analyse: the same stems,
  synonym concepts and field split; typo correction at query time against the surface words of the
  documents, as the product does). The glue, `Bm25sIndex` below, offers the methods of PackedIndex that
  bot/search/ranking.py calls, so `query_weights` (typos, phrase weights, the 24 rarest terms) and `_mutual`
  (like-ticket candidates, checks both ways, blended with the same ticket vectors) run unchanged over it.

How fields are approximated (bm25s scores one bag of words per document, with one k1 and one b):

- `bm25s-fields`: one bm25s index per field (tickets: title, tags, first message, error text, the rest; help:
  heading, article title, body), each with that field's b (params.py) and the common k1; a document's score is
  the sum over fields of the field weight × that field's BM25 (query terms weighted as the product weights
  them). So each field saturates on its own and each field has its own idf, where BM25F adds the weighted,
  length-normalised frequencies of all fields first and saturates once, with one idf.
- `bm25s-repeat`: one index; each field's terms repeated 2 × its weight times (the weights are multiples of
  0.5: tickets 3, 3, 6, 3, 1; help 3, 2, 2), so a term's frequency is the weighted sum over fields, as in BM25F,
  but the length normalisation is over the whole (weighted) document with one b for all fields.

Per-term query weights (phrase words 0.5, like-ticket weights) are applied by calling bm25s' `get_scores_from_ids`
once per distinct weight; scoring a few given documents (ranking's `score_keys`, `like_checks`) reads bm25s'
own score matrix (`BM25.scores`: per term, the documents holding it and their precomputed BM25 impact),
because bm25s has no per-document scoring. bm25s cannot add or change a document: a change re-indexes
everything, from each document's stored analysis (which the product keeps in the database; here a list
in memory, not counted in the index's memory). Deleting could use `weight_mask`; it is not needed here.

Quality (evaluation set, bench/search_set/, loaded and scored by bench.search_eval's own functions): each
engine with the product's parameters (params.py; `bm25s-repeat` with b = 0.75 for its one document), and bm25s
also re-tuned on the tuning half by bench.search_tune's procedure (its coordinate ascent and grids; for
`bm25s-repeat` one b for all fields); bench.search_eval's plain bm25s baseline is shown for reference. Desk
latency is the ranking alone for every engine (query analysis and ranking, no database rows, no matched lines),
and for the product also through the agent's tools.

At scale (bench/desk.py's generated tickets and help sections; each engine with the product's parameters, so
both do the same work per query) each engine is built and measured in a fresh process of its own, from the
same analysis and vectors computed once beforehand: build time, resident memory after the build (the
process's resident set before and after, after collecting and trimming as bot/heap.py does on a load; the
peak is Linux's VmHWM, reset before the build), p50/p99 of the ranking for the evaluation's 168 help questions
(against the sections, and against the tickets: "by words") and of like-ticket searches for 50 tickets, and
the cost of changing one ticket (a message added; the packed engine takes it into its overlay, and is timed
again with its overlay full, just before it repacks; bm25s re-indexes everything). Prints one table; `--json
PATH` also writes the figures.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import gc
import inspect
import io
import json
import math
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from bench.common import ROOT, commit, machine, pct
from bench.search_eval import HALVES, evaluate, fresh_database, load_cases, summary, tune_bm25_cutoff
from bench.search_metrics import average_precision, help_scores, mean, similar_scores
from bench.search_systems import KitebaseTools, PlainBm25, Timed
from bench.search_tune import GRID, _field_steps, _like_field, _plain, coordinate_ascent
from bot import heap
from bot.search import persist, vectors
from bot.search.bm25f import FieldParams
from bot.search.documents import HELP_FIELDS, TICKET_FIELDS, Document
from bot.search.packed import REBUILD_MIN, REBUILD_SHARE, PackedIndex
from bot.search.params import PARAMS, SearchParams
from bot.search.ranking import _mutual, like_weights, query_weights
from bot.search.words import EmptyQuery

ENGINES = ("packed", "bm25s-fields", "bm25s-repeat")
CHANGED = "\nThanks, re-adding the SAML signing certificate in Okta fixed it; closing (order 4711)."


# --- the glue bm25s needs (its lines of code are counted against packed.py's) --------------------------------

class Bm25sIndex:
    """The methods of packed.PackedIndex that bot/search/ranking.py calls, over bm25s indexes of the
    analyser's terms (see the module's text for how fields are approximated). `stored`: each document's
    analysis (persist.Analysis), as the database holds it; re-read for like-queries and for re-indexing."""

    def __init__(self, params: FieldParams, mode: str, keys: list[str], updated: Sequence[float],
                 stored: list[persist.Analysis], found: np.ndarray | None = None):
        self.params, self.mode, self.stored = params, mode, stored
        self.keys = list(keys)
        self.slot_of = {key: i for i, key in enumerate(self.keys)}
        self.updated = np.asarray(updated, dtype=np.float64)
        self.vectors = None if found is None else np.array(found, dtype=np.float16)  # (a copy: the index's own)
        self.df = Counter(t for a in stored for t in a.terms)  # term -> documents (idf, the rarest terms)
        self.words = Counter(w for a in stored for w in a.words)  # surface word -> documents (typos)
        self._index()

    def _index(self) -> None:
        """bm25s indexes of every document (there is no other way to add or change one)."""
        fields = len(self.params.weights)
        repeat = [round(2 * w) for w in self.params.weights]
        self.indexes: list[tuple[int, float, bm25s.BM25]] = []  # (field, its weight, its index)
        for f in range(fields if self.mode == "fields" else 1):
            if self.mode == "fields":
                corpus = [[t for t, tfs in a.terms.items() for t in (t,) * tfs[f]] for a in self.stored]
            else:
                corpus = [[t for t, tfs in a.terms.items()
                           for t in (t,) * sum(c * r for c, r in zip(tfs, repeat, strict=True))] for a in self.stored]
            if any(corpus):
                index = bm25s.BM25(k1=self.params.k1, b=self.params.b[f], method="lucene")
                index.index(corpus, show_progress=False)
                self.indexes.append((f, self.params.weights[f] if self.mode == "fields" else 1.0, index))

    def put(self, key: str, updated: float, analysis: persist.Analysis, vector: np.ndarray | None) -> None:
        """Add or replace one document: everything is indexed again."""
        slot = self.slot_of.get(key)
        if slot is None:
            slot = self.slot_of[key] = len(self.keys)
            self.keys.append(key)
            self.stored.append(analysis)
            self.updated = np.append(self.updated, updated)
            if self.vectors is not None:
                self.vectors = np.vstack([self.vectors, np.zeros((1, self.vectors.shape[1]), np.float16)])
        else:
            _count(self.df, self.stored[slot].terms, -1)
            _count(self.words, self.stored[slot].words, -1)
            self.stored[slot], self.updated[slot] = analysis, updated
        _count(self.df, analysis.terms, 1)
        _count(self.words, analysis.words, 1)
        if self.vectors is not None and vector is not None:
            self.vectors[slot] = vector
        self._index()

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, key: object) -> bool:
        return key in self.slot_of

    def updated_of(self, key: str) -> float:
        return float(self.updated[self.slot_of[key]])

    def df_of(self, term: str) -> int:
        return self.df.get(term, 0)

    def idf_of_df(self, df: int) -> float:
        return math.log(1 + (len(self.keys) - df + 0.5) / (df + 0.5))

    def idf(self, term: str) -> float:
        return self.idf_of_df(self.df_of(term))

    def scores(self, query: Mapping[str, float], params: FieldParams) -> tuple[np.ndarray, np.ndarray]:
        """Every document's score (the field-weighted sum of bm25s' scores, query terms weighted), and which
        documents matched a term."""
        assert params == self.params, "a bm25s index is built for one set of parameters"
        scores = np.zeros(len(self.keys), dtype=np.float64)
        for _, field_weight, index in self.indexes:
            by_weight: dict[float, list[int]] = {}
            for term, weight in query.items():
                number = index.vocab_dict.get(term)
                if number is not None and weight > 0:
                    by_weight.setdefault(weight, []).append(number)
            for weight, numbers in by_weight.items():
                scores += field_weight * weight * index.get_scores_from_ids(numbers)
        return scores, scores > 0

    def _some(self, query: Mapping[str, float], slots: list[int]) -> np.ndarray:
        """The scores of a few documents only, read from bm25s' score matrix (a term's documents are sorted)."""
        if len(slots) <= 2:
            return np.array([self._one(query, slot) for slot in slots], dtype=np.float64)
        at_slots = np.asarray(slots, dtype=np.int64)
        out = np.zeros(len(slots), dtype=np.float64)
        for term, weight in query.items():
            for _, field_weight, index in self.indexes:
                number = index.vocab_dict.get(term)
                if number is None or weight <= 0:
                    continue
                start, end = int(index.scores["indptr"][number]), int(index.scores["indptr"][number + 1])
                documents = index.scores["indices"][start:end]
                at = np.minimum(np.searchsorted(documents, at_slots), end - start - 1)
                hit = documents[at] == at_slots
                out[hit] += field_weight * weight * index.scores["data"][start:end][at[hit]]
        return out

    def _one(self, query: Mapping[str, float], slot: int) -> float:
        """One document's score: only the terms (and fields) its stored analysis holds are looked up."""
        held, total = self.stored[slot].terms, 0.0
        for term, weight in query.items():
            tfs = held.get(term)
            if tfs is None or weight <= 0:
                continue
            for f, field_weight, index in self.indexes:
                if self.mode == "fields" and not tfs[f]:
                    continue
                number = index.vocab_dict[term]
                start, end = int(index.scores["indptr"][number]), int(index.scores["indptr"][number + 1])
                at = start + int(np.searchsorted(index.scores["indices"][start:end], slot))
                total += field_weight * weight * float(index.scores["data"][at])
        return total

    def score_keys(self, query: Mapping[str, float], params: FieldParams, keys: Iterable[str]) -> dict[str, float]:
        slots = [self.slot_of[key] for key in dict.fromkeys(keys) if key in self.slot_of]
        return {self.keys[s]: v for s, v in zip(slots, self._some(query, slots).tolist(), strict=True) if v > 0}

    def like_terms(self, key: str, field_weights: tuple[float, ...], keep: int,
                   min_df: int = 2) -> list[tuple[str, float, int]]:
        """As PackedIndex.like_terms, with terms by name: (term, weight, df), from the stored analysis."""
        found = [(t, sum(w for w, c in zip(field_weights, tfs, strict=True) if c), self.df[t])
                 for t, tfs in self.stored[self.slot_of[key]].terms.items() if self.df[t] >= min_df]
        if len(found) <= keep:
            return sorted(found)
        return sorted(found, key=lambda term: (-term[1] * self.idf_of_df(term[2]), term[0]))[:keep]

    def like_checks(self, other: str, queries: Mapping[str, list[tuple[str, float, int]]],
                    params: FieldParams) -> dict[str, tuple[float, float]]:
        out = {}
        for key, query in queries.items():
            reached, itself = self._some({t: w for t, w, _ in query}, [self.slot_of[other], self.slot_of[key]])
            out[key] = (float(reached), float(itself))
        return out

    def cosines(self, key: str, others: Iterable[str]) -> dict[str, float]:
        if self.vectors is None or key not in self.slot_of:
            return {}
        slots = [self.slot_of[o] for o in others if o in self.slot_of]
        values = self.vectors[slots].astype(np.float32) @ self.vectors[self.slot_of[key]].astype(np.float32)
        return dict(zip([self.keys[s] for s in slots], values.tolist(), strict=True))

    def ranked(self, scores: np.ndarray, matched: np.ndarray, limit: int | None,
               exclude: str | None = None) -> list[tuple[str, float]]:
        """The best `limit` matches, ties by the newer document then key (as the product orders them)."""
        if exclude in self.slot_of:
            matched = matched.copy()
            matched[self.slot_of[exclude]] = False
        slots = _top(scores, np.flatnonzero(matched), limit, 1e-8)
        items = sorted(((self.keys[s], float(scores[s]), float(self.updated[s])) for s in slots.tolist()),
                       key=lambda item: (-round(item[1], 9), -item[2], item[0]))
        return [(key, score) for key, score, _ in items[:limit]]

    def best(self, scores: np.ndarray, matched: np.ndarray, count: int) -> list[tuple[str, float]]:
        slots = _top(scores, np.flatnonzero(matched), count, 0.0)
        items = sorted(((float(scores[s]), self.keys[s]) for s in slots.tolist()), reverse=True)
        return [(key, score) for score, key in items[:count]]


def _top(scores: np.ndarray, slots: np.ndarray, count: int | None, slack: float) -> np.ndarray:
    if count is None or len(slots) <= count:
        return slots
    values = scores[slots]
    kth = np.partition(values, len(values) - count)[len(values) - count]
    return slots[values >= kth - slack * max(1.0, abs(kth))]


def _count(counter: Counter[str], items: Iterable[str], step: int) -> None:
    for item in items:
        counter[item] += step
        if counter[item] <= 0:
            del counter[item]


def like_query(index: Any, ticket_id: str, params: SearchParams) -> dict[str, float]:
    """ranking.like_weights for the product's engine; the same query by term name for the glue."""
    if isinstance(index, PackedIndex):
        return like_weights(index, ticket_id, params)
    return {term: weight for term, weight, _ in index.like_terms(ticket_id, params.like_fields, params.like_terms)}


GLUE: tuple[Any, ...] = (Bm25sIndex, _top, _count, like_query)  # what bm25s needs on top of itself, with build_bm25s


# --- building the engines ---------------------------------------------------------------------------------

def build_packed(docs: Sequence[Document], analyses: Sequence[persist.Analysis], found: np.ndarray | None,
                 fields: int) -> tuple[PackedIndex, list[persist.Stored], float]:
    """As the product holds it: terms numbered (persist.Vocabulary), each document encoded as persist stores it,
    then loaded (the load alone is what a process starting on a stored desk does after reading the rows).
    Returns the index, the stored documents and the seconds the load alone took."""
    vocabulary = persist.Vocabulary()
    stored = [_stored(vocabulary, doc, analysis, None if found is None else found[i], fields)
              for i, (doc, analysis) in enumerate(zip(docs, analyses, strict=True))]
    index = PackedIndex(TICKET_FIELDS if fields == len(TICKET_FIELDS) else HELP_FIELDS, vocabulary)
    started = time.perf_counter()
    index.load(stored)
    return index, stored, time.perf_counter() - started


def _stored(vocabulary: persist.Vocabulary, doc: Document, analysis: persist.Analysis,
            vector: np.ndarray | None, fields: int) -> persist.Stored:
    fresh = [t for t in dict.fromkeys([*analysis.terms, *analysis.words]) if t not in vocabulary.ids]
    first = len(vocabulary.names)
    vocabulary.learn([(first + i, t) for i, t in enumerate(fresh)])
    blobs = persist.encode(analysis, vocabulary.ids, fields)
    terms = np.frombuffer(blobs["terms"], dtype=np.int32)
    return persist.Stored(doc.key, 0, doc.updated, np.frombuffer(blobs["lengths"], dtype=np.int32), terms,
                          np.frombuffer(blobs["tfs"], dtype=np.uint8).reshape(len(terms), fields),
                          np.frombuffer(blobs["words"], dtype=np.int32), vector)


def bm25s_params(params: SearchParams, mode: str) -> SearchParams:
    """The product's parameters for a bm25s engine: `repeat` has one b for all fields (0.75, bm25s' default)."""
    if mode != "bm25s-repeat":
        return params
    return dataclasses.replace(params, help=dataclasses.replace(params.help, b=(0.75,) * 3),
                               tickets=dataclasses.replace(params.tickets, b=(0.75,) * 5))


def build_bm25s(mode: str, fp: FieldParams, docs: Sequence[Document], analyses: Sequence[persist.Analysis],
                found: np.ndarray | None) -> Bm25sIndex:
    return Bm25sIndex(fp, mode.removeprefix("bm25s-"), [d.key for d in docs], [d.updated for d in docs],
                      list(analyses), found)


# --- the searches, ranking only (no rows read, no matched lines) ------------------------------------------

class Ranking(Timed):
    """An engine under the product's ranking code (bot/search/ranking.py): help and ticket words by
    `query_weights` and the engine's ranking, like-ticket by `_mutual` and similar_tickets' cut-offs."""

    def __init__(self, name: str, help_index: Any, ticket_index: Any, params: SearchParams):
        super().__init__()
        self.name, self.help_index, self.ticket_index, self.params = name, help_index, ticket_index, params

    def _top(self, index: Any, query: str, fp: FieldParams, limit: int = 5) -> list[str]:
        try:
            return [key for key, _ in index.ranked(*index.scores(query_weights(index, query, self.params), fp), limit)]
        except EmptyQuery:
            return []

    def help(self, query: str) -> list[str]:
        return self.run("help", lambda: self._top(self.help_index, query, self.params.help))

    def ticket_words(self, query: str) -> list[str]:
        return self.run("words", lambda: self._top(self.ticket_index, query[:500], self.params.tickets))

    def blended(self, ticket_id: str, params: SearchParams | None = None) -> dict[str, float]:
        """The candidates' blended similarity, before the cut-offs (ranking.similar_tickets' first half)."""
        params = params or self.params
        return _mutual(self.ticket_index, ticket_id, like_query(self.ticket_index, ticket_id, params), params)

    def cut(self, similar: dict[str, float], params: SearchParams | None = None, limit: int = 5) -> list[str]:
        """similar_tickets' cut-offs and order."""
        params = params or self.params
        best = max(similar.values(), default=0.0)
        kept = {k: s for k, s in similar.items() if s >= max(params.like_min_similarity, params.like_relative * best)}
        ordered = sorted(kept.items(), key=lambda kv: (-round(kv[1], 9), -self.ticket_index.updated_of(kv[0]), kv[0]))
        return [key for key, _ in ordered[:limit]]

    def similar(self, ticket_id: str) -> list[str]:
        return self.run("tickets", lambda: self.cut(self.blended(ticket_id)))


# --- the evaluation desk ----------------------------------------------------------------------------------

def desk_engines(db: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The product's loaded indexes (as the tools loaded them) and the desk's documents, analyses, vectors."""
    from bot.search import store
    with db.session() as session:
        packed = {"help": store.help_index(session).packed, "tickets": store.ticket_index(session).packed}
        data = {}
        for kind, name in (("help", "help"), ("ticket", "tickets")):
            keys = sorted(packed[name].slot_of)
            docs = store.documents(session, kind, keys)
            data[name] = [docs[k] for k in keys if k in docs]
    found = vectors.EMBEDDER.embed([vectors.ticket_text(d.fields) for d in data["tickets"]])
    return packed, {"help": (data["help"], [persist.analyse(d.fields) for d in data["help"]], None),
                    "tickets": (data["tickets"], [persist.analyse(d.fields) for d in data["tickets"]], found)}


class Bm25sDesk:
    """bm25s engines over the desk for any parameters (indexes remembered by their parameters, for tuning)."""

    def __init__(self, mode: str, data: dict[str, Any]):
        self.mode, self.data = mode, data
        self._built: dict[tuple[str, FieldParams], Bm25sIndex] = {}

    def index(self, kind: str, fp: FieldParams) -> Bm25sIndex:
        if (kind, fp) not in self._built:
            self._built[(kind, fp)] = build_bm25s(self.mode, fp, *self.data[kind])
        return self._built[(kind, fp)]

    def system(self, name: str, params: SearchParams) -> Ranking:
        return Ranking(name, self.index("help", params.help), self.index("tickets", params.tickets), params)


def tune(desk: Bm25sDesk, params: SearchParams, help_cases: list, similar: list) -> SearchParams:
    """bench.search_tune's procedure, for a bm25s engine, on the tuning half only."""
    help_tune = [c for c in help_cases if c.half == "tune"]
    similar_tune = [c for c in similar if c.half == "tune"]

    def help_quality(p: SearchParams) -> float:
        system = desk.system("", p)
        rows = [help_scores(system.help(c.query), c.answers) for c in help_tune]
        return mean(rows, "help_r2") + mean(rows, "help_mrr")

    def similar_quality(p: SearchParams) -> float:
        system = desk.system("", p)
        rows = [similar_scores(system.cut(system.blended(c.ticket, p), p), c) for c in similar_tune]
        return mean(rows, "sim_r5") + mean(rows, "sim_p5")

    def ranking_quality(p: SearchParams) -> float:
        system = desk.system("", p)
        return statistics.fmean(average_precision(
            [k for k, _ in sorted(system.blended(c.ticket, p).items(), key=lambda kv: (-kv[1], kv[0]))], c.same)
            for c in similar_tune)

    def field_steps(name: str, fp: FieldParams) -> list:
        steps = _field_steps(name, fp)
        if desk.mode != "bm25s-repeat":
            return steps
        one_b = (f"{name}.b (all fields)", lambda p, v: dataclasses.replace(p, **{name: dataclasses.replace(
            getattr(p, name), b=(v,) * len(fp.b))}), GRID["b"])
        return [step for step in steps if ".b[" not in step[0]] + [one_b]

    with contextlib.redirect_stdout(io.StringIO()):  # the ascent's progress lines
        params = coordinate_ascent(params, field_steps("help", params.help) + [
            ("phrase_weight", _plain("phrase_weight"), (0.0, 0.25, 0.5, 0.75, 1.0)),
            ("max_terms", _plain("max_terms"), (6, 8, 10, 12, 16, 24))], help_quality)
        cut_offs = [("like_min_similarity", _plain("like_min_similarity"), tuple(round(0.05 * i, 2) for i in range(16))),
                    ("like_relative", _plain("like_relative"), (0.0, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9))]
        steps = cut_offs + field_steps("tickets", params.tickets) + [
            (f"like_fields[{i}]", _like_field(i), (0.0, 0.3, 0.6, 1.0, 1.5, 2.0)) for i in range(5)] + [
            ("like_terms", _plain("like_terms"), (8, 12, 16, 24, 32, 48))]
        words = coordinate_ascent(dataclasses.replace(params, like_vector_weight=0.0), steps, similar_quality)
        params = coordinate_ascent(words, [("like_vector_weight", _plain("like_vector_weight"),
                                            (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8))], ranking_quality)
        params = coordinate_ascent(params, cut_offs, similar_quality)
    return params


def run_desk(scratch: str, retune: bool) -> dict[str, Any]:
    help_cases, similar = load_cases()
    db, settings = fresh_database("SQLite", None, scratch)
    from tools import ToolContext
    tools = KitebaseTools(ToolContext(db=db, settings=settings))
    tools.help("warm up")  # the first searches load the index from the rows
    tools.similar(similar[0].ticket)
    tools.ticket_words("warm up")
    tools.ms = {"help": [], "tickets": [], "words": []}
    packed, data = desk_engines(db)
    systems: list[tuple[str, Any, SearchParams]] = [
        ("packed, through the tools", tools, PARAMS),
        ("packed, ranking only", Ranking("packed", packed["help"], packed["tickets"], PARAMS), PARAMS)]
    tuned: dict[str, SearchParams] = {}
    for mode in ENGINES[1:]:
        desk = Bm25sDesk(mode, data)
        base = bm25s_params(PARAMS, mode)
        systems.append((f"{mode}, product params", desk.system(mode, base), base))
        if retune:
            started = time.perf_counter()
            tuned[mode] = tune(desk, base, help_cases, similar)
            print(f"  ({mode} tuned on the tuning half in {time.perf_counter() - started:.0f} s)", file=sys.stderr)
            systems.append((f"{mode}, tuned", desk.system(mode, tuned[mode]), tuned[mode]))
    plain = PlainBm25(db)  # bench.search_eval's baseline: its own tokenizer, one field, no synonyms or typos
    plain.cutoff = tune_bm25_cutoff(plain, similar)
    systems.append(("bm25s plain (search_eval's)", plain, PARAMS))
    results = {}
    for name, system, _ in systems:
        for case in help_cases[:5]:  # warm (typo vocabulary, caches) before timing
            system.help(case.query)
        system.ms = {"help": [], "tickets": [], "words": []}
        results[name] = evaluate(system, help_cases, similar)
    first, second = results["packed, through the tools"]["rankings"], results["packed, ranking only"]["rankings"]
    db.engine.dispose()
    return {"results": {name: summary(r) for name, r in results.items()},
            "parity": [sum(first[k] == second[k] for k in first), len(first)],
            "tuned": {mode: params_json(p) for mode, p in tuned.items()},
            "desk": {"help_sections": len(data["help"][0]), "tickets": len(data["tickets"][0])}}


def params_json(params: SearchParams) -> dict[str, Any]:
    return dataclasses.asdict(params)


def params_from(raw: dict[str, Any]) -> SearchParams:
    def plain(value: Any) -> Any:
        return tuple(value) if isinstance(value, list) else value

    fields: dict[str, Any] = {k: FieldParams(**{n: plain(v) for n, v in value.items()})
                              if k in ("help", "tickets") else plain(value) for k, value in raw.items()}
    return SearchParams(**fields)


# --- at scale: one process per engine ---------------------------------------------------------------------

def prepare(path: Path, tickets: int, sections: int) -> dict[str, float]:
    """The generated desk, analysed (two processes) and the tickets' vectors, written for the engines' processes."""
    from bench.desk import generate
    from bench.search_at_scale import analysed, documents
    started = time.perf_counter()
    ticket_docs, section_docs = documents(generate(tickets=tickets, sections=sections))
    generated = time.perf_counter()
    ticket_analyses, section_analyses = analysed(ticket_docs), analysed(section_docs)
    analysis = time.perf_counter()
    found = vectors.EMBEDDER.embed([vectors.ticket_text(d.fields) for d in ticket_docs])
    embedded = time.perf_counter()
    with path.open("wb") as out:
        pickle.dump({"tickets": (ticket_docs, ticket_analyses, found),
                     "help": (section_docs, section_analyses, None)}, out, protocol=pickle.HIGHEST_PROTOCOL)
    return {"generate_s": round(generated - started, 1), "analysis_s": round(analysis - generated, 1),
            "vectors_s": round(embedded - analysis, 1)}


def resident_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize() / 2**20


def peak_mb() -> float:
    """The process's peak resident memory since the last `reset_peak` (Linux VmHWM), else since it started."""
    with contextlib.suppress(OSError, StopIteration, ValueError):
        line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak() -> bool:
    """Start the peak over from the current resident memory (Linux: /proc/self/clear_refs 5)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def changed(doc: Document) -> Document:
    """The ticket with one more message (the rest of the conversation grows)."""
    fields = (*doc.fields[:4], doc.fields[4] + CHANGED)
    return Document(doc.key, fields, doc.updated + 3600)


def measure_engine(engine: str, path: Path, params: SearchParams, updates: int) -> dict[str, Any]:
    """Runs in a process of its own: build, memory, latency, the cost of a change."""
    from bench.search_at_scale import queries
    baseline = resident_mb()
    with path.open("rb") as file:
        data = pickle.load(file)
    docs, analyses, found = data["tickets"]
    out: dict[str, Any] = {"engine": engine, "ticket_count": len(docs), "inputs_mb": round(resident_mb() - baseline)}
    gc.collect()
    reset = reset_peak()
    before, peak_before = resident_mb(), peak_mb()
    started = time.perf_counter()
    index: Any
    if engine == "packed":
        index, stored, load_s = build_packed(docs, analyses, found, len(TICKET_FIELDS))
        vocabulary = index.vocabulary
        del stored
        out["load_from_stored_s"] = round(load_s, 2)
    else:
        index = build_bm25s(engine, params.tickets, docs, analyses, found)
    out["build_s"] = round(time.perf_counter() - started, 2)
    heap.settle("benchmark index")  # as the product does after loading an index: collect, freeze, trim
    out["memory_mb"] = round(resident_mb() - before)
    out["peak_above_inputs_mb"] = round(max(0.0, peak_mb() - (before if reset else max(before, peak_before))))
    out["vectors_mb"] = round(found.nbytes / 2**20) if found is not None else 0
    words = queries()
    like = [f"KITE-{1000 + i * max(1, len(docs) // 50)}" for i in range(min(50, len(docs)))]
    system = Ranking(engine, None, index, params)
    started = time.perf_counter()
    system.ticket_words(words[0])
    out["first_words_ms"] = round((time.perf_counter() - started) * 1000, 1)
    system.similar(like[0])
    gc.collect()
    out["memory_searched_mb"] = round(resident_mb() - before)  # the packed engine's tf' is made by its first search
    help_docs, help_analyses, _ = data["help"]
    started = time.perf_counter()
    system.help_index = (build_packed(help_docs, help_analyses, None, len(HELP_FIELDS))[0] if engine == "packed"
                         else build_bm25s(engine, params.help, help_docs, help_analyses, None))
    out["help_build_s"] = round(time.perf_counter() - started, 2)
    out["help_sections"] = len(help_docs)
    heap.settle("benchmark help index")
    system.help(words[0])
    system.ms = {"help": [], "tickets": [], "words": []}
    for query in words:
        system.help(query)
        system.ticket_words(query)
    for key in like:
        system.similar(key)
    for kind, ms in system.ms.items():
        out[kind] = [round(pct(ms, 0.5), 2), round(pct(ms, 0.99), 2), len(ms)]
    # the cost of a change: one ticket gets a new message (its analysis and vector are the same work for both
    # engines: timed apart). The packed engine takes changes into its overlay until it holds REBUILD_SHARE of
    # the documents, then packs everything again: the searches are timed after `updates` changes and with the
    # overlay full (the worst case), and the repack is timed. bm25s re-indexes everything on each change.
    full = int(max(REBUILD_MIN, REBUILD_SHARE * len(docs)))
    slots = list(range(0, len(docs), max(1, len(docs) // full)))[:full]
    timed_changes = updates if engine == "packed" else 3
    analyse_ms, embed_ms, update_ms = [], [], []
    for slot in slots[:timed_changes]:
        doc = changed(docs[slot])
        started = time.perf_counter()
        analysis = persist.analyse(doc.fields)
        analysed_at = time.perf_counter()
        vector = vectors.EMBEDDER.embed([vectors.ticket_text(doc.fields)])[0]
        embedded_at = time.perf_counter()
        if engine == "packed":
            index.put(_stored(vocabulary, doc, analysis, vector, len(TICKET_FIELDS)))
        else:
            index.put(doc.key, doc.updated, analysis, vector)
        update_ms.append((time.perf_counter() - embedded_at) * 1000)
        analyse_ms.append((analysed_at - started) * 1000)
        embed_ms.append((embedded_at - analysed_at) * 1000)
    out["update_ms"] = [round(pct(update_ms, 0.5), 2), round(pct(update_ms, 0.99), 2), len(update_ms)]
    out["analyse_one_ms"] = round(pct(analyse_ms, 0.5), 2)
    out["embed_one_ms"] = round(pct(embed_ms, 0.5), 2)
    started = time.perf_counter()
    system.ticket_words(words[0])
    out["first_words_after_update_ms"] = round((time.perf_counter() - started) * 1000, 1)

    def after(label: str) -> None:
        system.ms = {"words": [], "tickets": []}
        for query in words:
            system.ticket_words(query)
        for key in like:
            system.similar(key)
        out[label] = [round(pct(system.ms[k], q), 2) for k in ("words", "tickets") for q in (0.5, 0.99)]

    after("after_changes")
    out["changes"] = len(update_ms)
    if engine == "packed":
        rest = [changed(docs[slot]) for slot in slots[timed_changes:]]
        fresh = vectors.EMBEDDER.embed([vectors.ticket_text(doc.fields) for doc in rest])
        for doc, vector in zip(rest, fresh, strict=True):
            index.put(_stored(vocabulary, doc, persist.analyse(doc.fields), vector, len(TICKET_FIELDS)))
        out["overlay"] = len(index.keys) - index.block_slots
        after("overlay_full")
        started = time.perf_counter()
        index.repack()
        out["repack_s"] = round(time.perf_counter() - started, 2)
        out["repack_every"] = full
    return out


def run_scale(tickets: int, sections: int, updates: int) -> dict[str, Any]:
    """Each engine with the product's parameters (bm25s_params): the same query shapes, so the same work."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "desk.pickle"
        prepared = prepare(path, tickets, sections)
        print(f"  (generated, analysed and embedded: {prepared})", file=sys.stderr)
        found = {}
        for engine in ENGINES:
            params = bm25s_params(PARAMS, engine)
            command = [sys.executable, "-m", "bench.search_engines", "--engine", engine, "--data", str(path),
                       "--params", json.dumps(params_json(params)), "--updates", str(updates)]
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=3600)
            if done.returncode:
                raise RuntimeError(f"{engine}: {done.stderr[-3000:]}")
            found[engine] = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"  ({engine}: {found[engine]})", file=sys.stderr)
    return {"prepared": prepared, "engines": found}


# --- lines of code -----------------------------------------------------------------------------------------

def code_lines(source: str) -> int:
    """Lines holding code: not blank, not only a comment, not a docstring."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            docstrings.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    return sum(1 for n, line in enumerate(source.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and n not in docstrings)


def lines_of_code() -> dict[str, Any]:
    search = ROOT / "bot" / "search"
    modules = {p.name: code_lines(p.read_text(encoding="utf-8")) for p in sorted(search.glob("*.py"))}
    glue = sum(code_lines(inspect.getsource(item)) for item in (*GLUE, build_bm25s))
    package = Path(bm25s.__file__).parent
    tests = ROOT / "tests" / "test_search_packed.py"
    return {"packed.py": modules.get("packed.py", 0), "bm25f.py": modules.get("bm25f.py", 0),
            "shared": {k: v for k, v in modules.items() if k not in ("packed.py", "bm25f.py")},
            "glue": glue, "bm25s_package": sum(code_lines(p.read_text(encoding="utf-8"))
                                               for p in package.rglob("*.py")),
            "packed_tests": code_lines(tests.read_text(encoding="utf-8")) if tests.exists() else 0}


# --- the report -------------------------------------------------------------------------------------------

def print_report(report: dict[str, Any]) -> None:
    desk = report.get("desk")
    if desk:
        print(f"\nEvaluation desk ({desk['desk']['help_sections']} help sections, {desk['desk']['tickets']} tickets; "
              f"ranking-only latency unless 'through the tools'; packed through the tools and ranking only: the same "
              f"hits for {desk['parity'][0]} of {desk['parity'][1]} queries)")
        columns = [("help_r1", "help R@1"), ("help_r2", "help R@2"), ("help_mrr", "help MRR"),
                   ("sim_r5", "sim R@5"), ("sim_p5", "sim P@5"), ("near_miss", "near-miss")]
        print(f"{'engine':<32}{'half':<10}" + "".join(f"{label:>10}" for _, label in columns)
              + f"{'p50/p99 ms: help':>20}{'like':>15}{'words':>15}")
        for name, figures in desk["results"].items():
            lat = figures["latency"]
            for half in ("all", *HALVES):
                cells = "".join(f"{figures[half][key]:>10.3f}" for key, _ in columns)
                latency = "".join(f"{lat.get(k + '_p50', float('nan')):>9.2f}/{lat.get(k + '_p99', float('nan')):<5.2f}"
                                  for k in ("help", "tickets", "words")) if half == "all" else ""
                print(f"{name if half == 'all' else '':<32}{half:<10}{cells}   {latency}")
        for mode, params in desk["tuned"].items():
            print(f"{mode} tuned: help {params['help']}, tickets {params['tickets']}, phrase_weight "
                  f"{params['phrase_weight']}, max_terms {params['max_terms']}, like_fields {params['like_fields']}, "
                  f"like_terms {params['like_terms']}, like_vector_weight {params['like_vector_weight']}, "
                  f"cut-offs {params['like_min_similarity']} / {params['like_relative']}")
    scale = report.get("scale")
    if scale:
        engines = scale["engines"]
        first = next(iter(engines.values()))
        print(f"\nAt scale: {first['ticket_count']:,} generated tickets, {first['help_sections']:,} help sections "
              f"(bench/desk.py), each engine in a fresh process, ranking only; analysis of the desk "
              f"{scale['prepared']['analysis_s']} s and vectors {scale['prepared']['vectors_s']} s, the same for both "
              f"(not in the build)")
        rows = [
            ("build from the analysis, tickets (s)", lambda e: f"{e['build_s']:.1f}"),
            ("  of which the load from stored arrays (s)", lambda e: f"{e['load_from_stored_s']:.1f}"
             if "load_from_stored_s" in e else "-"),
            ("build, help sections (s)", lambda e: f"{e['help_build_s']:.1f}"),
            ("resident memory, ticket index (MB)", lambda e: f"{e['memory_mb']} (vectors {e['vectors_mb']})"),
            ("  after the first searches (MB)", lambda e: f"{e['memory_searched_mb']}"),
            ("peak during the build, above inputs (MB)", lambda e: f"{e['peak_above_inputs_mb']}"),
            ("first ticket search after the build (ms)", lambda e: f"{e['first_words_ms']:.1f}"),
            ("search_help p50 / p99 (ms)", lambda e: f"{e['help'][0]:.1f} / {e['help'][1]:.1f}"),
            ("tickets by words p50 / p99 (ms)", lambda e: f"{e['words'][0]:.1f} / {e['words'][1]:.1f}"),
            ("like a ticket p50 / p99 (ms)", lambda e: f"{e['tickets'][0]:.1f} / {e['tickets'][1]:.1f}"),
            ("change one ticket: index update p50 / p99 (ms)",
             lambda e: f"{e['update_ms'][0]:.1f} / {e['update_ms'][1]:.1f} (n={e['update_ms'][2]})"),
            ("  + its analysis / its vector, either engine (ms)",
             lambda e: f"{e['analyse_one_ms']:.1f} / {e['embed_one_ms']:.1f}"),
            ("  first ticket search after the changes (ms)", lambda e: f"{e['first_words_after_update_ms']:.1f}"),
            ("  after them: words p50 / p99 (ms)",
             lambda e: f"{e['after_changes'][0]:.1f} / {e['after_changes'][1]:.1f}"),
            ("  after them: like p50 / p99 (ms)",
             lambda e: f"{e['after_changes'][2]:.1f} / {e['after_changes'][3]:.1f}"),
            ("  overlay full (changes): words p50 / p99 (ms)",
             lambda e: f"({e['overlay']:,}) {e['overlay_full'][0]:.1f} / {e['overlay_full'][1]:.1f}"
             if "overlay" in e else "-"),
            ("  overlay full: like p50 / p99 (ms)",
             lambda e: f"{e['overlay_full'][2]:.1f} / {e['overlay_full'][3]:.1f}" if "overlay" in e else "-"),
            ("  repack of the overlay (s)", lambda e: f"{e['repack_s']:.1f}" if "repack_s" in e else "-"),
        ]
        print(f"{'':<48}" + "".join(f"{name:>24}" for name in engines))
        for label, cell in rows:
            print(f"{label:<48}" + "".join(f"{cell(e):>24}" for e in engines.values()))
    loc = report.get("lines")
    if loc:
        print(f"\nLines of code (not blank, comment or docstring): packed engine packed.py {loc['packed.py']} + "
              f"bm25f.py {loc['bm25f.py']} (its reference scorer, FieldParams) and tests/test_search_packed.py "
              f"{loc['packed_tests']}; the bm25s glue {loc['glue']} (Bm25sIndex and its helpers in this file) + "
              f"bm25s itself {loc['bm25s_package']:,} (a runtime dependency instead of a test one). Shared by "
              f"both: {sum(loc['shared'].values())} ({', '.join(f'{k} {v}' for k, v in loc['shared'].items())})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_engines", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tickets", type=int, default=100_000)
    parser.add_argument("--sections", type=int, default=10_000)
    parser.add_argument("--updates", type=int, default=200, help="ticket changes timed one by one on the packed engine")
    parser.add_argument("--no-tune", action="store_true", help="bm25s with the product's parameters only")
    parser.add_argument("--skip-desk", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--engine", choices=ENGINES, help=argparse.SUPPRESS)  # an engine's own process
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--params", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.engine:
        print(json.dumps(measure_engine(args.engine, args.data, params_from(json.loads(args.params)), args.updates)))
        return 0
    started = time.perf_counter()
    report: dict[str, Any] = {"machine": machine(), **commit(), "command": " ".join(sys.argv)}
    if not args.skip_desk:
        with tempfile.TemporaryDirectory() as scratch:
            report["desk"] = run_desk(scratch, retune=not args.no_tune)
    if args.tickets:
        report["scale"] = run_scale(args.tickets, args.sections, args.updates)
    report["lines"] = lines_of_code()
    report["seconds"] = round(time.perf_counter() - started)
    print_report(report)
    print(f"\n({report['seconds']} s)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
