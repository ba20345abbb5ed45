"""The intake rules in Slack: `/kitebase intake status|pause|resume` answers and App Home's Intake section, as
short mrkdwn built from plain data (bot/runs/intake/control.py's Status and Change as dicts)."""

from __future__ import annotations

import re
from typing import Any

from bot.durations import describe
from bot.slack_ui.blocks import who
from bot.slack_ui.limits import clip, context, escape, header, mrkdwn_section, split_text

SECTION = 2900
WAITING_SHOWN = 5  # of a rule's backlog, in the answer (its count is whole)


def _text(value: str | None) -> str:
    """Our own stored sentence (a hold's reason may name who paused: `<@U…>`), escaped but for user mentions."""
    return re.sub(r"&lt;@([UW][A-Z0-9]+)&gt;", r"<@\1>", escape(value or ""))


def _by(paused_by: str | None) -> str:
    return "the command line" if paused_by == "cli" else who(paused_by)


def rule_line(rule: dict[str, Any]) -> str:
    """One rule today: `*name* → #channel · paused by … \\n taken … waiting … spend …`."""
    state = (f":double_vertical_bar: paused by {_by(rule['paused_by'])}" if rule["paused"] else
             "taking new tickets" if rule["in_force_since"] else "not in force yet")
    spend = f"${rule['spend_usd']:.2f}" + (f" of ${rule['max_usd_per_day']:.2f}/day" if rule["max_usd_per_day"] else "")
    skipped = sum(rule["skipped"].values())
    line = (f"*{escape(rule['name'])}* → <#{rule['channel']}> · {state}\n"
            f"taken {rule['taken']} · follow-ups {rule['follow_ups']} · waiting {rule['waiting']} · "
            f"skipped {skipped} · spend {spend}" + (f" · {rule['max_per_hour']}/hour" if rule["max_per_hour"] else ""))
    if rule["oldest"]:
        line += f"\nwaiting, in the order they start ({clip(_text(rule['oldest'][0]['reason']), 200)}):"
        line += waiting_list(rule["oldest"], rule["waiting"])
    if rule.get("due_within_minutes") or rule.get("past_cap_today"):
        window = describe(rule["due_within_minutes"] * 60) if rule.get("due_within_minutes") else "its due_within"
        most = f", at most {rule['max_per_hour']} an hour" if rule.get("max_per_hour") else ""
        line += (f"\ndue within {window} (not yet breached) starts past the hourly cap{most}: "
                 f"{rule.get('past_cap_hour', 0)} in the last hour, {rule.get('past_cap_today', 0)} today")
    if rule["skipped"]:
        line += "\nskipped: " + "; ".join(f"{n} {_text(reason)}" for reason, n in rule["skipped"].items())
    return line


def waiting_list(shown: list[dict[str, Any]], waiting: int) -> str:
    """The first WAITING_SHOWN of a backlog as listed (the order it starts), one line each with its due line."""
    lines = [f"\n• *{escape(w['ticket_id'])}*{' (follow-up)' if w['kind'] == 'message' else ''} · "
             f"{escape(w.get('due') or 'nothing due')}" for w in shown[:WAITING_SHOWN]]
    more = f"\n… and {waiting - WAITING_SHOWN} more (`kitebase intake status --json`)" if waiting > WAITING_SHOWN else ""
    return "".join(lines) + more


def gone_line(gone: list[dict[str, Any]]) -> str | None:
    """Rules no longer in the file that something still waits on (a removal or rename never hides a backlog)."""
    waiting = [g for g in gone if g["waiting"]]
    if not waiting:
        return None
    return ":warning: No longer in the rules file, with tickets waiting on them: " + "; ".join(
        f"*{escape(g['name'])}* {g['waiting']} (first *{escape(g['oldest'][0]['ticket_id'])}* · "
        f"{escape(g['oldest'][0].get('due') or 'nothing due')}: {clip(_text(g['oldest'][0]['reason']), 200)})"
        for g in waiting)


def build_intake_status(status: dict[str, Any]) -> str:
    """The slash command's answer (text of an ephemeral acknowledgement)."""
    if not status["on"]:
        return "Intake is off: `KITEBASE_INTAKE_RULES` is unset, so no ticket is taken without a mention."
    lines = [f"*Intake today* ({status['day']}, UTC) · {status['ignored']} arrival(s) no rule took"]
    lines += [rule_line(rule) for rule in status["rules"]]
    gone = gone_line(status.get("gone") or [])
    lines += [gone] if gone else []
    return clip("\n\n".join(lines), 3000)


def build_intake_changes(changes: list[dict[str, Any]]) -> str:
    lines = []
    for c in changes:
        if c["paused"]:
            lines.append(f"Rule *{escape(c['rule'])}* " + ("paused: new tickets wait in its backlog" if c["changed"]
                                                         else f"was already paused by {_by(c['paused_by'])}")
                         + f" ({c['waiting']} waiting).")
        else:
            lines.append(f"Rule *{escape(c['rule'])}* " + (f"resumed: its backlog ({c['waiting']} waiting) starts "
                                                         "what is due first" if c["changed"] else "was not paused") + ".")
    return "\n".join(lines)


def build_intake_home(status: dict[str, Any] | None, problem: str | None = None) -> list[dict[str, Any]]:
    """App Home's Intake section: nothing when intake is off."""
    if problem:
        return [header("Intake"), context(escape(problem))]
    if status is None or not status["on"]:
        return []
    gone = gone_line(status.get("gone") or [])
    text = "\n\n".join([*(rule_line(rule) for rule in status["rules"]), *([gone] if gone else [])])
    return [header(f"Intake today ({status['day']}, UTC)"), *[mrkdwn_section(c) for c in split_text(text, SECTION)],
            context(f"{status['ignored']} arrival(s) no rule took today · `/kitebase intake status`, "
                    "`/kitebase intake pause RULE` (approvers)")]
