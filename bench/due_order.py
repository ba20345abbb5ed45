"""What is due first (issue 49): a rule's backlog of 200 tickets under a cap of 20 an hour, drained in arrival
order and in breach order, the same tickets and the same model time; the share of first-reply targets met.

    .venv/bin/python -m bench.due_order [--tickets 200] [--cap 20] [--reply-minutes 10] [--seed 49] [--json FILE]

What is real: the intake pass (`bot.runs.intake.arrivals.take`, through `desk_work.intake` as `serve` runs it) on
a scratch SQLite database, with its hourly cap, its SQL read of a backlog and its order (`sla.order_key`); each
ticket's first-reply breach time, computed by the product (`sla.compute`) from kb_data/sla.toml (targets by tier
and priority; Business and Standard count business hours in Europe/Amsterdam) for kb_data's customers and tiers.

What is simulated:
- the clock. The tickets come in during the hour before 09:00 on Monday 9 November 2026 (Amsterdam), one every
  60/N minutes, with a seeded mix of tiers (about 20 % Enterprise, 30 % Business, 50 % Standard) and priorities
  (10 % urgent, 20 % high, 50 % normal, 20 % low), and all wait in the rule's backlog (paused while they come).
  From 09:00 the rule is resumed and passes run on the hour: each starts what the cap allows (the cap counts the
  last hour; the hour is passed by moving the started arrivals' decision times back, as the tests do);
- the model and the lead: a started ticket's first reply goes out `--reply-minutes` after its start (drafting
  and a decision; the same for every ticket and both orders). No run is worked: the pass's runs are dispatched
  nowhere;
- arrival order: the same pass with each ticket's breach time and priority hidden from it (the rows hold none,
  so `sla.order_key` falls back to the arrival: what the pass did before issue 49). The breach times the figures
  judge by are the same in both.

A first-reply target is met when the simulated reply goes out at or before its breach time."""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import update
from sqlmodel import col, select

from bench.common import seeded
from bot.db import clock
from bot.db.models import Customer, DeskArrival, IntakeRule, Run, Ticket, TicketMessage
from bot.desk import arrivals as desk_arrivals
from bot.desk import sla
from bot.runs.execution.desk_work import intake
from bot.runs.intake import arrivals
from bot.runs.intake.rules import Rule

OPEN = datetime(2026, 11, 9, 8, 0, tzinfo=UTC)  # Monday 09:00 in Amsterdam (UTC+1 in November)
TIERS = (("Enterprise", 0.2), ("Business", 0.3), ("Standard", 0.5))
PRIORITIES = (("urgent", 0.1), ("high", 0.2), ("normal", 0.5), ("low", 0.2))
RULE = "backlog"


@dataclass
class Made:
    ticket_id: str
    tier: str
    priority: str
    created_at: datetime
    breach_at: datetime | None


def tickets(count: int, seed: int, customers: dict[str, list[str]], policies: sla.Policies) -> list[tuple[Made, str]]:
    """The tickets in arrival order, each with its customer; breach times by the product's own computation."""
    pick = random.Random(seed)
    out = []
    for n in range(count):
        tier = pick.choices([t for t, _ in TIERS], [w for _, w in TIERS])[0]
        priority = pick.choices([p for p, _ in PRIORITIES], [w for _, w in PRIORITIES])[0]
        created = OPEN - timedelta(hours=1) + timedelta(minutes=60 * n / count)
        row = Ticket(id=f"DUE-{n + 1:04d}", customer_id="x", title="t", status="open", priority=priority,
                     created_at=created, updated_at=created)
        due = sla.compute(row, tier, [], policies)
        out.append((Made(row.id, tier, priority, created, due.breach_at if due else None),
                    pick.choice(customers[tier])))
    return out


