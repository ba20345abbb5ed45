"""How the in-memory search index holds as the desk grows:
`python -m bench.search_scale [--tickets N] [--sections N]`.

Synthetic documents (a random desk ticket or help section with 40 random desk words and a random number
appended) are indexed directly, without a database, to measure what the index itself costs: build
time, resident memory, and p50/p99 per query for the evaluation's help queries and for like-ticket
searches. Asserts nothing; prints the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from pathlib import Path

from bench.search_metrics import percentile
from bot.db.search.bm25f import Bm25fIndex
from bot.db.search.documents import HELP_FIELDS, TICKET_FIELDS, help_document, ticket_document
from bot.db.search.params import PARAMS
from bot.db.search.ranking import _mutual, like_weights, query_weights
from bot.db.search.store import Corpus
from bot.db.seed import parse_article

ROOT = Path(__file__).resolve().parents[1]


def build(n: int, seed: int = 1) -> Corpus:
    rng = random.Random(seed)
    desk = json.loads((ROOT / "kb_data" / "tickets.json").read_text(encoding="utf-8"))
    words = [w for t in desk for m in t["messages"] for w in m["body"].split()]
    corpus = Corpus(Bm25fIndex(TICKET_FIELDS))
    for i in range(n):
        ticket = rng.choice(desk)
        messages = [m["body"] for m in ticket["messages"]]
        messages[0] += " " + " ".join(rng.choices(words, k=40)) + f" order {rng.randint(1, 10**6)}"
        corpus.put(ticket_document(f"T-{i}", ticket["title"], ticket["tags"], messages, float(i)))
    return corpus


def build_help(n: int, seed: int = 2) -> Corpus:
    rng = random.Random(seed)
    sections = [s for path in sorted((ROOT / "kb_data" / "help").glob("*.md"))
                for s in parse_article(path.stem, path.read_text(encoding="utf-8"))]
    words = [w for s in sections for w in s.body.split()]
    corpus = Corpus(Bm25fIndex(HELP_FIELDS))
    for i in range(n):
        s = rng.choice(sections)
        body = s.body + " " + " ".join(rng.choices(words, k=40)) + f" ref {rng.randint(1, 10**6)}"
        corpus.put(help_document(f"S-{i}", s.heading, s.article_title, body))
    return corpus


def timed_queries(corpus: Corpus, queries: list[str], params) -> list[float]:  # type: ignore[no-untyped-def]
    ms = []
    for query in queries:
        started = time.perf_counter()
        corpus.index.score(query_weights(corpus.index, query, PARAMS), params)
        ms.append((time.perf_counter() - started) * 1000)
    return ms


def resident_mb() -> float:
    try:  # the current resident set (Linux); elsewhere the peak
        return int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measured(build_fn, n: int) -> tuple[Corpus, float, float]:  # type: ignore[no-untyped-def]
    before = resident_mb()
    started = time.perf_counter()
    corpus = build_fn(n)
    return corpus, time.perf_counter() - started, resident_mb() - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_scale")
    parser.add_argument("--tickets", type=int, default=10_000)
    parser.add_argument("--sections", type=int, default=10_000)
    args = parser.parse_args(argv)
    queries = [json.loads(line)["q"] for line in (ROOT / "bench" / "search_set" / "help_queries.jsonl")
               .read_text(encoding="utf-8").splitlines()]
    if args.sections:
        sections, built, grown = measured(build_help, args.sections)
        ms = timed_queries(sections, queries, PARAMS.help)
        print(f"{args.sections} help sections: built in {built:.1f} s, resident memory +{grown:.0f} MB; "
              f"help queries p50 {percentile(ms, 0.5):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms")
        del sections
    if not args.tickets:
        return 0
    corpus, built, grown = measured(build, args.tickets)
    ms = timed_queries(corpus, queries, PARAMS.tickets)
    like_ms = []
    for i in range(0, args.tickets, max(1, args.tickets // 50)):
        started = time.perf_counter()
        _mutual(corpus.index, f"T-{i}", like_weights(corpus.index, f"T-{i}", PARAMS), PARAMS)
        like_ms.append((time.perf_counter() - started) * 1000)
    print(f"{args.tickets} tickets: built in {built:.1f} s, resident memory +{grown:.0f} MB, "
          f"{len(corpus.index.postings)} terms")
    print(f"  word queries ({len(ms)}): p50 {percentile(ms, 0.5):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms")
    print(f"  like-ticket ({len(like_ms)}): p50 {percentile(like_ms, 0.5):.1f} ms, p99 {percentile(like_ms, 0.99):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
