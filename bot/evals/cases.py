"""Eval cases: a request a lead would make, what the case does with a draft, and what a good run does.

Kept as data (`evals/cases.jsonl`, one case a line) so that adding one needs no code. A case:

    {"id": "sso-lockout", "category": "reply", "request": "handle KITE-142, and tell me if ...",
     "decide": "approve",                      # what the case does with a draft: approve | reject
     "setup": {"tickets": [...], "help": [...]},  # added to the scratch desk before the run (optional)
     "expect": {"outcome": "replied",         # replied | escalated | refused | declined (fan-out)
                "cite_one_of": ["account-recovery#2"], "may_cite": ["account-recovery"],
                "names": ["KITE-144"], "not_names": ["KITE-139"], "forbid": ["refund"],
                "tools": ["get_ticket"], "writes_to": "KITE-142", "never_status": ["closed"]},
     "rubric": "The reply gives the owner-bypass steps in order."}   # for the model-graded check (optional)

A setup ticket has kb_data/'s shape (id, customer_id, title, status, priority, tags, messages with author, role,
body); a setup help article is {"slug": ..., "markdown": "# Title\\n\\n## Heading\\n..."}.

What a correct draft must say and must not say (its substance), matched case-insensitively, with runs of
whitespace as one space, on the text of every reply the run drafted for the customer (the reply that would reach
them; never the report to the lead):

    "expect": {..., "must_say": [["bypass"], ["30 minutes", "half an hour"]],   # every group: one of its phrases
               "must_not_say": ["Continue with SSO", "identity provider"]}      # none of these phrases

`must_say` is a list of groups, each a list of alternatives (a bare string is a group of one): a draft passes a
group when it contains any of its phrases, and every group needs a pass. A run that drafts nothing fails
`must_say`; `must_not_say` passes it (pair it with the outcome to say a draft must exist).

What happened on the desk before the lead's request is `"before"`, worked in order on the scratch desk:

    "before": [{"request": "handle KITE-142"},                 # a run worked first, its drafts approved (sent)
               {"ticket_id": "KITE-142", "message": "The bypass link expired.", "author": "Dana Whitfield"}]
                                                              # a customer's message, as `kitebase desk add` adds it

(`author` is optional: the customer's contact by default.) Only the case's own run is graded.

Expect also knows `"greets": "Marcus"` (every draft's first line names that person) and `"draft_matches":
"<regex>"` (every draft matches it, case-insensitive: the language it is written in, a step it must give).

An intake run records its triage (tools/triage.py); a case asks for it as an intake rule's request reads, and says
what the run's triage must be (any of its four parts; the language as an ISO 639-1 code):

    {"id": "triage-vat", "category": "triage", "request": "handle KITE-179 (picked up by rule 'billing': open)",
     "expect": {"outcome": "replied", "triage": {"intent": "billing", "language": "en", "sentiment": "neutral",
                                                 "priority": "normal"}}}

A fan-out child ("Draft for these N" after a reply was approved on another ticket) names the child's ticket as
its request and the reference it starts from; the run's first message is `child_request` (bot/agent/
fan_out_text.py), as the batch builds it:

    {"id": "fan-out-same-fix", "category": "fan_out", "request": "KITE-144",
     "fan_out": {"parent": "KITE-142", "reply": "Hi Dana, ...", "approved_by": "priya",   # approved_by optional
                 "sources": [["account-recovery#2", "Locked out of your account"]]},
     "expect": {"outcome": "replied", "greets": "Marcus", ...}}

Its outcome is replied (the child drafted for its own customer and the draft was sent) or declined (no draft,
and the answer has a line starting "Declined:" with the reason); a draft that names the parent ticket or the
parent's contact fails a check of its own.

A case the offline model cannot do (a reply in the customer's language) says why with `"model_only": "<why>"`:
with the offline model it is not run, and the scorecard and the result list it as skipped, counted neither as
passed nor as failed (`summary.cases` counts the cases graded, `summary.skipped` the others).
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.agent.fan_out_text import Reference, child_request
from bot.desk import ticket_ids_in

OUTCOMES = ("replied", "escalated", "refused", "declined")
EXPECT_KEYS = {"outcome", "cite_one_of", "may_cite", "names", "not_names", "forbid", "tools", "writes_to",
               "never_status", "greets", "draft_matches", "must_say", "must_not_say", "triage"}
TRIAGE_KEYS = ("intent", "language", "sentiment", "priority")
CASE_KEYS = {"id", "category", "request", "decide", "reject_reason", "setup", "expect", "rubric", "fan_out",
             "model_only", "before"}
BEFORE_MESSAGE_KEYS = {"ticket_id", "message", "author"}
FAN_OUT_KEYS = {"parent", "reply", "sources", "approved_by"}


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
    fan_out: dict[str, Any] | None = None  # the reference a fan-out child starts from (see above)
    model_only: str | None = None  # why the offline model cannot do this case (it is skipped with it)
    before: list[dict[str, str]] = field(default_factory=list)  # runs and customers' messages first (see above)

    @property
    def must_say(self) -> list[list[str]]:
        """The groups of alternatives a draft must say (a bare string is a group of one)."""
        return [[group] if isinstance(group, str) else list(group) for group in self.expect.get("must_say", [])]

    @property
    def outcome(self) -> str:
        return str(self.expect["outcome"])

    @property
    def reference(self) -> Reference | None:
        """A fan-out child's reference: the parent's ticket, its approved reply, who approved it, its sources."""
        if self.fan_out is None:
            return None
        return Reference(self.fan_out["parent"], self.fan_out["reply"], self.fan_out.get("approved_by"),
                         tuple((anchor, heading) for anchor, heading in self.fan_out["sources"]))

    @property
    def first_message(self) -> str:
        """What the run is asked: the request, or for a fan-out child the request the batch builds."""
        reference = self.reference
        return child_request(self.request, reference) if reference is not None else self.request


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
    if "draft_matches" in expect:
        try:
            re.compile(expect["draft_matches"])
        except (re.error, TypeError) as exc:
            raise BadCases(f"{where}: expect.draft_matches is not a regular expression ({exc})") from None
    _check_substance(expect, where)
    _check_triage(expect, where)
    _check_before(raw.get("before", []), where)
    if "model_only" in raw and not (isinstance(raw["model_only"], str) and raw["model_only"].strip()):
        raise BadCases(f"{where}: model_only says why the offline model cannot do the case")
    if "fan_out" in raw:
        _check_fan_out(raw, where)
    elif expect["outcome"] == "declined":
        raise BadCases(f"{where}: only a fan-out child declines (give fan_out)")
    return Case(**raw)


def _check_substance(expect: dict[str, Any], where: str) -> None:
    must_say, must_not_say = expect.get("must_say", []), expect.get("must_not_say", [])
    groups = [[g] if isinstance(g, str) else g for g in must_say] if isinstance(must_say, list) else None
    if groups is None or not all(isinstance(g, list) and g and all(isinstance(p, str) and p.strip() for p in g)
                                 for g in groups):
        raise BadCases(f"{where}: expect.must_say is a list of groups of phrases, e.g. [[\"bypass\"], "
                       "[\"30 minutes\", \"half an hour\"]] (a draft says one phrase of every group)")
    if not isinstance(must_not_say, list) or not all(isinstance(p, str) and p.strip() for p in must_not_say):
        raise BadCases(f"{where}: expect.must_not_say is a list of phrases, e.g. [\"Continue with SSO\"]")


def _check_triage(expect: dict[str, Any], where: str) -> None:
    if "triage" not in expect:
        return
    triage = expect["triage"]
    if not isinstance(triage, dict) or not triage or set(triage) - set(TRIAGE_KEYS) \
            or not all(isinstance(v, str) and v.strip() for v in triage.values()):
        raise BadCases(f"{where}: expect.triage names what the run's triage must be, some of "
                       f"{', '.join(TRIAGE_KEYS)}, e.g. {{\"intent\": \"billing\", \"language\": \"de\"}}")


def _check_before(before: Any, where: str) -> None:
    if not isinstance(before, list):
        raise BadCases(f"{where}: before is a list of steps")
    for step in before:
        if isinstance(step, dict) and set(step) == {"request"} and isinstance(step["request"], str) \
                and step["request"].strip():
            continue
        if isinstance(step, dict) and {"ticket_id", "message"} <= set(step) <= BEFORE_MESSAGE_KEYS \
                and all(isinstance(v, str) and v.strip() for v in step.values()) \
                and ticket_ids_in(step["ticket_id"]) == [step["ticket_id"]]:
            continue
        raise BadCases(f"{where}: a step of before is {{\"request\": \"handle KITE-142\"}} (a run worked "
                       "first) or {\"ticket_id\": \"KITE-142\", \"message\": \"…\"} (a customer's message, "
                       "optionally with \"author\")")


def _check_fan_out(raw: dict[str, Any], where: str) -> None:
    fan_out = raw["fan_out"]
    if not isinstance(fan_out, dict) or set(fan_out) - FAN_OUT_KEYS or not {"parent", "reply", "sources"} <= set(fan_out):
        raise BadCases(f"{where}: fan_out is {{\"parent\": ticket, \"reply\": the approved text, \"sources\": "
                       "[[anchor, heading], ...]} (and optionally \"approved_by\")")
    if ticket_ids_in(raw["request"]) != [raw["request"]]:
        raise BadCases(f"{where}: a fan-out case's request is the child's ticket id alone, e.g. \"KITE-144\"")
    sources = fan_out["sources"]
    if not isinstance(fan_out["reply"], str) or not fan_out["reply"].strip() or not isinstance(sources, list) or \
            not all(isinstance(s, list) and len(s) == 2 and all(isinstance(x, str) for x in s) for s in sources):
        raise BadCases(f"{where}: fan_out.reply is the approved text and fan_out.sources a list of "
                       "[anchor, heading] pairs")
