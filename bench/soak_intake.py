"""Issue 48's soak: intake while people, rules and volume change, with processes dying under it.

    .venv/bin/python -m bench.soak_intake [--postgres URL] [--tickets 300] [--messages 200] [--minutes 5]
                                          [--serve-kills 4] [--worker-kills 3] [--seed 48] [--json FILE] [--small]

Real parts: `kitebase serve` (HTTP mode, KITEBASE_DESK=zendesk, an intake rules file) and, on PostgreSQL, two
`kitebase worker` processes (KITEBASE_EXECUTION=queue; the queue needs PostgreSQL, so on SQLite serve runs the
agent itself and only serve is killed), against the Zendesk stand-in (kb_data loaded; webhooks signed as Zendesk
signs them; the incremental export the poll reads, leaving out its last few seconds), the Slack Web API stand-in
and the Messages API stand-in answering as the offline model would.

Three rules: `open` (no cap), `paused` (paused by a lead with `/kitebase intake pause paused` before the first
ticket, resumed at 45% of the traffic) and `capped` (max_per_hour = 5). Over the traffic period, tickets tagged
for one of them (a few for none) and customers' messages (public comments by the ticket's requester) arrive, each
by a signed webhook to serve or, for about half, only by the poll; a webhook serve did not answer is sent again.
The rules file is edited twice: at a third of the traffic a rule `late` (tag soak-late) is added, at two thirds
the `open` rule also takes the tag soak-wide; tickets with those tags arrive only after the edit.

A lead, through the real surfaces (signed requests to serve's Bolt app): approves most drafts from their card
(`approve_reply`), stops running or waiting runs (the run's Stop button when Slack shows it, else
`/kitebase stop N`), takes escalated runs from the human queue (`claim_escalation` on the queue post), and answers
some backlogged tickets in Zendesk themself. `serve` and a worker are SIGKILLed at random moments and restarted.
Customers write more on tickets of every kind: waiting, drafted, answered, stopped, taken.

At the end (everything at rest, or the settle time out), from the database, the Slack stand-in's messages and
the Zendesk stand-in's comments, each invariant is checked and printed with its counts, held or not:

- started_once: every ticket has at most one run and at most one started ticket arrival;
- answered_once: every customer message (a ticket's description, each comment by the requester) gets at most one
  draft and at most one public reply: scanning a ticket in time order, a draft (or a public reply) must find a
  customer message that no draft (reply), and no person's reply, took before it;
- person_holds: a run a lead stopped or took is never live again, nor given a step or a draft, after its stop or
  take took hold (the lead never resumes one here);
- no_rule_waits: an `open`-rule ticket never waits (and is started within --wait-bound seconds of being recorded);
  a waiting ticket's reason is its own rule's hold; the paused rule starts nothing while paused; the capped rule
  starts at most 5 in the hour;
- rules_edits: every ticket created after an edit that the edited file takes is started (or skipped for its own
  reason), not left "no rule takes it" (this needs `serve` and `worker` to take up a changed file);
- cards_visible: every draft still waiting has its card (the approval's buttons) in a Slack message a person
  sees; no card row is marked sent without Slack's ts.

The exit status is 0 when every invariant holds. A PostgreSQL --postgres URL is scratch: its schema is dropped.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from bench.common import commit, machine, wipe_postgres  # noqa: E402
from standins.anthropic_server import MessagesAPIServer  # noqa: E402
from standins.brains import offline_brain  # noqa: E402
from standins.serve_process import SECRET, ServeProcess  # noqa: E402
from standins.slack_requests import SlackSender  # noqa: E402
from standins.slack_server import SlackAPIServer  # noqa: E402
from standins.worker_process import WorkerProcess  # noqa: E402
from standins.zendesk_server import ZendeskServer  # noqa: E402

KB = ROOT / "kb_data"
WEBHOOK_SECRET = "zd-soak-webhook-secret"
LEAD = "ULEAD"
QUEUE_CHANNEL = "CQUEUE"
CHANNELS = {"open": "C0OPEN", "paused": "C0PAUSED", "capped": "C0CAPPED", "late": "C0LATE"}
CAP = 5
LIVE = ("queued", "running", "awaiting_approval")
TERMINAL = ("completed", "escalated", "failed", "stopped")


@dataclass(frozen=True)
class Size:
    tickets: int = 300
    messages: int = 200
    traffic_seconds: float = 300.0
    serve_kills: int = 4
    worker_kills: int = 3  # PostgreSQL only (the queue shape)
    workers: int = 2  # PostgreSQL only
    stops: int = 25
    takes: int = 15
    handled: int = 8  # backlogged tickets a lead answers in Zendesk
    approve_share: float = 0.7  # of the drafts the lead approves (the rest wait, their cards checked at the end)
    settle_seconds: float = 150.0
    model_latency: float = 0.2
    poll_seconds: float = 3.0
    export_delay: float = 5.0
    intake_every: float = 1.0
    wait_bound: float = 60.0  # an open rule's ticket: recorded -> started, at most (seconds)
    seed: int = 48


FULL = Size()
SMALL = Size(tickets=30, messages=20, traffic_seconds=20.0, serve_kills=1, worker_kills=0, workers=1, stops=3,
             takes=2, handled=1, settle_seconds=40.0, poll_seconds=2.0, export_delay=2.0, intake_every=0.5)


def rules_text(edits: int) -> str:
    """The rules file after `edits` edits (0, 1 or 2)."""
    wide = ', "soak-wide"' if edits >= 2 else ""
    text_ = (f'[[rule]]\nname = "open"\nchannel = "{CHANNELS["open"]}"\ntags = ["soak-open"{wide}]\n\n'
             f'[[rule]]\nname = "paused"\nchannel = "{CHANNELS["paused"]}"\ntags = ["soak-paused"]\n\n'
             f'[[rule]]\nname = "capped"\nchannel = "{CHANNELS["capped"]}"\ntags = ["soak-capped"]\n'
             f'max_per_hour = {CAP}\n')
    if edits >= 1:
        text_ += f'\n[[rule]]\nname = "late"\nchannel = "{CHANNELS["late"]}"\ntags = ["soak-late"]\n'
    return text_


@dataclass
class SoakTicket:
    id: int
    kind: str  # open | paused | capped | late | wide | none
    requester: int
    created: float  # time.time() just before it was created
    webhook: bool
    events: list[tuple[float, str]] = field(default_factory=list)  # (time, "message" | "human")


@dataclass
class Hold:
    """A lead's stop or take of a run, and what the run was when it took hold."""

    kind: str  # stop | take
    run_id: int
    asked_at: float
    via: str
    held_at: float | None = None
    steps: int | None = None
    drafts: int | None = None
    status: str | None = None
    raced: str | None = None  # the take found the run live again (a customer's message continued it first)


