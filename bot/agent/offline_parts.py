"""What the offline model reads from tool results and writes (its drafts and reports), and what it hands to a
person instead of drafting; shared by its flows (bot/agent/offline.py for a lead's request, offline_child.py for a
fan-out child)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from typing import Any

from bot.agent.sent import sent_reply
from bot.desk import ticket_ids_in
from bot.search.documents import error_text
from bot.search.words import query_terms
from tools.help_center import INTERNAL_LABEL
from tools.tickets import like_hits

INJECTION = re.compile(r"ignore (all |any )?(previous|prior|above) instructions|you are now in .{0,20}mode|"
                       r"system prompt", re.IGNORECASE)
GENERIC = {"issue", "problem", "help", "error", "working", "work", "need", "still", "get", "can", "cannot",
           "since", "after", "new", "urgent", "asap", "today", "change", "changed", "changes"}


def say(text: str) -> dict[str, Any]:
    """A text block of the assistant's turn."""
    return {"type": "text", "text": text}


def use(name: str, **arguments: Any) -> dict[str, Any]:
    """A tool_use block of the assistant's turn."""
    return {"type": "tool_use", "id": f"toolu_off_{uuid.uuid4().hex[:20]}", "name": name, "input": arguments}


def keywords(text: str) -> str:
    terms = [t for t in query_terms(text) if t not in GENERIC]
    return " ".join(terms[:6]) or " ".join(query_terms(text)[:6])


def sections_of(text: str) -> list[dict[str, str]]:
    """The citable sections of a search_help result (an INTERNAL one is context, never cited)."""
    found = []
    for chunk in text.split("\n\n["):
        match = re.match(r"\[?([a-z0-9-]+#\d+)\] (.+?)\n(.*)", chunk, re.DOTALL)
        if match and not match.group(3).startswith(INTERNAL_LABEL):
            heading, split, article = match.group(2).rpartition(" — ")
            heading, article = (heading, article) if split else (article, article)
            found.append({"id": match.group(1), "heading": heading, "article": article,
                          "body": match.group(3).strip()})
    return found


def relevant(sections: list[dict[str, str]], query: str) -> list[dict[str, str]]:
    """The best section, plus the others from its article or whose heading shares a query word."""
    sections = [s for s in sections if not INJECTION.search(s["body"])]  # a section that gives orders is not help
    if not sections:
        return []
    words = set(query.lower().split())
    article = sections[0]["id"].split("#")[0]
    return [sections[0]] + [s for s in sections[1:] if s["id"].split("#")[0] == article
                            or words & set(re.findall(r"\w+", s["heading"].lower()))]


def hits_of(call: dict[str, Any], topic: str | None = None) -> list[dict[str, Any]]:
    """Search hits close enough to the best one (and, given a topic tag, sharing it); of a like-ticket search,
    the "likely the same problem" ones only (those worth a look are read first: `worth_reading`)."""
    if call["error"]:
        return []
    tiered = like_hits(call["text"])
    if tiered is not None:
        hits = [h for h in tiered if h["tier"] == "likely"]
    elif call["text"].lstrip().startswith("["):
        hits = json.loads(call["text"])
    else:
        return []
    if not hits:
        return []
    top = max(h["score"] for h in hits) or 1.0
    return [h for h in hits if h["score"] >= 0.5 * top and (topic is None or topic in h["tags"])]


READ_AT_MOST = 3  # "worth a look" tickets read before the report: the closest ones sharing the ticket's topic


def worth_reading(call: dict[str, Any], topic: str | None) -> list[dict[str, Any]]:
    """The "worth a look" hits of a like-ticket search this model reads before it names any of them: those that
    share the ticket's topic tag, closest first, at most READ_AT_MOST."""
    tiered = like_hits(call["text"]) if not call["error"] else None
    return [h for h in tiered or [] if h["tier"] == "worth_a_look"
            and (topic is None or topic in (h.get("tags") or []))][:READ_AT_MOST]


def customer_errors(ticket: dict[str, Any]) -> dict[str, str]:
    """The error text the customer quoted (messages in quotes, codes, identifiers), by its lower-cased form: what
    two tickets with one cause tend to share, and near misses with another cause tend not to."""
    said = "\n".join(m.get("body") or "" for m in ticket.get("conversation") or [] if m.get("role") == "customer")
    return {e.lower(): e for e in error_text(said) if _error_like(e)}


