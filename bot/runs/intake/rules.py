"""The intake rules: which new tickets the agent takes without being asked, read from the TOML file that
KITEBASE_INTAKE_RULES names (docs/intake.md). A bad file is one sentence naming its line; `serve` and `worker`
refuse to start with it rather than take the wrong tickets.

A rule's filters are ANDed, each list is "any of"; a rule without filters takes every new ticket. The first
rule (in file order) that matches a ticket takes it. `due_within` lets a ticket whose reply target breaches within
that window (and has not breached yet) skip the rule's `max_per_hour`, at most max_per_hour such tickets an hour
(nothing else: pause, an unreachable channel and `max_usd_per_day` still hold), so a cap does not make a breach it
could prevent. A window is at most MAX_WINDOW (7 days)."""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.durations import parse_duration
from bot.runs import BadInput

ZENDESK_STATUSES = ("new", "open", "pending", "hold", "solved", "closed")
PRIORITIES = ("low", "normal", "high", "urgent", "none")  # none: a ticket without a priority
CHANNEL = re.compile(r"^[CGD][A-Z0-9]{2,}$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
LISTS = ("statuses", "priorities", "tags", "brands", "groups", "via")
MAX_WINDOW = timedelta(days=7)  # the longest due_within: a reply target further off is not "about to breach"
KEYS = ("name", "channel", *LISTS, "max_per_hour", "max_usd_per_day", "due_within", "follow_ups", "triage_tags")


class RulesError(BadInput):
    """The rules file cannot be used; the message names the file and line and says what to fix."""


@dataclass(frozen=True)
class Rule:
    name: str
    channel: str
    statuses: tuple[str, ...] = ()
    priorities: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    brands: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    via: tuple[str, ...] = ()
    max_per_hour: int | None = None
    max_usd_per_day: float | None = None
    follow_ups: bool = True
    triage_tags: bool = False  # its runs' triage written to their own ticket as tags
    due_within: timedelta | None = None  # a ticket due within this may start past max_per_hour
    line: int = 0  # where its [[rule]] starts in the file

    def why(self, fields: dict[str, Any]) -> list[str] | None:
        """Why this rule takes a ticket with these desk fields ("new", "urgent", "tagged sso"), or None when it
        does not. A rule without filters takes every new ticket ("any new ticket")."""
        reasons: list[str] = []
        status = str(fields.get("status") or "").lower()
        if self.statuses:
            if status not in self.statuses:
                return None
            reasons.append(status)
        priority = str(fields.get("priority") or "none").lower()
        if self.priorities:
            if priority not in self.priorities:
                return None
            reasons.append(priority if priority != "none" else "no priority")
        tags = {str(t).lower() for t in fields.get("tags") or []}
        if self.tags:
            hit = [t for t in self.tags if t in tags]
            if not hit:
                return None
            reasons.append("tagged " + ", ".join(hit))
        for name, wanted, label in (("brand", self.brands, "brand"), ("group", self.groups, "group"),
                                    ("via", self.via, "via")):
            if wanted:
                value = str(fields.get(name) if fields.get(name) is not None else "").lower()
                if value not in wanted:
                    return None
                reasons.append(f"{label} {value}")
        return reasons or ["any new ticket"]


def load(path: Path | str | None) -> list[Rule]:
    """The rules in `path` (none when it is None). Raises RulesError naming the line of the first problem."""
    if path is None:
        return []
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RulesError(f"KITEBASE_INTAKE_RULES names {path}, which cannot be read ({exc.strerror}).") from None
    return from_bytes(data, path)


def from_bytes(data: bytes, path: Path) -> list[Rule]:
    """The rules in the file's bytes as read (`serve` compares them with those it read before)."""
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark some editors write is no problem
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RulesError(f"{path}, line {line}: not UTF-8 text (byte {exc.object[exc.start]:#04x}). Save the rules "
                         "file as UTF-8 and start again.") from None
    return parse(text, str(path))


def parse(text: str, where: str = "the rules file") -> list[Rule]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{where}: not valid TOML: {exc}. Fix that line and start again.") from None
    unknown = [k for k in data if k != "rule"]
    if unknown:
        raise RulesError(f"{where}, line {_line_of_key(text, 0, len(text.splitlines()), unknown[0])}: "
                         f"unknown top-level key '{unknown[0]}'; the file holds [[rule]] tables only.")
    tables = data.get("rule", [])
    if not isinstance(tables, list) or not tables:
        raise RulesError(f"{where}: no [[rule]] table. Write at least one (docs/intake.md has an example), or "
                         "unset KITEBASE_INTAKE_RULES to turn intake off.")
    starts = [n for n, line in enumerate(text.splitlines(), start=1) if re.match(r"^\s*\[\[\s*rule\s*\]\]", line)]
    starts += [len(text.splitlines()) + 1]
    rules = [_rule(table, text, starts[i] if i < len(starts) else 0, starts[i + 1] if i + 1 < len(starts) else 0,
                   where) for i, table in enumerate(tables)]
    seen: dict[str, Rule] = {}
    for rule in rules:
        if rule.name.lower() in seen:
            raise RulesError(f"{where}, line {rule.line}: a second rule named '{rule.name}' (the first is at line "
                             f"{seen[rule.name.lower()].line}); rule names must be unique.")
        seen[rule.name.lower()] = rule
    return rules


def _rule(table: dict[str, Any], text: str, start: int, end: int, where: str) -> Rule:
    def fail(key: str | None, problem: str) -> RulesError:
        line = _line_of_key(text, start, end, key) if key else start
        return RulesError(f"{where}, line {line}: {problem}")

    for key in table:
        if key not in KEYS:
            raise fail(key, f"unknown key '{key}' (a rule knows {', '.join(KEYS)}).")
    name = table.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise fail("name" if "name" in table else None,
                   "every rule needs a `name`: letters, digits, '-', '_' or '.', at most 64 characters.")
    channel = table.get("channel")
    if not isinstance(channel, str) or not CHANNEL.match(channel):
        raise fail("channel" if "channel" in table else None,
                   f"rule '{name}' needs a `channel`: a Slack channel id such as \"C0123ABCD\" (not its name).")
    lists: dict[str, tuple[str, ...]] = {}
    for key in LISTS:
        value = table.get(key, [])
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, (str, int)) for v in value):
            raise fail(key, f"rule '{name}': `{key}` is a list of strings (or ids), like [\"a\", \"b\"].")
        lists[key] = tuple(str(v).strip().lower() for v in value)
    for key, allowed in (("statuses", ZENDESK_STATUSES), ("priorities", PRIORITIES)):
        bad = [v for v in lists[key] if v not in allowed]
        if bad:
            raise fail(key, f"rule '{name}': {key} '{bad[0]}' is not one of {', '.join(allowed)}.")
    per_hour = table.get("max_per_hour")
    if per_hour is not None and (isinstance(per_hour, bool) or not isinstance(per_hour, int) or per_hour < 1):
        raise fail("max_per_hour", f"rule '{name}': max_per_hour is a whole number of runs, 1 or more.")
    usd = table.get("max_usd_per_day")
    if usd is not None and (isinstance(usd, bool) or not isinstance(usd, (int, float)) or not math.isfinite(usd)
                            or usd <= 0):
        raise fail("max_usd_per_day", f"rule '{name}': max_usd_per_day is an amount in US dollars above 0.")
    follow_ups = table.get("follow_ups", True)
    if not isinstance(follow_ups, bool):
        raise fail("follow_ups", f"rule '{name}': follow_ups is true or false.")
    triage_tags = table.get("triage_tags", False)
    if not isinstance(triage_tags, bool):
        raise fail("triage_tags", f"rule '{name}': triage_tags is true or false.")
    try:
        due_within = _window(table.get("due_within"))
    except ValueError:
        raise fail("due_within", f"rule '{name}': due_within is a window such as \"30m\", \"2h\" or 45 (minutes), "
                                 "above 0 and at most 7 days.") from None
    return Rule(name=name, channel=channel, **lists, max_per_hour=per_hour,
                max_usd_per_day=float(usd) if usd is not None else None, follow_ups=follow_ups,
                due_within=due_within, triage_tags=triage_tags, line=start)


