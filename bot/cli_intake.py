"""`kitebase intake status|pause|resume|check`: the intake rules' figures today, pausing and resuming a rule, and
what each rule would take of the desk as it is (docs/intake.md, "Control")."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any, TypeVar

from bot import durations
from bot.cli_run import EXIT_OK, open_database
from bot.config import Settings
from bot.db.engine import Database
from bot.runs.intake import arrivals, check, control, reach
from bot.runs.intake.rules import RulesError

T = TypeVar("T")

WAITING_LINES = 5  # of a rule's backlog, in the text (--json has WAITING_SHOWN)
TICKETS_LINES = 20  # of a rule's tickets in `check`'s text (--json has them all)


def add_intake_commands(sub: Any) -> None:
    intake = sub.add_parser("intake", help="the intake rules: status, pause, resume, check")
    what = intake.add_subparsers(dest="intake_command", required=True)
    status = what.add_parser("status", help="per rule today: taken, waiting, skipped, follow-ups, spend, paused")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=cmd_intake_status)
    for name, help_text in (("pause", "new tickets a rule takes wait in its backlog (no RULE: every rule)"),
                            ("resume", "a paused rule starts its backlog, what is due first (no RULE: every rule)")):
        p = what.add_parser(name, help=help_text)
        p.add_argument("rule", metavar="RULE", nargs="?", help="a rule's name (as in KITEBASE_INTAKE_RULES)")
        p.set_defaults(handler=cmd_intake_flip, paused=name == "pause")
    look = what.add_parser("check", help="which open tickets of the desk each rule would take; starts nothing")
    look.add_argument("--json", action="store_true")
    look.set_defaults(handler=cmd_intake_check)


def _read(what: Callable[[], T]) -> T:
    """A rules file that does not read is said with what the running processes do about it."""
    try:
        return what()
    except RulesError as exc:
        raise RulesError(f"{exc} A running `serve` or `worker` keeps the rules it read before until the file is "
                         "fixed (its log says so); a new one refuses to start.") from None


def cmd_intake_status(args: argparse.Namespace, settings: Settings) -> int:
    """Exit 0, also with intake off (a state, not a mistake); a bad rules file is exit 2 (BadInput)."""
    if settings.intake_rules is None:
        print(json.dumps({"on": False, "day": None, "rules": [], "ignored": 0}) if args.json else control.OFF)
        return EXIT_OK
    db = open_database(settings)
    status = _read(lambda: control.status(db, settings))
    if args.json:
        print(json.dumps({**status.as_dict(), "unreachable": reach.as_dicts(db)}, ensure_ascii=False))
        return EXIT_OK
    print(f"Intake today ({status.day}, UTC), rules from {settings.intake_rules}: {status.ignored} arrival(s) "
          "no rule took.")
    for rule in status.rules:
        print(status_lines(rule))
    for line in gone_lines(status.gone):
        print(line)
    print_unreachable(db)
    return EXIT_OK


def gone_lines(gone: list[control.GoneRule]) -> list[str]:
    """Rules no longer in the file: named, so a rename or removal never hides a backlog."""
    lines: list[str] = []
    for rule in (r for r in gone if r.waiting):
        lines += [f"{rule.name} · no longer in the rules file, {rule.waiting} waiting on it (offered to the rules "
                  "again whenever the file changes)",
                  "  waiting, what is due first:", *waiting_lines(rule.oldest, rule.waiting)]
    empty = [r.name for r in gone if not r.waiting]
    if empty:
        lines.append(f"No longer in the rules file, nothing waiting: {', '.join(empty)}.")
    return lines


def status_lines(rule: control.RuleStatus) -> str:
    state = (f"paused by {arrivals.by_whom(rule.paused_by)}" if rule.paused else
             f"taking new tickets (in force since {rule.in_force_since})" if rule.in_force_since else
             "not in force yet (no serve, worker or desk add read it)")
    spend = f"${rule.spend_usd:.2f}" + (f" of ${rule.max_usd_per_day:.2f} a day" if rule.max_usd_per_day else "")
    cap = f" · at most {rule.max_per_hour} an hour" if rule.max_per_hour else ""
    lines = [f"{rule.name} → {rule.channel} · {state}",
             f"  taken {rule.taken} · follow-ups {rule.follow_ups} · waiting {rule.waiting} · held {rule.held} · "
             f"spend {spend}{cap}"]
    if rule.due_within_minutes or rule.past_cap_today:
        lines.append("  " + past_cap_text(rule.due_within_minutes, rule.max_per_hour, rule.past_cap_hour,
                                          rule.past_cap_today))
    if rule.skipped:
        lines.append("  skipped: " + "; ".join(f"{n} {reason}" for reason, n in rule.skipped.items()))
    if rule.oldest:
        lines += ["  waiting, in the order they start:", *waiting_lines(rule.oldest, rule.waiting)]
    return "\n".join(lines)


def waiting_lines(shown: list[control.Waiting], waiting: int) -> list[str]:
    """The first WAITING_LINES of a backlog as listed (the order it starts), each with its due line, then why."""
    lines = [f"    {w.ticket_id}{' (follow-up)' if w.kind == 'message' else ''} · {w.due or 'nothing due'} · "
             f"since {w.since}" for w in shown[:WAITING_LINES]]
    if waiting > WAITING_LINES:
        lines.append(f"    … and {waiting - WAITING_LINES} more (--json lists {control.WAITING_SHOWN})")
    return [*lines, f"  why: {shown[0].reason}"] if shown else lines


def past_cap_text(due_within_minutes: float | None, max_per_hour: int | None, hour: int, today: int) -> str:
    """"due within 30 min (not yet breached) starts past the hourly cap, at most 2 an hour: 1 in the last hour, 3
    today" (docs/intake.md, due_within)."""
    window = durations.describe(due_within_minutes * 60) if due_within_minutes else "its due_within"
    most = f", at most {max_per_hour} an hour" if max_per_hour else ""
    return (f"due within {window} (not yet breached) starts past the hourly cap{most}: {hour} in the last hour, "
            f"{today} today")


