"""A soak: real `kitebase serve` (and, in the queue shape, `kitebase worker`) processes against the Slack and
Messages API stand-ins, under mixed faults, driven as a busy support channel would drive them. Then the
product's promises are checked on what the database holds, what Slack was sent and what each process logged.

Faults, from a seeded random source: processes SIGKILLed and restarted, Slack answering 500 to every call for a
few seconds, the model answering 529 (overloaded) for a few seconds or now and then, Slack delivering an event
twice (one after the other, or both at once), and people clicking: twice, two approvers at once, Approve racing
Reject, an edit. A request Slack could not deliver is retried (up to three times, as Slack does); a click that
got no answer is clicked again."""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from standins.anthropic_server import MessagesAPIServer, error
from standins.brains import offline_brain
from standins.serve_process import BOT_TOKEN, SECRET, ServeProcess
from standins.slack_requests import SlackSender
from standins.slack_server import SlackAPIServer
from standins.worker_process import WorkerProcess

ROOT = Path(__file__).resolve().parents[2]
API_KEY = "sk-ant-proc-0123456789"  # what ServeProcess gives serve; the workers get their own below
SECRETS = (API_KEY, "sk-ant-worker-0123456789", BOT_TOKEN, SECRET)
SCENARIOS = ("approve", "double", "two-people", "race-reject", "edit")


@dataclass(frozen=True)
class Size:
    mentions: int
    traffic_seconds: float  # the mentions are spread over this long, faults all along
    fault_every: float  # seconds between two faults (on average)
    settle_seconds: float  # how long everything may take to come to rest afterwards
    channels: int = 5


SHORT = Size(mentions=10, traffic_seconds=30, fault_every=3, settle_seconds=150)
LONG = Size(mentions=30, traffic_seconds=150, fault_every=12, settle_seconds=300)


class Model:
    """The Messages API stand-in answering like the offline model after `latency`; a seeded 5% of calls and
    every call during an overload answer 529."""

    def __init__(self, rng: random.Random, latency: float = 0.3):
        self.rng, self.latency = rng, latency
        self.overloaded_until = 0.0
        self.errors = 0
        self._lock = threading.Lock()

    def overload(self, seconds: float) -> None:
        self.overloaded_until = time.monotonic() + seconds

    def __call__(self, body: dict[str, Any]) -> Any:
        time.sleep(self.latency)
        with self._lock:
            fail = time.monotonic() < self.overloaded_until or self.rng.random() < 0.05
            self.errors += fail
        if fail:
            return error(529, "overloaded_error", "Overloaded")
        return offline_brain(body)


class Cluster:
    """serve, plus two workers in the queue shape; each restartable after a SIGKILL."""

    def __init__(self, shape: str, database_url: str, slack: SlackAPIServer, model: MessagesAPIServer, logs: Path):
        env = {"KITEBASE_APPROVERS": "ULEAD,UOTHER", "KITEBASE_STALLED_JOB_SECONDS": "5",
               "KITEBASE_ESCALATION_CHANNEL": "CQUEUE"}
        if shape == "queue":
            env["KITEBASE_EXECUTION"] = "queue"
        self.serve = ServeProcess(database_url, slack.url, model.url, logs / "serve.log", **env)
        self.workers = [WorkerProcess(database_url, logs / f"worker-{i}.log", model_url=model.url, slack_url=slack.url,
                                      **env) for i in range(2 if shape == "queue" else 0)]
        self.lock = threading.Lock()

    @property
    def logs(self) -> list[Path]:
        return [self.serve.log, *(w.log for w in self.workers)]

    def start(self) -> None:
        for worker in self.workers:
            worker.start()
        self.serve.start()

    def kill_and_restart(self, target: Any, down_for: float) -> None:
        with self.lock:
            target.kill()
        time.sleep(down_for)
        with self.lock:
            target.start()

    def up(self) -> None:
        """Every process running (what an orchestrator restarting crashed processes would make true)."""
        with self.lock:
            if self.serve.process is None or self.serve.process.poll() is not None:
                self.serve.start()
            for worker in self.workers:
                if not worker.alive():
                    worker.start()

    def stop(self) -> None:
        with self.lock:
            self.serve.stop()
            for worker in self.workers:
                worker.stop()


@dataclass
class Mention:
    channel: str
    ts: str
    ticket: str
    event_id: str
    acknowledged: bool = False
    attempts: int = 0
    last_attempt: float = 0.0


@dataclass
class Ledger:
    """What the soak did and what it expects."""

    mentions: list[Mention] = field(default_factory=list)
    edits: dict[int, str] = field(default_factory=dict)  # approval id -> the text the person submitted
    scenarios: dict[int, str] = field(default_factory=dict)  # approval id -> how people clicked
    faults: list[str] = field(default_factory=list)


