"""Issue 33's figure: from **Draft for these N** to the batch card showing **Approve all**, against the slowest
child's own run time.

    .venv/bin/python -m bench.batch_latency [--repeat 10] [--sizes 2,6,10] [--rpm N] [--postgres URL] [--json FILE]
                                            [--quick]

Target (issue 33's Done-when): the batch of children reaches its card within 1.3× the slowest child's own run
time (the children run side by side, within the shared model budget).

Real parts: a `kitebase serve` process (HTTP mode, the embedded desk loaded from kb_data, KITEBASE_APPROVERS=ULEAD,
the run pool and the outbox's pacing at their defaults), the Slack Web API stand-in with Slack's per-channel posting
limit (about one post a second, bursts of 3), and the Messages API stand-in answering each model call 500 ms after
it arrives, as the offline model would (no rate-limit headers: the shared model budget stays unknown, so it lets
every call go; --rpm gives the stand-in a requests-per-minute limit to see the budget at work).

One repetition, on a fresh database and a fresh `serve` (a batch is one per parent run, and a ticket with a live
child gets no second one, so repetitions share nothing): a signed mention "handle KITE-142, and tell me if other
customers have hit the same problem" (the parent run: it also pays the process's cold start), its card's Approve,
then a click on the parent's **Draft for these N** with the button's own value (N=2: KITE-144 and KITE-163, as the
report names them) or with more open tickets put in it (the bigger batches, up to ten: the most a batch takes).

Measured: batch → card, from the click's acknowledgement (its HTTP answer, this process's monotonic clock) to the
Slack stand-in receiving the chat.update or chat.postMessage whose blocks carry `approve_batch` (the same clock:
the stand-ins run in this process). Each child's own run time, from the database (its clock): its run's
created_at → its draft (its reply_to_customer approval row's created_at), or → its finished_at if it drafted
nothing (declined, or handed to a person: that is its reason). The ratio is batch → card / the slowest child's
own time. Also checked: one child per ticket asked for, nothing skipped, one batch card (one chat.postMessage
carrying its header). A PostgreSQL --postgres URL is scratch: its public schema is dropped before each repetition.

--quick (the smoke test): one repetition of N=2 and one of N=3.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from bench.common import commit, machine, pct, wipe_postgres  # noqa: E402
from bench.doubles import offline_responder, stand_in  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.outbox.pacing import PER_MINUTE, Bucket  # noqa: E402
from standins.anthropic_server import RateLimits  # noqa: E402
from standins.serve_process import SECRET, ServeProcess  # noqa: E402
from standins.slack_requests import SlackSender  # noqa: E402
from standins.slack_server import SlackAPIServer  # noqa: E402

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
CHANNEL = "CSUPPORT"
LEAD = "ULEAD"
MODEL_LATENCY = 0.5
TARGET = 1.3
CARD_HEADER = "The fix approved on"
# The bigger batch: the report's two, then other open sign-in tickets of the desk (SSO, lock-outs, sessions, 2FA):
# ten, the most one batch takes (bot/runs/intake/fan_out.py MAX_CHILDREN). Some may decline: that is their reason.
MORE = ["KITE-162", "KITE-164", "KITE-166", "KITE-153", "KITE-187", "KITE-189", "KITE-136", "KITE-216"]


class Stage:
    """The Messages API stand-in (shared: it only answers) and a scratch folder; each repetition brings its own
    database, Slack stand-in and `serve`."""

    def __init__(self, scratch: Path, postgres: str | None, rpm: int | None):
        self.scratch, self.postgres = scratch, postgres
        self.model_calls: list[tuple[float, str]] = []  # (arrival, the conversation's first message)
        self.model = stand_in(self._respond, MODEL_LATENCY)
        if rpm:
            self.model.limits = RateLimits(requests_per_minute=rpm)
        self.model.start()
        self.made = 0

    def _respond(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        first = messages[0].get("content") if messages else ""
        if isinstance(first, list):  # content blocks: the text of the first
            first = next((b.get("text") for b in first if isinstance(b, dict) and b.get("type") == "text"), "")
        self.model_calls.append((time.monotonic(), str(first or "")))
        return offline_responder(body)

    def database(self) -> str:
        self.made += 1
        if self.postgres:
            wipe_postgres(self.postgres)
            return self.postgres
        return f"sqlite:///{self.scratch / f'batch-{self.made}.db'}"

    def close(self) -> None:
        self.model.stop()


def messages_with(slack: SlackAPIServer, needle: str) -> list[tuple[str, dict[str, Any]]]:
    """(ts, message) of the messages Slack shows now whose blocks contain `needle`, newest first."""
    with slack._lock:
        found = [(ts, dict(m)) for (channel, ts), m in slack.messages.items()
                 if channel == CHANNEL and needle in json.dumps(m.get("blocks"))]
    return sorted(found, key=lambda x: float(x[0]), reverse=True)


def button(slack: SlackAPIServer, action_id: str, timeout: float) -> tuple[str, str]:
    """(message ts, value) of the newest button `action_id` shown, once one is."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for ts, message in messages_with(slack, f'"{action_id}"'):
            for block in message.get("blocks") or []:
                for element in block.get("elements", []) if block.get("type") == "actions" else []:
                    if element.get("action_id") == action_id:
                        return ts, str(element["value"])
        time.sleep(0.05)
    raise RuntimeError(f"no {action_id} button within {timeout:g} s")