def cmd_intake_flip(args: argparse.Namespace, settings: Settings) -> int:
    flip = control.pause if args.paused else control.resume
    changes = flip(open_database(settings), settings, args.rule, control.CLI)
    for c in changes:
        told = f"; {c.channel} is told" if c.changed else ""
        if args.paused:
            print(f"Rule {c.rule}: " + ("paused; new tickets it takes wait in its backlog" if c.changed else
                                        f"already paused by {arrivals.by_whom(c.paused_by)}")
                  + f" ({c.waiting} waiting){told}.")
        else:
            backlog = f"its backlog ({c.waiting} waiting) starts what is due first" if c.waiting else "new tickets start"
            print(f"Rule {c.rule}: " + (f"resumed; {backlog} as its caps allow" if c.changed else "was not paused")
                  + told + ".")
    return EXIT_OK


def cmd_intake_check(args: argparse.Namespace, settings: Settings) -> int:
    """Exit 0, also with intake off; a bad rules file is exit 2."""
    if settings.intake_rules is None:
        print(json.dumps({"on": False, "desk": settings.desk, "rules": []}) if args.json else control.OFF)
        return EXIT_OK
    db = open_database(settings)
    report = _read(lambda: check.check(db, settings))
    if args.json:
        print(json.dumps({**report.as_dict(), "unreachable": reach.as_dicts(db)}, ensure_ascii=False))
        return EXIT_OK
    print(f"Intake check on the {report.desk} desk: what each rule would take of its {report.open_tickets} open "
          "ticket(s) if they arrived now (nothing is started or written).")
    for rule in report.rules:
        print(f"{rule.name} → {rule.channel}: {len(rule.tickets)} ticket(s), {rule.would_start} would start"
              + (f", but now they would wait: {rule.hold}" if rule.hold else "")
              + (f"; {rule.waiting} wait in its backlog" if rule.waiting else ""))
        for note in rule.notes:
            print(f"  note: {note}")
        for t in rule.tickets[:TICKETS_LINES]:
            print(f"  {t.ticket_id:<10} {t.status:<8} {', '.join(t.why)}"
                  + (f" · skipped: {t.skip}" if t.skip else " · would start"))
        if len(rule.tickets) > TICKETS_LINES:
            print(f"  … and {len(rule.tickets) - TICKETS_LINES} more (--json lists them all)")
    print(f"No rule takes {report.untaken} ticket(s).")
    for line in gone_lines(report.gone):
        print(line)
    print_unreachable(db)
    return EXIT_OK


def print_unreachable(db: Database) -> None:
    """The channels the bot cannot post in (issue 48, item 7; bot/runs/intake/reach.py): what to do about each."""
    for line in reach.report_lines(db):
        print(line)
