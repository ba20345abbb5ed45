"""Search quality, one command: `python -m bench.search_eval` (add `--postgres URL` for the PostgreSQL half;
KITEBASE_TEST_DATABASE_URL is used when set. The database given is wiped: use a scratch one).

For each backend it seeds a fresh desk, runs the evaluation set in bench/search_set/ through the agent's
tools and through two baselines, and prints help recall@1/@2 and MRR, similar-ticket recall@5 and
precision@5, and p50/p99 latency per query (for the agent's tools also `search_tickets` by words, with the
help questions as queries). The set is split in two: queries and groups at even
positions are the tuning half (the ranking parameters were tuned on it), odd ones are held out.

Then the other suites, each on a desk of its own (`--suites`, default all): kb_data's paraphrased help
questions (help_paraphrases.jsonl, tuned on; help_heldout.jsonl, written by another hand and never tuned on),
and the generated desks of bench/gen_desks (other products, other writers, known same-problem clusters), each
built from seeds 1..`--seeds` and their cases pooled: payroll and school_lms were tuned on; hospital_rota and
isp are held out (written by other hands, from their domains only, and never tuned on). One line per suite
and system: help R@1/R@2, similar-ticket R@5/P@5, near misses. With PostgreSQL, every ranking of every suite
is compared between the two databases.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.claims import Claim, claim
from bench.common import seeded, wipe_postgres
from bench.gen_desks import build_desk, write_desk
from bench.gen_desks.domains import DOMAINS
from bench.search_metrics import HelpCase, SimilarCase, help_scores, mean, percentile, similar_scores
from bench.search_systems import EngineFts, KitebaseTools, PlainBm25
from bot.config import Settings
from bot.db.engine import Database
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


def help_lines(path: Path, half: str | None) -> list[HelpCase]:
    """A help question set; `half` None: even positions tune, odd ones held out."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [HelpCase(row["q"], frozenset(row["answers"]), row["kind"], half or HALVES[i % 2])
            for i, row in enumerate(rows)]


def similar_groups(path: Path, half: str | None) -> list[SimilarCase]:
    groups = json.loads(path.read_text(encoding="utf-8"))["groups"]
    return [SimilarCase(ticket, frozenset(g["tickets"]) - {ticket}, frozenset(g.get("near_misses", ())),
                        half or HALVES[i % 2])
            for i, g in enumerate(groups) for ticket in g["tickets"]]


def suites(names: list[str], scratch: str, seeds: int) -> list[tuple[str, str, Path, list[HelpCase], list[SimilarCase]]]:
    """(name, half, desk directory, help cases, similar cases) of each suite asked for; a generated desk once
    per seed 1..`seeds` (the same name: their cases are pooled; its help questions are asked once)."""
    out = []
    data = Path(Settings().data_dir)
    if "paraphrases" in names:
        out.append(("kb_data paraphrases", "tune", data, help_lines(SET / "help_paraphrases.jsonl", "tune"), []))
    if "heldout" in names:
        out.append(("kb_data held-out", "held-out", data, help_lines(SET / "help_heldout.jsonl", "held-out"), []))
    desks = [name for name in DOMAINS if name in names or DOMAINS[name]["half"] in names]
    root = Path(scratch) / "desks"
    for name in desks:
        half = DOMAINS[name]["half"]
        for seed in range(1, seeds + 1):
            path = root / f"{name}-{seed}"
            write_desk(build_desk(name, seed), path)
            questions = help_lines(path / "help_queries.jsonl", half) if seed == 1 else []
            out.append((name, half, path, questions, similar_groups(path / "groups.json", half)))
    return out


def fresh_database(backend: str, postgres_url: str | None, scratch: str,
                   data_dir: Path | None = None) -> tuple[Database, Settings]:
    """A seeded database of its own for one suite's desk: a new SQLite file, or the wiped PostgreSQL database."""
    if backend == "SQLite":
        Path(scratch, "search_eval.db").unlink(missing_ok=True)
        url = f"sqlite:///{scratch}/search_eval.db"
    else:
        assert postgres_url
        wipe_postgres(postgres_url)
        url = postgres_url
    settings, db = seeded(url, **({"data_dir": data_dir} if data_dir else {}))
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
        if case.ticket in getattr(system, "given", {}):  # what the model is given: both tiers
            given, size = system.given[case.ticket]
            rows[-1].update(union_r=len(case.same.intersection(given)) / len(case.same), tokens=float(size))
    if hasattr(system, "ticket_words"):  # the agent's other ticket search: its latency on the desk
        for case in help_cases:
            system.ticket_words(case.query)
    return {"rows": rows, "rankings": rankings, "ms": system.ms}