@dataclass
class Ledger:
    tickets: dict[int, SoakTicket] = field(default_factory=dict)
    messages: list[tuple[int, float, bool]] = field(default_factory=list)  # (ticket, time, by webhook)
    holds: list[Hold] = field(default_factory=list)
    approved: dict[int, float] = field(default_factory=dict)  # approval id -> when the click was answered 200
    handled: list[int] = field(default_factory=list)
    kills: list[tuple[float, str]] = field(default_factory=list)
    webhooks: Counter[str] = field(default_factory=Counter)
    edits: list[float] = field(default_factory=list)
    paused_at: float | None = None
    resumed_at: float | None = None
    invited_at: float | None = None  # the bot invited to the late rule's channel (None: not exercised)
    lead_errors: Counter[str] = field(default_factory=Counter)


class Monitor(threading.Thread):
    """What the database shows, every half second: arrivals, runs (with status changes), drafts, escalations."""

    def __init__(self, url: str):
        super().__init__(name="soak-monitor", daemon=True)
        self.engine = create_engine(url, pool_pre_ping=True)
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.runs: dict[int, dict[str, Any]] = {}
        self.run_history: dict[int, list[tuple[float, str]]] = defaultdict(list)
        self.steps: dict[int, int] = {}
        self.approvals: dict[int, dict[str, Any]] = {}
        self.approval_seen: dict[int, float] = {}
        self.escalations: dict[int, dict[str, Any]] = {}
        self.arrivals: dict[int, dict[str, Any]] = {}
        self.waiting_reasons: dict[int, set[tuple[str | None, str | None]]] = defaultdict(set)
        self.started_seen: dict[int, float] = {}  # arrival id -> first seen started
        self.errors = 0

    def run(self) -> None:
        while not self.stop_event.is_set():
            try:
                self.look()
            except Exception:
                self.errors += 1
            self.stop_event.wait(0.5)

    def look(self) -> None:
        now = time.time()
        with self.engine.connect() as conn:
            runs = conn.execute(text("SELECT id, ticket_id, status, stop_requested_by, origin FROM run")).all()
            steps = conn.execute(text("SELECT run_id, COUNT(*) FROM step GROUP BY run_id")).all()
            approvals = conn.execute(text("SELECT id, run_id, status, tool_name FROM approval")).all()
            escalations = conn.execute(text("SELECT id, run_id, status, claimed_by FROM escalation")).all()
            arrivals = conn.execute(text("SELECT id, kind, ticket_id, state, rule, reason, run_id, created_at, "
                                         "decided_at FROM desk_arrival")).all()
        with self.lock:
            for r in runs:
                status = str(r.status)
                history = self.run_history[r.id]
                if not history or history[-1][1] != status:
                    history.append((now, status))
                self.runs[r.id] = {"id": r.id, "ticket_id": r.ticket_id, "status": status,
                                   "stop_requested_by": r.stop_requested_by, "origin": _json(r.origin)}
            self.steps = {int(run_id): int(n) for run_id, n in steps}
            for a in approvals:
                self.approval_seen.setdefault(a.id, now)
                self.approvals[a.id] = {"id": a.id, "run_id": a.run_id, "status": str(a.status),
                                        "tool_name": a.tool_name}
            self.escalations = {e.id: {"id": e.id, "run_id": e.run_id, "status": str(e.status),
                                       "claimed_by": e.claimed_by} for e in escalations}
            for a in arrivals:
                row = dict(a._mapping)
                self.arrivals[a.id] = row
                if row["state"] == "waiting":
                    self.waiting_reasons[a.id].add((row["rule"], row["reason"]))
                if row["state"] == "started":
                    self.started_seen.setdefault(a.id, now)

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {"runs": dict(self.runs), "steps": dict(self.steps), "approvals": dict(self.approvals),
                    "escalations": dict(self.escalations), "arrivals": dict(self.arrivals)}

    def close(self) -> None:
        self.stop_event.set()
        self.join(10)
        self.engine.dispose()