_ERROR_WORDS = re.compile(r"\b(?:error|errors|fail(?:ed|s|ure)?|invalid|denied|expired|unable|mismatch|timed? ?out|"
                          r"blocked|refused|forbidden|unauthori[sz]ed|not|cannot|can't|couldn't|could not|"
                          r"unavailable|rejected|locked)\b", re.IGNORECASE)


def _error_like(text: str) -> bool:
    """Quoted text that reads as an error (a code, a number, or words such as failed, denied, expired), not a button
    label or a setting's name ("Test sign-in", "Continue with SSO")."""
    return _code(text) or (any(c.isdigit() for c in text) and len(text) >= 3) or \
        (len(text) >= 8 and bool(_ERROR_WORDS.search(text)))


def _code(error: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_-]*\d[\w-]*", error.split(":")[0])) and any(c.isalpha() for c in error)


def _telling(error: str) -> bool:
    """Error text specific enough to tie two tickets to one cause: a message of some length, or a code of letters
    and digits (AADSTS53000); a bare HTTP status (500, 429) many causes share."""
    return len(error) >= 20 or (any(c.isdigit() for c in error) and any(c.isalpha() for c in error)
                                and len(error) >= 5)


def same_cause(ticket: dict[str, Any], other: dict[str, Any]) -> tuple[bool, str]:
    """Whether `other` (read whole) shows the problem of `ticket`, and the words that say why."""
    mine, theirs = customer_errors(ticket), customer_errors(other)
    shared = sorted(e for e in mine.keys() & theirs.keys() if _telling(e))
    if shared:
        return True, f"it quotes the same error (“{mine[shared[0]]}”)"
    if theirs:  # an error of its own that this ticket does not show
        shown = sorted(theirs.values(), key=lambda e: (not _code(e), not _telling(e)))[0]  # a code says most
        return False, f"it shows another error (“{shown}”)"
    return False, f"its text names no error or cause {ticket['id']} shows"


def guidance(body: str, limit: int = 1100) -> str:
    """The section's first paragraph (two if the first is short), cut at a sentence near `limit`."""
    paragraphs = [p.strip() for p in body.split("\n\n") if p.strip()]
    text = paragraphs[0] if paragraphs else ""
    if len(text) < 200 and len(paragraphs) > 1:
        text += "\n\n" + paragraphs[1]
    text = text.replace("**", "")
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind(".\n"))
    return cut[: end + 1] if end > 0 else cut


def draft(ticket: dict[str, Any], sections: list[dict[str, str]]) -> str:
    customer = ticket.get("customer") or {}
    first = (customer.get("contact_name") or "there").split()[0]
    main = sections[0]
    more = [f"[{s['id']}]" for s in sections[1:]]
    see_also = f" You may also find {' and '.join(more)} useful." if more else ""
    return (f"Hi {first},\n\nThanks for letting us know, and sorry for the trouble with “{ticket['title']}”.\n\n"
            f"{guidance(main['body'])} [{main['id']}]\n\n"
            f"If that doesn't get you back on track, reply here and we'll work through it with you.{see_also}"
            "\n\nBest regards,\nKitebase Support")


def approved_how(reply: dict[str, Any]) -> str:
    """How a sent reply got out, from its result: ' (approved by X)', ' (edited by X before sending)', or ''."""
    who = re.search(r"Approved by (.+?)\.$", reply["text"].splitlines()[0])
    edited = re.search(r"([^\s.]+) edited your draft", reply["text"])
    return f" (edited by {edited.group(1)} before sending)" if edited else f" (approved by {who.group(1)})" if who else ""


