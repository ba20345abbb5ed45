"""How far the search's own signals can go: `python -m bench.search_ceiling [--seeds N] [--suites ...]`.

The search evaluation (bench/search_eval.py) says where the search stands; this says where its signals stop, so
that a target beyond them is seen as a different kind of work (another signal), not as more tuning. On SQLite
(the ranking is the same on PostgreSQL: bench/search_eval.py compares every ranking), per suite:

- like a ticket, the ranking before any cut-off: precision@1 (how often the best hit is the same problem: no
  cut-off, however clever, gets precision@5 above what the first hit allows); R-precision; an oracle cut-off
  that knows each query's best number of hits (per query, the best of min(R@5 / 0.9, P@5 / 0.8)); and of the
  wrong hits ranked among the first n (n the number of true matches), the share that are the suite's known
  near misses (tickets written with the same symptoms and another cause);
- help, recall@2 of the word score alone, of the vector alone (the query's mean vector against every
  section's), and of the blend the search uses, with its recall@5 (what the agent's model would see if the
  tool returned five sections instead of two).

Figures only: nothing here changes a parameter. The held-out suites may be measured here as in the evaluation:
the figures are diagnostics, and tuning on them is what bench/search_tune.py is kept from.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
from pathlib import Path

import numpy as np
from sqlalchemy import text
from sqlmodel import Session

from bench.search_eval import fresh_database, load_cases, suites
from bench.search_metrics import HelpCase, SimilarCase, help_scores, similar_scores
from bot import search
from bot.search import persist, vectors
from bot.search.catch_up import FIELDS
from bot.search.params import PARAMS

OPEN = dataclasses.replace(PARAMS, like_z=-100.0, like_relative=0.0)  # every checked candidate, in blended order
WORDS = dataclasses.replace(PARAMS, help_vector_weight=0.0)


def target(scores: dict[str, float]) -> float:
    """One query's distance to issue 35's targets: the farther of recall@5 / 0.9 and precision@5 / 0.8."""
    return min(scores["sim_r5"] / 0.9, scores["sim_p5"] / 0.8)


def like_ceiling(session: Session, cases: list[SimilarCase]) -> dict[str, float]:
    first, r_precision, oracle_r, oracle_p, objective, wrong, near = [], [], [], [], [], 0, 0
    for case in cases:
        order = [h.id for h in search.similar_tickets(session, case.ticket, limit=50, params=OPEN)]
        first.append(float(bool(order) and order[0] in case.same))
        top = order[:len(case.same)]
        r_precision.append(len(case.same.intersection(top)) / len(case.same))
        wrong += sum(key not in case.same for key in top)
        near += sum(key in case.near_misses for key in top)
        best = max((similar_scores(order[:n], case) for n in range(6)), key=target)
        oracle_r.append(best["sim_r5"])
        oracle_p.append(best["sim_p5"])
        objective.append(target(best))
    return {"P@1": statistics.fmean(first), "R-prec": statistics.fmean(r_precision),
            "oracle R@5": statistics.fmean(oracle_r), "oracle P@5": statistics.fmean(oracle_p),
            "oracle target": statistics.fmean(objective), "wrong": wrong, "near misses": near}


def help_ceiling(session: Session, cases: list[HelpCase]) -> dict[str, float]:
    ids = [row[0] for row in session.execute(text("SELECT id FROM search_document WHERE kind = 'help'"))]
    sections = [(d.key, d.vector.astype(np.float32)) for d in persist.read(session, "help", FIELDS["help"], ids=ids)
                if d.vector is not None]
    keys, matrix = [k for k, _ in sections], np.vstack([v for _, v in sections])
    words, vector, blend, blend5 = [], [], [], []
    for case in cases:
        try:
            words.append(help_scores([h.id for h in search.search_help(session, case.query, limit=5, params=WORDS)],
                                     case.answers)["help_r2"])
            found = [h.id for h in search.search_help(session, case.query, limit=5)]
        except search.EmptyQuery:
            words.append(0.0)
            found = []
        blend.append(help_scores(found, case.answers)["help_r2"])
        blend5.append(float(bool(case.answers.intersection(found))))
        [wanted] = vectors.EMBEDDER.embed([case.query])
        closest = [keys[i] for i in np.argsort(-(matrix @ wanted.astype(np.float32)), kind="stable")[:5]]
        vector.append(help_scores(closest, case.answers)["help_r2"])
    return {"words R@2": statistics.fmean(words), "vector R@2": statistics.fmean(vector),
            "blend R@2": statistics.fmean(blend), "blend R@5": statistics.fmean(blend5)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_ceiling", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="desks built per generated domain (seeds 1..N)")
    parser.add_argument("--suites", default="kb_data,paraphrases,heldout,tune,held-out",
                        help="comma-separated, as bench.search_eval's --suites")
    args = parser.parse_args(argv)
    names = args.suites.split(",")
    like: dict[str, list[dict[str, float]]] = {}
    helps: dict[str, dict[str, float]] = {}
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch:
        found = suites(names, scratch, args.seeds)
        if "kb_data" in names:
            help_cases, similar = load_cases()
            found.insert(0, ("kb_data", "tune", Path(), help_cases, similar))
        for name, _half, data_dir, help_cases, similar in found:
            db, _ = fresh_database("SQLite", None, scratch, data_dir if name != "kb_data" else None)
            with Session(db.engine) as session:
                search.search_help(session, "warm up", limit=1)  # stores what the seed left pending
                if similar:
                    like.setdefault(name, []).append(like_ceiling(session, similar))
                    sizes[name] = sizes.get(name, 0) + len(similar)
                if help_cases:
                    helps[name] = help_ceiling(session, help_cases)
            db.engine.dispose()
    print("like a ticket, before any cut-off (seeds pooled by mean; wrong: hits among the first n that are not the "
          "same problem, n the number of true matches)")
    print(f"{'suite':<22}{'queries':>8}{'P@1':>8}{'R-prec':>8}{'oracle R@5':>12}{'oracle P@5':>12}"
          f"{'wrong':>7}{'of them near misses':>21}")
    for name, rows in like.items():
        mean = {key: statistics.fmean(r[key] for r in rows) for key in ("P@1", "R-prec", "oracle R@5", "oracle P@5")}
        wrong, near = sum(r["wrong"] for r in rows), sum(r["near misses"] for r in rows)
        print(f"{name:<22}{sizes[name]:>8}{mean['P@1']:>8.3f}{mean['R-prec']:>8.3f}{mean['oracle R@5']:>12.3f}"
              f"{mean['oracle P@5']:>12.3f}{wrong:>7}{near:>21}")
    print("\nhelp recall@2 by signal")
    print(f"{'suite':<22}{'words':>8}{'vector':>8}{'blend':>8}{'blend R@5':>11}")
    for name, figures in helps.items():
        print(f"{name:<22}{figures['words R@2']:>8.3f}{figures['vector R@2']:>8.3f}{figures['blend R@2']:>8.3f}"
              f"{figures['blend R@5']:>11.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
