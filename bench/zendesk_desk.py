"""The Zendesk desk against the local stand-in: backfill, resume after a SIGKILL, webhook-to-search latency,
exactly-once replies under faults, and the memory of a mirrored desk.

    .venv/bin/python -m bench.zendesk_desk [--tickets 10000] [--articles 50] [--postgres URL] [--json FILE]

Each part runs `kitebase` as a fresh process where a person would (desk sync), against a stand-in that holds
N tickets with 3 comments each (texts from kb_data/, so the search has real words), in a scratch database
(SQLite in a temporary folder; --postgres URL is wiped)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from standins.zendesk_server import ZendeskServer  # noqa: E402

KB = ROOT / "kb_data"
YEAR = 365 * 86400


def fill(zd: ZendeskServer, tickets: int, articles: int) -> None:
    """`tickets` tickets with 3 comments each, over 14 organizations, and `articles` articles."""
    kb = json.loads((KB / "tickets.json").read_text())
    customers = json.loads((KB / "customers.json").read_text())
    requesters = []
    for customer in customers:
        org = zd.add_organization(customer["name"], notes=customer.get("notes") or "")
        requesters.append(zd.add_user(customer["contact_name"], customer["contact_email"], organization_id=org))
    agent = zd.add_user("Priya Raman", "priya@kitebase.example", role="agent")
    for i in range(tickets):
        template = kb[i % len(kb)]
        messages = [m["body"] for m in template["messages"]] + ["Thanks, that worked."] * 3
        ticket = zd.add_ticket(f"{template['title']} ({i})", messages[0], requesters[i % len(requesters)],
                               tags=tuple(template.get("tags") or ()))
        zd.add_comment(ticket, messages[1], author_id=agent)
        zd.add_comment(ticket, messages[2], author_id=requesters[i % len(requesters)])
    guides = sorted((KB / "help").glob("*.md"))
    for i in range(articles):
        path = guides[i % len(guides)]
        body = "".join(f"<h2>{part.splitlines()[0]}</h2><p>{' '.join(part.splitlines()[1:])}</p>"
                       for part in path.read_text().split("\n## ")[1:])
        zd.add_article(f"{path.stem.replace('-', ' ').capitalize()} {i}", body)


def environment(zd: ZendeskServer, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC", "ZENDESK_"))}
    env.update(KITEBASE_DESK="zendesk", ZENDESK_URL=zd.url, ZENDESK_EMAIL="bot@kitebase.example",
               ZENDESK_API_TOKEN="zd-test-token", ZENDESK_SYNC_SINCE="3650d", DATABASE_URL=url)
    return env


def kitebase(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "bot.cli", *args], env=env, cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def scratch(postgres: str | None, name: str, folder: Path) -> str:
    if not postgres:
        return f"sqlite:///{folder / f'{name}.db'}"
    engine = create_engine(postgres)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return postgres


def synced_tickets(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT COALESCE(SUM(tickets), 0) FROM desk_sync")).scalar() or 0)
    except Exception:
        return 0
    finally:
        engine.dispose()


def export_pages(zd: ZendeskServer) -> list[str]:
    return [r["query"].get("cursor") or "start" for r in zd.requests_to("GET", "/api/v2/incremental/tickets/cursor")
            if r["status"] == 200]


def backfill(zd: ZendeskServer, url: str) -> dict[str, Any]:
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    process = kitebase(environment(zd, url), "desk", "sync")
    out, err = process.communicate(timeout=1800)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"desk sync failed: {err.strip()[-500:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"seconds": round(wall, 1), "line": out.strip(), "peak_rss_mb": round(max(peak, before) / 1024)}


MEASURE = """
import json, resource, sys
from bot.config import Settings
from bot.db.engine import Database
from tools import REGISTRY, ToolContext, execute
settings = Settings(database_url=sys.argv[1], desk="embedded")
ctx = ToolContext(db=Database.from_url(sys.argv[1]), settings=settings)
for query in ("okta sso locked out", "invoice vat"):
    execute(REGISTRY, ctx, "search_tickets", {"query": query})