def report(ticket: dict[str, Any], sections: list[dict[str, str]], reply: dict[str, Any],
           hits: list[dict[str, Any]], goal: str,
           set_aside: Sequence[tuple[dict[str, Any], str]] = ()) -> str:
    """What the run did, and who else looks affected: `hits` (likely the same problem, or read and confirmed), and
    apart, the tickets read and `set_aside` with why. A ticket only worth a look and never read is not named."""
    customer = ticket.get("customer") or {}
    sent = sent_reply(reply.get("input"), reply["text"])  # what went out: a person's edit wins over the draft
    anchors = ", ".join(f"[{a}]" for a in sent.cited)
    how = approved_how(reply)
    covered = [s for a in sent.cited for s in sections if s["id"] == a]
    covers = f"covers “{covered[0]['heading']}” and " if covered else ""
    lines = [f"Replied to {customer.get('name', 'the customer')} on {ticket['id']}{how}: the reply "
             + (f"{covers}cites {anchors}." if anchors else "cites no help-center section.")]
    if ticket["status"] == "open":
        lines[0] += " I set the ticket to pending with an internal note."
    same = [h for h in hits if h["customer"] == customer.get("name")]
    others = [h for h in hits if h not in same]
    if same:
        lines.append(f"Earlier on {customer.get('name')}'s account:")
        lines += [f"- {h['id']} “{h['title']}” ({h['status']})" for h in same]
    affected = [h for h in others if h["status"] != "closed"]
    solved = [h for h in others if h["status"] == "closed"]
    if affected:
        lines.append("Other customers with the same kind of problem open:")
        lines += [f"- {h['id']} {h['customer']}: “{h['title']}” ({h['status']}, {h['assignee'] or 'unassigned'})"
                  for h in affected]
        unassigned = [h["id"] for h in affected if not h["assignee"]]
        if unassigned:
            lines.append(f"Nobody owns {' and '.join(unassigned)} yet; the same reply should help there.")
    elif "other" in goal.lower() or "same" in goal.lower():
        lines.append("I found no other customers with this problem open right now.")
    if solved:
        lines.append("Solved before for other customers: " + ", ".join(f"{h['id']} ({h['customer']})" for h in solved))
    if set_aside:
        lines.append(SET_ASIDE)
        lines += [f"- {h['id']} {h['customer']}: “{h['title']}”: {why}" for h, why in set_aside]
    if INJECTION.search(json.dumps(ticket)):
        lines.append("Note: the ticket contains text that tries to give me instructions; I ignored it.")
    return "\n".join(lines)


# How a report opens the line of tickets it read and judged another problem (bot/runs/intake/fan_out.py offers
# none of them).
SET_ASIDE = "Set aside (read, and another problem as far as I can tell):"


# What a careful colleague hands to a person instead of drafting (the system prompt's "a risky request"): the
# customer's own words are checked, never staff notes.
RISKS = [
    (re.compile(r"\b(refund (the|my|our|me|us|it|this|that)|(want|need|like) a refund|chargebacks?|money back|"
                r"dispute (the|this) charge)", re.IGNORECASE),
     "the customer asks for money back, and refunds are a person's decision"),
    (re.compile(r"\b(lawyer|legal action|attorney|solicitor|sue you|take (this|you) to court)", re.IGNORECASE),
     "the customer threatens legal action"),
    (re.compile(r"\b(breach|hacked|compromised|unauthori[sz]ed (access|logins?))", re.IGNORECASE),
     "the customer reports a possible security incident"),
    (re.compile(r"\b(other|another) (customer|company|client)s?'?s? (data|details|emails?|list|contacts)|"
                r"\blist of (your|all) customers", re.IGNORECASE),
     "the customer asks for another customer's data"),
    (re.compile(r"\b(asana|trello|clickup|monday\.com)\b", re.IGNORECASE),
     "the ticket is about another company's product, not Kitebase"),
]


def risk_of(ticket: dict[str, Any]) -> str | None:
    said = " ".join(m.get("body", "") for m in ticket.get("conversation") or [] if m.get("role") == "customer")
    return next((why for pattern, why in RISKS if pattern.search(said)), None)


def ticket_ids(text: str) -> list[str]:
    """The tickets a request names, on either desk (KITE-142 on the embedded one, 4821 on Zendesk)."""
    return ticket_ids_in(text) or ticket_ids_in(text, "zendesk")


def read_ticket(read: dict[str, Any], ticket_id: str) -> dict[str, Any] | list[dict[str, Any]]:
    """The ticket a get_ticket call returned; or, if it could not be read or needs a person (`risk_of`), the turn
    that hands it to one."""
    if read["error"]:
        return [use("escalate_to_human", reason=f"I could not read {ticket_id}: {read['text']}")]
    ticket: dict[str, Any] = json.loads(read["text"])
    risk = risk_of(ticket)
    if risk:
        return [say(f"{ticket['id']} needs a person: {risk}."),
                use("escalate_to_human", reason=f"{ticket['id']} needs a person, not a drafted reply: {risk}.")]
    return ticket


