"""Seeded generator of support desks the ticket search was never tuned on, with known same-root-cause clusters.

    .venv/bin/python -m bench.gen_desks --out DIR [--seed N] [--half tune|held-out]

Writes one directory per product domain under DIR, each in kb_data/'s shape (customers.json, tickets.json,
help/<slug>.md) plus the answers: groups.json (tickets that share one root cause, and near misses that share
its symptoms or its words but not its cause) and help_queries.jsonl (customers' questions and the help
sections that answer them). The domains' phrase pools are authored plain data (bench/gen_desks/domains/);
this module only composes tickets from them: which symptom, which customer and writer, how long, whether staff
or an internal note has named the cause yet, greetings, signatures, typos. The same seed gives byte-identical
desks (one random.Random per desk, seeded from the seed and the desk's number; no hash(), no global random).

The domains are written from their problem domains, never against the search: do not tune them on results.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.gen_desks.domains import DOMAINS, HALVES, data

DESK_START = datetime(2026, 8, 3, tzinfo=UTC)
DESK_DAYS = 110
MIN_SINGLETONS = 12


@dataclass(frozen=True)
class DeskInfo:
    name: str
    half: str  # "tune" | "held-out"
    path: Path
    tickets: int
    clusters: int


def generate(out: Path, seed: int = 1, halves: tuple[str, ...] = HALVES) -> list[DeskInfo]:
    """Write every desk of the given halves under `out` (one directory per domain); the same seed, the same
    bytes."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    infos = []
    for name, entry in DOMAINS.items():
        if entry["half"] not in halves:
            continue
        desk = build_desk(name, seed)
        path = out / name
        write_desk(desk, path)
        infos.append(DeskInfo(name, entry["half"], path, len(desk["tickets"]), len(desk["groups"])))
    return infos


# ---------------------------------------------------------------------------------------------------------
# one desk


def build_desk(name: str, seed: int = 1) -> dict[str, Any]:
    """One desk as data: {"customers", "tickets", "articles" {slug: markdown}, "groups", "queries"}."""
    entry = DOMAINS[name]
    return _Desk(data(name), entry["desk"], seed).build()


