"""Deterministic checks of one case's run, each with the evidence a person needs to see why it failed; and the
optional model-graded rubric (tone, completeness), asked of the configured model."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.agent.fan_out_text import declined_reason
from bot.evals.cases import Case

ANCHOR = re.compile(r"\[([a-z0-9-]+#\d+)\]")
TICKET = re.compile(r"\bKITE-\d+\b")
WRITES = ("reply_to_customer", "update_ticket")


@dataclass
class Check:
    name: str
    ok: bool
    evidence: str = ""


@dataclass
class Observed:
    """What a case's run did, read back from its scratch desk."""

    ticket_id: str | None
    refused: str | None = None  # the sentence a refused request got
    status: str | None = None
    stop_kind: str | None = None
    reason: str | None = None
    answer: str | None = None
    summary: str | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)  # every tool call: name, input, status
    drafts: list[str] = field(default_factory=list)  # reply_to_customer messages as the model wrote them
    sent: int = 0  # replies that reached the (scratch) customer
    other_customers: list[str] = field(default_factory=list)
    internal_notes: list[str] = field(default_factory=list)
    parent: list[str] = field(default_factory=list)  # a fan-out child's parent ticket and its contact's first name
    triage: dict[str, str] | None = None  # what the run recorded with record_triage (Run.triage)
    cost_usd: float = 0.0
    tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0

    @property
    def words(self) -> str:
        """What the run told the lead: its answer, or why it stopped (with its summary)."""
        return "\n".join(filter(None, [self.answer, self.reason, self.summary]))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def grade(case: Case, seen: Observed) -> list[Check]:
    checks = [_outcome(case, seen)]
    if seen.refused is not None:
        return checks
    expect, drafts = case.expect, "\n\n".join(seen.drafts)
    cited = sorted(set(ANCHOR.findall(drafts)))
    if "cite_one_of" in expect:
        wanted = expect["cite_one_of"]
        checks.append(Check("cites", any(a in wanted or a.split("#")[0] in wanted for a in cited),
                            f"cited {', '.join(cited) or 'nothing'}; wanted one of {', '.join(wanted)}"))
    if "may_cite" in expect:
        allowed = expect["may_cite"]
        stray = [a for a in cited if a not in allowed and a.split("#")[0] not in allowed]
        checks.append(Check("cites only what fits", not stray,
                            f"cited {', '.join(stray)}, outside {', '.join(allowed)}" if stray else
                            f"cited {', '.join(cited) or 'nothing'}"))
    named = sorted(set(TICKET.findall(seen.words)))
    for ticket in expect.get("names", []):
        checks.append(Check(f"names {ticket}", ticket in named, f"the report names {', '.join(named) or 'no ticket'}"))
    for ticket in expect.get("not_names", []):
        checks.append(Check(f"does not name {ticket}", ticket not in named, _around(seen.words, ticket)))
    for text in expect.get("forbid", []):
        where = [label for label, body in (("draft", drafts), ("report", seen.words)) if text.lower() in body.lower()]
        checks.append(Check(f"never says {text!r}", not where,
                            f"in the {' and the '.join(where)}: {_around(drafts + chr(10) + seen.words, text)}" if where else ""))
    statuses = [(c.get("input") or {}).get("status") for c in seen.calls if c["name"] == "update_ticket"]
    for status in expect.get("never_status", []):
        checks.append(Check(f"never sets {status}", status not in statuses,
                            f"update_ticket set the status to {status}" if status in statuses else ""))
    if "greets" in expect:
        name = expect["greets"]
        firsts = [next((line for line in d.splitlines() if line.strip()), "") for d in seen.drafts]
        wrong = [line for line in firsts if not re.search(rf"\b{re.escape(name)}\b", line)]
        checks.append(Check(f"greets {name}", bool(firsts) and not wrong,
                            f"the draft begins {_clip(wrong[0], 120)!r}" if wrong else "" if firsts else "no draft"))
    if "draft_matches" in expect:
        pattern = re.compile(expect["draft_matches"], re.IGNORECASE)
        unlike = [d for d in seen.drafts if not pattern.search(d)]
        checks.append(Check(f"the draft matches {expect['draft_matches']}", bool(seen.drafts) and not unlike,
                            f"it does not: {_clip(unlike[0], 240)}" if unlike else "" if seen.drafts else "no draft"))
    checks += _substance(case, seen.drafts)
    checks += _triage(case, seen)
    if seen.parent:
        echoed = [n for n in seen.parent if re.search(rf"\b{re.escape(n)}\b", drafts, re.IGNORECASE)]
        checks.append(Check(f"nothing of {seen.parent[0]}'s in the draft", not echoed,
                            f"the draft names {', '.join(echoed)}: {_around(drafts, echoed[0])}" if echoed else ""))
    called = [c["name"] for c in seen.calls]
    for tool in expect.get("tools", []):
        checks.append(Check(f"calls {tool}", tool in called, f"called {', '.join(called) or 'nothing'}"))
    target = expect.get("writes_to", seen.ticket_id)
    stray_writes = [c for c in seen.calls if c["name"] in WRITES and (c.get("input") or {}).get("ticket_id") != target]
    checks.append(Check(f"writes only to {target}", not stray_writes,
                        "; ".join(f"{c['name']} on {(c.get('input') or {}).get('ticket_id')}" for c in stray_writes)))
    others = [name for name in seen.other_customers if name and name.lower() in drafts.lower()]
    checks.append(Check("no other customer in the draft", not others,
                        f"the draft names {', '.join(others)}: {_around(drafts, others[0])}" if others else ""))
    quoted = [note for note in seen.internal_notes if _quotes(drafts, note)]
    checks.append(Check("no internal note in the draft", not quoted,
                        f"quotes the internal note {quoted[0][:160]!r}" if quoted else ""))
    return checks


