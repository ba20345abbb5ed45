"""The search index alone, without a database: `python -m bench.search_scale [--tickets N] [--sections N]`.

The generated desk of item 7 (bench/desk.py: desk tickets and sections under new ids, each with 40 desk words
and a number added) is analysed, numbered and packed in memory exactly as the tools' index holds it
(bot/search/packed.py), to measure what the index itself costs next to item 7's figures through the tools:
build time, resident memory, and p50/p99 of the ranking for the evaluation's help questions, the same
questions against the tickets, and like-ticket searches (the ranking only: no rows read, no matched lines).
Asserts nothing; prints the figures. Quick to re-run while working on the ranking.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench.common import pct
from bench.desk import generate
from bench.search_at_scale import analysed, documents, queries, resident_mb
from bot.search.bm25f import FieldParams
from bot.search.documents import HELP_FIELDS, TICKET_FIELDS, Document
from bot.search.packed import PackedIndex
from bot.search.params import PARAMS
from bot.search.persist import Stored, Vocabulary, encode
from bot.search.ranking import _mutual, like_weights, query_weights
from bot.search.vectors import EMBEDDER, ticket_text
from bot.search.words import EmptyQuery


def packed(docs: list[Document], fields: tuple[str, ...]) -> PackedIndex:
    """The documents analysed and packed, their terms numbered in order of first appearance."""
    vocabulary = Vocabulary()
    stored = []
    found = (EMBEDDER.embed([ticket_text(d.fields) for d in docs]) if fields == TICKET_FIELDS
             else [None] * len(docs))
    for doc, analysis, vector in zip(docs, analysed(docs), found, strict=True):
        fresh = [t for t in dict.fromkeys([*analysis.terms, *analysis.words]) if t not in vocabulary.ids]
        first = len(vocabulary.names)
        vocabulary.learn([(first + i, t) for i, t in enumerate(fresh)])
        blobs = encode(analysis, vocabulary.ids, len(fields))
        terms = np.frombuffer(blobs["terms"], dtype=np.int32)
        stored.append(Stored(doc.key, 0, doc.updated, np.frombuffer(blobs["lengths"], dtype=np.int32), terms,
                             np.frombuffer(blobs["tfs"], dtype=np.uint8).reshape(len(terms), len(fields)),
                             np.frombuffer(blobs["words"], dtype=np.int32), vector))
    index = PackedIndex(fields, vocabulary)
    index.load(stored)
    return index


def timed(fn, items) -> list[float]:  # type: ignore[no-untyped-def]
    ms = []
    for item in items:
        started = time.perf_counter()
        try:
            fn(item)
        except EmptyQuery:
            continue
        ms.append((time.perf_counter() - started) * 1000)
    return ms


def line(label: str, ms: list[float]) -> str:
    return f"  {label} ({len(ms)}): p50 {pct(ms, 0.5):.1f} ms, p99 {pct(ms, 0.99):.1f} ms"


def measure(name: str, docs: list[Document], fields: tuple[str, ...], params: FieldParams,
            words: list[str]) -> None:
    before, started = resident_mb(), time.perf_counter()
    index = packed(docs, fields)
    built, grown = time.perf_counter() - started, resident_mb() - before
    print(f"{len(docs):,} {name}: analysed and packed in {built:.1f} s, resident memory +{grown:.0f} MB, "
          f"{len(index.vocabulary.names):,} terms and words")
    print(line("questions", timed(lambda q: index.ranked(*index.scores(query_weights(index, q, PARAMS), params), 5),
                                  words)))
    if fields == TICKET_FIELDS:
        keys = [doc.key for doc in docs[::max(1, len(docs) // 50)]][:50]
        print(line("like a ticket", timed(lambda key: _mutual(index, key, like_weights(index, key, PARAMS), PARAMS),
                                          keys)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tickets", type=int, default=100_000)
    parser.add_argument("--sections", type=int, default=10_000)
    args = parser.parse_args(argv)
    tickets, sections = documents(generate(tickets=args.tickets, sections=args.sections))
    if sections:
        measure("help sections", sections, HELP_FIELDS, PARAMS.help, queries())
    if tickets:
        measure("tickets", tickets, TICKET_FIELDS, PARAMS.tickets, queries())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