def write_desk(desk: dict[str, Any], path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    help_dir = path / "help"
    help_dir.mkdir(exist_ok=True)
    for old in help_dir.glob("*.md"):  # a desk written before with other articles
        old.unlink()
    _write_json(path / "customers.json", desk["customers"])
    _write_json(path / "tickets.json", desk["tickets"])
    _write_json(path / "groups.json", {"groups": desk["groups"]})
    for slug, markdown in desk["articles"].items():
        (help_dir / f"{slug}.md").write_text(markdown, encoding="utf-8", newline="\n")
    lines = [json.dumps(row, ensure_ascii=False) for row in desk["queries"]]
    (path / "help_queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8", newline="\n")


DEFAULT_STYLE: dict[str, Any] = {
    # how long the first message is: oneline (a sentence), short, medium, long (several paragraphs)
    "lengths": {"oneline": 0.15, "short": 0.3, "medium": 0.35, "long": 0.2},
    "greeting": 0.7,  # chance of a greeting (medium and long messages always have one unless "terse")
    "signoff": 0.7,
    "context": (0, 2),  # situational or irrelevant sentences in a long message
    "rambles": (0, 0),  # paragraphs of life story in a long message (RAMBLES)
    "typo_rate": 0.012,  # chance a lowercase word of 4+ letters gets a typo, for a careless writer
    "careless": 0.4,  # share of writers who make typos at all
    "lowercase": 0.0,  # share of writers who write everything in lowercase
    "no_apostrophes": 0.15,
    "nonnative": 0.0,  # share of writers (customers flagged "voice") whose text is bent by _nonnative
    "error_quote": 0.45,  # chance a cluster ticket quotes its error string, when the cluster has one
    "hours": (7, 19),  # local hours tickets are opened in
}

# conversation shapes: how far a ticket has got, and whether the cause has been named in it
SHAPES = {"unanswered": 0.22, "asked": 0.26, "named": 0.34, "internal": 0.18}


@dataclass
class _Ticket:
    key: str
    customer: dict[str, Any]
    created: datetime
    title: str
    status: str
    priority: str
    assignee: str | None
    tags: list[str]
    messages: list[dict[str, Any]] = field(default_factory=list)


class _Slots(dict):  # type: ignore[type-arg]
    """Values for the {placeholders} of one ticket's text: drawn once per ticket, so a ticket is consistent."""

    def __init__(self, rng: random.Random, pools: dict[str, list[str]], fixed: dict[str, str]):
        super().__init__(fixed)
        self.rng, self.pools = rng, pools

    def __missing__(self, key: str) -> str:
        rng = self.rng
        if key in self.pools:
            value = rng.choice(self.pools[key])
        elif key == "n":
            value = str(rng.randint(2, 9))
        elif key == "nn":
            value = str(rng.randint(11, 64))
        elif key == "num":
            value = str(rng.randint(1200, 98000))
        elif key == "ref":
            value = str(rng.randint(1_000_000, 9_999_999))
        elif key == "time":
            value = f"{rng.randint(6, 22):02d}:{rng.choice([0, 5, 10, 15, 20, 30, 40, 45, 50]):02d}"
        elif key == "amount":
            value = f"{rng.randint(12, 980)}.{rng.randint(0, 99):02d}"
        else:
            raise KeyError(key)
        self[key] = value
        return value


def _fill(text: str, slots: _Slots) -> str:
    return text.format_map(slots)


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def _first_sentence(text: str) -> str:
    return _SENTENCE.split(text.strip(), maxsplit=1)[0]


class _Desk:
    def __init__(self, data: ModuleType, number: int, seed: int):
        self.d = data
        self.number = number
        # hash-free: the seed and the desk's fixed number, nothing else
        self.rng = random.Random(seed * 1_000_003 + number * 7_919)
        self.style = {**DEFAULT_STYLE, **getattr(data, "STYLE", {})}
        self.customers = [self._customer(i, row) for i, row in enumerate(data.CUSTOMERS)]
        self.tickets: list[_Ticket] = []

    # -- customers

    def _customer(self, index: int, row: dict[str, Any]) -> dict[str, Any]:
        slug = row.get("id") or _slug(row["name"])
        contact = row["contact"]
        email = row.get("email") or (_slug(contact).replace("-", ".") + "@"
                                     + ("example.com", "example.org", "example.net")[index % 3])
        public = {"id": slug, "name": row["name"], "plan": row["plan"], "seats": int(row["seats"]),
                  "region": row["region"], "contact_name": contact, "contact_email": email,
                  "sso_provider": row.get("sso"), "notes": row["notes"]}
        return {"public": public, "writers": [contact, *row.get("writers", [])], "voice": row.get("voice")}

    # -- the whole desk

    def build(self) -> dict[str, Any]:
        d, rng = self.d, self.rng
        clusters = list(d.CLUSTERS)
        hi = min(12, len(clusters))
        lo = min(max(8, len(clusters) - 2), hi)
        chosen = sorted(rng.sample(range(len(clusters)), rng.randint(lo, hi)))
        clusters = [clusters[i] for i in chosen]
        near_defs = {row["key"]: row for row in d.NEAR_MISSES}

        members: dict[str, list[_Ticket]] = {}
        for cluster in clusters:
            members[cluster["key"]] = self._cluster_tickets(cluster)
        near_tickets: dict[str, _Ticket] = {}
        for cluster in clusters:
            for key in cluster["near"]:
                if key not in near_tickets:
                    near_tickets[key] = self._near_miss(near_defs[key])
        fixed = sum(len(m) for m in members.values()) + len(near_tickets)
        target = rng.randint(54, 66)
        room = max(MIN_SINGLETONS, target - fixed)  # most tickets of a desk are about nothing else on it
        singles = sorted(rng.sample(range(len(d.SINGLETONS)), min(len(d.SINGLETONS), room)))
        for i in singles:
            self._singleton(d.SINGLETONS[i], i)

        # ids in order of creation, so an id says nothing about a ticket's cluster
        self.tickets.sort(key=lambda t: (t.created, t.key))
        base = self.number * 1000
        ids = {t.key: f"KITE-{base + i + 1}" for i, t in enumerate(self.tickets)}

        groups = []
        chosen_keys = {c["key"] for c in clusters}
        for cluster in clusters:
            own = members[cluster["key"]]
            near = [ids[near_tickets[k].key] for k in cluster["near"]]
            for other in cluster.get("near_clusters", []):
                if other in chosen_keys and len(near) < 3:
                    picks = rng.sample(members[other], min(len(members[other]), rng.randint(1, 2)))
                    near += [ids[t.key] for t in sorted(picks, key=lambda t: t.created)]
            groups.append({"cause": cluster["cause"], "tickets": [ids[t.key] for t in own],
                           "near_misses": near[:3]})

        return {"customers": [c["public"] for c in self.customers],
                "tickets": [self._row(t, ids[t.key]) for t in self.tickets],
                "articles": {slug: _article(a) for slug, a in d.ARTICLES.items()},
                "groups": groups,
                "queries": [{"q": q["q"], "answers": q["answers"], "kind": q["kind"]} for q in d.QUERIES]}

    def _row(self, t: _Ticket, ticket_id: str) -> dict[str, Any]:
        last = t.messages[-1]["created_at"] if t.messages else _iso(t.created)
        return {"id": ticket_id, "customer_id": t.customer["public"]["id"], "title": t.title,
                "status": t.status, "priority": t.priority, "assignee": t.assignee, "tags": t.tags,
                "created_at": _iso(t.created), "updated_at": last, "messages": t.messages}

    # -- kinds of ticket

    def _cluster_tickets(self, cluster: dict[str, Any]) -> list[_Ticket]:
        rng = self.rng
        size = rng.choices([2, 3, 4, 5], weights=[3, 4, 3, 2])[0]
        size = min(size, len(cluster["symptoms"]), len(self.customers))
        customers = rng.sample(self.customers, size)
        symptoms = rng.sample(cluster["symptoms"], size)
        titles = _Deck(rng, cluster["titles"])
        details = _Deck(rng, cluster.get("details", []), cycle=False)
        causes = _Deck(rng, cluster["staff_cause"])
        internals = _Deck(rng, cluster.get("internal", cluster["staff_cause"]))
        fixes = _Deck(rng, cluster.get("fixes", []))
        asks = _Deck(rng, cluster.get("asks", []) + self.d.STAFF_ASKS)
        errors = cluster.get("errors", [])
        onset = DESK_START + timedelta(days=rng.randint(3, DESK_DAYS - 30))
        days = sorted(rng.uniform(0, cluster.get("spread", 21)) for _ in range(size))
        shapes = [self._shape() for _ in range(size)]
        if all(s in ("named", "internal") for s in shapes):  # someone is still waiting for an answer
            shapes[rng.randrange(size)] = rng.choice(["unanswered", "asked"])
        out = []
        for i in range(size):
            key = f"{cluster['key']}/{i}"
            error = rng.choice(errors) if errors and rng.random() < self.style["error_quote"] else None
            t = self._ticket(key, customers[i], onset + timedelta(days=days[i]), cluster, titles.draw())
            self._converse(t, symptoms[i], details, error, shapes[i],
                           cause=causes, internal=internals, fixes=fixes, asks=asks)
            out.append(t)
        return out

    def _near_miss(self, row: dict[str, Any]) -> _Ticket:
        rng = self.rng
        created = DESK_START + timedelta(days=rng.uniform(1, DESK_DAYS - 5))
        t = self._ticket(f"near/{row['key']}", rng.choice(self.customers), created, row,
                         rng.choice(row["titles"]))
        error = None
        if row.get("errors") and rng.random() < self.style["error_quote"]:
            error = rng.choice(row["errors"])
        shape = rng.choices(["unanswered", "asked", "named", "internal"], weights=[2, 2, 5, 2])[0]
        self._converse(t, rng.choice(row["symptoms"]), _Deck(rng, row.get("details", []), cycle=False), error, shape,
                       cause=_Deck(rng, row["staff_cause"]),
                       internal=_Deck(rng, row.get("internal", row["staff_cause"])),
                       fixes=_Deck(rng, row.get("fixes", [])),
                       asks=_Deck(rng, row.get("asks", []) + self.d.STAFF_ASKS))
        return t

    def _singleton(self, row: dict[str, Any], index: int) -> None:
        rng = self.rng
        created = DESK_START + timedelta(days=rng.uniform(0, DESK_DAYS))
        t = self._ticket(f"single/{index:03d}", rng.choice(self.customers), created, row, row["title"])
        reply = row.get("reply")
        shape = "named" if reply and rng.random() < 0.8 else "unanswered"
        self._converse(t, row["body"], _Deck(rng, row.get("details", []), cycle=False), None, shape,
                       cause=_Deck(rng, [reply] if reply else []), internal=_Deck(rng, []),
                       fixes=_Deck(rng, []), asks=_Deck(rng, self.d.STAFF_ASKS))

    def _shape(self) -> str:
        return self.rng.choices(list(SHAPES), weights=list(SHAPES.values()))[0]

    def _ticket(self, key: str, customer: dict[str, Any], created: datetime, row: dict[str, Any],
                title: str | None) -> _Ticket:
        rng = self.rng
        lo, hi = self.style["hours"]
        created = created.replace(hour=rng.randint(lo, hi - 1), minute=rng.randrange(60), second=0,
                                  microsecond=0)
        if title is None or rng.random() < 0.07:
            title = rng.choice(self.d.VAGUE_TITLES)
        tags = list(row["tags"])
        keep = rng.randint(min(2, len(tags)), len(tags))
        tags = sorted(rng.sample(tags, keep), key=tags.index)
        if rng.random() < 0.35:
            extra = rng.choice(self.d.TAG_EXTRAS)
            if extra not in tags:
                tags.append(extra)
        priority = rng.choice(row.get("priority", ["normal", "normal", "low", "high"]))
        t = _Ticket(key, customer, created, title, "open", priority, None, tags)
        self.tickets.append(t)
        return t

    # -- the conversation

    def _converse(self, t: _Ticket, symptom: str, details: _Deck, error: str | None, shape: str, *,
                  cause: _Deck, internal: _Deck, fixes: _Deck, asks: _Deck) -> None:
        d, rng, style = self.d, self.rng, self.style
        writer = rng.choice(t.customer["writers"])
        staff_handle, staff_name = rng.choice(d.STAFF)
        first = writer.split()[0]
        fixed = {"first": first, "name": writer, "company": t.customer["public"]["name"],
                 "staff": staff_name.split()[0], "product": d.PRODUCT,
                 "weekday": (t.created - timedelta(days=rng.randint(1, 4))).strftime("%A"),
                 "date": _day(t.created - timedelta(days=rng.randint(1, 12)))}
        slots = _Slots(rng, getattr(d, "SLOTS", {}), fixed)
        t.title = _fill(t.title, slots)  # a title may name the ticket's bank, pension provider...
        voice = _Voice(rng, style, t.customer["voice"])
        clock = _Clock(rng, t.created)

        def customer(body: str, at: datetime) -> None:
            t.messages.append({"author": writer, "role": "customer", "body": body, "created_at": _iso(at)})

        def staff(body: str, at: datetime, role: str = "staff") -> None:
            t.messages.append({"author": staff_name, "role": role, "body": body, "created_at": _iso(at)})
            t.assignee = staff_handle

        customer(self._first_message(symptom, details, error, slots, voice), clock.now)
        if shape == "unanswered":
            t.status = "open"
            if rng.random() < 0.3:  # the customer chases
                customer(voice.say(_fill(rng.choice(d.FOLLOWUP_WAIT), slots)), clock.later(8, 60))
            return
        if shape == "asked" or (shape == "named" and rng.random() < 0.35 and cause.items):
            staff(self._staff_reply(slots, [asks.draw()]), clock.later(0.3, 20))
            if rng.random() < 0.6:
                answer = details.draw() or rng.choice(d.REPLY_INFO)
                customer(voice.say(_fill(answer, slots)), clock.later(1, 30))
                t.status = "open"
            else:
                t.status = "pending"
            if rng.random() < 0.15:
                staff(_fill(rng.choice(d.INTERNAL_GENERIC), slots), clock.later(0.2, 6), "internal")
            if shape == "asked":
                return
        if shape == "internal" or not cause.items:
            if rng.random() < 0.6:
                staff(self._staff_reply(slots, [rng.choice(d.STAFF_HOLDING)]), clock.later(0.3, 20))
            note = internal.draw()
            if note:
                staff(_fill(note, slots), clock.later(0.1, 8), "internal")
            t.status = rng.choice(["open", "pending"])
            return
        body = [cause.draw()]
        fix = fixes.draw() if rng.random() < 0.85 else None
        if fix:
            body.append(fix)
        staff(self._staff_reply(slots, body), clock.later(0.3, 26))
        if rng.random() < 0.2 and internal.items:
            staff(_fill(internal.draw() or "", slots), clock.later(0.1, 3), "internal")
        if rng.random() < 0.5:
            customer(voice.say(_fill(rng.choice(d.FOLLOWUP_THANKS), slots)), clock.later(1, 40))
            t.status = "closed"
        else:
            t.status = rng.choice(["pending", "closed", "closed"])

    def _staff_reply(self, slots: _Slots, parts: list[str]) -> str:
        d, rng = self.d, self.rng
        paras = [_fill(rng.choice(d.STAFF_OPENERS), slots)]
        paras += [_fill(p, slots) for p in parts if p]
        sign = _fill(rng.choice(d.STAFF_SIGNOFFS), slots)
        return "\n\n".join(p for p in paras if p) + ("\n\n" + sign if sign else "")

    def _first_message(self, symptom: str, details: _Deck, error: str | None, slots: _Slots,
                       voice: _Voice) -> str:
        d, rng, style = self.d, self.rng, self.style
        lengths = style["lengths"]
        mode = rng.choices(list(lengths), weights=list(lengths.values()))[0]
        core = voice.say(_fill(symptom, slots))
        err = _fill(error, slots) if error else None
        quote = _fill(rng.choice(d.ERROR_INTROS), {**slots, "error": err}) if err else None
        if mode == "oneline":
            line = _first_sentence(core)
            return line + (f" ({err})" if err else "")
        paras: list[str] = []
        greeting = {"short": 0.6, "medium": 1.0, "long": 1.2}[mode] * style["greeting"]
        if rng.random() < greeting:
            greetings = getattr(d, "VOICE_GREETINGS", {}).get(voice.voice) if voice.nonnative else None
            paras.append(voice.say(_fill(rng.choice(greetings or d.GREETINGS), slots), keep_case=True))
        if mode == "long":
            lo, hi = style["context"]
            for ctx in rng.sample(d.CONTEXT, rng.randint(max(lo, 1), hi)):
                paras.append(voice.say(_fill(ctx, slots)))
            for ramble in rng.sample(getattr(d, "RAMBLES", []) or [""], rng.randint(*style["rambles"])):
                if ramble:
                    paras.append(voice.say(_fill(ramble, slots)))
        elif mode == "medium" and rng.random() < 0.4:
            paras.append(voice.say(_fill(rng.choice(d.CONTEXT), slots)))
        body = [core]
        extra = {"short": 0, "medium": rng.randint(0, 1), "long": rng.randint(1, 2)}[mode]
        for _ in range(extra):
            more = details.draw()
            if more:
                body.append(voice.say(_fill(more, slots)))
        paras.append(" ".join(body))
        if mode == "long" and rng.random() < 0.7:
            paras.append(voice.say(_fill(rng.choice(d.TRIED), slots)))
        if quote:
            paras.append(quote)
        if mode != "short" or rng.random() < 0.5:
            paras.append(voice.say(_fill(rng.choice(d.ASKS), slots)))
        if mode in ("medium", "long") and rng.random() < style["signoff"]:
            signoffs = getattr(d, "VOICE_SIGNOFFS", {}).get(voice.voice) if voice.nonnative else None
            paras.append(voice.say(_fill(rng.choice(signoffs or d.SIGNOFFS), slots), keep_case=True))
        if mode == "short":
            return " ".join(p.replace("\n", " ") for p in paras)
        if mode == "medium" and rng.random() < 0.5:  # one paragraph, as many people write
            return "\n\n".join([" ".join(paras[:-1]), paras[-1]]) if len(paras) > 2 else " ".join(paras)
        return "\n\n".join(paras)


class _Deck:
    """Draws without replacement, reshuffling once spent, so one cluster's tickets tell it differently."""

    def __init__(self, rng: random.Random, items: list[str], cycle: bool = True):
        self.rng, self.items, self.cycle = rng, list(items), cycle
        self.left: list[str] = []
        self.spent = False

    def draw(self) -> str | None:
        if not self.items or (self.spent and not self.cycle and not self.left):
            return None
        if not self.left:
            self.spent = True
            self.left = list(self.items)
            self.rng.shuffle(self.left)
        return self.left.pop()


class _Clock:
    def __init__(self, rng: random.Random, start: datetime):
        self.rng, self.now = rng, start

    def later(self, lo_hours: float, hi_hours: float) -> datetime:
        self.now = (self.now + timedelta(hours=self.rng.uniform(lo_hours, hi_hours))).replace(second=0,
                                                                                              microsecond=0)
        return self.now


_CONTRACTIONS = {"don't": "dont", "can't": "cant", "doesn't": "doesnt", "I'm": "im", "it's": "its",
                 "won't": "wont", "isn't": "isnt", "didn't": "didnt", "I've": "ive", "wasn't": "wasnt",
                 "haven't": "havent", "we're": "were", "that's": "thats", "there's": "theres"}
_WORD = re.compile(r"\b[a-z]{4,}\b")


class _Voice:
    """One writer's habits, applied to everything they write: typos, lowercase, no apostrophes, and for a
    writer whose first language is not English (the customer's "voice"), the usual bends of grammar."""

    def __init__(self, rng: random.Random, style: dict[str, Any], voice: str | None):
        self.rng, self.voice = rng, voice
        self.typos = style["typo_rate"] if rng.random() < style["careless"] else 0.0
        self.lower = rng.random() < style["lowercase"]
        self.no_apostrophes = rng.random() < style["no_apostrophes"]
        self.nonnative = voice is not None and rng.random() < max(style["nonnative"], 0.0)

    def say(self, text: str, keep_case: bool = False) -> str:
        rng = self.rng
        if self.nonnative:
            text = _nonnative(text, rng)
        if self.no_apostrophes:
            for full, short in _CONTRACTIONS.items():
                text = text.replace(full, short)
        if self.typos:
            text = _WORD.sub(lambda m: _typo(m.group(0), rng) if rng.random() < self.typos else m.group(0),
                             text)
        if self.lower and not keep_case:
            text = _lower_prose(text)
        return text


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 2)
    op = rng.randrange(3)
    if op == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if op == 1:
        return word[:i] + word[i + 1:]
    return word[:i] + word[i] + word[i:]