def _window(value: Any) -> timedelta | None:
    """`due_within`: "30m", "2h", "1d" (bot/durations.py) or a number of minutes (45, "45"); above 0 and at most
    MAX_WINDOW (ValueError otherwise: a larger one would only lift the cap, and a huge one overflows the clock)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, str) and re.fullmatch(r"\s*\d+(\.\d+)?\s*", value):
        value = float(value)
    if isinstance(value, (int, float)):
        seconds = float(value) * 60
    elif isinstance(value, str):
        seconds = parse_duration(value)
    else:
        raise ValueError(value)
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_WINDOW.total_seconds():
        raise ValueError(value)
    return timedelta(seconds=seconds)


def written(window: timedelta) -> str:
    """A due_within as the file writes it (and reads it back): "30m", "2h", "1d", "90s"."""
    seconds = window.total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds / size:.10g}{unit}"
    return f"{seconds:.10g}s"


def _line_of_key(text: str, start: int, end: int, key: str) -> int:
    """The line (from 1) of `key = …` between lines `start` and `end` of `text`; `start` when not found."""
    lines = text.splitlines()
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for number in range(max(start, 1), min(end or len(lines) + 1, len(lines) + 1)):
        if pattern.match(lines[number - 1]):
            return number
    return start


def taker(rules: list[Rule], fields: dict[str, Any]) -> tuple[Rule, list[str]] | None:
    """The first rule that takes a ticket with `fields`, and why."""
    for rule in rules:
        why = rule.why(fields)
        if why is not None:
            return rule, why
    return None