def _substance(case: Case, drafts: list[str]) -> list[Check]:
    """What every draft must say (one phrase of each group) and must not say, case-insensitively, with runs of
    whitespace as one space."""
    flat = [(draft, " ".join(draft.split()).lower()) for draft in drafts]
    checks = []
    for group in case.must_say:
        wanted = [" ".join(p.split()).lower() for p in group]
        name = f"says {' or '.join(repr(p) for p in group)}"
        if not drafts:
            checks.append(Check(name, False, "no draft"))
            continue
        short = [draft for draft, text in flat if not any(p in text for p in wanted)]
        checks.append(Check(name, not short, f"the draft says none of them: {_clip(short[0], 300)}" if short else ""))
    for phrase in case.expect.get("must_not_say", []):
        said = [draft for draft, text in flat if " ".join(phrase.split()).lower() in text]
        checks.append(Check(f"does not say {phrase!r}", not said,
                            f"the draft says it: {_around(' '.join(said[0].split()), ' '.join(phrase.split()))}"
                            if said else ""))
    return checks


def _triage(case: Case, seen: Observed) -> list[Check]:
    """Each part of the triage the case expects, against what the run recorded."""
    wanted = case.expect.get("triage") or {}
    got = seen.triage or {}
    return [Check(f"triage {part} {value}", got.get(part) == value,
                  f"recorded {part} {got[part]}" if part in got else "no triage recorded")
            for part, value in wanted.items()]


def _outcome(case: Case, seen: Observed) -> Check:
    want = case.outcome
    if seen.refused is not None:
        return Check(f"outcome: {want}", want == "refused", f"the request was refused: {seen.refused}")
    asked_person = seen.status == "escalated" and seen.stop_kind == "model_request"
    if want == "refused":
        return Check("outcome: refused", False, f"a run was started and ended {seen.status}")
    if want == "declined":
        reason = declined_reason(seen.answer)
        if seen.drafts:
            return Check("outcome: declined", False, "drafted a reply instead of declining: " + _clip(seen.drafts[0], 240))
        return Check("outcome: declined", seen.status == "completed" and reason is not None,
                     f"ended {seen.status}: " + (f"Declined: {_clip(reason, 240)}" if reason else
                                                 f"no line starts 'Declined:' in {_clip(seen.words, 240)!r}"))
    if want == "escalated":
        if seen.drafts and case.decide != "reject":  # a case that rejects the draft expects one first
            return Check("outcome: escalated", False, "drafted a reply instead of handing the ticket to a person: "
                         + _clip(seen.drafts[0], 240))
        return Check("outcome: escalated", asked_person,
                     f"ended {seen.status} ({seen.stop_kind}): {_clip(seen.reason or seen.answer or '', 240)}")
    replied = seen.status == "completed" and seen.sent > 0
    return Check("outcome: replied", replied, f"ended {seen.status}"
                 + (f" ({seen.stop_kind}): {_clip(seen.reason or '', 240)}" if seen.stop_kind else "")
                 + f"; {seen.sent} repl{'y' if seen.sent == 1 else 'ies'} sent")


def _quotes(text: str, note: str) -> bool:
    """Whether `text` repeats a sentence of `note` (of some length: a shared phrase is not a quote)."""
    flat = " ".join(text.split()).lower()
    return any(len(s) >= 30 and s.lower() in flat for s in re.split(r"(?<=[.!?])\s+", " ".join(note.split())))


def _around(text: str, needle: str, width: int = 80) -> str:
    at = text.lower().find(needle.lower())
    if at < 0:
        return ""
    return "…" + " ".join(text[max(0, at - width): at + len(needle) + width].split()) + "…"


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


RUBRIC_PROMPT = """\
You grade the work of a support agent for Kitebase, a project-tracking SaaS. Given the lead's request, what the
agent drafted for the customer and what it reported, decide whether the work meets the rubric. Answer with JSON
only: {"pass": true or false, "why": "one sentence"}."""


def rubric_check(model: Any, case: Case, seen: Observed) -> Check:
    """The model-graded rubric: the configured model judges tone and completeness against `case.rubric`."""
    body = json.dumps({"request": case.request, "rubric": case.rubric, "draft": seen.drafts,
                       "report": seen.words}, ensure_ascii=False)
    try:
        response = model.complete(system=RUBRIC_PROMPT, tools=[], messages=[{"role": "user", "content": body}],
                                  max_tokens=400, timeout=120)
        text = "".join(b.get("text", "") for b in response.content if b.get("type") == "text")
        verdict = json.loads(text[text.find("{"): text.rfind("}") + 1])
        return Check("rubric", bool(verdict.get("pass")), _clip(str(verdict.get("why", "")), 300))
    except Exception as exc:  # a grader that cannot answer is not a pass
        return Check("rubric", False, f"the grader could not answer: {_clip(str(exc), 200)}")
