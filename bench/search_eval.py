"""Search quality, one command: `python -m bench.search_eval` (add `--postgres URL` for the PostgreSQL half;
KITEBASE_TEST_DATABASE_URL is used when set. The database given is wiped: use a scratch one).

For each backend it seeds a fresh desk, runs the evaluation set in bench/search_set/ through the agent's
tools and through two baselines, and prints help recall@1/@2 and MRR, similar-ticket recall@5 and
precision@5, and p50/p99 latency per query (for the agent's tools also `search_tickets` by words, with the
help questions as queries). The set is split in two: queries and groups at even
positions are the tuning half (the ranking parameters were tuned on it), odd ones are held out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from sqlalchemy import create_engine, text

from bench.search_metrics import HelpCase, SimilarCase, help_scores, mean, percentile, similar_scores
from bench.search_systems import EngineFts, KitebaseTools, PlainBm25
from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk
from tools import ToolContext

SET = Path(__file__).resolve().parent / "search_set"
HALVES = ("tune", "held-out")
COLUMNS = [("help_r1", "help R@1"), ("help_r2", "help R@2"), ("help_mrr", "help MRR"),
           ("sim_r5", "sim R@5"), ("sim_p5", "sim P@5"), ("near_miss", "near-miss")]


def load_cases() -> tuple[list[HelpCase], list[SimilarCase]]:
    lines = (SET / "help_queries.jsonl").read_text(encoding="utf-8").splitlines()
    help_cases = [HelpCase(row["q"], frozenset(row["answers"]), row["kind"], HALVES[i % 2])
                  for i, row in enumerate(json.loads(line) for line in lines if line.strip())]
    groups = json.loads((SET / "similar_tickets.json").read_text(encoding="utf-8"))["groups"]
    similar = [SimilarCase(ticket, frozenset(g["tickets"]) - {ticket}, frozenset(g["near_misses"]), HALVES[i % 2])
               for i, g in enumerate(groups) for ticket in g["tickets"]]
    return help_cases, similar


def fresh_database(backend: str, postgres_url: str | None, scratch: str) -> tuple[Database, Settings]:
    url = f"sqlite:///{scratch}/search_eval.db" if backend == "SQLite" else postgres_url
    if backend == "PostgreSQL":
        engine = create_engine(url)
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
        engine.dispose()
    settings = Settings(database_url=url)
    db = Database.from_url(url)
    create_schema(db.engine)
    seed_desk(db, settings.data_dir)
    return db, settings


def evaluate(system, help_cases: list[HelpCase], similar: list[SimilarCase]) -> dict:
    rows, rankings = [], {}
    for case in help_cases:
        ranked = system.help(case.query)
        rankings[f"help:{case.query}"] = ranked
        rows.append({"half": case.half, "kind": case.kind, **help_scores(ranked, case.answers)})
    for case in similar:
        returned = system.similar(case.ticket)
        rankings[f"like:{case.ticket}"] = returned
        rows.append({"half": case.half, **similar_scores(returned, case)})
    if hasattr(system, "ticket_words"):  # the agent's other ticket search: its latency on the desk
        for case in help_cases:
            system.ticket_words(case.query)
    return {"rows": rows, "rankings": rankings, "ms": system.ms}


def tune_bm25_cutoff(bm25: PlainBm25, similar: list[SimilarCase]) -> tuple[float, float]:
    """The baseline's similarity cut-offs that are best on the tuning half (fair to the baseline)."""
    tune = [(bm25.similar_scored(c.ticket), c) for c in similar if c.half == "tune"]

    def quality(cut: tuple[float, float]) -> float:
        rows = [similar_scores(bm25.cut(scored, *cut), case) for scored, case in tune]
        return mean(rows, "sim_r5") + mean(rows, "sim_p5")

    grid = [(round(0.05 * i, 2), round(0.1 * j, 1)) for i in range(20) for j in range(10)]
    return max(grid, key=quality)