def claim_scores(found: Claim, case: SimilarCase) -> dict[str, Any]:
    """What the offline model's report claims against the desk's truth: precision (of a report that names
    someone) and recall (of a report), and a ticket only worth a look named without being read (never 1)."""
    scores: dict[str, Any] = {"half": case.half, "claims_unread": float(bool(found.named_unread))}
    if found.report is None:
        return {**scores, "claims_handed": 1.0}
    scores.update(claims_handed=0.0, claims_r=len(found.named & case.same) / len(case.same))
    if found.named:
        scores["claims_p"] = len(found.named & case.same) / len(found.named)
    return scores


def tune_bm25_cutoff(bm25: PlainBm25, similar: list[SimilarCase]) -> tuple[float, float]:
    """The baseline's similarity cut-offs that are best on the tuning half (fair to the baseline)."""
    tune = [(bm25.similar_scored(c.ticket), c) for c in similar if c.half == "tune"]

    def quality(cut: tuple[float, float]) -> float:
        rows = [similar_scores(bm25.cut(scored, *cut), case) for scored, case in tune]
        return mean(rows, "sim_r5") + mean(rows, "sim_p5")

    grid = [(round(0.05 * i, 2), round(0.1 * j, 1)) for i in range(20) for j in range(10)]
    return max(grid, key=quality)


def run_backend(backend: str, postgres_url: str | None, cases, scratch: str, data_dir: Path | None = None) -> dict:
    db, settings = fresh_database(backend, postgres_url, scratch, data_dir)
    tools = KitebaseTools(ToolContext(db=db, settings=settings))
    tools.help("warm up")  # the first search of each kind builds its index from the rows
    tools.similar(cases[1][0].ticket if cases[1] else "KITE-142")
    build_ms = tools.ms["help"][0] + tools.ms["tickets"][0]
    tools.ticket_words("warm up")
    tools.ms = {"help": [], "tickets": [], "words": []}
    bm25 = PlainBm25(db)
    bm25.cutoff = tune_bm25_cutoff(bm25, cases[1]) if any(c.half == "tune" for c in cases[1]) else (0.0, 0.0)
    results = {system.name: evaluate(system, *cases) for system in (tools, EngineFts(db), bm25)}
    results["kitebase"]["rows"] += [claim_scores(claim(ToolContext(db=db, settings=settings), case.ticket), case)
                                    for case in cases[1]]
    db.engine.dispose()
    return {"results": results, "index_build_ms": build_ms, "bm25_cutoff": bm25.cutoff}


def summary(result: dict) -> dict[str, dict[str, float]]:
    out = {}
    for half in ("all", *HALVES):
        rows = [r for r in result["rows"] if half == "all" or r["half"] == half]
        out[half] = {key: mean(rows, key) for key, _ in COLUMNS}
    out["latency"] = {f"{kind}_{p}": percentile(ms, q) for kind, ms in result["ms"].items() if ms
                      for p, q in (("p50", 0.5), ("p99", 0.99))}
    sizes = [r["tokens"] for r in result["rows"] if "tokens" in r]
    if sizes:
        rows = result["rows"]
        out["given"] = {"likely_r5": mean(rows, "sim_r5"), "likely_p5": mean(rows, "sim_p5"),
                        "union_r": mean(rows, "union_r"), "tokens_p50": percentile(sizes, 0.5),
                        "tokens_p95": percentile(sizes, 0.95), "tokens_max": max(sizes),
                        "claims_p": mean(rows, "claims_p"), "claims_r": mean(rows, "claims_r"),
                        "handed": mean(rows, "claims_handed"),
                        "unread_named": sum(r.get("claims_unread", 0.0) for r in rows)}
    return out


GIVEN = [("likely_r5", "likely R@5", ".3f"), ("likely_p5", "likely P@5", ".3f"), ("union_r", "union R", ".3f"),
         ("tokens_p50", "tokens p50", ".0f"), ("tokens_p95", "p95", ".0f"), ("tokens_max", "max", ".0f"),
         ("claims_p", "claims P", ".3f"), ("claims_r", "claims R", ".3f"), ("handed", "handed on", ".2f"),
         ("unread_named", "unread named", ".0f")]


