"""Search at any size (issue 35): `python -m bench.search_scale [--postgres URL] [--tickets 30000,300000]
[--sqlite-tickets 30000] [--sections 3000] [--searches 1000] [--json OUT]`.

For each desk size, a fresh database gets generated tickets and help sections (bench/desk.py: the desk's own
tickets with forty random desk words and an order number added, so every ticket differs), bulk-loaded as a
mirror or an import would write them; the indexes are then built the way `kitebase db upgrade` and a first
start build them for a desk nothing analysed yet (`drain`: every ticket and section analysed, its vector
computed, its full-text row and statistics stored), and timed. Then a process of its own (as `serve` or a
worker runs) warms up the search, and its resident memory is read after warm-up and after `--searches`
searches through the tools (the evaluation's help questions to `search_help` and `search_tickets`, and
like-ticket searches of tickets spread over the desk), with p50/p99 per kind. Nothing of the desk is held in
the process: the memory figure should not grow with the desk (target: the 300,000 figure at most 1.2x the
30,000 one and at most 400 MB; p99 at most 50 ms at 300,000).

PostgreSQL: the databases `<name>_scale_<tickets>` are created (and dropped first) beside the URL's database.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

from bench.common import ROOT, create_database, pct, seeded
from bench.desk import generate, load

QUERIES = ROOT / "bench" / "search_set" / "help_queries.jsonl"
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def questions() -> list[str]:
    return [json.loads(line)["q"] for line in QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]


def resident_mb() -> float:
    import resource

    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def fresh_postgres(url: str, tickets: int) -> str:
    """An empty database beside `url`'s for this size; its URL."""
    base = make_url(url)
    sized = base.set(database=f"{base.database}_scale_{tickets}").render_as_string(hide_password=False)
    create_database(sized, replace=True)
    return sized


def build(url: str, tickets: int, sections: int) -> dict[str, Any]:
    """Seed, bulk-load the generated rows, build the search indexes; seconds per phase."""
    from bot.search.catch_up import drain

    settings, db = seeded(url)
    generated = generate(tickets=tickets, sections=sections)
    started = time.perf_counter()
    load(db, generated)
    loaded = time.perf_counter()
    stored = drain(db.engine)
    built = time.perf_counter()
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE" if db.dialect == "postgresql" else "ANALYZE"))
        documents = conn.execute(text("SELECT COUNT(*) FROM search_document")).scalar()
    db.engine.dispose()
    return {"tickets": tickets, "sections": sections, "rows_loaded_s": round(loaded - started, 1),
            "index_build_s": round(built - loaded, 1), "documents_stored": stored, "documents": documents,
            "vacuum_analyze_s": round(time.perf_counter() - built, 1)}


