"""A first start that races itself: six `kitebase run` started at once on a fresh database (the embedded SQLite
default in a new folder, or an empty PostgreSQL database) all complete; the schema is created and the desk loaded
once, whoever comes first, and the others wait for it and find it done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from bot.config import Settings
from bot.db import setup_lock as lock_module
from bot.db.engine import Database
from bot.db.migrate import head_revision
from bot.db.open import DatabaseUnusable, open_database

ROOT = Path(__file__).parents[2]
TICKETS = [f"KITE-11{n}" for n in range(1, 7)]

# Each process does its slow imports first, says so, and opens the database only when every one of them is ready:
# the six reach the empty database together however long the machine takes to import.
LAUNCH = """
import sys
from bot.cli import main
print("ready", flush=True)
sys.stdin.readline()
raise SystemExit(main(sys.argv[1:]))
"""


def start_together(folder: Path, env: dict[str, str]) -> list[tuple[int, str, str]]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_"))}
    environment.update({"KITEBASE_OFFLINE": "1", "PYTHONPATH": str(ROOT), **env})
    processes = [subprocess.Popen([sys.executable, "-c", LAUNCH, "run", f"handle {ticket}", "--approve", "auto",
                                   "--json"], cwd=folder, env=environment, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for ticket in TICKETS]
    try:
        for process in processes:
            assert process.stdout is not None
            assert process.stdout.readline() == "ready\n", process.communicate()
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        outputs = [process.communicate(timeout=300) for process in processes]
        return [(process.returncode, out, err) for process, (out, err) in zip(processes, outputs, strict=True)]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_six_first_runs_at_once_all_complete_and_the_desk_is_loaded_once(database_url, tmp_path):
    """SQLite: no DATABASE_URL, so each process uses the default kitebase.db of the new folder it starts in
    (the file the fixture names, not created yet). PostgreSQL: an empty database."""
    env = {} if database_url.startswith("sqlite") else {"DATABASE_URL": database_url}
    results = start_together(tmp_path, env)

    for code, out, err in results:
        assert code == 0, err
        assert json.loads(out.strip().splitlines()[-1])["status"] == "completed"
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [head_revision()]
            customers = len(json.loads((ROOT / "kb_data" / "customers.json").read_text(encoding="utf-8")))
            assert connection.execute(text("SELECT count(*) FROM customer")).scalar() == customers
            tickets = len(json.loads((ROOT / "kb_data" / "tickets.json").read_text(encoding="utf-8")))
            assert connection.execute(text("SELECT count(*) FROM ticket")).scalar() == tickets
            assert connection.execute(text("SELECT count(*) FROM run")).scalar() == len(TICKETS)
    finally:
        engine.dispose()


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
