"""Issue 48's intake soak (bench/soak_intake.py) at a small size, on each database: 30 tickets and 20 customer
messages over 20 s across three rules (one paused for a while, one capped at 5 an hour, one open), the rules file
edited twice, a lead approving, stopping and taking runs through the Bolt app, `serve` SIGKILLed once (on
PostgreSQL beside a `kitebase worker`, the queue shape). Every invariant the soak checks must hold; the full size
and its figures are in docs/reliability.md ("Intake soak")."""

from __future__ import annotations

from pathlib import Path

from bench.soak_intake import SMALL, lines, run_soak


def test_intake_soak_small_keeps_every_invariant(database_url: str, tmp_path: Path) -> None:
    result = run_soak(database_url, SMALL, tmp_path, queue=database_url.startswith("postgresql"))
    report = "\n".join(lines(result))
    print(report)
    assert not result["failed"], report
