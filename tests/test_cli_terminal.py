"""The terminal as a new lead uses it, through the real `kitebase` command in a subprocess (a pty where a prompt
needs one): one way to name a run, a decision that shows what it decides, the prompt, Ctrl-C, a closed pipe."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from sqlmodel import select

from bot.db.engine import Database
from bot.db.models import Approval, TicketMessage
from standins.anthropic_server import MessagesAPIServer
from standins.brains import offline_brain

ROOT = Path(__file__).parents[1]
KITEBASE = str(Path(sys.executable).parent / "kitebase")  # the console script pip installed: the real entry point


def env_for(database_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_", "EDITOR",
                                                                   "VISUAL"))}
    env.update({"DATABASE_URL": database_url, "COLUMNS": "200", **extra})
    return env


@pytest.fixture
def kb(request, tmp_path):
    """`kitebase ARGS` with no terminal (stdin closed): (exit code, stdout, stderr). On SQLite; the tests that
    ask for `kb_both` run on PostgreSQL too (a subprocess per command is slow: the rest keep to one database)."""
    path = tmp_path / "kitebase.db"
    shutil.copyfile(request.getfixturevalue("_sqlite_template"), path)
    return _invoker(f"sqlite:///{path}")


@pytest.fixture
def kb_both(database_url):
    return _invoker(database_url)


def _invoker(database_url: str):  # type: ignore[no-untyped-def]
    def invoke(*args: str, **extra: str) -> tuple[int, str, str]:
        done = subprocess.run([KITEBASE, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              cwd=ROOT, env=env_for(database_url, **extra), timeout=120)
        return done.returncode, done.stdout, done.stderr

    invoke.url = database_url  # type: ignore[attr-defined]
    return invoke


def at_terminal(url: str, *args: str, **extra: str) -> pexpect.spawn:
    return pexpect.spawn(KITEBASE, list(args), cwd=str(ROOT), env=env_for(url, **extra), encoding="utf-8",
                         timeout=60, dimensions=(50, 250))


def replies(url: str, ticket_id: str) -> list[str]:
    db = Database.from_url(url)
    try:
        with db.session() as session:
            return [m.body for m in session.exec(select(TicketMessage).where(
                TicketMessage.ticket_id == ticket_id, TicketMessage.role == "staff",
                TicketMessage.run_id.is_not(None))).all()]  # type: ignore[union-attr]
    finally:
        db.engine.dispose()


def three_runs(kb) -> None:
    """The measurement of issue 47: KITE-217 escalates with no draft, then runs 2 and 3 wait on drafts."""
    assert kb("run", "handle KITE-217")[0] == 3
    assert kb("run", "handle KITE-162")[0] == 3
    assert kb("run", "handle KITE-189")[0] == 3


def test_a_run_number_names_that_runs_draft_whatever_escalated_before_it(kb_both):
    kb = kb_both
    three_runs(kb)
    code, out, err = kb("approve", "2", "--yes")
    assert code == 0, err
    assert "KITE-162" in out and "Quarry Lane Health" in out and "KITE-189" not in out.split("Done.")[0]
    assert len(replies(kb.url, "KITE-162")) == 1 and replies(kb.url, "KITE-189") == []
    # a ticket names its run too; an approval's own number is never asked for
    code, out, _ = kb("reject", "KITE-189", "--reason", "Ask for their device first")
    assert code == 3 and "Run 3 (KITE-189, Maple & Finch)" in out
    assert replies(kb.url, "KITE-189") == []
    code, _, err = kb("approve", "1", "--yes")
    assert code == 2 and "Run 1 (KITE-217, " in err and "no draft waiting" in err and "escalated" in err
    code, _, err = kb("approve", "KITE-142", "--yes")
    assert code == 2 and "No run has worked KITE-142 yet" in err


def test_approve_shows_the_whole_text_and_the_customer_before_anything_is_sent(kb_both):
    kb = kb_both
    three_runs(kb)
    db = Database.from_url(kb.url)
    with db.session() as session:
        draft = session.exec(select(Approval).where(Approval.run_id == 2)).one().tool_input["message"]
    db.engine.dispose()
    code, out, _ = kb("approve", "2")  # no terminal, no --yes: shown, and nothing is sent
    assert code == 3 and "Nothing was sent" in out and "--yes" in out
    assert replies(kb.url, "KITE-162") == []
    assert "contact Gordon Whitaker" in out and "Quarry Lane Health" in out
    last_line = draft.strip().splitlines()[-1]
    assert last_line in out, "the whole text, to its last line"
    assert "[sign-in-problems#3]" not in out.split("Sources and checks")[0], "the customer's copy, not the codes"
    assert "“Sign-in problems › Blocked by your organisation's access policy”" in out

    term = at_terminal(kb.url, "approve", "2")
    term.expect("The customer will receive exactly this:")
    term.expect(last_line.strip()[:40])
    term.expect(r"\[y\]es / \[n\]o: ")
    assert replies(kb.url, "KITE-162") == [], "asked before sending"
    term.sendline("maybe")
    term.expect("Please answer y or n")
    term.sendline("n")
    term.expect("Nothing was sent; the draft still waits")
    term.expect(pexpect.EOF)
    term.close()
    assert term.exitstatus == 3 and replies(kb.url, "KITE-162") == []

    term = at_terminal(kb.url, "approve", "KITE-162")
    term.expect(r"\[y\]es / \[n\]o: ")
    term.sendline("y")
    term.expect("Approved by cli: run 2 \\(KITE-162, Quarry Lane Health\\)")
    term.expect(pexpect.EOF)
    term.close()
    assert term.exitstatus == 0 and len(replies(kb.url, "KITE-162")) == 1


def test_an_edit_shows_the_difference_and_what_the_customer_reads(kb):
    assert kb("run", "handle KITE-162")[0] == 3
    edit = "Hi Gordon,\n\nPlease ask your IdP admin to exclude Kitebase from the policy [sign-in-problems#3].\n\nKitebase Support"
    code, out, err = kb("approve", "1", "--edit", edit, "--yes")
    assert code == 0, err
    assert "--- the draft" in out and "+++ your edit" in out
    assert "+Please ask your IdP admin" in out
    assert "“Sign-in problems › Blocked by your organisation's access policy”" in out.split("+++ your edit")[1]
    [sent] = replies(kb.url, "KITE-162")
    assert "[sign-in-problems#3]" not in sent and "Please ask your IdP admin" in sent


def test_the_prompt_asks_again_and_edit_opens_the_editor(kb, tmp_path):
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^Hi Gordon,/Hello Gordon,/' \"$1\"\n")
    editor.chmod(0o755)
    term = at_terminal(kb.url, "run", "handle KITE-162", EDITOR=str(editor))
    term.expect("The customer will receive exactly this:")
    term.expect(r"\[a\]pprove / \[e\]dit / \[r\]eject / \[l\]ater: ")
    for unknown in ("y", "yes", "aproove"):
        term.sendline(unknown)
        term.expect("Please answer a, e, r or l \\(nothing was decided\\)")
    term.sendline("e")
    term.expect("-Hi Gordon,")
    term.expect("\\+Hello Gordon,")
    term.expect(r"Send your edited reply\? \[y\]es / \[n\]o, back to the draft: ")
    term.sendline("y")
    term.expect("Done. Final answer")
    term.expect(pexpect.EOF)
    term.close()
    assert term.exitstatus == 0
    [sent] = replies(kb.url, "KITE-162")
    assert sent.startswith("Hello Gordon,")


def test_a_decision_that_lost_to_a_stop_says_so_and_nothing_was_sent(kb):
    term = at_terminal(kb.url, "run", "handle KITE-162")
    term.expect(r"\[a\]pprove / \[e\]dit / \[r\]eject / \[l\]ater: ")
    code, out, _ = kb("stop", "KITE-162", "--as", "ULEAD")  # another shell, by ticket
    assert code == 0 and "stopped" in out
    term.sendline("a")
    term.expect("did not count: ULEAD stopped the run at .* before your decision; nothing was sent. "
                "`kitebase resume 1` continues the run when you want it to.")
    term.expect(pexpect.EOF)
    term.close()
    assert term.exitstatus == 3 and replies(kb.url, "KITE-162") == []


def test_ctrl_c_leaves_the_run_resumable_at_once(kb):
    with MessagesAPIServer(offline_brain, latency=4.0) as server:
        model = {"ANTHROPIC_API_KEY": "sk-ant-test-0123456789", "ANTHROPIC_BASE_URL": server.url,
                 "KITEBASE_MODEL": "claude-opus-5", "KITEBASE_MODEL_MAX_RETRIES": "0"}
        process = subprocess.Popen([KITEBASE, "run", "handle KITE-154"], stdin=subprocess.DEVNULL, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                                   env=env_for(kb.url, **model))
        deadline = time.monotonic() + 60
        while not server.message_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.message_requests, "the run reached the model"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        assert process.returncode == 3, err
        assert "Traceback" not in err
        assert "run 1 (KITE-154, " in err and "`kitebase resume 1` continues it" in err
        code, _, err = kb("run", "handle KITE-154", **model)
        assert code == 2 and "`kitebase resume 1` continues it" in err
        code, out, err = kb("resume", "KITE-154", "--approve", "auto", **model)  # no sweep, no wait
    assert code == 0, err + out
    assert "Done. Final answer" in out and len(replies(kb.url, "KITE-154")) == 1


def test_commands_end_quietly_on_a_closed_pipe_and_at_start_up(kb):
    assert kb("run", "handle KITE-162")[0] == 3
    for command in (f"{KITEBASE} runs | head -c 10", f"{KITEBASE} replay 1 | head -n 1"):
        done = subprocess.run(command, shell=True, capture_output=True, text=True, cwd=ROOT,
                              env=env_for(kb.url), timeout=60)
        assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    process = subprocess.Popen([KITEBASE, "runs"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT, env=env_for(kb.url))
    time.sleep(0.2)  # still importing
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert "Traceback" not in err and process.returncode in (0, 3), err


def test_several_tickets_are_refused_by_name_and_nothing_starts(kb):
    code, _, err = kb("run", "handle KITE-168 and KITE-146")
    assert code == 2 and "KITE-168 and KITE-146" in err and "nothing was started" in err
    code, out, _ = kb("runs", "--json")
    assert out.strip() == "[]"


def test_resume_of_a_completed_run_does_not_call_the_model(kb):
    assert kb("run", "handle KITE-162", "--approve", "auto")[0] == 0
    code, out, err = kb("resume", "1")
    assert code == 2 and "is completed" in err and "kitebase follow-up 1" in err and "Turn" not in out


def test_resume_of_a_waiting_run_shows_the_draft_and_replay_shows_it_whole(kb):
    assert kb("run", "handle KITE-162")[0] == 3
    code, out, _ = kb("resume", "1")
    assert code == 3 and "The customer will receive exactly this" not in out  # no terminal: shown as the wait
    assert "Run 1 (KITE-162, Quarry Lane Health) waits" in out
    term = at_terminal(kb.url, "resume", "1")
    term.expect("The customer will receive exactly this:")
    term.expect(r"\[l\]ater: ")
    term.sendline("l")
    term.expect(pexpect.EOF)
    term.close()
    code, out, _ = kb("replay", "KITE-162")
    assert code == 0 and "Kitebase Support" in out and "…" not in out.split("reply_to_customer(")[1].split("\n")[0]


def test_drafts_lists_every_waiting_draft(kb):
    three_runs(kb)
    code, out, _ = kb("drafts")
    assert code == 0
    assert "Run 2 · KITE-162 · Quarry Lane Health" in out and "Run 3 · KITE-189 · Maple & Finch" in out
    assert "KITE-217" not in out and "kitebase approve 2" in out
    code, out, _ = kb("drafts", "--json")
    rows = __import__("json").loads(out)
    assert sorted(d["run_id"] for d in rows) == [2, 3]
    # what is due first on top (docs/sla.md): the ticket whose reply is overdue before the one with nothing due
    assert [d["due_at"] is None for d in rows] == [False, True], rows


def test_the_console_script_is_the_entry_point():
    assert shutil.which(KITEBASE) is not None


def test_the_customers_text_is_shown_as_written_with_control_characters_made_visible(capsys):
    """What the customer will receive is not reformatted on its way to the screen: Slack markup stays as written,
    an escape sequence or a carriage return cannot erase text, and a secret-shaped string is flagged."""
    import io

    from bot.cli_decide import box

    out = io.StringIO()
    box("Hi <@U0LEAD1> <!subteam^S0LEADS>,\nExport fails \x1b[2K\rsee\u202e this\nkey xoxb-1234567890-abcdefghij", out)
    shown = out.getvalue()
    assert "<@U0LEAD1> <!subteam^S0LEADS>" in shown, "Slack markup as the customer gets it"
    assert "\x1b" not in shown and "\r" not in shown and "␛[2K␍see<U+202E> this" in shown
    assert "xoxb-1234567890" not in shown and "looks like a secret" in shown and "would reach the customer" in shown


def test_end_of_input_at_the_reason_leaves_the_draft_waiting(kb):
    assert kb("run", "handle KITE-162")[0] == 3
    term = at_terminal(kb.url, "resume", "1")
    term.expect(r"\[l\]ater: ")
    term.sendline("r")
    term.expect("revise\\): ")
    term.sendeof()
    term.expect("nothing was decided, the draft still waits")
    term.expect(pexpect.EOF)
    term.close()
    assert term.exitstatus == 3
    code, out, _ = kb("drafts")
    assert "Run 1 · KITE-162" in out, "still waiting"


def test_a_missing_editor_falls_back_to_typing(kb):
    assert kb("run", "handle KITE-162")[0] == 3
    term = at_terminal(kb.url, "resume", "1", EDITOR="/no/such/editor")
    term.expect(r"\[l\]ater: ")
    term.sendline("e")
    term.expect("Could not start your editor")
    term.expect("end with a line holding a single '.'")
    term.sendline("Hi Gordon, please ask your IdP admin to exclude Kitebase [sign-in-problems#3].")
    term.sendline(".")
    term.expect(r"Send your edited reply\? ")
    term.sendline("n")
    term.expect(r"\[l\]ater: ")
    term.sendline("l")
    term.expect(pexpect.EOF)
    term.close()
    assert term.exitstatus == 3 and replies(kb.url, "KITE-162") == []


def test_an_edit_is_checked_before_it_is_shown_or_sent(kb):
    assert kb("run", "handle KITE-162")[0] == 3
    code, out, err = kb("approve", "1", "--edit", "Hi, see [ops-runbook#1] and [account-recovery#99].", "--yes")
    assert code == 2 and "[ops-runbook#1], [account-recovery#99], which are no help-center section" in err
    assert "will receive exactly this instead" not in out
    code, out, err = kb("approve", "1", "--edit", "   ", "--yes")
    assert code == 2 and "empty" in err.lower() and "+++ your edit" not in out
    assert replies(kb.url, "KITE-162") == []


def test_with_approvers_set_the_terminal_decides_as_its_user(kb):
    assert kb("run", "handle KITE-162", KITEBASE_APPROVERS="U0LEAD1")[0] == 3
    code, _, err = kb("approve", "1", "--yes", "--as", "mallory", KITEBASE_APPROVERS="U0LEAD1")
    assert code == 2 and "not allowed to decide" in err and "@U0LEAD1" in err and "<@" not in err
    assert replies(kb.url, "KITE-162") == []
    code, out, err = kb("approve", "1", "--yes", KITEBASE_APPROVERS="U0LEAD1", KITEBASE_CLI_USER="U0LEAD1")
    assert code == 0, err
    assert len(replies(kb.url, "KITE-162")) == 1


def test_the_terminal_walkthrough_runs_as_documented():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "try_terminal.py")], capture_output=True, text=True,
                          cwd=ROOT, env=env_for("unused"), timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for line in ("Please answer a, e, r or l", "Approved by U0LEAD1: run 2 (KITE-162, Quarry Lane Health).",
                 "Edited by U0LEAD1: run 3 (KITE-189, Maple & Finch).", "did not count: U0LEAD2 stopped the run",
                 "was stopped; resumed by U0LEAD1", "is taken by U0LEAD1", "is closed by U0LEAD1",
                 "The human queue is empty."):
        assert line in done.stdout, line