class Soak:
    def __init__(self, url: str, size: Size, scratch: Path, *, queue: bool):
        self.url, self.size, self.scratch, self.queue = url, size, scratch, queue
        self.rng = random.Random(size.seed)
        self.ledger = Ledger()
        self.zd = ZendeskServer(export_delay=size.export_delay).start()
        self.zd.load_kb_data(KB)
        self.slack = SlackAPIServer().start()
        # the late rule's channel does not have the bot until a person invites it at 80% of the traffic (when
        # the stand-in knows channel membership: Slack answers not_in_channel there until then)
        self.uninvited = CHANNELS["late"] if hasattr(self.slack, "remove_bot") else None
        if self.uninvited:
            self.slack.remove_bot(self.uninvited)
        self.model = MessagesAPIServer(offline_brain, latency=size.model_latency).start()
        self.rules = scratch / "rules.toml"
        self._write_rules(0)
        self.requesters = [int(u["id"]) for u in self.zd.users.values()
                           if u["role"] == "end-user" and u.get("organization_id")]
        self.agent = self.zd.add_user("Lena Lead", "lena.lead@kitebase.example", role="agent")
        self.templates = [t for t in json.loads((KB / "tickets.json").read_text(encoding="utf-8")) if t.get("messages")]
        env = {"KITEBASE_DESK": "zendesk", "ZENDESK_URL": self.zd.url, "ZENDESK_EMAIL": self.zd.email,
               "ZENDESK_API_TOKEN": self.zd.token, "ZENDESK_WEBHOOK_SECRET": WEBHOOK_SECRET,
               "ZENDESK_SYNC_SINCE": "3650d", "ZENDESK_POLL_SECONDS": f"{size.poll_seconds:g}",
               "KITEBASE_INTAKE_RULES": str(self.rules), "KITEBASE_INTAKE_EVERY": f"{size.intake_every:g}",
               "KITEBASE_APPROVERS": LEAD, "KITEBASE_ESCALATION_CHANNEL": QUEUE_CHANNEL,
               "KITEBASE_HELP_CENTER_URL": "", "KITEBASE_STALLED_JOB_SECONDS": "5"}
        if queue:
            env["KITEBASE_EXECUTION"] = "queue"
        self.serve = ServeProcess(url, self.slack.url, self.model.url, scratch / "serve.log", **env)
        self.workers = [WorkerProcess(url, scratch / f"worker-{i}.log", model_url=self.model.url,
                                      slack_url=self.slack.url, **env) for i in range(size.workers if queue else 0)]
        self.process_lock = threading.Lock()
        self.monitor = Monitor(url)
        self.engine = create_engine(url, pool_pre_ping=True)
        self.done = threading.Event()
        self.traffic_over = threading.Event()
        self.t0 = 0.0
        self._made = 0
        self.phases: dict[str, float] = {}
        self.settled = False

    # --- set-up ----------------------------------------------------------------------------------------------

    def _write_rules(self, edits: int) -> None:
        part = self.rules.with_suffix(".part")
        part.write_text(rules_text(edits), encoding="utf-8")
        os.replace(part, self.rules)  # a process reading the file sees the old one or the new one, whole

    def first_fill(self) -> None:
        from bot.config import Settings
        from bot.db.engine import Database, create_schema
        from bot.desk.zendesk import sync
        from bot.desk.zendesk.desk import client_for

        settings = Settings(database_url=self.url, desk="zendesk", zendesk_url=self.zd.url,
                            zendesk_email=self.zd.email, zendesk_api_token=self.zd.token)
        db = Database.from_url(self.url)
        try:
            create_schema(db.engine)
            if self.queue:
                from bot.runs.execution.workqueue import ensure_schema

                ensure_schema(settings.model_copy(update={"execution": "queue"}))
            if not sync.sync(client_for(settings), db, since_seconds=3650 * 86400).caught_up:
                raise RuntimeError("the first fill of the mirror did not catch up")
        finally:
            db.engine.dispose()

    def start(self) -> None:
        self.first_fill()
        for worker in self.workers:
            worker.start()
        self.serve.start()
        self.monitor.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the rules are in force once serve wrote their rows
            if {"open", "paused", "capped"} <= {a for a in self._scalars("SELECT name FROM intake_rule")}:
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("the intake rules never came into force")
        self.ledger.paused_at = self._lead_command("intake pause paused", "paused")
        time.sleep(1.1)  # `since` is the database's second, the tickets' Zendesk's

    def _scalars(self, sql: str) -> list[Any]:
        engine = create_engine(self.url)
        try:
            with engine.connect() as conn:
                return list(conn.execute(text(sql)).scalars())
        except Exception:
            return []
        finally:
            engine.dispose()

    # --- the plan --------------------------------------------------------------------------------------------

    def plan(self) -> list[tuple[float, str]]:
        size, rng, span = self.size, self.rng, self.size.traffic_seconds
        events: list[tuple[float, str]] = [(span * (i + rng.random()) / size.tickets, "ticket")
                                           for i in range(size.tickets)]
        events += [(span * (0.1 + 0.9 * rng.random()), "message") for _ in range(size.messages)]
        events += [(span * 0.45, "resume"), (span / 3, "edit"), (span * 2 / 3, "edit")]
        if self.uninvited:
            events.append((span * 0.8, "invite"))
        events += [(span * rng.uniform(0.1, 0.95), "kill-serve") for _ in range(size.serve_kills)]
        if self.workers:
            events += [(span * rng.uniform(0.1, 0.95), "kill-worker") for _ in range(size.worker_kills)]
        events += [(span * rng.uniform(0.15, 0.95), "stop") for _ in range(size.stops)]
        events += [(span * rng.uniform(0.3, 1.0), "take") for _ in range(size.takes)]
        # half of the lead's own answers go to the paused rule's backlog while it is paused (well before the
        # resume: the answer is mirrored by then), so the resume must find them answered meanwhile; the rest to
        # the capped rule's backlog
        early = span >= 60
        events += [(span * rng.uniform(0.1, 0.3), "handle") if early and i % 2 == 0 else
                   (span * rng.uniform(0.2, 0.9), "handle") for i in range(size.handled)]
        return sorted(events)

    def run(self) -> None:
        began = time.monotonic()
        self.start()
        self.t0 = time.monotonic()
        self.phases["start_s"] = round(self.t0 - began, 1)
        lead = threading.Thread(target=self._approvals, name="soak-lead", daemon=True)
        lead.start()
        retries: list[threading.Thread] = []
        for at, what in self.plan():
            time.sleep(max(0.0, self.t0 + at - time.monotonic()))
            if what == "ticket":
                self._ticket(at)
            elif what == "message":
                self._message()
            elif what == "resume":
                self.ledger.resumed_at = self._lead_command("intake resume paused", "resumed")
            elif what == "invite":
                threading.Thread(target=self._invite, daemon=True).start()
            elif what == "edit":
                self.ledger.edits.append(time.time())
                self._write_rules(len(self.ledger.edits))
            elif what.startswith("kill"):
                thread = threading.Thread(target=self._kill, args=(what,), daemon=True)
                thread.start()
                retries.append(thread)
            else:
                thread = threading.Thread(target=self._lead_act, args=(what,), daemon=True)
                thread.start()
                retries.append(thread)
        self.traffic_over.set()  # the lead acts no more; a stop already clicked is still watched until it holds
        self.phases["traffic_s"] = round(time.monotonic() - self.t0, 1)
        for thread in retries:
            thread.join(120)
        settling = time.monotonic()
        self._settle()
        self.phases["settle_s"] = round(time.monotonic() - settling, 1)
        self.done.set()
        lead.join(30)

    # --- tickets and messages ----------------------------------------------------------------------------------

    def _kind(self, at: float) -> str:
        span = self.size.traffic_seconds
        kinds = {"open": 0.4, "paused": 0.25, "capped": 0.25, "none": 0.05}
        if at >= span / 3:
            kinds["late"] = 0.15
        if at >= span * 2 / 3:
            kinds["wide"] = 0.15
        names = list(kinds)
        return self.rng.choices(names, weights=[kinds[n] for n in names])[0]

    def _ticket(self, at: float) -> None:
        kind = self._kind(at)
        template = self.templates[self._made % len(self.templates)]
        self._made += 1
        requester = self.rng.choice(self.requesters)
        webhook = self.rng.random() < 0.5
        created = time.time()
        ticket = self.zd.add_ticket(f"{template['title']} (soak {self._made})", template["messages"][0]["body"],
                                    requester, status="new", priority="normal", tags=(f"soak-{kind}",))
        record = SoakTicket(ticket, kind, requester, created, webhook, [(created, "message")])
        self.ledger.tickets[ticket] = record
        if webhook:
            self._webhook(ticket)

    def _message(self) -> None:
        now = time.time()
        ready = [t for t in self.ledger.tickets.values() if now - t.created > 3]
        if not ready:
            return
        snapshot = self.monitor.snapshot()
        held = {h.run_id for h in self.ledger.holds}
        run_of = {str(r["ticket_id"]): r for r in snapshot["runs"].values()}
        weights = []
        for t in ready:
            run = run_of.get(str(t.id))
            if run is None:
                weights.append(1.0)
            elif run["id"] in held:
                weights.append(6.0)  # the lead's decisions are what a customer's message must not undo
            elif run["status"] in TERMINAL:
                weights.append(3.0)
            else:
                weights.append(2.0)
        ticket = self.rng.choices(ready, weights=weights)[0]
        webhook = self.rng.random() < 0.5
        at = time.time()
        body = self.rng.choice(["Any news on this? It still happens for everyone here.",
                                "We tried that and it did not help, same error as before.",
                                "Adding: it started again this morning after the update.",
                                "Thanks, one more question: does this affect our other workspace too?"])
        try:
            self.zd.add_comment(ticket.id, f"{body} (message {len(self.ledger.messages) + 1})",
                                author_id=ticket.requester)
        except Exception:
            return
        ticket.events.append((at, "message"))
        self.ledger.messages.append((ticket.id, at, webhook))
        if webhook:
            self._webhook(ticket.id)

    def _webhook(self, ticket: int, attempt: int = 1) -> None:
        """Zendesk's trigger POSTs the ticket to serve; one serve did not answer is sent again (up to 3 times,
        a few seconds apart, off the traffic's thread); after that only the poll finds it."""
        url = f"http://127.0.0.1:{self.serve.port}/zendesk/webhook"
        try:
            status, _ = self.zd.send_webhook(url, self.zd.ticket_webhook_payload(ticket), WEBHOOK_SECRET, timeout=10)
        except OSError:
            status = 0
        self.ledger.webhooks[str(status)] += 1
        if status not in (200, 202) and attempt < 4:
            timer = threading.Timer(2.0 * attempt, self._webhook, args=(ticket, attempt + 1))
            timer.daemon = True
            timer.start()

    # --- processes dying ---------------------------------------------------------------------------------------

    def _kill(self, what: str) -> None:
        target: Any = self.serve if what == "kill-serve" else self.rng.choice(self.workers)
        down = self.rng.uniform(0.3, 3.0)
        with self.process_lock:
            target.kill()
            self.ledger.kills.append((time.time(), what))
            time.sleep(down)
            for _ in range(3):
                try:
                    target.start()
                    break
                except RuntimeError:
                    time.sleep(1)

    def _invite(self) -> None:
        """A person invites the bot to the late rule's channel; Slack tells the app (member_joined_channel),
        delivered again until serve answers it."""
        assert self.uninvited is not None
        event = self.slack.invite(self.uninvited)
        self.ledger.invited_at = time.time()
        for attempt in range(30):
            try:
                status, _ = self.sender().event(event, retry=attempt or None)
            except OSError:
                status = 0
            if status == 200:
                return
            time.sleep(1)

    def _all_up(self) -> None:
        with self.process_lock:
            if self.serve.process is None or self.serve.process.poll() is not None:
                self.serve.start()
            for worker in self.workers:
                if not worker.alive():
                    worker.start()

    # --- the lead ------------------------------------------------------------------------------------------------

    def sender(self) -> SlackSender:
        return SlackSender(self.serve.url, SECRET)

    def _lead_command(self, words: str, expect: str) -> float:
        for _ in range(30):
            try:
                status, body = self.sender().command(words, user=LEAD)
            except OSError:
                status, body = 0, ""
            if status == 200 and expect in body.lower():
                return time.time()
            time.sleep(1)
        raise RuntimeError(f"/kitebase {words} was never answered with '{expect}'")

    def _approvals(self) -> None:
        """The lead reads each waiting card once and approves most of them after a few seconds."""
        decided: dict[int, float | None] = {}  # approval id -> when to approve it (None: leave it waiting)
        while not self.done.is_set():
            try:
                for approval_id, card in self._cards_waiting().items():
                    if approval_id not in decided:
                        decided[approval_id] = (time.monotonic() + self.rng.uniform(2, 8)
                                                if self.rng.random() < self.size.approve_share else None)
                    due = decided[approval_id]
                    if due is not None and time.monotonic() >= due and not self.traffic_over.is_set():
                        status, _ = self.sender().click("approve_reply", card["value"], user=LEAD,
                                                        channel=card["channel"], message_ts=card["ts"],
                                                        thread_ts=card["thread_ts"])
                        if status == 200:
                            self.ledger.approved[approval_id] = time.time()
                            decided[approval_id] = None
            except OSError:
                self.ledger.lead_errors["approve: serve down"] += 1
            self.done.wait(0.5)

    def _cards_waiting(self) -> dict[int, dict[str, Any]]:
        pending = {a["id"] for a in self.monitor.snapshot()["approvals"].values() if a["status"] == "pending"}
        return {k: v for k, v in self.shown_cards().items() if k in pending}

    def shown_cards(self) -> dict[int, dict[str, Any]]:
        """Approval id -> the card a person sees in Slack now (its approve button, channel, ts)."""
        cards: dict[int, dict[str, Any]] = {}
        with self.slack._lock:
            messages = list(self.slack.messages.items())
        for (channel, ts), message in messages:
            for block in message.get("blocks") or []:
                if block.get("type") != "actions":
                    continue
                for element in block.get("elements", []):
                    if element.get("action_id") == "approve_reply":
                        with contextlib.suppress(ValueError, KeyError, TypeError):
                            cards[int(json.loads(element["value"])["approval_id"])] = {
                                "value": element["value"], "channel": channel, "ts": ts,
                                "thread_ts": message.get("thread_ts")}
        return cards

    def _shown_button(self, action: str, key: str, wanted: int) -> dict[str, Any] | None:
        with self.slack._lock:
            messages = list(self.slack.messages.items())
        for (channel, ts), message in messages:
            for block in message.get("blocks") or []:
                for element in block.get("elements", []) if block.get("type") == "actions" else []:
                    if element.get("action_id") != action:
                        continue
                    with contextlib.suppress(ValueError, KeyError, TypeError):
                        if int(json.loads(element["value"])[key]) == wanted:
                            return {"value": element["value"], "channel": channel, "ts": ts,
                                    "thread_ts": message.get("thread_ts")}
        return None

    def _lead_act(self, what: str) -> None:
        """One stop, take or Zendesk answer; when there is nothing to act on yet, or serve is down, tried again
        a little later (for up to a minute)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not self.traffic_over.is_set():
            try:
                if {"stop": self._stop, "take": self._take, "handle": self._handle}[what]():
                    return
            except OSError:
                self.ledger.lead_errors[f"{what}: serve down"] += 1
            time.sleep(2)
        self.ledger.lead_errors[f"{what}: nothing to act on"] += 1

    def _stop(self) -> bool:
        taken = {h.run_id for h in self.ledger.holds}
        runs = [r for r in self.monitor.snapshot()["runs"].values()
                if r["status"] in LIVE and not r["stop_requested_by"] and r["id"] not in taken]
        if not runs:
            return False
        run = self.rng.choice(sorted(runs, key=lambda r: r["id"]))
        # every other stop is the slash command, the rest the run's Stop button when Slack shows it
        command = sum(h.kind == "stop" for h in self.ledger.holds) % 2 == 1
        button = None if command else self._shown_button("stop_run", "run_id", run["id"])
        if button is not None:
            status, body = self.sender().click("stop_run", button["value"], user=LEAD, channel=button["channel"],
                                               message_ts=button["ts"], thread_ts=button["thread_ts"])
            via = "Stop button"
        else:
            status, body = self.sender().command(f"stop {run['id']}", user=LEAD)
            via = "/kitebase stop"
        if status != 200:
            return False
        hold = Hold("stop", run["id"], time.time(), via)
        self.ledger.holds.append(hold)
        deadline = time.monotonic() + 60  # honoured at the run's next safe point
        while time.monotonic() < deadline:
            state = self._run_state(hold.run_id)
            if state is not None and state["status"] in TERMINAL:
                hold.held_at, hold.status, hold.steps, hold.drafts = (time.time(), state["status"], state["steps"],
                                                                      state["drafts"])
                break
            time.sleep(0.2)
        return True

    def _run_state(self, run_id: int) -> dict[str, Any] | None:
        """The run's status, steps, drafts and latest escalation, read in one look at the database."""
        with self.engine.connect() as conn:
            row = conn.execute(text(
                "SELECT status, (SELECT COUNT(*) FROM step WHERE run_id = :r) AS steps, "
                "(SELECT COUNT(*) FROM approval WHERE run_id = :r) AS drafts, "
                "(SELECT status FROM escalation WHERE run_id = :r ORDER BY id DESC LIMIT 1) AS escalation "
                "FROM run WHERE id = :r"), {"r": run_id}).first()
        return None if row is None else dict(row._mapping)

    def _take(self) -> bool:
        taken = {h.run_id for h in self.ledger.holds}
        snapshot = self.monitor.snapshot()
        open_ = [e for e in snapshot["escalations"].values() if e["status"] == "open" and e["run_id"] not in taken
                 and snapshot["runs"].get(e["run_id"], {}).get("status") == "escalated"]
        shown = [(e, b) for e in open_ if (b := self._shown_button("claim_escalation", "escalation_id", e["id"]))]
        if not shown:
            return False
        escalation, button = self.rng.choice(shown)
        status, _ = self.sender().click("claim_escalation", button["value"], user=LEAD, channel=button["channel"],
                                        message_ts=button["ts"], thread_ts=button["thread_ts"])
        if status != 200:
            return False
        hold = Hold("take", int(escalation["run_id"]), time.time(), "I'll take it")
        self.ledger.holds.append(hold)
        state = self._run_state(hold.run_id)  # what the take found, at once (a later change is the soak's finding)
        if state is None or state["escalation"] != "claimed":
            hold.raced = f"the queue item is {None if state is None else state['escalation']} after the click"
        elif state["status"] != "escalated":
            hold.raced = f"the run was {state['status']} again when the take was recorded"
        else:
            hold.held_at, hold.status, hold.steps, hold.drafts = (time.time(), state["status"], state["steps"],
                                                                  state["drafts"])
        return True

    def _handle(self) -> bool:
        """The lead answers a ticket waiting in a backlog in Zendesk themself: the capped rule's (its hour is
        full) or, early on, the paused rule's (it resumes later), so no draft may follow."""
        rules = {"capped"}
        if self.ledger.resumed_at is None and time.monotonic() - self.t0 < 0.35 * self.size.traffic_seconds:
            rules.add("paused")  # paused well past the answer's mirroring: no run can start before it is seen
        waiting = [a for a in self.monitor.snapshot()["arrivals"].values()
                   if a["kind"] == "ticket" and a["state"] == "waiting" and a["rule"] in rules
                   and int(a["ticket_id"]) not in self.ledger.handled]
        if not waiting:
            return False
        arrival = self.rng.choice(sorted(waiting, key=lambda a: a["id"]))
        ticket = int(arrival["ticket_id"])
        at = time.time()
        self.zd.add_comment(ticket, "Hi, this is Lena from support: I have looked into it and fixed your "
                            "account's setting. It should work now.", author_id=self.agent)
        self.ledger.tickets[ticket].events.append((at, "human"))
        self.ledger.handled.append(ticket)
        self._webhook(ticket)
        return True

    # --- settling ----------------------------------------------------------------------------------------------

    def _settle(self) -> None:
        """Everything up; then until nothing is queued or running, no new ticket arrival is undecided and the
        outbox has no card or first message to send (three looks in a row), or the settle time is out."""
        deadline, calm = time.monotonic() + self.size.settle_seconds, 0
        while time.monotonic() < deadline and calm < 3:
            with contextlib.suppress(RuntimeError):
                self._all_up()
            busy = self._scalars(
                "SELECT (SELECT COUNT(*) FROM run WHERE status IN ('queued', 'running')) + "
                "(SELECT COUNT(*) FROM desk_arrival WHERE state = 'new' AND kind = 'ticket') + "
                "(SELECT COUNT(*) FROM outbox WHERE status = 'pending' AND kind IN ('card', 'request', 'queue'))")
            calm = calm + 1 if busy == [0] else 0
            time.sleep(1)
        self.settled = calm >= 3

    def close(self) -> None:
        self.done.set()
        self.monitor.close()
        self.engine.dispose()
        with contextlib.suppress(Exception):
            self.serve.stop()
        for worker in self.workers:
            with contextlib.suppress(Exception):
                worker.stop()
        for server in (self.model, self.slack, self.zd):
            with contextlib.suppress(Exception):
                server.stop()

    # --- the invariants ------------------------------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        self.monitor.look()
        snap = self.monitor.snapshot()
        engine = create_engine(self.url)
        try:
            with engine.connect() as conn:
                held_shown = conn.execute(text("SELECT COUNT(*) FROM outbox WHERE key LIKE 'held:%'")).scalar()
                unsent_cards = conn.execute(text(
                    "SELECT key, status, ts, last_error FROM outbox WHERE kind = 'card' AND "
                    "(status <> 'sent' OR ts IS NULL)")).all()
                cost = conn.execute(text("SELECT COALESCE(SUM(cost_usd), 0) FROM run")).scalar()
        finally:
            engine.dispose()
        invariants = [self.started_once(snap), self.answered_once(snap), self.person_holds(snap),
                      self.no_rule_waits(snap), self.rules_edits(snap), self.cards_visible(snap, unsent_cards)]
        runs = list(snap["runs"].values())
        arrivals = list(snap["arrivals"].values())
        return {
            "invariants": invariants,
            "held": [i["name"] for i in invariants if i["held"]],
            "failed": [i["name"] for i in invariants if not i["held"]],
            "figures": {
                "tickets": len(self.ledger.tickets),
                "tickets_by_kind": dict(Counter(t.kind for t in self.ledger.tickets.values())),
                "tickets_by_webhook": sum(t.webhook for t in self.ledger.tickets.values()),
                "messages": len(self.ledger.messages),
                "messages_by_webhook": sum(w for _, _, w in self.ledger.messages),
                "runs": len(runs), "runs_by_status": dict(Counter(r["status"] for r in runs)),
                "drafts": len(snap["approvals"]),
                "drafts_by_status": dict(Counter(a["status"] for a in snap["approvals"].values())),
                "approved_by_lead": len(self.ledger.approved),
                "escalations": len(snap["escalations"]),
                "arrivals": {f"{k}/{s}": n for (k, s), n in
                             sorted(Counter((a["kind"], a["state"]) for a in arrivals).items())},
                "stops": sum(h.kind == "stop" for h in self.ledger.holds),
                "stops_via": dict(Counter(h.via for h in self.ledger.holds if h.kind == "stop")),
                "takes": sum(h.kind == "take" for h in self.ledger.holds),
                "handled_in_zendesk": len(self.ledger.handled),
                "handled_by_rule": dict(Counter(self.ledger.tickets[t].kind for t in self.ledger.handled)),
                "handled_outcome": dict(Counter(
                    f"{a['state']}: {str(a['reason'] or '')[:40]}" for a in snap["arrivals"].values()
                    if a["kind"] == "ticket" and int(a["ticket_id"]) in self.ledger.handled)),
                "held_messages_shown": held_shown,
                "late_channel_invited_s": None if self.ledger.invited_at is None else
                round(self.ledger.invited_at - self.t0_wall, 1),
                "kills": dict(Counter(k for _, k in self.ledger.kills)),
                "webhooks_answered": dict(self.ledger.webhooks),
                "lead_retries": dict(self.ledger.lead_errors),
                "model_calls": len(self.model.requests),
                "cost_usd": round(float(cost or 0), 2),
                "settled": self.settled,
                "monitor_errors": self.monitor.errors,
            },
        }

    def started_once(self, snap: dict[str, Any]) -> dict[str, Any]:
        runs = Counter(str(r["ticket_id"]) for r in snap["runs"].values())
        started = Counter(str(a["ticket_id"]) for a in snap["arrivals"].values()
                          if a["kind"] == "ticket" and a["state"] == "started")
        ours = [str(t) for t in self.ledger.tickets]
        bad = [f"ticket {t}: {runs[t]} runs, {started[t]} started arrivals" for t in ours
               if runs[t] > 1 or started[t] > 1]
        return _invariant("started_once", len(ours), bad,
                          f"{sum(1 for t in ours if runs[t])} of {len(ours)} tickets started, none twice"
                          if not bad else f"{len(bad)} tickets started more than once")

    def answered_once(self, snap: dict[str, Any]) -> dict[str, Any]:
        drafts: dict[str, list[float]] = defaultdict(list)
        for a in snap["approvals"].values():
            run = snap["runs"].get(a["run_id"])
            if run is not None and a["tool_name"] == "reply_to_customer":
                drafts[str(run["ticket_id"])].append(self.monitor.approval_seen.get(a["id"], time.time()))
        bad: list[str] = []
        customer_messages = 0
        replies_sent = 0
        for ticket in self.ledger.tickets.values():
            events = [(at, kind) for at, kind in ticket.events] + [(at, "draft") for at in drafts[str(ticket.id)]]
            customer_messages += sum(k == "message" for _, k in ticket.events)
            open_ = 0
            for at, kind in sorted(events, key=lambda e: (e[0], e[1] != "message")):
                if kind == "message":
                    open_ += 1
                elif kind == "human":
                    open_ = max(0, open_ - 1)
                elif open_ == 0:
                    bad.append(f"ticket {ticket.id}: a draft at +{at - self.t0_wall:.1f} s answers no customer "
                               f"message that was not answered already ({_timeline(events, self.t0_wall)})")
                else:
                    open_ -= 1
            # what reached the customer, in Zendesk's own order (comment ids)
            open_ = 0
            for comment in sorted(self.zd.comments_of(ticket.id), key=lambda c: int(c["id"])):
                if not comment.get("public"):
                    continue
                author = int(comment["author_id"])
                if author == ticket.requester:
                    open_ += 1
                elif author == self.agent:
                    open_ = max(0, open_ - 1)
                elif author == self.zd.agent_id:
                    replies_sent += 1
                    if open_ == 0:
                        bad.append(f"ticket {ticket.id}: the bot's public reply {comment['id']} answers no "
                                   "customer message that was not answered already")
                    open_ = max(0, open_ - 1)
        total = sum(len(v) for v in drafts.values())
        return _invariant("answered_once", customer_messages, bad,
                          f"{customer_messages} customer messages (descriptions included), {total} drafts, "
                          f"{replies_sent} public replies sent")

    def person_holds(self, snap: dict[str, Any]) -> dict[str, Any]:
        drafts = Counter(a["run_id"] for a in snap["approvals"].values())
        bad: list[str] = []
        raced = never = 0
        for hold in self.ledger.holds:
            if hold.raced:
                raced += 1
                continue
            if hold.held_at is None:
                never += 1
                bad.append(f"run {hold.run_id}: the lead's {hold.kind} ({hold.via}) at "
                           f"+{hold.asked_at - self.t0_wall:.1f} s never left the run ended "
                           f"(now {snap['runs'].get(hold.run_id, {}).get('status')})")
                continue
            history = self.monitor.run_history.get(hold.run_id, [])
            live = [(at, s) for at, s in history if at > hold.held_at and s in LIVE]
            now = snap["runs"].get(hold.run_id, {}).get("status")
            steps, made = snap["steps"].get(hold.run_id, 0), drafts[hold.run_id]
            if live or now != hold.status or steps != hold.steps or made != hold.drafts:
                bad.append(f"run {hold.run_id}: {hold.kind} ({hold.via}) held at +{hold.held_at - self.t0_wall:.1f} s "
                           f"({hold.status}, {hold.steps} steps, {hold.drafts} drafts); at the end {now}, {steps} "
                           f"steps, {made} drafts, live again at "
                           f"{[round(at - self.t0_wall, 1) for at, _ in live][:3]}; nobody resumed it")
        checked = len(self.ledger.holds) - raced
        return _invariant("person_holds", checked, bad,
                          f"{sum(h.kind == 'stop' for h in self.ledger.holds)} stops and "
                          f"{sum(h.kind == 'take' for h in self.ledger.holds)} takes, {checked} checked ({raced} takes "
                          f"found the run continued by a customer's message first, so nothing to hold); customer "
                          f"messages on those runs' tickets: {self._messages_on_held()}")

    def _messages_on_held(self) -> int:
        tickets = {str(self.monitor.runs.get(h.run_id, {}).get("ticket_id")) for h in self.ledger.holds
                   if h.held_at is not None}
        held_at = {str(self.monitor.runs.get(h.run_id, {}).get("ticket_id")): h.held_at for h in self.ledger.holds
                   if h.held_at is not None}
        return sum(1 for t, at, _ in self.ledger.messages if str(t) in tickets and at > (held_at[str(t)] or 0))

    def no_rule_waits(self, snap: dict[str, Any]) -> dict[str, Any]:
        own = {"paused": "rule 'paused' is paused", "capped": f"over max_per_hour = {CAP}",
               "late": "the bot can't post in"}  # its channel, until the bot is invited
        bad: list[str] = []
        latencies: list[float] = []
        by_ticket = {str(a["ticket_id"]): a for a in snap["arrivals"].values() if a["kind"] == "ticket"}
        for arrival_id, reasons in self.monitor.waiting_reasons.items():
            arrival = snap["arrivals"].get(arrival_id) or {}
            for rule, reason in reasons:
                if rule not in own or not str(reason or "").startswith(own[rule]) or (
                        rule == "late" and CHANNELS["late"] not in str(reason)):
                    bad.append(f"arrival {arrival_id} (ticket {arrival.get('ticket_id')}, rule {rule}) waited: "
                               f"{reason}")
        for ticket in self.ledger.tickets.values():
            if ticket.kind != "open":
                continue
            arrival = by_ticket.get(str(ticket.id))
            if arrival is None or arrival["state"] != "started":
                bad.append(f"open-rule ticket {ticket.id} not started: "
                           f"{(arrival or {}).get('state', 'never recorded')} {(arrival or {}).get('reason') or ''}")
                continue
            waited = (_epoch(arrival["decided_at"]) or 0) - (_epoch(arrival["created_at"]) or 0)
            latencies.append(waited)
            if waited > self.size.wait_bound:
                bad.append(f"open-rule ticket {ticket.id} waited {waited:.1f} s from recorded to started "
                           f"(bound {self.size.wait_bound:g} s)")
        resumed = self.ledger.resumed_at or float("inf")
        paused_early = [a for a in snap["arrivals"].values() if a["kind"] == "ticket" and a["rule"] == "paused"
                        and self.monitor.started_seen.get(a["id"], float("inf")) < resumed]
        bad += [f"paused-rule ticket {a['ticket_id']} started while the rule was paused" for a in paused_early]
        capped = [a for a in snap["arrivals"].values()
                  if a["kind"] == "ticket" and a["rule"] == "capped" and a["state"] == "started"]
        if len(capped) > CAP:
            bad.append(f"the capped rule started {len(capped)} tickets within the hour (max_per_hour = {CAP})")
        waiting = Counter(a["rule"] for a in snap["arrivals"].values() if a["state"] == "waiting")
        lat = sorted(latencies)
        summary = (f"open rule recorded → started: p50 {_q(lat, 0.5)} s, p95 {_q(lat, 0.95)} s, max "
                   f"{_q(lat, 1.0)} s over {len(lat)} tickets; capped started {len(capped)}; waiting at the end "
                   f"{dict(waiting)}")
        return _invariant("no_rule_waits", len(self.monitor.waiting_reasons) + len(lat), bad, summary)

    def rules_edits(self, snap: dict[str, Any]) -> dict[str, Any]:
        by_ticket = {str(a["ticket_id"]): a for a in snap["arrivals"].values() if a["kind"] == "ticket"}
        bad: list[str] = []
        outcome: Counter[str] = Counter()
        first_start: dict[str, float] = {}
        for ticket in self.ledger.tickets.values():
            if ticket.kind not in ("late", "wide"):
                continue
            arrival = by_ticket.get(str(ticket.id)) or {}
            state = arrival.get("state", "never recorded")
            outcome[f"{ticket.kind}/{state}"] += 1
            if state == "started" and arrival["id"] in self.monitor.started_seen:
                seen = self.monitor.started_seen[arrival["id"]]
                first_start[ticket.kind] = min(first_start.get(ticket.kind, seen), seen)
            if state not in ("started", "skipped"):
                bad.append(f"{ticket.kind} ticket {ticket.id} (created after edit "
                           f"{1 if ticket.kind == 'late' else 2}): {state}: {arrival.get('reason') or ''}")
        edits = {"late": self.ledger.edits[0] if self.ledger.edits else None,
                 "wide": self.ledger.edits[1] if len(self.ledger.edits) > 1 else None}
        delays = {k: round(first_start[k] - e, 1) for k, e in edits.items() if e is not None and k in first_start}
        return _invariant("rules_edits", sum(outcome.values()), bad,
                          f"{dict(outcome)}; first started after its edit (s): {delays}")

    def cards_visible(self, snap: dict[str, Any], unsent_cards: list[Any]) -> dict[str, Any]:
        shown = self.shown_cards()
        pending = [a for a in snap["approvals"].values() if a["status"] == "pending"]
        bad = [f"draft {a['id']} (run {a['run_id']}) waits with no card in Slack" for a in pending
               if a["id"] not in shown]
        bad += [f"outbox {row.key} is {row.status} with ts {row.ts}: {row.last_error or ''}" for row in unsent_cards
                if row.status == "sent"]
        held = [row for row in unsent_cards if row.status != "sent"]
        return _invariant("cards_visible", len(pending), bad,
                          f"{len(pending)} drafts waiting at the end, {len(pending) - len(bad)} with a card shown; "
                          f"{len(held)} card rows not sent ({Counter(r.status for r in held)})")

    @property
    def t0_wall(self) -> float:
        return self._t0_wall

    def run_and_report(self) -> dict[str, Any]:
        started = time.monotonic()
        self._t0_wall = time.time()
        self.run()
        result = self.report()
        result["seconds"] = round(time.monotonic() - started, 1)
        result["phases_s"] = self.phases
        result["holds"] = [{**asdict(h), "asked_s": round(h.asked_at - self._t0_wall, 1),
                            "held_s": None if h.held_at is None else round(h.held_at - self._t0_wall, 1)}
                           for h in self.ledger.holds]
        result["kill_times_s"] = [(round(at - self._t0_wall, 1), what) for at, what in self.ledger.kills]
        result["edit_times_s"] = [round(at - self._t0_wall, 1) for at in self.ledger.edits]
        return result


