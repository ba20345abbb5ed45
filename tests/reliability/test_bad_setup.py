"""Bad settings, unusable databases, odd goals: one line that names what to fix, exit 2, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def kitebase(*args: str | bytes, env: dict[str, str] | None = None, cwd: Path | None = None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_"))}
    environment.update({"KITEBASE_OFFLINE": "1", **(env or {})})
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=cwd or ROOT, env=environment,
                          capture_output=True, timeout=120)


def one_clear_line(result) -> str:
    err = result.stderr.decode(errors="replace").strip()
    assert result.returncode == 2, (result.returncode, err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("url, words", [
    ("mysql+nosuchdriver://x/y", "DATABASE_URL"),
    ("definitely not a url", "DATABASE_URL"),
    ("postgresql+psycopg://postgres@127.0.0.1:1/none", "cannot connect"),
    ("sqlite:////nonexistent/dir/kitebase.db", "cannot open the database file"),
])
def test_an_unusable_database_url_is_named_in_one_line(url, words):
    err = one_clear_line(kitebase("runs", env={"DATABASE_URL": url}))
    assert "DATABASE_URL" in err and words in err


def test_a_read_only_database_is_named_in_one_line(tmp_path):
    """Opened read-only (file permissions would do the same, but the tests run as root, who ignores them)."""
    db = tmp_path / "kitebase.db"
    assert kitebase("db", "upgrade", env={"DATABASE_URL": f"sqlite:///{db}"}).returncode == 0
    err = one_clear_line(kitebase("run", "handle KITE-142", env={"DATABASE_URL": f"sqlite:///file:{db}?mode=ro&uri=true"}))
    assert "read-only" in err


@pytest.mark.parametrize("name, value", [("KITEBASE_MAX_STEPS", "many"), ("KITEBASE_APPROVAL_TTL", "soon"),
                                         ("KITEBASE_EXECUTION", "queue")])
def test_a_bad_setting_is_named_in_one_line(name, value):
    err = one_clear_line(kitebase("runs", env={name: value}))
    assert "bad setting" in err


def test_a_goal_that_is_not_valid_utf8_is_handled(tmp_path):
    result = kitebase("run", b"handle KITE-142 \xff\xfe please", "--approve", "auto", "--json",
                      env={"DATABASE_URL": f"sqlite:///{tmp_path / 'k.db'}"})
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert b"Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_serve_and_worker_refuse_a_bad_rules_file_and_rules_no_one_could_approve(command, tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rule]]\nname = "urgent"\nchannel = "C0URGENT"\nmax_per_hour = 0\n', encoding="utf-8")
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'k.db'}", "KITEBASE_INTAKE_RULES": str(rules),
           "KITEBASE_APPROVERS": "ULEAD", "SLACK_BOT_TOKEN": "xoxb-x", "SLACK_SIGNING_SECRET": "s"}
    err = one_clear_line(kitebase(command, env=env))
    assert f"{rules}, line 4: rule 'urgent': max_per_hour is a whole number of runs, 1 or more." in err
    rules.write_text('[[rule]]\nname = "urgent"\nchannel = "C0URGENT"\n', encoding="utf-8")
    err = one_clear_line(kitebase(command, env={**env, "KITEBASE_APPROVERS": ""}))
    assert "KITEBASE_INTAKE_RULES is set but KITEBASE_APPROVERS is empty" in err and "xoxb" not in err