hit = execute(REGISTRY, ctx, "search_tickets", {"query": "okta sso"}).data[0]["id"]
execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": hit})
print(json.dumps({"rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""


def searching_memory(url: str) -> dict[str, Any]:
    """Peak resident memory of a fresh process that searches the mirror (its index loaded): what a `serve`
    or `worker` holds for the desk. The mirror is read as the embedded desk would (same tables, same index)."""
    out = subprocess.run([sys.executable, "-c", MEASURE, url], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def resume(zd: ZendeskServer, url: str, tickets: int) -> dict[str, Any]:
    env = environment(zd, url)
    earlier = len(export_pages(zd))  # the stand-in also served the backfill's pages (with the same cursors)
    process = kitebase(env, "desk", "sync")
    while process.poll() is None and synced_tickets(url) < tickets // 2:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    killed_at = synced_tickets(url)
    pages_before = export_pages(zd)[earlier:]
    again = kitebase(env, "desk", "sync")
    out, err = again.communicate(timeout=1800)
    pages_after = export_pages(zd)[earlier + len(pages_before):]
    finished = set(pages_before[:-1])  # the last page asked before the kill was not finished
    refetched = [page for page in pages_after if page in finished]
    return {"killed_after_tickets": killed_at, "pages_before_kill": len(pages_before), "pages_after": len(pages_after), "resumed": out.strip(), "finished_pages_fetched_again": len(refetched),
            "ok": again.returncode == 0 and not refetched}


def webhook_latency(zd: ZendeskServer, url: str, samples: int = 5) -> dict[str, Any]:
    from bot.config import Settings
    from bot.db.engine import Database
    from bot.runs.execution import desk_work
    from standins.zendesk_server import sign_webhook
    from tools import REGISTRY, ToolContext, execute

    settings = Settings(database_url=url, desk="zendesk", zendesk_url=zd.url, zendesk_email="bot@kitebase.example",
                        zendesk_api_token="zd-test-token", zendesk_webhook_secret="whsec")
    db = Database.from_url(url)
    ctx = ToolContext(db=db, settings=settings)
    execute(REGISTRY, ctx, "search_tickets", {"query": "warm up"})
    requester = next(iter(u for u in zd.users.values() if u["role"] == "end-user"))
    latencies = []
    for i in range(samples):
        word = f"zebracorn{i}"
        ticket = zd.add_ticket(f"Webhook {word} ticket", f"The {word} board will not load.", requester["id"])
        body = json.dumps({"ticket_id": str(ticket)}).encode()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        headers = {"x-zendesk-webhook-signature": sign_webhook("whsec", body, stamp),
                   "x-zendesk-webhook-signature-timestamp": stamp, "x-zendesk-webhook-invocation-id": f"b{i}"}
        started = time.perf_counter()
        desk_work.webhook(db, settings, headers, body)
        while True:
            hits = execute(REGISTRY, ctx, "search_tickets", {"query": word}).data or []
            if str(ticket) in [h["id"] for h in hits]:
                break
            if time.perf_counter() - started > 30:
                raise RuntimeError("the webhook's ticket never reached search")
            time.sleep(0.01)
        latencies.append(time.perf_counter() - started)
    db.engine.dispose()
    return {"max_ms": round(max(latencies) * 1000), "median_ms": round(sorted(latencies)[len(latencies) // 2] * 1000)}


def replies_under_faults(zd: ZendeskServer, url: str, count: int = 50) -> dict[str, Any]:
    from bot.config import Settings
    from bot.db.engine import Database
    from bot.desk import open_desk
    from bot.desk.zendesk.desk import client_for
    from bot.desk.zendesk.writes import DeskSender

    settings = Settings(database_url=url, desk="zendesk", zendesk_url=zd.url, zendesk_email="bot@kitebase.example",
                        zendesk_api_token="zd-test-token")
    db = Database.from_url(url)
    desk = open_desk(settings, db)
    ticket_ids = sorted(zd.tickets)[:count]
    zd.fail_writes_after_applying(3)
    sender = DeskSender(db, client_for(settings)).start()
    queue_ms = []
    started = time.perf_counter()
    for i, ticket in enumerate(ticket_ids):
        if i % 10 == 5:
            zd.ratelimit_window(2, retry_after=1)
        t = time.perf_counter()
        desk.reply(str(ticket), f"Approved reply {i} for ticket {ticket}.", run_id=90_000 + i, tool_use_id=f"bench_{i}")
        queue_ms.append((time.perf_counter() - t) * 1000)
        sender.nudge()
    done = sender.drain(timeout=300)
    sender.stop()
    wall = time.perf_counter() - started
    zd.fail_writes_after_applying(None)
    bodies = [c["body"] for t in ticket_ids for c in zd.comments_of(t) if c["body"].startswith("Approved reply")]
    expected = sorted(f"Approved reply {i} for ticket {t}." for i, t in enumerate(ticket_ids))
    db.engine.dispose()
    return {"comments": len(bodies), "exactly_the_approved_texts": sorted(bodies) == expected, "drained": done,
            "seconds": round(wall, 1), "reply_call_max_ms": round(max(queue_ms), 1),
            "answered_500": sum(1 for r in zd.requests_to("PUT", "/api/v2/tickets/") if r["status"] == 500),
            "answered_429": sum(1 for r in zd.requests if r["status"] == 429)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tickets", type=int, default=10_000)
    parser.add_argument("--articles", type=int, default=50)
    parser.add_argument("--postgres", help="a scratch PostgreSQL database (wiped)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--only-backfill", action="store_true",
                        help="the backfill and the memory of a process searching the mirror (for 100,000 tickets)")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"tickets": args.tickets, "articles": args.articles,
                               "database": "postgresql" if args.postgres else "sqlite"}
    with tempfile.TemporaryDirectory() as folder, ZendeskServer(export_delay=0) as zd:
        zd.requests_per_minute = None  # the target is "without rate limits"; see docs/zendesk.md for a real account's
        t = time.perf_counter()
        fill(zd, args.tickets, args.articles)
        print(f"stand-in filled: {args.tickets} tickets, {args.articles} articles ({time.perf_counter() - t:.1f} s)")
        url = scratch(args.postgres, "backfill", Path(folder))
        results["backfill"] = backfill(zd, url)
        print("backfill:", results["backfill"])
        results["searching_memory"] = searching_memory(url)
        print("a fresh process searching the mirror:", results["searching_memory"])
        if args.only_backfill:
            if args.json:
                args.json.write_text(json.dumps(results, indent=1))
            return 0
        results["resume"] = resume(zd, scratch(args.postgres, "resume", Path(folder)), args.tickets)
        print("resume after SIGKILL:", results["resume"])
        url = scratch(args.postgres, "live", Path(folder))
        subprocess.run([sys.executable, "-m", "bot.cli", "desk", "sync"], env=environment(zd, url), cwd=ROOT,
                       check=True, capture_output=True)
        results["webhook_to_search"] = webhook_latency(zd, url)
        print("webhook to search_tickets:", results["webhook_to_search"])
        results["replies_under_faults"] = replies_under_faults(zd, url)
        print("50 replies, every third applied-but-500, 429 windows:", results["replies_under_faults"])
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
