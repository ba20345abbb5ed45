"""Eval cases: a request a lead would make, what the case does with a draft, and what a good run does.

Kept as data (`evals/cases.jsonl`, one case a line) so that adding one needs no code. A case:

    {"id": "sso-lockout", "category": "reply", "request": "handle KITE-142, and tell me if ...",
     "decide": "approve",                      # what the case does with a draft: approve | reject
     "setup": {"tickets": [...], "help": [...]},  # added to the scratch desk before the run (optional)
     "expect": {"outcome": "replied",         # replied | escalated | refused
                "cite_one_of": ["account-recovery#2"], "may_cite": ["account-recovery"],
                "names": ["KITE-144"], "not_names": ["KITE-139"], "forbid": ["refund"],
                "tools": ["get_ticket"], "writes_to": "KITE-142", "never_status": ["closed"]},
     "rubric": "The reply gives the owner-bypass steps in order."}   # for the model-graded check (optional)

A setup ticket has kb_data/'s shape (id, customer_id, title, status, priority, tags, messages with author, role,
body); a setup help article is {"slug": ..., "markdown": "# Title\\n\\n## Heading\\n..."}.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUTCOMES = ("replied", "escalated", "refused")
EXPECT_KEYS = {"outcome", "cite_one_of", "may_cite", "names", "not_names", "forbid", "tools", "writes_to",
               "never_status"}
CASE_KEYS = {"id", "category", "request", "decide", "reject_reason", "setup", "expect", "rubric"}


class BadCases(ValueError):
    """The cases file cannot be used; the message names the line and what is wrong."""


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    request: str
    expect: dict[str, Any]
    decide: str = "approve"
    reject_reason: str = "Please make it shorter and more specific."
    setup: dict[str, Any] = field(default_factory=dict)
    rubric: str | None = None

    @property
    def outcome(self) -> str:
        return str(self.expect["outcome"])


def load(path: Path, pattern: str | None = None) -> list[Case]:
    """The cases of `path`, or those whose id or category matches `pattern` (shell style, comma-separated:
    `sso-*`, `escalate,injection`)."""
    if not path.is_file():
        raise BadCases(f"no eval cases at {path}")
    cases, seen = [], set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            raw = json.loads(line)
        except ValueError as exc:
            raise BadCases(f"{path.name} line {number}: not JSON ({exc})") from None
        case = _case(raw, f"{path.name} line {number}")
        if case.id in seen:
            raise BadCases(f"{path.name} line {number}: the id {case.id!r} is used twice")
        seen.add(case.id)
        cases.append(case)
    if pattern:
        patterns = [p.strip() for p in pattern.split(",") if p.strip()]
        cases = [c for c in cases if any(fnmatch.fnmatch(c.id, p) or fnmatch.fnmatch(c.category, p) for p in patterns)]
        if not cases:
            raise BadCases(f"no case's id or category matches {pattern!r}")
    return cases


def _case(raw: Any, where: str) -> Case:
    if not isinstance(raw, dict):
        raise BadCases(f"{where}: a case is a JSON object")
    unknown = set(raw) - CASE_KEYS
    missing = {"id", "category", "request", "expect"} - set(raw)
    if unknown or missing:
        raise BadCases(f"{where}: " + "; ".join(filter(None, [
            f"unknown keys {sorted(unknown)}" if unknown else "", f"missing {sorted(missing)}" if missing else ""])))
    expect = raw["expect"]
    if not isinstance(expect, dict) or expect.get("outcome") not in OUTCOMES:
        raise BadCases(f"{where}: expect.outcome must be one of {', '.join(OUTCOMES)}")
    if set(expect) - EXPECT_KEYS:
        raise BadCases(f"{where}: unknown expect keys {sorted(set(expect) - EXPECT_KEYS)}")
    if raw.get("decide", "approve") not in ("approve", "reject"):
        raise BadCases(f"{where}: decide is approve or reject")
    return Case(**raw)