def run_backend(backend: str, postgres_url: str | None, cases, scratch: str) -> dict:
    db, settings = fresh_database(backend, postgres_url, scratch)
    tools = KitebaseTools(ToolContext(db=db, settings=settings))
    tools.help("warm up")  # the first search of each kind builds its index from the rows
    tools.similar(cases[1][0].ticket)
    build_ms = tools.ms["help"][0] + tools.ms["tickets"][0]
    tools.ticket_words("warm up")
    tools.ms = {"help": [], "tickets": [], "words": []}
    bm25 = PlainBm25(db)
    bm25.cutoff = tune_bm25_cutoff(bm25, cases[1])
    results = {system.name: evaluate(system, *cases) for system in (tools, EngineFts(db), bm25)}
    db.engine.dispose()
    return {"results": results, "index_build_ms": build_ms, "bm25_cutoff": bm25.cutoff}


def summary(result: dict) -> dict[str, dict[str, float]]:
    out = {}
    for half in ("all", *HALVES):
        rows = [r for r in result["rows"] if half == "all" or r["half"] == half]
        out[half] = {key: mean(rows, key) for key, _ in COLUMNS}
    out["latency"] = {f"{kind}_{p}": percentile(ms, q) for kind, ms in result["ms"].items() if ms
                      for p, q in (("p50", 0.5), ("p99", 0.99))}
    return out


def print_backend(backend: str, report: dict) -> None:
    print(f"\n{backend}  (first searches, building the index from the rows: {report['index_build_ms']:.0f} ms; "
          f"BM25 similar-ticket cut-offs: {report['bm25_cutoff'][0]:.2f} of the ticket's own score, "
          f"{report['bm25_cutoff'][1]:.1f} of the best hit's)")
    header = f"{'system':<22}{'half':<10}" + "".join(f"{label:>11}" for _, label in COLUMNS)
    print(header + f"{'help p50/p99 ms':>18}{'like p50/p99 ms':>21}{'words p50/p99 ms':>21}")
    for name, result in report["results"].items():
        figures = summary(result)
        lat = figures["latency"]
        for half in ("all", *HALVES):
            cells = "".join(f"{figures[half][key]:>11.3f}" for key, _ in COLUMNS)
            words = (f"{lat['words_p50']:>12.2f} / {lat['words_p99']:<6.2f}" if "words_p50" in lat else "")
            latency = (f"{lat['help_p50']:>9.2f} / {lat['help_p99']:<6.2f}{lat['tickets_p50']:>12.2f} / "
                       f"{lat['tickets_p99']:<6.2f}{words}") if half == "all" else ""
            print(f"{name if half == 'all' else '':<22}{half:<10}{cells}{latency}")


def by_kind(report: dict) -> None:
    """Help recall@2 per kind of query, for every system."""
    results = report["results"]
    kinds = sorted({r["kind"] for r in next(iter(results.values()))["rows"] if "kind" in r})
    cells = {name: {k: mean([r for r in res["rows"] if r.get("kind") == k], "help_r2") for k in kinds}
             for name, res in results.items()}
    print("help R@2 by kind of query: " + "; ".join(
        f"{k} " + "/".join(f"{cells[name][k]:.2f}" for name in results) for k in kinds)
          + f"  ({' / '.join(results)})")


def parity(reports: dict[str, dict]) -> None:
    if len(reports) < 2:
        return
    first, second = (r["results"]["kitebase"]["rankings"] for r in reports.values())
    same = sum(first[key] == second[key] for key in first)
    print(f"\nkitebase: the same hits in the same order on both backends for {same} of {len(first)} queries")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_eval", description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default=os.environ.get("KITEBASE_TEST_DATABASE_URL"),
                        help="a scratch PostgreSQL database (wiped); default KITEBASE_TEST_DATABASE_URL")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    cases = load_cases()
    print(f"evaluation set: {len(cases[0])} help queries, {len(cases[1])} similar-ticket queries "
          f"from {len({c.same | {c.ticket} for c in cases[1]})} root-cause groups")
    backends = ["SQLite"] + (["PostgreSQL"] if args.postgres else [])
    reports = {}
    with tempfile.TemporaryDirectory() as scratch:
        for backend in backends:
            reports[backend] = run_backend(backend, args.postgres, cases, scratch)
            print_backend(backend, reports[backend])
            by_kind(reports[backend])
    parity(reports)
    if not args.postgres:
        print("\n(PostgreSQL skipped: pass --postgres URL or set KITEBASE_TEST_DATABASE_URL)", file=sys.stderr)
    if args.json:
        figures = {b: {name: summary(res) for name, res in r["results"].items()} for b, r in reports.items()}
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