def not_sent(ticket: dict[str, Any], reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The turn after a draft that was rejected (or otherwise not sent): handed to a person."""
    why = re.search(r"Their reason: (.+?)\. Revise", reply["text"], re.DOTALL)
    reason = (f"The reviewer rejected my draft on {ticket['id']} ({why.group(1).strip()}); a person should "
              "write this reply." if why else f"My reply on {ticket['id']} was not sent: {reply['text']}")
    return [say("I can't revise this well on my own, so I'm handing it to a person."),
            use("escalate_to_human", reason=reason)]


# --- reading the customer's words -------------------------------------------------------------------------------
# What the customer says they do not use or have ("we don't use X", "not using X", "we have no X", "… without X")
# rules out help that assumes X; and a reply the ticket already holds is not sent a second time.

_NOT_USING = re.compile(
    r"\b(?:(?:do|does|did|is|are|was|were|have|has|had)\s+not|(?:do|does|did|is|are|was|were|have|has|had)n't|"
    r"never|not)\s+(?:(?:even|really|currently|actually|yet|ever)\s+)?"
    r"(?:use|uses|using|used|have|has|had|need|needs|run|runs|running|enable|enabled|set\s+up|turn(?:ed)?\s+on|"
    r"rely\s+on|relying\s+on|on|with|through|via|behind)\b"
    r"|\b(?:have|has|had|use|uses|using)\s+no\b|\b(?P<without>without)\b(?:\s+(?:using|having))?"
    r"|\b(?P<no>no)\b", re.IGNORECASE)
_FILLER = {"any", "a", "an", "the", "our", "their", "your", "its", "kind", "sort", "of", "type", "form", "some"}
_ENDS = {"but", "just", "only", "and", "or", "so", "because", "since", "as", "we", "i", "they", "it", "anymore",
         "at", "here", "now", "yet", "either", "for", "to", "in", "which", "that", "when", "if", "instead", "all",
         "anything", "everything", "everyone", "anyone", "one", "longer", "more", "less", "than", "is", "are",
         "was", "were", "be", "been", "on", "with", "from", "by", "this", "these", "those", "there", "then", "too",
         "also", "me", "us", "you", "he", "she", "them", "my", "his", "her", "today", "anywhere", "access",
         "problem", "problems", "issue", "issues", "idea", "luck", "way", "matter", "doubt", "time", "configured",
         "enabled", "set", "turned", "switched"}
# A bare "no X" is a statement about the writer only when it says so ("no SSO here", "no SSO configured"):
# "No reply, nothing in the inbox" says nothing arrived.
_NO_TAIL = re.compile(r"\s*(here|at all|configured|enabled|set up|turned on|in place)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9]\w*(?:[-.]\w+)*")
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|(?<!\w)'(?:[^'\n]|'(?=\w))*'(?!\w)")  # what a screen said, not them


def customer_words(ticket: dict[str, Any]) -> str:
    """Everything the customer wrote on the ticket (never staff notes or replies)."""
    return "\n\n".join(m.get("body") or "" for m in ticket.get("conversation") or [] if m.get("role") == "customer")


def not_used(text: str) -> list[str]:
    """What `text` says its writer does not use or have: "We aren't using a Google Workspace app, only passwords"
    gives ["Google Workspace app"]. Quoted text (an error message the customer pastes) is not their words about
    themselves, and a sentence that opens "Without X, …" is a condition, not a statement."""
    text = _QUOTED.sub(" ", text.replace("’", "'"))
    found = []
    for cue in _NOT_USING.finditer(text):
        if cue.group("without") and re.search(r"(^|[.!?:;]\s*)$", text[:cue.start()]):
            continue  # "Without attachment links it works.": a condition
        words: list[str] = []
        at = cue.end()
        for word in _WORD.finditer(text, cue.end()):
            if text[at:word.start()].strip(" \t") or len(words) == 3:
                break  # punctuation (or a fourth word) ends the phrase
            low = word.group().lower()
            if low in _ENDS:
                break
            at = word.end()
            if words or low not in _FILLER:
                words.append(word.group())
        if words and not (cue.group("no") and not _NO_TAIL.match(text, at)):
            found.append(" ".join(words))
    return found


def _forms(term: str) -> set[str]:
    """A term, its initialism ("single sign-on" also reads "SSO") and its leading name ("Slack integration" also
    reads "Slack")."""
    forms = {term.lower()}
    parts = [p for p in re.split(r"[\s-]+", term) if p]
    if len(parts) >= 3:
        forms.add("".join(p[0] for p in parts).lower())
    words = term.split()
    named = next((i for i, w in enumerate(words) if not w[:1].isupper()), len(words))
    if 0 < named < len(words):
        forms.add(" ".join(words[:named]).lower())
    return forms


def _mentions(text: str, forms: set[str]) -> int:
    return sum(len(re.findall(rf"(?<![\w-]){re.escape(f)}(?![\w-])", text, re.IGNORECASE)) for f in forms)


def _denies(text: str, forms: set[str]) -> bool:
    """Whether `text` itself speaks of not using the term ("If your workspace doesn't use SSO, …")."""
    return any(_forms(said) & forms or _mentions(said, forms) for said in not_used(text))


def _assumes(text: str, forms: set[str]) -> bool:
    """Whether a paragraph is written for someone who uses the term: it names it in its first sentence, or more
    than once, and nowhere speaks of not using it."""
    first = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    return (_mentions(first, forms) > 0 or _mentions(text, forms) > 1) and not _denies(text, forms)


def fitting(sections: list[dict[str, str]], ticket: dict[str, Any]) -> tuple[list[dict[str, str]], list[str]]:
    """The sections that do not contradict the customer, each cut to the paragraphs written for someone like
    them; and what the customer ruled out (empty: nothing). A section whose heading or article names what the
    customer says they do not use is dropped whole, as is one with no paragraph left."""
    ruled = [(said, _forms(said)) for said in dict.fromkeys(not_used(customer_words(ticket)))]
    if not ruled:
        return sections, []
    kept, hit = [], set()
    for section in sections:
        heading = f"{section['heading']} {section.get('article', '')}"
        against = [said for said, forms in ruled if _mentions(heading, forms) and not _denies(heading, forms)]
        paragraphs = [p for p in section["body"].split("\n\n") if p.strip()]
        fit = [p for p in paragraphs if not any(_assumes(p, forms) for _, forms in ruled)]
        hit.update(against or [said for said, forms in ruled if any(_assumes(p, forms) for p in paragraphs)])
        if not against and fit:
            kept.append(section if len(fit) == len(paragraphs) else {**section, "body": "\n\n".join(fit)})
    return kept, [said for said, _ in ruled if said in hit]


def _shingles(text: str, size: int = 4) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i:i + size]) for i in range(len(words) - size + 1)}


def same_substance(earlier: str, section: dict[str, str]) -> bool:
    """Whether a reply already on the ticket says what a draft from `section` would: it cites the section (by its
    anchor, or by its heading as the customer's copy names it) and shares a good part of its guidance, or repeats
    most of the guidance whatever it cites."""
    wanted = _shingles(guidance(section["body"]))
    if not wanted:
        return False
    shared = len(wanted & _shingles(earlier)) / len(wanted)
    cited = f"[{section['id']}]" in earlier or section["heading"].lower() in earlier.lower()
    return shared >= 0.6 or (cited and shared >= 0.25)


def answered_before(ticket: dict[str, Any], section: dict[str, str]) -> dict[str, Any] | None:
    """The latest public reply on the ticket (a person's or an agent's) that already says what a draft from
    `section` would, with what the customer wrote after it; None if there is none."""
    conversation = ticket.get("conversation") or []
    for at in range(len(conversation) - 1, -1, -1):
        message = conversation[at]
        if message.get("role") == "staff" and same_substance(message.get("body") or "", section):
            after = [m.get("body") or "" for m in conversation[at + 1:] if m.get("role") == "customer"]
            return {**message, "customer_after": "\n\n".join(after)}
    return None


def repeat_turn(ticket: dict[str, Any], section: dict[str, str], earlier: dict[str, Any]) -> list[dict[str, Any]]:
    """The turn instead of sending a reply the customer already has: say so and hand the ticket to a person."""
    who = (ticket.get("customer") or {}).get("contact_name") or (ticket.get("customer") or {}).get("name") \
        or "The customer"
    sent = f"{earlier.get('author') or 'staff'}'s reply" + (f" of {earlier['at'][:10]}" if earlier.get("at") else "")
    said = " ".join(earlier["customer_after"].split())
    said = said if len(said) <= 300 else said[:299] + "…"
    if said:
        reason = (f"{who} already has this answer on {ticket['id']} ({sent}, from [{section['id']}]) and wrote "
                  f"back since: “{said}” It did not work for them, so sending it again would not help; a person "
                  "should look.")
    else:
        reason = (f"{who} already has this answer on {ticket['id']} ({sent}, from [{section['id']}]); sending the "
                  "same reply again would not help. A person should decide what else the ticket needs.")
    return [say(f"My draft would repeat what {ticket['id']} already holds ({sent}), so I'm not sending it again; "
                "I'm handing the ticket to a person."),
            use("escalate_to_human", reason=reason)]
