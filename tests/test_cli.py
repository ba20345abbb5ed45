"""The `kitebase` command as a lead uses it: the worked example, exit codes, --json, search, queue, replay."""

from __future__ import annotations

import json
import re

import pytest

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"




def test_worked_example_offline_turn_by_turn(cli):
    code, out, _ = cli("run", GOAL, "--approve", "auto")
    assert code == 0
    assert "offline model" in out
    for expected in ("Turn 1 · stop_reason=tool_use", "asks: get_ticket(ticket_id=\"KITE-142\")",
                     "asks: search_help(", "asks: search_tickets(", "Approval needed: reply_to_customer on KITE-142",
                     "approved automatically", "stop_reason=end_turn", "Done. Final answer"):
        assert expected in out, expected
    answer = out.split("Done. Final answer:")[1]
    assert "[account-recovery#2]" in answer and "KITE-139" in answer and "KITE-144" in answer
    assert "Harbor Pine" in answer
    # what is due on the ticket, under the draft, by the database's clock: kb_data's KITE-142 has waited for its next
    # reply since November (Business: 240 business minutes for high)
    held = out.split("Approval needed: reply_to_customer on KITE-142")[1].splitlines()[1]
    assert re.fullmatch(r"  next reply breached \d+ days ago · Business · high", held), held


def test_run_json_ends_with_one_object(cli):
    code, out, err = cli("run", GOAL, "--approve", "auto", "--json")
    result = json.loads(out)
    assert code == 0 and result["status"] == "completed" and result["reason"] is None
    assert set(result) >= {"run_id", "status", "reason", "steps", "input_tokens", "output_tokens", "cost_usd", "answer"}
    assert result["steps"] == 5 and "KITE-144" in result["answer"]
    assert "Turn 1" in err, "turns go to stderr so stdout stays one JSON object"


def test_waiting_and_rejected_runs_exit_3(cli):
    code, out, _ = cli("run", GOAL, "--json")  # not a terminal: the reply waits
    result = json.loads(out)
    assert code == 3 and result["status"] == "awaiting_approval"
    code, out, _ = cli("reject", "1", "--reason", "Too long", "--as", "lead", "--json")
    result = json.loads(out)
    assert code == 3 and result["status"] == "escalated"
    assert "the agent asked for a person" in result["reason"] and "Too long" in result["reason"]


def test_guard_options_on_the_command_line(cli):
    code, out, _ = cli("run", GOAL, "--max-steps", "2", "--approve", "auto", "--json")
    result = json.loads(out)
    assert code == 3 and result["status"] == "escalated" and "KITEBASE_MAX_STEPS" in result["reason"]
    assert "search_tickets" in result["summary"]
    code, out, _ = cli("queue", "--json")
    [item] = json.loads(out)
    assert item["run_id"] == result["run_id"] and item["kind"] == "guard"
    code, out, _ = cli("queue")
    assert "KITEBASE_MAX_STEPS" in out and f"kitebase replay {result['run_id']}" in out


@pytest.mark.parametrize("goal, message", [
    ("", "Tell me what to do"), ("   ", "Tell me what to do"), ("please help", "couldn't find a ticket id"),
    ("handle KITE-999", "There is no ticket KITE-999"), ("handle KITE-142 " + "x" * 5000, "keep it under"),
])
def test_bad_goals_exit_2_with_a_sentence(cli, goal, message):
    code, out, err = cli("run", goal)
    assert code == 2 and message in err and "Traceback" not in err
    code, out, _ = cli("runs", "--json")
    assert json.loads(out) == [], "nothing was stored"


def test_bad_settings_exit_2(cli):
    code, _, err = cli("run", GOAL, "--max-steps", "0")
    assert code == 2 and "max_steps" in err


def test_search_prints_what_the_tools_return(cli):
    code, out, _ = cli("search", "help", "locked out sso", "--json")
    hits = json.loads(out)
    assert code == 0 and hits[0]["id"] == "account-recovery#2"
    code, out, _ = cli("search", "tickets", "--like", "KITE-142", "--json")
    ids = [h["id"] for h in json.loads(out)]
    assert code == 0 and "KITE-144" in ids and "KITE-139" in ids and "KITE-142" not in ids
    code, out, _ = cli("search", "help", "locked out sso")
    assert out.startswith("[account-recovery#2] Locked out of your account")
    code, _, err = cli("search", "tickets", "\"*\" AND OR NOT")
    assert code == 2 and "no searchable words" in err
    code, out, _ = cli("search", "tickets", 'Error: "export*" (code 500) NOT found OR timeout', "--json")
    assert code == 0 and "KITE-131" in [h["id"] for h in json.loads(out)]


def test_runs_and_replay(cli):
    cli("run", GOAL, "--approve", "auto")
    code, out, _ = cli("runs", "--json")
    [run] = json.loads(out)
    assert run["status"] == "completed" and run["ticket_id"] == "KITE-142"
    code, out, _ = cli("replay", str(run["run_id"]), "--check")
    assert code == 0
    assert "turn 1 · stop_reason=tool_use" in out and "approval: reply_to_customer approved by cli" in out
    assert "Replay check: same tool calls" in out
    code, _, err = cli("replay", "999")
    assert code == 2 and "There is no run 999" in err


def test_follow_up_continues_the_conversation(cli):
    cli("run", GOAL, "--approve", "auto")
    code, out, _ = cli("follow-up", "1", "also check whether Harbor Pine uses Okta, see KITE-144")
    assert code == 0
    assert "asks: get_ticket(ticket_id=\"KITE-144\")" in out
    assert "SSO provider: Okta" in out


def test_db_upgrade_stores_what_waits_for_the_search_and_says_how_far_it_got(db, cli, monkeypatch):
    """A desk loaded behind the search's back (a bulk import): `kitebase db upgrade` indexes it, with a line of
    progress every so many documents (20,000 in production; 50 here)."""
    from bot.search import catch_up

    with db.engine.begin() as connection:
        connection.exec_driver_sql("INSERT INTO search_pending (kind, key) SELECT 'ticket', id FROM ticket")
    monkeypatch.setattr(catch_up, "PROGRESS", 50)
    monkeypatch.setattr(catch_up, "DRAIN_BATCH", 20)
    code, out, err = cli("db", "upgrade")
    tickets = db.engine.connect().exec_driver_sql("SELECT COUNT(*) FROM ticket").scalar()
    assert code == 0 and f"Search: {tickets} documents indexed." in out, out
    assert f"{tickets} documents to analyse and store" in err, err
    assert f"60 of {tickets} documents analysed and stored" in err and f"{tickets} of {tickets}" not in err, err
    code, out, _ = cli("db", "upgrade")
    assert code == 0 and "Search:" not in out, "nothing left to index"