def drain(made: list[tuple[Made, str]], *, cap: int, breach_order: bool, scratch: Path) -> list[tuple[str, int]]:
    """Each ticket and the hour (from OPEN) its run started, through real intake passes."""
    settings, db = seeded(f"sqlite:///{scratch / ('breach.db' if breach_order else 'arrival.db')}")
    rules = [Rule(name=RULE, channel="C0BACKLOG", tags=("backlog",), max_per_hour=cap)]
    arrivals.standing(db, rules)
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == RULE).values(paused=True))
        for ticket, customer in made:
            row = Ticket(id=ticket.ticket_id, customer_id=customer, title=f"Backlog {ticket.ticket_id}",
                         status="open", priority=ticket.priority if breach_order else None, tags=["backlog"],
                         created_at=ticket.created_at, updated_at=ticket.created_at)
            session.add(row)
            session.add(TicketMessage(ticket_id=row.id, author="A customer", role="customer", body="Help",
                                      created_at=ticket.created_at))
            if breach_order:
                sla.store(session, row, sla.Due("first_reply", "active", ticket.breach_at, None)
                          if ticket.breach_at else None)
            session.flush()
            desk_arrivals.ticket_arrived(session, key=f"ticket:{row.id}", ticket_id=row.id,
                                         fields={"status": "new", "priority": ticket.priority, "tags": ["backlog"]})
    intake(db, settings, rules, lambda run_id: None)  # all of them wait in the paused rule's backlog
    with db.session() as session:
        session.execute(update(IntakeRule).where(col(IntakeRule.name) == RULE).values(paused=False))
    started: list[tuple[str, int]] = []
    for hour in range(len(made) // cap + 2):
        runs: list[int] = []
        intake(db, settings, rules, runs.append)
        with db.session() as session:
            by_id = {r.id: r.ticket_id for r in session.exec(select(Run).where(col(Run.id).in_(runs))).all()}
            started += [(str(by_id[r]), hour) for r in runs]
            session.execute(update(DeskArrival).where(col(DeskArrival.state) == "started")
                            .values(decided_at=clock.now(-3601)))  # the hour has passed
        if len(started) == len(made):
            break
    db.engine.dispose()
    return started


def judge(made: list[tuple[Made, str]], started: list[tuple[str, int]], reply_minutes: float) -> dict[str, Any]:
    """The share of first-reply targets met, overall and by tier, with the simulated reply times."""
    by_id = {t.ticket_id: t for t, _ in made}
    met: Counter[str] = Counter()
    total: Counter[str] = Counter()
    late: list[float] = []
    for ticket_id, hour in started:
        ticket = by_id[ticket_id]
        reply = OPEN + timedelta(hours=hour, minutes=reply_minutes)
        total[ticket.tier] += 1
        if ticket.breach_at is None or reply <= ticket.breach_at:
            met[ticket.tier] += 1
        else:
            late.append((reply - ticket.breach_at).total_seconds() / 60)
    share = {tier: round(met[tier] / total[tier], 3) for tier, _ in TIERS if total[tier]}
    return {"tickets": sum(total.values()), "met": sum(met.values()),
            "share_met": round(sum(met.values()) / max(sum(total.values()), 1), 3), "share_met_by_tier": share,
            "breached": len(late), "median_minutes_late": round(sorted(late)[len(late) // 2], 1) if late else 0.0,
            "hours_to_drain": max(hour for _, hour in started) + 1 if started else 0}


def measure(count: int = 200, cap: int = 20, reply_minutes: float = 10, seed: int = 49) -> dict[str, Any]:
    policies = sla.read_policies(Path(__file__).resolve().parents[1] / "kb_data" / "sla.toml")
    with tempfile.TemporaryDirectory() as scratch:
        settings, db = seeded(f"sqlite:///{Path(scratch) / 'customers.db'}")
        with db.session() as session:
            customers: dict[str, list[str]] = {}
            for customer_id, tier in session.exec(select(Customer.id, Customer.tier)).all():
                customers.setdefault(str(tier or "Standard"), []).append(customer_id)
        db.engine.dispose()
        made = tickets(count, seed, customers, policies)
        orders = {name: drain(made, cap=cap, breach_order=name == "breach", scratch=Path(scratch))
                  for name in ("arrival", "breach")}
    return {"tickets": count, "cap_per_hour": cap, "reply_minutes": reply_minutes, "seed": seed,
            "tiers": dict(Counter(t.tier for t, _ in made)), "priorities": dict(Counter(t.priority for t, _ in made)),
            **{f"{name}_order": judge(made, started, reply_minutes) for name, started in orders.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tickets", type=int, default=200)
    parser.add_argument("--cap", type=int, default=20, help="the rule's max_per_hour")
    parser.add_argument("--reply-minutes", type=float, default=10, help="from a run's start to its first reply")
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    result = measure(args.tickets, args.cap, args.reply_minutes, args.seed)
    for name in ("arrival", "breach"):
        figures = result[f"{name}_order"]
        tiers = ", ".join(f"{tier} {share:.0%}" for tier, share in figures["share_met_by_tier"].items())
        print(f"{name} order: {figures['met']} of {figures['tickets']} first-reply targets met "
              f"({figures['share_met']:.1%}; {tiers}); {figures['breached']} breached, median "
              f"{figures['median_minutes_late']:g} min late; drained in {figures['hours_to_drain']} h")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
