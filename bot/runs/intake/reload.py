"""The rules file as `serve` and `worker` hold it: read again before each intake pass, so an edited file is in
force within one pass, with no restart (docs/intake.md, "Changing the rules").

The file is small; its bytes are compared with those last read, so any change counts, whatever its mtime. A change
is logged rule by rule (added, removed, changed and how). A file that no longer reads (bad TOML, not UTF-8, gone)
is logged once with its sentence and the rules read before stay in force until it is fixed: a typo must not turn
the intake off, nor take the wrong tickets. So are rules that need approvers when KITEBASE_APPROVERS is empty.

What a change causes in the database is arrivals.py's: a rule new to the database, or a rule whose filters
changed, judges again the recent arrivals no rule took (`arrivals.judge_again`); a removed or renamed rule's
backlog is judged by the rules in force at the next pass and, when none takes it, waits where `intake status`
and `intake check` show it (`arrivals.orphans`)."""

from __future__ import annotations

import logging
from dataclasses import fields
from datetime import timedelta
from pathlib import Path

from bot.config import Settings
from bot.db.engine import Database
from bot.runs.intake import arrivals
from bot.runs.intake.rules import Rule, RulesError, from_bytes, load, written

logger = logging.getLogger(__name__)
MATCHING = ("statuses", "priorities", "tags", "brands", "groups", "via")  # what decides which tickets a rule takes


class RulesFile:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db, self.settings = db, settings
        self.path = Path(settings.intake_rules) if settings.intake_rules is not None else None
        self._seen = self._read()
        self.rules: list[Rule] = load(self.path)  # a bad file at start raises: serve and worker refuse to start
        self.problem: str | None = None  # the sentence of a change that could not be taken up, while it stands

    def current(self) -> list[Rule]:
        """The rules in force now: the file's, read again when its bytes changed since the last look. The bytes
        count as taken up only once the database holds the change (a failed statement is tried again next pass)."""
        data = self._read()
        if data == self._seen:
            return self.rules
        try:
            new = load(self.path) if data is None or self.path is None else from_bytes(data, self.path)
        except RulesError as exc:
            self._seen = data
            self._refuse(f"{exc}")
            return self.rules
        if new and not self.settings.approvers:
            self._seen = data
            self._refuse(f"{self.path} now holds rules but KITEBASE_APPROVERS is empty: no one could decide on "
                         "their drafts. Set KITEBASE_APPROVERS and restart, or remove the rules.")
            return self.rules
        lines = differences(self.rules, new)
        if lines:
            arrivals.standing(self.db, new)
            for old, renamed in renames(self.rules, new):
                if arrivals.carry_pause(self.db, old.name, renamed.name):
                    lines.append(f"rule '{renamed.name}' keeps the pause rule '{old.name}' had (resume it to start "
                                 "its backlog)")
            if refiltered(self.rules, new):
                reopened = arrivals.judge_again(self.db, "the rules file changed")
                if reopened:
                    lines.append(f"{reopened} ticket(s) of the last {arrivals.describe_window()} that no rule took "
                                 "are judged again by the changed rules")
            for line in lines:
                logger.warning("intake: %s changed: %s", self.path, line)
        self._seen, self.rules, self.problem = data, new, None
        return new

    def _read(self) -> bytes | None:
        if self.path is None:
            return None
        try:
            return self.path.read_bytes()
        except OSError:
            return None

    def _refuse(self, why: str) -> None:
        self.problem = why
        names = ", ".join(r.name for r in self.rules) or "none"
        logger.error("intake: the rules file changed and cannot be taken up: %s The rules read before stay in "
                     "force (%s) until it is fixed.", why, names)


def differences(old: list[Rule], new: list[Rule]) -> list[str]:
    """What changed from `old` to `new`, one sentence per rule, in the new file's order (removed rules last)."""
    before = {r.name: r for r in old}
    after = {r.name: r for r in new}
    twins = {renamed.name: was for was, renamed in renames(old, new)}
    lines: list[str] = []
    for rule in new:
        was = before.get(rule.name)
        if was is None:
            twin = twins.get(rule.name)
            lines.append(f"rule '{rule.name}' added" + (f" (rule '{twin.name}' renamed?)" if twin else "")
                         + f", channel {rule.channel}")
            continue
        changed = [f"{f.name} {_shown(getattr(was, f.name))} → {_shown(getattr(rule, f.name))}"
                   for f in fields(Rule) if f.name not in ("name", "line")
                   and getattr(was, f.name) != getattr(rule, f.name)]
        if changed:
            lines.append(f"rule '{rule.name}' changed: " + "; ".join(changed))
    if [r.name for r in old if r.name in after] != [r.name for r in new if r.name in before]:
        lines.append("the rules' order changed (the first rule that matches takes a ticket): "
                     + ", ".join(r.name for r in new))
    for rule in old:
        if rule.name not in after:
            lines.append(f"rule '{rule.name}' removed; its backlog is judged by the rules in force")
    return lines


def renames(old: list[Rule], new: list[Rule]) -> list[tuple[Rule, Rule]]:
    """(old, new) for each rule that left the file while one alike in all but its name came in: a rename."""
    before, after = {r.name for r in old}, {r.name for r in new}
    gone = [r for r in old if r.name not in after]
    pairs: list[tuple[Rule, Rule]] = []
    for rule in (r for r in new if r.name not in before):
        twin = next((g for g in gone if _same_but_name(g, rule)), None)
        if twin is not None:
            gone.remove(twin)
            pairs.append((twin, rule))
    return pairs


def refiltered(old: list[Rule], new: list[Rule]) -> bool:
    """Whether `new` may take a ticket `old` took none of: a rule added, or a rule's filters changed."""
    before = {r.name: r for r in old}
    return any(r.name not in before or any(getattr(r, m) != getattr(before[r.name], m) for m in MATCHING)
               for r in new)


def _same_but_name(a: Rule, b: Rule) -> bool:
    return all(getattr(a, f.name) == getattr(b, f.name) for f in fields(Rule) if f.name not in ("name", "line"))


def _shown(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(value) + "]" if value else "any"
    if isinstance(value, timedelta):  # due_within: as the file writes it (and would read it back)
        return written(value)
    return "none" if value is None else str(value)