def _lower_prose(text: str) -> str:
    """Lowercase, except codes in quotes or with digits (error strings, versions, references)."""
    return re.sub(r"[\"“][^\"”]*[\"”]|\S*\d\S*|[^\s\"“]+",
                  lambda m: m.group(0) if (m.group(0)[:1] in "\"“" or any(c.isdigit() for c in m.group(0))
                                           or m.group(0).isupper() and len(m.group(0)) > 1)
                  else m.group(0).lower(), text)


_NONNATIVE = [
    (re.compile(r"\bthe (?=[a-z])"), "", 0.45),
    (re.compile(r"\b[Aa] (?=[a-z])"), "", 0.35),
    (re.compile(r"\bI\b"), "i", 0.5),
    (re.compile(r"\bdoesn't\b"), "not", 0.5),
    (re.compile(r"\bdon't\b"), "not", 0.3),
    (re.compile(r"\bcan't\b"), "can not", 0.6),
    (re.compile(r"\bsince yesterday\b"), "from yesterday", 0.6),
    (re.compile(r"\bI have been\b"), "i am", 0.6),
    (re.compile(r"\bfor (two|three|four|five) days\b"), r"since \1 days", 0.6),
    (re.compile(r"\bplease\b"), "pls", 0.3),
    (re.compile(r"\?"), " ?", 0.25),
    (re.compile(r"(?<=\w)\.(?=\s|$)"), "..", 0.1),
]


def _nonnative(text: str, rng: random.Random) -> str:
    for pattern, repl, p in _NONNATIVE:
        text = pattern.sub(lambda m, r=repl, q=p: m.expand(r) if rng.random() < q else m.group(0), text)
    return text


# ---------------------------------------------------------------------------------------------------------
# helpers


def _article(article: dict[str, Any]) -> str:
    lines = [f"# {article['title']}", ""]
    if article.get("intro"):
        lines += [article["intro"], ""]
    for heading, body in article["sections"]:
        lines += [f"## {heading}", "", body, ""]
    return "\n".join(lines)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("'", "")).strip("-")


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _day(when: datetime) -> str:
    return f"{when.day} {when.strftime('%B')}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gen_desks", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory to write one desk directory per domain")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--half", choices=HALVES, action="append",
                        help="only the desks of this half (repeatable; default: both)")
    args = parser.parse_args(argv)
    for info in generate(args.out, args.seed, tuple(args.half or HALVES)):
        print(f"{info.name:<12} {info.half:<9} {info.tickets:>3} tickets {info.clusters:>3} clusters  {info.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