def ok_calls(slack: SlackAPIServer, since: float) -> list[dict[str, Any]]:
    with slack._lock:
        return [c for c in slack.calls if c["time"] >= since and c["status"] == 200
                and (c.get("response") or {}).get("ok")]


def card_ready(slack: SlackAPIServer, since: float, timeout: float) -> float | None:
    """When (monotonic, at the stand-in) the first successful post or update carrying Approve all arrived."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for call in ok_calls(slack, since):
            if call["method"] in ("chat.update", "chat.postMessage") and "approve_batch" in json.dumps(call["args"]):
                return float(call["time"])
        time.sleep(0.02)
    return None


def update_token_at(slack: SlackAPIServer, ready: float | None) -> float | None:
    """When (monotonic) the outbox's chat.update bucket had a call to spare again before the update carrying
    Approve all: every earlier chat.update of this `serve` (the stand-in is its own) replayed through the bucket
    the sender keeps (bot/outbox/pacing.py: Slack's Tier 3, 50 a minute per workspace, bursts of 10)."""
    if ready is None:
        return None
    per_minute = PER_MINUTE["chat.update"]
    bucket = Bucket(60.0 / per_minute, max(1, int(per_minute // 5)))
    with slack._lock:
        earlier = sorted(float(c["time"]) for c in slack.calls if c["method"] == "chat.update" and c["time"] < ready)
    for at in earlier:
        bucket.take(at)
    return bucket.ready_at(0.0)  # the earliest time it allows the next call, whenever that is


def rejected(slack: SlackAPIServer, since: float) -> Counter[str]:
    """Slack's refusals after `since`, by method and error (the per-channel limit answers ratelimited)."""
    with slack._lock:
        return Counter(f"{c['method']}:{(c.get('response') or {}).get('error')}" for c in slack.calls
                       if c["time"] >= since and not (c.get("response") or {}).get("ok"))


def _epoch(value: Any) -> float | None:
    if value is None:
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def children(url: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(each child with its own times, from the database; the batches), read once the card is ready."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT r.id, r.ticket_id, r.status, r.created_at, r.finished_at, r.batch_id, "
                "(SELECT MIN(a.created_at) FROM approval a WHERE a.run_id = r.id "
                " AND a.tool_name = 'reply_to_customer') AS drafted, "
                "(SELECT COUNT(*) FROM step s WHERE s.run_id = r.id) AS steps "
                "FROM run r WHERE r.batch_id IS NOT NULL ORDER BY r.id")).all()
            batches = conn.execute(text("SELECT id, parent_run_id, skipped FROM batch")).all()
    finally:
        engine.dispose()
    kids = []
    for run_id, ticket, status, created, finished, batch_id, drafted, steps in rows:
        start, draft, end = _epoch(created), _epoch(drafted), _epoch(finished)
        until = draft if draft is not None else end
        kids.append({"run_id": run_id, "ticket": ticket, "status": str(status), "batch_id": batch_id, "steps": steps,
                     "drafted": draft is not None, "created_at": start, "ready_at": until,
                     "own_s": None if start is None or until is None else round(until - start, 3)})
    skipped = [json.loads(s) if isinstance(s, str) else s for _, _, s in batches]
    return kids, [{"id": b[0], "parent_run_id": b[1], "skipped": s or []} for b, s in zip(batches, skipped, strict=True)]


def repetition(stage: Stage, tickets: list[str] | None, index: int, timeout: float) -> dict[str, Any]:
    """One batch on a fresh database and `serve`; `tickets` None: the button's own value."""
    url = stage.database()
    slack = SlackAPIServer().start()
    slack.limit_posts(1.0, burst=3)  # Slack's per-channel limit: the parent's thread, and the card, are one channel
    serve = ServeProcess(url, slack.url, stage.model.url, stage.scratch / f"serve-{index}.log",
                         KITEBASE_APPROVERS=LEAD,
                         # ServeProcess speeds Slack pacing up for tests; the bench keeps the defaults
                         KITEBASE_SLACK_MIN_INTERVAL="1.0", KITEBASE_SLACK_RATE_SCALE="1")
    try:
        serve.start(timeout=120)
        send = SlackSender(serve.url, SECRET)
        _, (status, _) = send.mention(GOAL, user=LEAD, channel=CHANNEL)
        if status != 200:
            raise RuntimeError(f"the mention was answered {status}")
        card_ts, value = button(slack, "approve_reply", timeout)
        send.click("approve_reply", value, message_ts=card_ts, channel=CHANNEL, user=LEAD)
        offer_ts, offer = button(slack, "draft_for_these", timeout)
        offered = json.loads(offer)
        asked = list(offered["tickets"]) if tickets is None else tickets
        value = json.dumps({**offered, "tickets": asked})
        time.sleep(1.0)  # the parent's last posts are out: the channel starts the batch as a lead would find it
        calls_before = len(stage.model_calls)
        clicked = time.monotonic()
        status, _ = send.click("draft_for_these", value, message_ts=offer_ts, channel=CHANNEL, user=LEAD)
        acked, acked_wall = time.monotonic(), time.time()
        if status != 200:
            raise RuntimeError(f"the click was answered {status}")
        ready = card_ready(slack, acked, timeout)
        time.sleep(2.0)  # a second card, or a child still working, would show by now
        kids, batches = children(url)
        slack_after = ok_calls(slack, clicked)
        refused = rejected(slack, clicked)
        cards_posted = sum(1 for c in slack_after if c["method"] == "chat.postMessage"
                           and CARD_HEADER in json.dumps(c["args"]))
        card_updates = [c["time"] for c in slack_after if c["method"] == "chat.update"
                        and CARD_HEADER in json.dumps(c["args"])]
        token_at = update_token_at(slack, ready)
    finally:
        serve.stop()
        slack.stop()
    child_calls = {k["ticket"]: [at for at, first in stage.model_calls[calls_before:]
                                 if first.startswith(f"handle {k['ticket']}:")] for k in kids}
    result = summarise(asked, kids, batches, child_calls, acked, acked_wall, ready, cards_posted, card_updates,
                       refused, round(acked - clicked, 3))
    last = result["last_child_ready_s"]
    result["update_token_s"] = None if token_at is None else round(token_at - acked, 3)
    result["waited_for_update_token_s"] = (None if token_at is None or last is None
                                           else round(max(0.0, token_at - acked - last), 3))
    return result


def summarise(asked: list[str], kids: list[dict[str, Any]], batches: list[dict[str, Any]],
              calls: dict[str, list[float]], acked: float, acked_wall: float, ready: float | None,
              cards_posted: int, card_updates: list[float], refused: Counter[str], ack_s: float) -> dict[str, Any]:
    own = [k["own_s"] for k in kids if k["own_s"] is not None]
    slowest = max(own) if own else None
    to_card = None if ready is None else round(ready - acked, 3)
    ratio = None if to_card is None or not slowest else round(to_card / slowest, 3)
    per_ticket = Counter(k["ticket"] for k in kids)
    skipped = [s for b in batches for s in b["skipped"]]
    checks = {"one_batch": len(batches) == 1, "one_child_per_ticket": sorted(per_ticket) == sorted(asked)
              and set(per_ticket.values()) == {1}, "none_skipped": not skipped, "one_card": cards_posted == 1,
              "card_ready": ready is not None, "every_child_ready": len(own) == len(asked)}
    last_ready = max((k["ready_at"] for k in kids if k["ready_at"] is not None), default=None)
    for k in kids:
        arrivals = calls.get(k["ticket"]) or []
        k["model_calls"] = len(arrivals)
        k["model_calls_s"] = [round(at - acked, 3) for at in sorted(arrivals)]
        k["first_model_call_s"] = round(min(arrivals) - acked, 3) if arrivals else None
        k["last_model_answer_s"] = round(max(arrivals) + MODEL_LATENCY - acked, 3) if arrivals else None
        # on the database's clock, from the click's acknowledgement by this host's clock (same host)
        k["created_s"] = None if k["created_at"] is None else round(k["created_at"] - acked_wall, 3)
        k["ready_s"] = None if k["ready_at"] is None else round(k["ready_at"] - acked_wall, 3)
    return {"n": len(asked), "tickets": asked, "ack_s": ack_s, "to_card_s": to_card, "slowest_child_s": slowest,
            "ratio": ratio, "met": ratio is not None and ratio <= TARGET and all(checks.values()),
            "checks": checks, "skipped": skipped,
            "drafted": sum(k["drafted"] for k in kids), "without_draft": sum(not k["drafted"] for k in kids),
            "child_own_s": {"min": min(own, default=None), "p50": round(pct(own, 0.5), 3) if own else None,
                            "max": slowest},
            "last_child_ready_s": None if last_ready is None else round(last_ready - acked_wall, 3),
            "last_ready_to_card_s": (None if last_ready is None or to_card is None
                                     else round(to_card - (last_ready - acked_wall), 3)),
            "peak_model_calls_in_flight": peak(calls),
            "card_updates": len(card_updates),
            "card_updates_s": [round(t - acked, 3) for t in card_updates],
            "slack_refusals": dict(refused), "children": kids}


def peak(calls: dict[str, list[float]]) -> int:
    """The most children with a model call under way at one moment. A call lasts the stand-in's latency from
    when its responder was called, or until that child's next call arrived (as recorded, the two may overlap by
    a few ms: the latency is counted from the request's arrival, a little before the responder is called)."""
    edges: list[tuple[float, int]] = []
    for arrivals in calls.values():
        ordered = sorted(arrivals)
        for at, after in zip(ordered, [*ordered[1:], float("inf")], strict=True):
            edges += [(at, 1), (min(at + MODEL_LATENCY, after), -1)]
    now = best = 0
    for _, step in sorted(edges, key=lambda e: (e[0], e[1])):
        now += step
        best = max(best, now)
    return best


def size_summary(n: int, reps: list[dict[str, Any]]) -> dict[str, Any]:
    ratios = [r["ratio"] for r in reps if r["ratio"] is not None]

    def stats(key: str) -> dict[str, float | None]:
        values = [r[key] for r in reps if r[key] is not None]
        return {"p50": round(pct(values, 0.5), 3) if values else None, "max": max(values, default=None)}
    return {"n": n, "repetitions": len(reps), "ratio": stats("ratio"), "to_card_s": stats("to_card_s"),
            "slowest_child_s": stats("slowest_child_s"), "last_ready_to_card_s": stats("last_ready_to_card_s"),
            "met": bool(ratios) and len(ratios) == len(reps) and max(ratios) <= TARGET
            and all(all(r["checks"].values()) for r in reps),
            "checks_held": all(all(r["checks"].values()) for r in reps)}


def limits(rpm: int | None) -> dict[str, Any]:
    """What bounds how many children run at once in the `serve` measured (ServeProcess passes no KITEBASE_* of
    this environment: the defaults, but for the Slack pacing the bench sets)."""
    default = {name: field.default for name, field in Settings.model_fields.items()}
    per_minute = PER_MINUTE["chat.update"]
    return {"run_pool_workers": default["run_workers"], "http_threads": default["http_threads"],
            "slack_min_interval_s": 1.0, "slack_rate_scale": 1.0,
            "chat_update_per_minute": per_minute, "chat_update_burst": max(1, int(per_minute // 5)),
            "model_budget": f"requests_per_minute={rpm}" if rpm else
            "unknown (the stand-in sends no rate-limit headers): every call goes"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=10, help="repetitions of each size (default 10)")
    parser.add_argument("--sizes", default="2,6,10",
                        help="batch sizes, 2 to 10 (default 2,6,10; 2 is the offer as the button shows it)")
    parser.add_argument("--rpm", type=int, help="give the Messages API stand-in this requests-per-minute limit")
    parser.add_argument("--postgres", help="a scratch PostgreSQL database (wiped); SQLite otherwise")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--logs", type=Path, help="keep serve's logs (and the SQLite files) in this folder")
    parser.add_argument("--quick", action="store_true", help="the smoke test's sizes (not a measurement)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.quick:
        args.repeat, sizes = 1, [2, 3]
    if any(not 2 <= n <= 2 + len(MORE) for n in sizes):
        parser.error(f"sizes go from 2 to {2 + len(MORE)}")
    with tempfile.TemporaryDirectory(prefix="kitebase-batch-") as folder:
        scratch = Path(folder)
        if args.logs:
            args.logs.mkdir(parents=True, exist_ok=True)
            scratch = args.logs
        stage = Stage(scratch, args.postgres, args.rpm)
        results: dict[str, Any] = {"bench": "batch_latency", "date": datetime.now(UTC).isoformat(timespec="seconds"),
                                   **commit(), "machine": machine(), "quick": args.quick,
                                   "database": "postgresql" if args.postgres else "sqlite",
                                   "model_latency_s": MODEL_LATENCY, "target_ratio": TARGET,
                                   "bounds": limits(args.rpm), "sizes": []}
        try:
            for n in sizes:
                reps = []
                for _ in range(args.repeat):
                    tickets = None if n == 2 else ["KITE-144", "KITE-163", *MORE[:n - 2]]
                    rep = repetition(stage, tickets, stage.made + 1, timeout=120)
                    reps.append(rep)
                    print(line(rep), flush=True)
                summary = size_summary(n, reps)
                results["sizes"].append({**summary, "runs": reps})
                print(f"N={n}: ratio p50 {summary['ratio']['p50']}, max {summary['ratio']['max']} "
                      f"(target ≤ {TARGET}): {'met' if summary['met'] else 'NOT met'}", flush=True)
        finally:
            stage.close()
        results["machine_after"] = {"load_average": machine()["load_average"]}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0 if all(s["checks_held"] for s in results["sizes"]) else 1


def line(r: dict[str, Any]) -> str:
    return (f"N={r['n']}: click acknowledged in {r['ack_s']} s; → card with Approve all {r['to_card_s']} s; slowest "
            f"child {r['slowest_child_s']} s (p50 {r['child_own_s']['p50']}); ratio {r['ratio']}; last child "
            f"ready → card {r['last_ready_to_card_s']} s; {r['drafted']} drafts, {r['without_draft']} without; "
            f"peak model calls in flight {r['peak_model_calls_in_flight']}; card updates {r['card_updates']} (waited "
            f"{r['waited_for_update_token_s']} s for a chat.update token); "
            f"Slack refusals {r['slack_refusals']}; checks {'held' if all(r['checks'].values()) else r['checks']}")


if __name__ == "__main__":
    raise SystemExit(main())