def _invariant(name: str, checked: int, bad: list[str], summary: str) -> dict[str, Any]:
    return {"name": name, "held": not bad, "checked": checked, "violations": len(bad), "summary": summary,
            "examples": bad[:10]}


def _timeline(events: list[tuple[float, str]], t0: float) -> str:
    return ", ".join(f"{kind} +{at - t0:.1f}" for at, kind in sorted(events))


def _q(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return round(values[min(len(values) - 1, int(round(q * (len(values) - 1))))], 1)


def _json(value: Any) -> Any:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return json.loads(value)
    return value


def _epoch(value: Any) -> float | None:
    if value is None:
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def run_soak(url: str, size: Size, scratch: Path, *, queue: bool) -> dict[str, Any]:
    soak = Soak(url, size, scratch, queue=queue)
    try:
        result = soak.run_and_report()
    finally:
        soak.close()
    result["size"] = asdict(size)
    result["database"] = "postgresql" if url.startswith("postgresql") else "sqlite"
    result["shape"] = "queue (serve + workers)" if queue else "embedded (serve)"
    return result


def lines(result: dict[str, Any]) -> list[str]:
    out = [f"{result['database']}, {result['shape']}: {result['seconds']} s; {json.dumps(result['figures'])}"]
    for inv in result["invariants"]:
        out.append(f"  {'HOLDS' if inv['held'] else 'FAILS'} {inv['name']}: checked {inv['checked']}, "
                   f"violations {inv['violations']}; {inv['summary']}")
        out += [f"      - {example}" for example in inv["examples"]]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.soak_intake", description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", help="a scratch PostgreSQL URL (its public schema is dropped); SQLite otherwise")
    parser.add_argument("--small", action="store_true", help="the test's size (30 tickets, 20 messages, one kill)")
    parser.add_argument("--tickets", type=int)
    parser.add_argument("--messages", type=int)
    parser.add_argument("--minutes", type=float, help="the traffic period (default 5)")
    parser.add_argument("--serve-kills", type=int)
    parser.add_argument("--worker-kills", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--logs", type=Path, help="keep the processes' logs and the rules file here")
    args = parser.parse_args(argv)
    size = SMALL if args.small else FULL
    changes = {k: v for k, v in {"tickets": args.tickets, "messages": args.messages, "serve_kills": args.serve_kills,
                                 "worker_kills": args.worker_kills, "seed": args.seed,
                                 "traffic_seconds": None if args.minutes is None else args.minutes * 60}.items()
               if v is not None}
    size = replace(size, **changes)
    with tempfile.TemporaryDirectory(prefix="kitebase-soak-") as folder:
        scratch = args.logs or Path(folder)
        scratch.mkdir(parents=True, exist_ok=True)
        if args.postgres:
            wipe_postgres(args.postgres)
        for suffix in ("", "-wal", "-shm"):
            (scratch / f"soak.db{suffix}").unlink(missing_ok=True)
        url = args.postgres or f"sqlite:///{scratch / 'soak.db'}"
        result = run_soak(url, size, scratch, queue=bool(args.postgres))
    result.update({"bench": "soak_intake", "date": datetime.now(UTC).isoformat(timespec="seconds"), **commit(),
                   "machine": machine()})
    print("\n".join(lines(result)), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    return 0 if not result["failed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