def searches(url: str, tickets: int, count: int) -> dict[str, Any]:
    """Runs in the search process: warm up as `serve` does, then `count` searches through the tools."""
    from bot.config import Settings
    from bot.db.engine import Database
    from bot.search.warm import warm_up
    from tools import REGISTRY, ToolContext, execute

    settings = Settings(database_url=url)
    db = Database.from_url(url)
    ctx = ToolContext(db=db, settings=settings)
    started_mb = resident_mb()
    warm_s = warm_up(db)
    warm_mb = resident_mb()
    words = questions()
    step = max(1, tickets // 200)
    like = [f"KITE-{1000 + i * step}" for i in range(min(200, tickets))]
    calls: list[tuple[str, str, dict[str, Any]]] = []
    i = 0
    while len(calls) < count:
        calls.append(("help", "search_help", {"query": words[i % len(words)]}))
        calls.append(("tickets", "search_tickets", {"query": words[(i * 7) % len(words)]}))
        calls.append(("like", "search_tickets", {"like_ticket_id": like[i % len(like)]}))
        i += 1
    timings: dict[str, list[float]] = {"help": [], "tickets": [], "like": []}
    errors = 0
    for kind, name, arguments in calls[:count]:
        began = time.perf_counter()
        result = execute(REGISTRY, ctx, name, arguments)
        timings[kind].append((time.perf_counter() - began) * 1000)
        if result.is_error and "no searchable words" not in result.text:
            errors += 1
            if errors <= 3:
                print(f"{name}({arguments}) failed: {result.text}", file=sys.stderr)
    after_mb = resident_mb()
    db.engine.dispose()
    return {"warm_up_s": round(warm_s, 2), "rss_at_start_mb": round(started_mb), "rss_after_warm_up_mb": round(warm_mb),
            "rss_after_searches_mb": round(after_mb), "searches": count, "errors": errors,
            **{f"{kind}_p50_ms": round(pct(v, 0.5), 1) for kind, v in timings.items()},
            **{f"{kind}_p99_ms": round(pct(v, 0.99), 1) for kind, v in timings.items()},
            **{f"{kind}_count": len(v) for kind, v in timings.items()}}


def search_process(url: str, tickets: int, count: int) -> dict[str, Any]:
    import subprocess

    done = subprocess.run([sys.executable, "-m", "bench.search_scale", "--search-process", url, str(tickets),
                           str(count)], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    if done.returncode:
        raise RuntimeError(f"the search process failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(backends: list[tuple[str, str, int]], sections: int, count: int) -> list[dict[str, Any]]:
    """`backends`: (label, url, tickets); one row of figures each."""
    rows = []
    for label, url, tickets in backends:
        built = build(url, tickets, sections)
        found = search_process(url, tickets, count)
        row = {"backend": label, **built, **found}
        rows.append(row)
        print(f"{label:<10} {tickets:>7,} tickets {sections:,} sections | index built in {built['index_build_s']} s "
              f"(rows loaded in {built['rows_loaded_s']} s) | RSS after warm-up {found['rss_after_warm_up_mb']} MB, "
              f"after {count:,} searches {found['rss_after_searches_mb']} MB | p50/p99 ms: "
              f"search_help {found['help_p50_ms']}/{found['help_p99_ms']}, "
              f"search_tickets words {found['tickets_p50_ms']}/{found['tickets_p99_ms']}, "
              f"like a ticket {found['like_p50_ms']}/{found['like_p99_ms']}", flush=True)
    return rows


def verdict(rows: list[dict[str, Any]]) -> list[str]:
    """The issue's targets, where this run measured both sizes on PostgreSQL."""
    pg = sorted((r for r in rows if r["backend"] == "postgresql"), key=lambda r: r["tickets"])
    if len(pg) < 2:
        return []
    small, large = pg[0], pg[-1]
    ratio = large["rss_after_searches_mb"] / small["rss_after_searches_mb"]
    worst = max(large["help_p99_ms"], large["tickets_p99_ms"], large["like_p99_ms"])
    return [f"memory after searches: {large['tickets']:,} / {small['tickets']:,} tickets = {ratio:.2f}x "
            f"(target <= 1.2x) and {large['rss_after_searches_mb']} MB (target <= 400 MB): "
            f"{'met' if ratio <= 1.2 and large['rss_after_searches_mb'] <= 400 else 'NOT met'}",
            f"worst p99 at {large['tickets']:,} tickets: {worst} ms (target <= 50 ms): "
            f"{'met' if worst <= 50 else 'NOT met'}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_scale", description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=DEFAULT_PG, help="a PostgreSQL URL to reach the server ('' to skip)")
    parser.add_argument("--tickets", default="30000,300000", help="desk sizes on PostgreSQL, comma-separated")
    parser.add_argument("--sqlite-tickets", default="30000", help="desk sizes on SQLite ('' to skip)")
    parser.add_argument("--sqlite-dir", type=Path, default=Path("/tmp"), help="where the SQLite files go")
    parser.add_argument("--sections", type=int, default=3000)
    parser.add_argument("--searches", type=int, default=1000)
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--search-process", nargs=3, metavar=("URL", "TICKETS", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.search_process:
        url, tickets, count = args.search_process
        print(json.dumps(searches(url, int(tickets), int(count))))
        return 0
    backends: list[tuple[str, str, int]] = []
    for size in filter(None, args.sqlite_tickets.split(",")):
        path = args.sqlite_dir / f"kitebase-scale-{int(size)}.db"
        path.unlink(missing_ok=True)
        backends.append(("sqlite", f"sqlite:///{path}", int(size)))
    if args.postgres:
        for size in filter(None, args.tickets.split(",")):
            backends.append(("postgresql", fresh_postgres(args.postgres, int(size)), int(size)))
    rows = measure(backends, args.sections, args.searches)
    for line in verdict(rows):
        print(line)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "verdict": verdict(rows)}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
