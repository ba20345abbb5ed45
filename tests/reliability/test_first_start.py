"""A first start that races itself: six `kitebase run` started at once on a fresh database (the embedded SQLite
default in a new folder, or an empty PostgreSQL database) all complete; the schema is created and the desk loaded
once, whoever comes first, and the others wait for it and find it done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from bot.config import Settings
from bot.db import setup_lock as lock_module
from bot.db.engine import Database
from bot.db.migrate import head_revision
from bot.db.open import DatabaseUnusable, open_database
from bot.search import vectors
from bot.search.warm import warm_up
from standins.serve_process import ServeProcess
from standins.slack_server import SlackAPIServer
from tests.helpers import PATIENCE, wait_until

ROOT = Path(__file__).parents[2]
TICKETS = [f"KITE-11{n}" for n in range(1, 7)]

# Each process does its slow imports first, says so, and opens the database only when every one of them is ready:
# they reach the empty database together however long the machine takes to import. What it prints then goes to
# the files its first two arguments name.
LAUNCH = """
import os, sys
import bot.server  # what `serve` imports before it opens the database
from bot.cli import main
print("ready", flush=True)
sys.stdin.readline()
for fd, path in ((1, sys.argv[1]), (2, sys.argv[2])):
    os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
raise SystemExit(main(sys.argv[3:]))
"""


class Launched:
    def __init__(self, folder: Path, name: str, args: list[str], env: dict[str, str]):
        self.out, self.err = folder / f"{name}.out", folder / f"{name}.err"
        self.process = subprocess.Popen([sys.executable, "-c", LAUNCH, str(self.out), str(self.err), *args],
                                        cwd=folder, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def wait(self) -> tuple[int, str, str]:
        code = self.process.wait(timeout=PATIENCE)
        return code, self.out.read_text(), self.err.read_text()

    def end(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def environment(**env: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_"))}
    return {**base, "KITEBASE_OFFLINE": "1", "PYTHONPATH": str(ROOT), **env}


def go(launched: list[Launched]) -> None:
    """Once every process is ready, let them all go."""
    for each in launched:
        assert each.process.stdout is not None
        assert each.process.stdout.readline() == "ready\n", each.process.communicate()
    for each in launched:
        assert each.process.stdin is not None
        each.process.stdin.write("go\n")
        each.process.stdin.flush()


def run_args(ticket: str) -> list[str]:
    return ["run", f"handle {ticket}", "--approve", "auto", "--json"]


def assert_loaded_once(database_url: str, runs: int) -> None:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [head_revision()]
            customers = len(json.loads((ROOT / "kb_data" / "customers.json").read_text(encoding="utf-8")))
            assert connection.execute(text("SELECT count(*) FROM customer")).scalar() == customers
            tickets = len(json.loads((ROOT / "kb_data" / "tickets.json").read_text(encoding="utf-8")))
            assert connection.execute(text("SELECT count(*) FROM ticket")).scalar() == tickets
            assert connection.execute(text("SELECT count(*) FROM run")).scalar() == runs
    finally:
        engine.dispose()


def test_six_first_runs_at_once_all_complete_and_the_desk_is_loaded_once(database_url, tmp_path):
    """SQLite: no DATABASE_URL, so each process uses the default kitebase.db of the new folder it starts in
    (the file the fixture names, not created yet). PostgreSQL: an empty database."""
    env = environment() if database_url.startswith("sqlite") else environment(DATABASE_URL=database_url)
    launched = [Launched(tmp_path, ticket, run_args(ticket), env) for ticket in TICKETS]
    try:
        go(launched)
        results = [each.wait() for each in launched]
    finally:
        for each in launched:
            each.end()

    for code, out, err in results:
        assert code == 0, err
        assert json.loads(out.strip().splitlines()[-1])["status"] == "completed"
    assert_loaded_once(database_url, runs=len(TICKETS))


def test_a_serve_and_a_run_started_together_on_a_new_machine_both_work(database_url, tmp_path):
    slack = SlackAPIServer().start()
    serve_env = ServeProcess(database_url, slack.url, None, tmp_path / "unused.log").env
    serve = Launched(tmp_path, "serve", ["serve"], {**serve_env, "PYTHONPATH": str(ROOT)})
    run = Launched(tmp_path, "run", run_args(TICKETS[0]), environment(DATABASE_URL=database_url))
    try:
        go([serve, run])
        code, out, err = run.wait()
        assert code == 0, err
        assert json.loads(out.strip().splitlines()[-1])["status"] == "completed"
        port = serve_env["PORT"]

        def healthy() -> bool:
            assert serve.process.poll() is None, serve.err.read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                    return answer.status == 200
            except OSError:
                return False

        wait_until(healthy, "serve to answer /healthz")
    finally:
        serve.process.terminate()
        try:
            serve.process.wait(timeout=PATIENCE)
        finally:
            serve.end()
            run.end()
            slack.stop()
    assert "Traceback" not in serve.err.read_text() + serve.out.read_text()
    assert_loaded_once(database_url, runs=1)


def test_a_set_up_lock_held_too_long_is_one_sentence_not_a_hang(database_url, monkeypatch):
    """A process stuck while holding the set-up lock: the next one waits SETUP_WAIT_SECONDS (made short here),
    then says what is wrong instead of waiting forever."""
    monkeypatch.setattr(lock_module, "SETUP_WAIT_SECONDS", 1)
    holder = Database.from_url(database_url)
    try:
        with (lock_module.setup_lock(holder.engine),
              pytest.raises(DatabaseUnusable, match="another process kept the database locked")):
            open_database(Settings(database_url=database_url))
    finally:
        holder.engine.dispose()


def test_the_first_search_stores_the_desk_without_holding_the_write_lock_while_it_embeds(db, monkeypatch):
    """After a first start every process's first search finds the desk's analysis missing and stores it. Embedding
    the desk's tickets takes long on a slow machine; done inside the write transaction it held SQLite's one write
    lock that long, and the other processes' writes failed ("database is locked") or their searches timed out.
    Here the embedding is held until another connection has written, with no patience at all for a lock."""
    with db.engine.begin() as conn:  # as a first start leaves them: nothing analysed yet
        conn.execute(text("INSERT INTO search_pending (kind, key) SELECT 'ticket', id FROM ticket"))
        conn.execute(text("INSERT INTO search_pending (kind, key) SELECT 'help', id FROM help_section"))
    embedding, go_on = threading.Event(), threading.Event()
    real = vectors.EMBEDDER.embed

    def held(texts):  # type: ignore[no-untyped-def]
        embedding.set()
        assert go_on.wait(PATIENCE)
        return real(texts)

    monkeypatch.setattr(vectors.EMBEDDER, "embed", held)
    loader = threading.Thread(target=warm_up, args=(db,))
    loader.start()
    other = Database.from_url(db.engine.url.render_as_string(hide_password=False))
    try:
        assert embedding.wait(PATIENCE), "the first search embeds the tickets"
        with other.engine.connect() as connection:
            if other.dialect == "sqlite":
                connection.exec_driver_sql("PRAGMA busy_timeout=0")
            else:
                connection.exec_driver_sql("SET lock_timeout = '1ms'")
            connection.execute(text("UPDATE ticket SET title = title WHERE id = 'KITE-142'"))
            connection.commit()
    finally:
        go_on.set()
        loader.join(PATIENCE)
        other.engine.dispose()
    with db.session() as session:
        stored = session.execute(text("SELECT count(*) FROM search_document WHERE kind = 'ticket'")).scalar()
    assert stored == len(json.loads((ROOT / "kb_data" / "tickets.json").read_text(encoding="utf-8")))