def print_given(backend: str, found: dict[str, tuple[str, dict]]) -> None:
    """Like a ticket, what the model is given (both tiers: their recall, the result's size in tokens) and what
    the offline model's report then claims."""
    print(f"\n{backend}: like a ticket, what the model is given and what the offline model claims (issue 50)")
    print(f"{'suite':<22}{'half':<10}" + "".join(f"{label:>13}" for _, label, _ in GIVEN))
    for suite, (half, result) in found.items():
        given = summary(result).get("given")
        if given:
            print(f"{suite:<22}{half:<10}" + "".join(f"{given[key]:>13{spec}}" for key, _, spec in GIVEN))


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


SUITE_COLUMNS = [("help_r1", "help R@1"), ("help_r2", "help R@2"), ("sim_r5", "like R@5"), ("sim_p5", "like P@5"),
                 ("near_miss", "near-miss")]


def print_suites(backend: str, found: dict[str, tuple[str, int, int, dict]]) -> None:
    print(f"\n{backend}: the other suites (each on its own desk; nan: the suite has no such cases)")
    print(f"{'suite':<22}{'half':<10}{'questions':>10}{'tickets':>8}{'system':>22}"
          + "".join(f"{label:>11}" for _, label in SUITE_COLUMNS))
    for suite, (half, questions, tickets, results) in found.items():
        for i, (name, result) in enumerate(results.items()):
            figures = summary(result)["all"]
            lead = f"{suite:<22}{half:<10}{questions:>10}{tickets:>8}" if i == 0 else " " * 50
            print(f"{lead}{name:>22}" + "".join(f"{figures[key]:>11.3f}" for key, _ in SUITE_COLUMNS))


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
    parser.add_argument("--seeds", type=int, default=3, help="desks built per generated domain (seeds 1..N)")
    parser.add_argument("--suites", default="kb_data,paraphrases,heldout,tune,held-out",
                        help="comma-separated: kb_data, paraphrases, heldout, tune, held-out, or desk names")
    args = parser.parse_args(argv)
    names = args.suites.split(",")
    cases = load_cases()
    print(f"evaluation set: {len(cases[0])} help queries, {len(cases[1])} similar-ticket queries "
          f"from {len({c.same | {c.ticket} for c in cases[1]})} root-cause groups")
    backends = ["SQLite"] + (["PostgreSQL"] if args.postgres else [])
    reports, others, rankings = {}, {}, {}
    with tempfile.TemporaryDirectory() as scratch:
        extra = suites(names, scratch, args.seeds)
        for backend in backends:
            if "kb_data" in names:
                reports[backend] = run_backend(backend, args.postgres, cases, scratch)
                print_backend(backend, reports[backend])
                by_kind(reports[backend])
                print_given(backend, {"kb_data": ("tune", reports[backend]["results"]["kitebase"])})
            found: dict[str, tuple[str, int, int, dict]] = {}
            for i, (name, half, data_dir, help_cases, similar) in enumerate(extra):
                report = run_backend(backend, args.postgres, (help_cases, similar), scratch, data_dir)
                tickets = len(json.loads((data_dir / "tickets.json").read_text(encoding="utf-8")))
                rankings.setdefault(backend, {}).update(
                    {f"{i}:{key}": ids for key, ids in report["results"]["kitebase"]["rankings"].items()})
                if name in found:  # another seed of the same desk: its cases pooled
                    _, questions, before, results = found[name]
                    for system, result in report["results"].items():
                        results[system]["rows"] += result["rows"]
                        for kind, ms in result["ms"].items():
                            results[system]["ms"].setdefault(kind, []).extend(ms)
                    found[name] = (half, questions + len(help_cases), before + tickets, results)
                else:
                    found[name] = (half, len(help_cases), tickets, report["results"])
            if found:
                print_suites(backend, found)
                print_given(backend, {name: (half, results["kitebase"]) for name, (half, _, _, results) in found.items()})
            others[backend] = {name: {"half": half, **{system: summary(res)["all"] for system, res in results.items()},
                                      "given": summary(results["kitebase"]).get("given")}
                               for name, (half, _, _, results) in found.items()}
    parity(reports)
    if len(rankings) == 2:
        first, second = rankings.values()
        same = sum(first[key] == second.get(key) for key in first)
        print(f"kitebase on the other suites: the same hits in the same order on both backends for {same} of "
              f"{len(first)} queries")
    if not args.postgres:
        print("\n(PostgreSQL skipped: pass --postgres URL or set KITEBASE_TEST_DATABASE_URL)", file=sys.stderr)
    if args.json:
        figures = {b: {**({name: summary(res) for name, res in reports[b]["results"].items()} if b in reports else {}),
                       "suites": others.get(b, {})} for b in backends}
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
