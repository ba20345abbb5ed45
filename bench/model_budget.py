"""One model budget for every process (issue 21): 200 Slack mentions over `kitebase serve` + 2 `kitebase worker`
(the queue shape, PostgreSQL) against a Messages API stand-in that enforces a per-minute request limit the way
the API does (a token bucket, the anthropic-ratelimit-* headers, 429 with retry-after).

    .venv/bin/python -m bench.model_budget --postgres URL [--runs 200] [--rpm 60] [--minute 60] [--json FILE]

Each run works its ticket up to the draft that waits for a lead (three model calls at 500 ms). The floor is
what the limit allows: the bucket's first `rpm` requests at once, then rpm per minute, so
(requests − rpm) / (rpm per second) + one call. `--minute 6` runs the same with a ten-times faster minute (the
stand-in's reset times and retry-after follow it), for a quick look; the figure in the README is the real one.
Also how fair the waits are: each run's span from its first model call to its last (with 16 runs at once
sharing one request a second, about 2 × 16 s when every run waits its turn). The PostgreSQL database given is
scratch (wiped)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from sqlalchemy import create_engine, text

from bench.common import fresh_url, pct, seeded
from bench.desk import FIRST_GENERATED, generate, load
from bench.serve_load import Served
from standins.anthropic_server import RateLimits


def measure(url: str, scratch: Path, *, runs: int, rpm: int, minute: float, latency: float = 0.5) -> dict:
    settings, db = seeded(url)
    load(db, generate(tickets=runs, seed=11))
    db.engine.dispose()
    with Served(url, scratch, latency, workers=2) as served:
        served.model.limits = RateLimits(requests_per_minute=rpm, minute_seconds=minute)
        started = time.time()
        served.mentions(runs, first=FIRST_GENERATED, channels=10)
        finished = served.until(lambda: served.live() == 0 and runs_seen(url) >= runs, timeout=600 + 3 * runs * 60 / rpm
                                * minute / 60, every=0.5)
        answered, refused = served.model.answered, served.model.rate_limited
    engine = create_engine(url)
    with engine.connect() as conn:
        statuses = Counter(dict(conn.execute(text("SELECT status, count(*) FROM run GROUP BY status")).all()))
        model_errors = conn.execute(text("SELECT count(*) FROM escalation WHERE kind = 'model_error'")).scalar_one()
        last = conn.execute(text("SELECT max(updated_at) FROM run")).scalar_one()
        waits = conn.execute(text("SELECT count(*) FROM step WHERE kind = 'wait'")).scalar_one()
        # fairness: how long each run took from its first model call to its last (3 calls, 2 turns of waiting)
        spans = sorted(float(v) for (v,) in conn.execute(text(
            "SELECT extract(epoch FROM max(created_at) - min(created_at)) FROM step WHERE kind = 'model' "
            "GROUP BY run_id HAVING count(*) = 3")).all())
    engine.dispose()
    wall = last.timestamp() - started
    per_second = rpm / minute
    floor = max(0, answered - rpm) / per_second + latency
    requests = answered + refused
    return {"runs": runs, "finished": finished, "statuses": dict(statuses), "model_error_escalations": model_errors,
            "requests": requests, "answered": answered, "answered_429": refused,
            "share_429": round(refused / requests, 4) if requests else None, "wall_s": round(wall, 1),
            "floor_s": round(floor, 1), "wall_over_floor": round(wall / floor, 3) if floor else None,
            "wait_notes_in_threads": waits,
            "run_span_s": {"p50": round(pct(spans, 0.5), 1), "p95": round(pct(spans, 0.95), 1),
                           "max": round(max(spans), 1)} if spans else None,
            "limit_rpm": rpm, "minute_s": minute, "model_latency_s": latency}


def runs_seen(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM run")).scalar_one())
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", required=True, help="a scratch PostgreSQL database (wiped)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rpm", type=int, default=60)
    parser.add_argument("--minute", type=float, default=60.0, help="seconds in the stand-in's minute")
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        url = fresh_url("postgres", Path(scratch), args.postgres, "budget")
        result = measure(url, Path(scratch), runs=args.runs, rpm=args.rpm, minute=args.minute)
    met = (result["finished"] and result["model_error_escalations"] == 0 and (result["share_429"] or 0) <= 0.05
           and (result["wall_over_floor"] or 99) <= 1.15)
    result["targets"] = {"model_error_escalations": "0", "share_429": "≤ 5%", "wall_over_floor": "≤ 1.15",
                         "met": met}
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