class Soak:
    def __init__(self, shape: str, database_url: str, size: Size, tmp: Path, seed: int = 7):
        self.shape, self.url, self.size = shape, database_url, size
        self.rng = random.Random(seed)
        self.slack = SlackAPIServer().start()
        self.brain = Model(random.Random(seed + 1))
        self.model = MessagesAPIServer(self.brain).start()
        self.cluster = Cluster(shape, database_url, self.slack, self.model, tmp)
        self.ledger = Ledger()
        self.engine = create_engine(database_url)
        self._stop = threading.Event()
        self._last_try: dict[int, float] = {}

    # --- running -----------------------------------------------------------------------------------------

    def run(self) -> None:
        self.cluster.start()
        chaos = threading.Thread(target=self._chaos, name="soak-chaos", daemon=True)
        people = threading.Thread(target=self._people, name="soak-people", daemon=True)
        chaos.start()
        people.start()
        try:
            self._traffic()
            chaos.join(self.size.traffic_seconds + 60)
            self.cluster.up()
            self._retry_mentions(final=True)
            self._settle()
        finally:
            self._stop.set()
            people.join(30)

    def close(self) -> None:
        self._stop.set()
        self.cluster.stop()
        self.slack.stop()
        self.model.stop()
        self.engine.dispose()

    def sender(self) -> SlackSender:
        return SlackSender(self.cluster.serve.url, SECRET)

    def _traffic(self) -> None:
        tickets = [t["id"] for t in json.loads((ROOT / "kb_data" / "tickets.json").read_text())]
        self.rng.shuffle(tickets)
        gap = self.size.traffic_seconds / self.size.mentions
        for i in range(self.size.mentions):
            mention = Mention(channel=f"CSOAK{i % self.size.channels}", ts=f"{1_810_000_000 + i}.000100",
                              ticket=tickets[i], event_id=f"EvSoak{i:04d}")
            self.ledger.mentions.append(mention)
            duplicate = self.rng.random()
            if duplicate < 0.2:  # Slack delivers it twice at once
                threads = [threading.Thread(target=self._deliver, args=(mention,)) for _ in range(2)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
            else:
                self._deliver(mention)
                if duplicate < 0.45:  # and again, a moment later (its retry after a slow answer)
                    self._deliver(mention, retry=True)
            self._retry_mentions()
            time.sleep(gap)

    def _deliver(self, mention: Mention, retry: bool = False) -> None:
        mention.attempts += 1
        mention.last_attempt = time.monotonic()
        try:
            _, (status, _) = self.sender().mention(f"handle {mention.ticket}", channel=mention.channel, ts=mention.ts,
                                                   event_id=mention.event_id,
                                                   retry=mention.attempts - 1 if retry or mention.attempts > 1 else None)
        except OSError:
            return
        if status == 200:
            mention.acknowledged = True

    def _retry_mentions(self, final: bool = False) -> None:
        """Slack retries a delivery that got no 200 three times, further apart each time (1 min, then 5 min;
        here 3, 3, 6 s, which outlasts a restart of serve); at the end every retry left is waited for."""
        for mention in self.ledger.mentions:
            while not mention.acknowledged and mention.attempts < 4:
                wait = mention.last_attempt + 3 * 2 ** max(0, mention.attempts - 2) - time.monotonic()
                if wait > 0 and not final:
                    break
                time.sleep(max(0.0, wait))
                self._deliver(mention, retry=True)

    def _chaos(self) -> None:
        """Faults in a shuffled cycle of every kind (a worker killed twice as often as the rest)."""
        kinds = ["kill-serve", "slack-outage", "model-overload"] + (["kill-worker"] * 2 if self.cluster.workers else [])
        self.rng.shuffle(kinds)
        end = time.monotonic() + self.size.traffic_seconds
        for n in itertools.count():
            time.sleep(self.rng.uniform(0.5, 1.5) * self.size.fault_every)
            if time.monotonic() >= end or self._stop.is_set():
                return
            kind = kinds[n % len(kinds)]
            self.ledger.faults.append(kind)
            if kind == "kill-serve":
                self.cluster.kill_and_restart(self.cluster.serve, self.rng.uniform(0.2, 2))
            elif kind == "kill-worker":
                self.cluster.kill_and_restart(self.rng.choice(self.cluster.workers), self.rng.uniform(0.2, 3))
            elif kind == "slack-outage":
                self.slack.outage(self.rng.uniform(2, 5))
            else:
                self.brain.overload(self.rng.uniform(2, 5))

    # --- people deciding ----------------------------------------------------------------------------------

    def _people(self) -> None:
        while not self._stop.is_set():
            try:
                for approval_id, card in self._cards_waiting().items():
                    if time.monotonic() - self._last_try.get(approval_id, 0) > 4:
                        self._last_try[approval_id] = time.monotonic()
                        self._decide(approval_id, card)
            except OSError:
                pass  # serve is down: the person tries again in a moment
            time.sleep(0.3)

    def _cards_waiting(self) -> dict[int, dict[str, Any]]:
        """Pending approvals whose card is in Slack: approval id -> {value, channel, ts, thread_ts}."""
        with self.engine.connect() as conn:
            pending = set(conn.execute(text("SELECT id FROM approval WHERE status = 'pending'")).scalars())
        cards: dict[int, dict[str, Any]] = {}
        with self.slack._lock:
            messages = list(self.slack.messages.items())
        for (channel, ts), message in messages:
            for block in message.get("blocks") or []:
                if block.get("type") != "actions":
                    continue
                for element in block.get("elements", []):
                    if element.get("action_id") == "approve_reply":
                        value = json.loads(element["value"])
                        if value["approval_id"] in pending:
                            cards[value["approval_id"]] = {"value": element["value"], "channel": channel, "ts": ts,
                                                           "thread_ts": message.get("thread_ts")}
        return cards

    def _decide(self, approval_id: int, card: dict[str, Any]) -> None:
        scenario = self.ledger.scenarios.setdefault(approval_id, SCENARIOS[approval_id % len(SCENARIOS)])
        where = {"channel": card["channel"], "message_ts": card["ts"], "thread_ts": card["thread_ts"]}
        send = self.sender()

        def click(action: str, user: str = "ULEAD", **extra: Any) -> Callable[[], object]:
            return lambda: send.click(action, card["value"], user=user, **where, **extra)

        if scenario == "approve":
            click("approve_reply")()
        elif scenario == "double":
            together(click("approve_reply"), click("approve_reply"))
        elif scenario == "two-people":
            together(click("approve_reply"), click("approve_reply", "UOTHER"))
        elif scenario == "race-reject":
            view = self._open(click, "reject_reply", approval_id)
            if view is not None:
                together(lambda: send.submit(view, {"reason": {"reason": "Ask which IdP they use first."}}),
                         click("approve_reply", "UOTHER"))
        else:
            view = self._open(click, "edit_reply", approval_id)
            if view is not None:
                draft = view["blocks"][1]["element"]["initial_value"]
                edited = draft.rstrip() + f"\n\nP.S. Edited by a lead (approval {approval_id})."
                status, _ = send.submit(view, {"reply": {"message": edited}})
                if status == 200:
                    self.ledger.edits[approval_id] = edited.strip()

    def _open(self, click: Callable[..., Callable[[], object]], action: str, approval_id: int) -> dict[str, Any] | None:
        """Click a button that opens a form; the form Slack opened for that very click, or None."""
        trigger = f"trig-soak-{approval_id}-{time.monotonic_ns()}"
        click(action, trigger_id=trigger)()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            with self.slack._lock:
                opened = [c for c in self.slack.calls if c["method"] == "views.open"
                          and c["args"].get("trigger_id") == trigger]
            if opened:
                return opened[0]["args"]["view"] if opened[0]["response"].get("ok") else None
            time.sleep(0.05)
        return None  # Slack did not open it (an outage): the person tries again

    # --- settling -----------------------------------------------------------------------------------------

    def _settle(self) -> None:
        deadline = time.monotonic() + self.size.settle_seconds
        while time.monotonic() < deadline:
            self.cluster.up()
            with self.engine.connect() as conn:
                live = conn.execute(text("SELECT count(*) FROM run WHERE status IN "
                                         "('queued', 'running', 'awaiting_approval')")).scalar()
                undelivered = conn.execute(text("SELECT count(*) FROM outbox WHERE status = 'pending'")).scalar()
            if live == 0 and undelivered == 0:
                return
            time.sleep(0.5)
        with self.engine.connect() as conn:
            rows = conn.execute(text("SELECT id, status, lease_owner, updated_at FROM run WHERE status IN "
                                     "('queued', 'running', 'awaiting_approval')")).all()
            outbox = conn.execute(text("SELECT id, kind, attempts FROM outbox WHERE status = 'pending'")).all()
        raise AssertionError(f"nothing came to rest in {self.size.settle_seconds} s: live runs {rows}, "
                             f"undelivered outbox rows {outbox}; faults {self.ledger.faults}")

    # --- the promises ---------------------------------------------------------------------------------------

    def customer_copy(self, approved: str) -> str:
        """The approved text as the desk stores it for the customer (citations as section titles: no help-center
        URL is set here), so what was sent is compared with what was approved."""
        from bot.db.engine import Database
        from bot.desk.links import customer_text

        db = Database.from_url(self.url)
        try:
            return customer_text(db, approved, lambda row: None)
        finally:
            db.engine.dispose()

    def problems(self) -> list[str]:
        found: list[str] = []
        with self.engine.connect() as conn:
            runs = conn.execute(text("SELECT id, thread_key, status, lease_owner FROM run")).all()
            approvals = conn.execute(text("SELECT id, run_id, tool_use_id, tool_name, status, tool_input, "
                                          "edited_input FROM approval")).all()
            replies = conn.execute(text("SELECT run_id, tool_use_id, body FROM ticket_message "
                                        "WHERE role = 'staff' AND run_id IS NOT NULL")).all()
            escalations = conn.execute(text("SELECT id, run_id FROM escalation")).all()
            outbox = conn.execute(text("SELECT status, count(*) FROM outbox GROUP BY status")).all()
            refused = conn.execute(text("SELECT id, kind, attempts, last_error FROM outbox WHERE status = 'failed'")).all()
        by_thread: dict[str, int] = {}
        for run in runs:
            by_thread[run.thread_key] = by_thread.get(run.thread_key, 0) + 1
        for mention in self.ledger.mentions:
            count = by_thread.get(f"{mention.channel}:{mention.ts}", 0)
            if mention.acknowledged and count != 1:
                found.append(f"acknowledged mention {mention.channel}:{mention.ts} has {count} runs")
            if count > 1:
                found.append(f"mention {mention.channel}:{mention.ts} has {count} runs")
        found += [f"run {r.id} left {r.status} (owner {r.lease_owner})" for r in runs
                  if r.status in ("queued", "running", "awaiting_approval")]
        sent: dict[tuple[int, str], list[str]] = {}
        for reply in replies:
            sent.setdefault((reply.run_id, reply.tool_use_id), []).append(reply.body)
        for a in approvals:
            bodies = sent.pop((a.run_id, a.tool_use_id), [])
            if a.tool_name != "reply_to_customer":
                continue
            if a.status in ("approved", "edited"):
                chosen = _json(a.edited_input if a.status == "edited" else a.tool_input)
                approved = str(chosen.get("message", "")).strip()
                expected = self.customer_copy(approved)
                if bodies != [expected]:
                    found.append(f"approval {a.id} ({a.status}): sent {len(bodies)} time(s), "
                                 f"{'with' if expected in bodies else 'without'} the approved text")
                if a.status == "edited" and self.ledger.edits.get(a.id) not in (None, approved):
                    found.append(f"approval {a.id}: the edit stored is not the text the lead submitted")
            elif bodies:
                found.append(f"approval {a.id} ({a.status}) was sent {len(bodies)} time(s)")
        found += [f"a reply nobody approved: run {run_id}, call {call}" for (run_id, call) in sent]
        posted = [c for c in self.slack.calls if c["method"] == "chat.postMessage" and c["response"].get("ok")]
        for a in approvals:
            cards = sum(1 for c in posted if any(b.get("block_id") == f"approval-{a.id}"
                                                 for b in c["args"].get("blocks") or []))
            if cards != 1:
                found.append(f"approval {a.id}: {cards} cards posted")
        for e in escalations:
            posts = sum(1 for c in posted if c["args"].get("channel") == "CQUEUE"
                        and str(c["args"].get("text", "")).startswith(f"Run #{e.run_id} on"))
            if posts != 1:
                found.append(f"escalation {e.id} (run {e.run_id}): {posts} queue posts")
        found += [f"{n} outbox rows {status}" for status, n in outbox if status != "sent"]
        found += [f"outbox row {r.id} ({r.kind}) failed after {r.attempts} attempts: {r.last_error}" for r in refused]
        for log in self.cluster.logs:
            output = log.read_text(errors="replace") if log.exists() else ""
            if "Traceback" in output:
                at = output.index("Traceback")
                found.append(f"{log.name} has a traceback:\n{output[max(0, at - 300):at + 2500]}")
            found += [f"{log.name} shows a secret" for secret in SECRETS if secret in output]
        return found

    def summary(self) -> str:
        with self.engine.connect() as conn:
            statuses = dict(conn.execute(text("SELECT status, count(*) FROM run GROUP BY status")).all())
            decided = dict(conn.execute(text("SELECT status, count(*) FROM approval GROUP BY status")).all())
        acknowledged = sum(m.acknowledged for m in self.ledger.mentions)
        return (f"{self.shape}: {acknowledged}/{len(self.ledger.mentions)} mentions acknowledged; runs {statuses}; "
                f"drafts {decided}; faults {self.ledger.faults}; model 529s {self.brain.errors}")


def together(*calls: Callable[[], object]) -> None:
    """Run the calls at the same moment (two people, or a person and Slack's retry); a call that got no
    answer (the process was down) is left for the next try."""
    barrier = threading.Barrier(len(calls))

    def go(call: Callable[[], object]) -> None:
        barrier.wait()
        with contextlib.suppress(OSError):  # urllib's URLError is one
            call()

    threads = [threading.Thread(target=go, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)


def _json(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return dict(json.loads(value))
    return dict(value or {})
