"""`kitebase stats`, `kitebase gaps` and `kitebase feedback`: the figures over a window of runs, the knowledge
gaps of the help center, and a thumbs up or down on a run from the terminal."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from bot.cli_run import EXIT_OK, actor_of, open_database
from bot.config import Settings
from bot.durations import describe, parse_duration
from bot.runs import BadInput
from bot.runs.lifecycle import naming
from bot.runs.reports import feedback, first_replies, gaps, stats


def add_report_commands(sub: Any) -> None:
    figures = sub.add_parser("stats", help="figures over the runs of a window: endings, drafts, waits, cost, feedback; "
                                           "first replies against their targets")
    figures.add_argument("--since", default="7d", help="how far back: 24h, 7d, 4w (default 7d)")
    figures.add_argument("--json", action="store_true")
    figures.set_defaults(handler=cmd_stats)

    holes = sub.add_parser("gaps", help="questions the help center did not answer well, by topic, with their tickets")
    holes.add_argument("--since", default="30d", help="how far back (default 30d)")
    holes.add_argument("--json", action="store_true")
    holes.set_defaults(handler=cmd_gaps)

    vote = sub.add_parser("feedback", help="thumbs up or down on a run (one per run and person; the latest counts)")
    vote.add_argument("run", help="the run: its number as `kitebase runs` shows it, or its ticket (KITE-142)")
    vote.add_argument("value", choices=["up", "down"])
    vote.add_argument("--note", help="what was good or wrong")
    vote.add_argument("--as", dest="actor", help="who says so (default KITEBASE_CLI_USER, else cli)")
    vote.set_defaults(handler=cmd_feedback)


def since(text: str) -> tuple[datetime, datetime, float]:
    try:
        seconds = parse_duration(text)
    except ValueError as exc:
        raise BadInput(f"--since: {exc}") from None
    until = datetime.now(UTC)
    start, end = stats.window(until, seconds)
    return start, end, seconds


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    start, end, seconds = since(args.since)
    with open_database(settings).session() as session:
        fig = stats.figures(session, start, end)
        fig["first_replies"] = first_replies.figures(session, start, end)
    print(json.dumps(fig, ensure_ascii=False, indent=1) if args.json else figures_text(fig, seconds))
    return EXIT_OK


def cmd_gaps(args: argparse.Namespace, settings: Settings) -> int:
    start, end, seconds = since(args.since)
    with open_database(settings).session() as session:
        found = gaps.knowledge_gaps(session, start, end)
    print(json.dumps(found, ensure_ascii=False, indent=1) if args.json else gaps_text(found, seconds))
    return EXIT_OK


def cmd_feedback(args: argparse.Namespace, settings: Settings) -> int:
    db = open_database(settings)
    with db.session() as session:
        named = naming.resolve(session, args.run, kind=settings.desk)
    actor = actor_of(args, settings)
    feedback.record(db, named.run_id, user=actor, value=args.value)
    if args.note:
        feedback.add_note(db, named.run_id, user=actor, note=args.note)
    print(f"Recorded: {actor} says {args.value} on {named.label()}.")
    return EXIT_OK


def _span(fig: dict[str, Any], seconds: float) -> str:
    start, end = datetime.fromisoformat(fig["since"]), datetime.fromisoformat(fig["until"])
    return f"{start:%Y-%m-%d %H:%M} → {end:%Y-%m-%d %H:%M} UTC (the last {describe(seconds)})"


def figures_text(fig: dict[str, Any], seconds: float) -> str:
    lines = [f"Runs started {_span(fig, seconds)}", ""]
    for label, value, detail in stats.rows(fig):
        lines.append(f"{label:<26} {value:>14}   {detail}".rstrip())
    notes = fig["feedback"]["notes"]
    if notes:
        lines += ["", "Feedback notes:"] + [f"  run {n['run_id']}: {n['note']}" for n in notes]
    return "\n".join(lines + ["", *first_replies_text(fig["first_replies"], seconds)])


COLUMNS = f"{'met':>5} {'breached':>9} {'running':>8} {'median margin':>14}"


def _cells(group: dict[str, Any]) -> str:
    return (f"{group['met']:>5} {group['breached']:>9} {group['running']:>8} "
            f"{first_replies.margin(group['margin_median_minutes']):>14}")


def _row(label: str, entry: dict[str, Any]) -> str:
    return f"{label[:26]:<26} {_cells(entry['agent'])}   {_cells(entry['rest'])}"


def first_replies_text(fig: dict[str, Any], seconds: float) -> list[str]:
    """First replies against their targets: the agent-drafted tickets beside the rest, over all the tickets and
    by tier and intent (margin: the target minus the reply; negative when late)."""
    lines = [f"First replies against target, tickets created {_span(fig, seconds)}",
             f"{'':<26} {'agent-drafted':^38}   {'the rest':^38}", f"{'':<26} {COLUMNS}   {COLUMNS}",
             _row("All tickets", fig)]
    for title, key in (("By tier", "by_tier"), ("By intent", "by_intent")):
        lines += [title] + [_row("  " + entry["name"], entry) for entry in fig[key]]
    left_out, unanswered = fig["no_target"], fig["all"]["breached_unanswered"]
    notes = [f"{left_out} ticket{'' if left_out == 1 else 's'} without a first-reply target (left out above)"] \
        if left_out else []
    notes += [f"breached includes {unanswered} still unanswered"] if unanswered else []
    return [line.rstrip() for line in lines] + (["; ".join(notes) + "."] if notes else [])


def gaps_text(found: dict[str, Any], seconds: float) -> str:
    topics, policy = found["topics"], found.get("policy") or []
    lines = [f"Knowledge gaps in the runs started {_span(found, seconds)}: {len(topics)} topic(s) from "
             f"{sum(len(t['tickets']) for t in topics)} ticket(s) of {found['runs_considered']} run(s)."]
    for topic in topics:
        signals = ", ".join(f"{gaps.SIGNALS[k]} ×{n}" for k, n in topic["signals"].items())
        todo = ("fix or extend " + ", ".join(topic["articles"])) if topic["articles"] else \
            "write an article: the help center has nothing the agent could use"
        lines += ["", f"■ {topic['topic']} — {len(topic['tickets'])} ticket(s): {signals}", f"  To do: {todo}"]
        for ticket in topic["tickets"]:
            lines.append(f"  {ticket['ticket_id']} “{ticket['title']}” ({ticket['customer']}) · "
                         + ("runs " if len(ticket["runs"]) > 1 else "run ") + ", ".join(f"#{r}" for r in ticket["runs"]))
            for signal in ticket["signals"]:
                lines.append(f"      {gaps.SIGNALS[signal['kind']]}: {signal['detail']}")
            asked = ticket["questions"][1:]
            if asked:
                lines.append("      searched for: " + "; ".join(f"“{q}”" for q in asked))
    if policy:
        count = sum(len(g["tickets"]) for g in policy)
        lines += ["", f"Handed to a person by policy — not gaps, no article to write: {count} ticket(s)."]
        for group in policy:
            lines.append(f"■ {group['reason']} — {group['label']}: {len(group['tickets'])} ticket(s)")
            for ticket in group["tickets"]:
                lines.append(f"  {ticket['ticket_id']} “{ticket['title']}” ({ticket['customer']}) · "
                             + ("runs " if len(ticket["runs"]) > 1 else "run ")
                             + ", ".join(f"#{r}" for r in ticket["runs"]) + f": {ticket['detail']}")
    return "\n".join(lines)
