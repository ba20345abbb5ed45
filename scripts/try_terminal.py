"""Walk through the terminal as a new support lead would, as scripts/try_slack.py does through Slack: the real
`kitebase` command in a pseudo-terminal, on a fresh SQLite desk in a scratch folder, with the offline model. Two
drafts decided (one edited), one stopped at its prompt from another shell and resumed, one escalation taken and
closed. Everything the terminal shows is printed, the lead's answers included.

    .venv/bin/python scripts/try_terminal.py > transcript.txt
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pexpect

BIN = Path(sys.executable).parent / "kitebase"
LEAD = "U0LEAD1"  # the terminal acts as this approver (KITEBASE_CLI_USER), as a Slack user would be
PROMPT = r"\[a\]pprove / \[e\]dit / \[r\]eject / \[l\]ater: "
YES_NO = r"\[y\]es / \[n\]o: "


class Terminal:
    def __init__(self, folder: str):
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_"))}
        self.env.update({"KITEBASE_APPROVERS": LEAD, "KITEBASE_CLI_USER": LEAD, "COLUMNS": "120",
                         "EDITOR": "", "VISUAL": ""})
        self.folder = folder

    def say(self, text: str) -> None:
        print(f"\n# {text}", flush=True)

    def spawn(self, *args: str) -> pexpect.spawn:
        print(f"\n$ kitebase {' '.join(_quoted(a) for a in args)}", flush=True)
        child = pexpect.spawn(str(BIN), list(args), cwd=self.folder, env=self.env, encoding="utf-8", timeout=120,
                              dimensions=(60, 120), echo=True)
        child.logfile_read = sys.stdout
        return child

    def run(self, *args: str) -> int:
        child = self.spawn(*args)
        child.expect(pexpect.EOF)
        child.close()
        print(f"[exit {child.exitstatus}]", flush=True)
        return int(child.exitstatus or 0)

    def other_shell(self, *args: str) -> int:
        """Another shell of the same lead: no terminal, its output printed as it comes."""
        print(f"\n(another shell) $ kitebase {' '.join(_quoted(a) for a in args)}", flush=True)
        done = subprocess.run([str(BIN), *args], cwd=self.folder, env=self.env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=120)
        print((done.stdout + done.stderr).rstrip() + f"\n[exit {done.returncode}]", flush=True)
        return done.returncode


def _quoted(arg: str) -> str:
    return arg if arg and all(c.isalnum() or c in "-_.#/" for c in arg) else '"' + arg.replace('"', '\\"') + '"'


def walk(folder: str) -> None:
    t = Terminal(folder)
    t.say("A refund request: the agent hands it to a person instead of drafting.")
    t.run("run", "handle KITE-217")

    t.say("A lockout: the draft is shown as the customer will read it. The lead types 'y' out of habit, then "
          "leaves it for later.")
    child = t.spawn("run", "handle KITE-162")
    child.expect(PROMPT)
    child.sendline("y")
    child.expect(PROMPT)
    child.sendline("l")
    child.expect(pexpect.EOF)
    child.close()

    t.say("A second draft waits, started from a script (no terminal: it waits for a decision).")
    t.other_shell("run", "handle KITE-189")

    t.say("What waits, the terminal's counterpart of the cards.")
    t.run("drafts")
    t.run("runs")

    t.say("Decision 1: run 2 as `kitebase runs` shows it. The card's facts, then a question before anything goes.")
    child = t.spawn("approve", "2")
    child.expect(YES_NO)
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()

    t.say("Decision 2: KITE-189 by its ticket, edited. The difference is shown, then what the customer will read.")
    child = t.spawn("approve", "KITE-189", "--edit",
                    "Hi Jordan,\n\nSorry you're locked out. An owner of your workspace can send you a one-time "
                    "bypass link from Members, and you can set up your new phone after signing in "
                    "[account-recovery#2].\n\nBest regards,\nKitebase Support")
    child.expect(YES_NO)
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()

    t.say("A third draft at the prompt; a colleague stops the run from another shell before the lead decides.")
    child = t.spawn("run", "handle KITE-131")
    child.expect(PROMPT)
    t.other_shell("stop", "KITE-131")
    child.sendline("a")
    child.expect(pexpect.EOF)
    child.close()

    t.say("The lead resumes it: the agent drafts again, and this time the lead approves.")
    child = t.spawn("resume", "KITE-131", "--note", "go ahead, I checked the export size")
    child.expect(PROMPT)
    child.sendline("a")
    child.expect(pexpect.EOF)
    child.close()

    t.say("The refund in the human queue: taken, then closed with a note.")
    t.run("queue")
    t.run("queue", "take", "KITE-217")
    t.run("queue", "close", "1", "--note", "Refunded the two seats; billing confirmed.")
    t.run("queue")

    t.say("What was sent, run by run.")
    t.run("runs")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="kitebase-terminal-") as folder:
        walk(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
