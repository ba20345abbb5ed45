"""`python -m bench`: every figure of the benchmark issue, each next to a reference measured in the same run.

    .venv/bin/python -m bench [--postgres URL] [--only 1,2,7] [--tiny] [--out FILE] [--tickets N] ...

Prints a table and writes the figures as JSON (machine, date, commit, each figure with its reference, ratio
and target) to bench/results/ (or --out). The PostgreSQL database given (--postgres, or
KITEBASE_BENCH_DATABASE_URL) is scratch: its public schema is dropped and rebuilt. Without one, the
PostgreSQL figures (and the `kitebase worker` morning, which needs PostgreSQL) are reported as not run.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench.common import ROOT, Figure, commit, fresh_url, machine

logger = logging.getLogger("bench")


@dataclass
class Sizes:
    overhead_runs: int = 60
    e2e_runs: int = 5
    parallel_repeats: int = 5
    ack_burst: int = 50
    morning_runs: int = 200
    morning_workers: tuple[int, ...] = (1, 2, 4)
    desk_runs: int = 20
    help_sections: int = 10_000
    tickets: int = 100_000
    memory_runs: int = 100
    startup_repeats: int = 3

    @classmethod
    def tiny(cls) -> Sizes:
        return cls(overhead_runs=2, e2e_runs=1, parallel_repeats=1, ack_burst=3, morning_runs=6,
                   morning_workers=(1,), desk_runs=2, help_sections=200, tickets=300, memory_runs=3,
                   startup_repeats=1)


class Bench:
    def __init__(self, sizes: Sizes, postgres: str | None, scratch: Path):
        self.sizes, self.postgres, self.scratch = sizes, postgres, scratch
        self.figures: list[Figure] = []
        self.failures: list[dict[str, str]] = []

    def url(self, kind: str, name: str) -> str:
        return fresh_url(kind, self.scratch, self.postgres, name)

    def backends(self) -> list[tuple[str, str]]:
        return [("sqlite", "SQLite")] + ([("postgres", "PostgreSQL")] if self.postgres else [])

    def run(self, item: int, what: str, measure: Callable[[], list[Figure]]) -> None:
        started = time.monotonic()
        print(f"[{item}] {what} ...", file=sys.stderr, flush=True)
        try:
            found = measure()
        except Exception as exc:  # one broken figure must not cost the others
            logger.error("item %s (%s) failed", item, what, exc_info=True)
            self.failures.append({"item": str(item), "what": what, "error": f"{type(exc).__name__}: {exc}",
                                  "traceback": traceback.format_exc()[-4000:]})
            return
        self.figures += found
        print(f"    {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

    def not_run(self, item: int, name: str, why: str) -> None:
        self.figures.append(Figure(item, name, None, "", detail={"not_run": why}))


def item_1(bench: Bench) -> list[Figure]:
    from bench.overhead import measure
    from bench.turn_profile import profile

    figures = [measure(bench.url(kind, "overhead"), label, bench.sizes.overhead_runs)
               for kind, label in bench.backends()]
    figures[0].detail["profile"] = profile(bench.url("sqlite", "profile"), max(2, bench.sizes.overhead_runs // 2))
    return figures


def item_2_3(bench: Bench) -> list[Figure]:
    from bench.floor import end_to_end, parallel_lookups

    return [end_to_end(bench.url("sqlite", "floor"), bench.sizes.e2e_runs),
            parallel_lookups(bench.url("sqlite", "parallel"), bench.sizes.parallel_repeats)]


def item_4(bench: Bench) -> list[Figure]:
    from bench.serve_load import acknowledgements

    burst, singles = bench.sizes.ack_burst, min(5, bench.sizes.ack_burst)
    figures = [acknowledgements(bench.url("sqlite", "acks"), bench.scratch, burst=burst, singles=singles)]
    if bench.postgres:
        figures.append(acknowledgements(bench.url("postgres", "acks"), bench.scratch, burst=burst, singles=singles,
                                        workers=2))
    return figures


def item_5(bench: Bench) -> list[Figure]:
    from bench import morning

    runs = bench.sizes.morning_runs
    if not bench.postgres:
        bench.not_run(5, "busy morning", "needs PostgreSQL (--postgres)")
        return []
    bench.run(5, "  embedded", lambda: [morning.embedded(bench.url("postgres", "morning"), bench.scratch, runs, 0.5)])
    for count in bench.sizes.morning_workers:
        bench.run(5, f"  kitebase worker ×{count}",
                  lambda count=count: [morning.queue(bench.url("postgres", "morning"), bench.scratch, runs, 0.5, count)])
    return []


def item_6(bench: Bench) -> list[Figure]:
    from bench.tokens import measure

    return measure(lambda name: bench.url("sqlite", name), bench.sizes.desk_runs)


def item_7(bench: Bench) -> list[Figure]:
    from bench.search_at_scale import measure

    urls = {label: bench.url(kind, "scale") for kind, label in bench.backends()}
    return measure(urls, tickets=bench.sizes.tickets, sections=bench.sizes.help_sections)


def item_8(bench: Bench) -> list[Figure]:
    from bench.serve_load import memory

    return [memory(bench.url("sqlite", "memory"), bench.scratch, runs=bench.sizes.memory_runs)]


def item_9(bench: Bench) -> list[Figure]:
    from bench.startup import measure

    return measure(bench.scratch, bench.sizes.startup_repeats)


ITEMS: dict[int, tuple[str, Callable[[Bench], list[Figure]]]] = {
    1: ("harness overhead per turn", item_1),
    2: ("end to end against the floor; 3: parallel lookups", item_2_3),
    4: ("Slack acknowledgement under load", item_4),
    5: ("a busy morning", item_5),
    6: ("tokens and dollars per ticket", item_6),
    7: ("search at scale", item_7),
    8: ("memory of kitebase serve", item_8),
    9: ("start-up", item_9),
}


def table(figures: list[Figure]) -> str:
    lines = [f"{'#':>2}  {'figure':<72} {'value':>12} {'reference':>12} {'ratio':>7}  {'target':<20} met",
             "-" * 140]
    for f in figures:
        value = "not run" if f.value is None else f"{f.value:,.4g} {f.unit}".strip()
        reference = "" if f.reference is None else f"{f.reference:,.4g}"
        ratio = "" if f.ratio is None else f"{f.ratio:.3f}"
        met = "" if f.met is None else ("yes" if f.met else "NO")
        lines.append(f"{f.item:>2}  {f.name[:72]:<72} {value:>12} {reference:>12} {ratio:>7}  {f.target[:20]:<20} {met}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default=os.environ.get("KITEBASE_BENCH_DATABASE_URL"),
                        help="a scratch PostgreSQL database (wiped)")
    parser.add_argument("--only", help="items to run, e.g. 1,2,7 (2 runs 3 too)")
    parser.add_argument("--tiny", action="store_true", help="the smallest sizes (what the tests run)")
    parser.add_argument("--out", type=Path, help="where to write the JSON (default bench/results/<date>.json)")
    for name, value in vars(Sizes()).items():
        if isinstance(value, int):
            parser.add_argument(f"--{name.replace('_', '-')}", type=int, dest=name)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sizes = Sizes.tiny() if args.tiny else Sizes()
    for name in vars(sizes):
        if getattr(args, name, None) is not None:
            setattr(sizes, name, getattr(args, name))
    wanted = sorted({int(x) for x in args.only.split(",")}) if args.only else sorted(ITEMS)
    report = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(), **commit(),
              "sizes": vars(sizes), "postgres": bool(args.postgres)}
    with tempfile.TemporaryDirectory(prefix="kitebase-bench-") as scratch:
        bench = Bench(sizes, args.postgres, Path(scratch))
        started = time.monotonic()
        for item in wanted:
            if item == 3 and 2 in wanted:
                continue
            what, run = ITEMS[2 if item == 3 else item]
            bench.run(item, what, lambda run=run: run(bench))
        report.update(seconds=round(time.monotonic() - started), load_average_after=machine()["load_average"],
                      figures=[f.as_json() for f in bench.figures], failures=bench.failures)
    out = args.out or ROOT / "bench" / "results" / f"bench-{report['date'][:19].replace(':', '')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"machine: {report['machine']['cpus']} cpus, {report['machine']['cpu']}, python {report['machine']['python']}; "
          f"load {report['machine']['load_average']} → {report['load_average_after']}")
    print(f"date: {report['date']}  commit: {report['commit'][:12] if report['dirty'] is not None else report['commit']}{' (dirty)' if report['dirty'] else ''}  "
          f"took {report['seconds']} s")
    print(table(bench.figures))
    for failure in bench.failures:
        print(f"item {failure['item']} failed: {failure['error']}")
    print(f"JSON: {out}")
    return 1 if bench.failures else 0


if __name__ == "__main__":
    sys.exit(main())
