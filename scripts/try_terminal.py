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
LEAD, COLLEAGUE = "U0LEAD1", "U0LEAD2"  # approvers; the terminal acts as LEAD (KITEBASE_CLI_USER), as Slack would
PROMPT = r"\[a\]pprove / \[e\]dit / \[r\]eject / \[l\]ater: "
YES_NO = r"\[y\]es / \[n\]o: "


class Terminal:
    def __init__(self, folder: str):
        self.env = {k: v for k, v in os.environ.items()  # a fresh SQLite desk in the folder, the offline model
                    if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_", "DATABASE_URL"))}
        self.env.update({"KITEBASE_APPROVERS": f"{LEAD},{COLLEAGUE}", "KITEBASE_CLI_USER": LEAD, "COLUMNS": "120",
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

    def run(self, *args: str, expect: int = 0) -> None:
        self.end(self.spawn(*args), expect)

    @staticmethod
    def end(child: pexpect.spawn, expect: int) -> None:
        """The command ends with the exit code a lead should see (else the walk stops: the docs would lie)."""
        child.expect(pexpect.EOF)
        child.close()
        print(f"[exit {child.exitstatus}]", flush=True)
        if child.exitstatus != expect:
            raise SystemExit(f"expected exit {expect}, got {child.exitstatus}")

    def other_shell(self, *args: str, expect: int = 0) -> None:
        """Another shell of the same lead: no terminal, its output printed as it comes."""
        print(f"\n(another shell) $ kitebase {' '.join(_quoted(a) for a in args)}", flush=True)
        done = subprocess.run([str(BIN), *args], cwd=self.folder, env=self.env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=120)
        print((done.stdout + done.stderr).rstrip() + f"\n[exit {done.returncode}]", flush=True)
        if done.returncode != expect:
            raise SystemExit(f"expected exit {expect}, got {done.returncode}")


def _quoted(arg: str) -> str:
    return arg if arg and all(c.isalnum() or c in "-_.#/" for c in arg) else '"' + arg.replace('"', '\\"') + '"'


def walk(folder: str) -> None:
    t = Terminal(folder)
    t.say("A refund request: the agent hands it to a person instead of drafting.")
    t.run("run", "handle KITE-217", expect=3)

    t.say("A lockout: the draft is shown as the customer will read it. The lead types 'y' out of habit, then "
          "leaves it for later.")
    child = t.spawn("run", "handle KITE-162")
    child.expect(PROMPT)
    child.sendline("y")
    child.expect(PROMPT)
    child.sendline("l")
    t.end(child, 3)

    t.say("A second draft waits, started from a script (no terminal: it waits for a decision).")
    t.other_shell("run", "handle KITE-189", expect=3)

    t.say("What waits, the terminal's counterpart of the cards.")
    t.run("drafts")
    t.run("runs")

    t.say("Decision 1: run 2 as `kitebase runs` shows it. The card's facts, then a question before anything goes.")
    child = t.spawn("approve", "2")
    child.expect(YES_NO)
    child.sendline("y")
    t.end(child, 0)

    t.say("Decision 2: KITE-189 by its ticket, edited. The difference is shown, then what the customer will read.")
    child = t.spawn("approve", "KITE-189", "--edit",
                    "Hi Jordan,\n\nSorry you're locked out. Sign in with your password and one of your backup codes, "
                    "then set up two-factor authentication on your new phone under Profile → Security. If you have no "
                    "backup codes, a workspace admin can reset it for you from Settings → Members "
                    "[two-factor-authentication#3].\n\nBest regards,\nKitebase Support")
    child.expect(YES_NO)
    child.sendline("y")
    t.end(child, 0)

    t.say(f"A third draft at the prompt; a colleague ({COLLEAGUE}) stops the run from another shell before the lead "
          "decides.")
    child = t.spawn("run", "handle KITE-131")
    child.expect(PROMPT)
    t.other_shell("stop", "KITE-131", "--as", COLLEAGUE)
    child.sendline("a")
    t.end(child, 3)

    t.say("The lead resumes it: the agent drafts again, and this time the lead approves.")
    child = t.spawn("resume", "KITE-131", "--note", "go ahead, I checked the export size")
    child.expect(PROMPT)
    child.sendline("a")
    t.end(child, 0)

    t.say("The refund in the human queue: taken, then closed with a note.")
    t.run("queue")
    t.run("queue", "take", "KITE-217")
    t.run("queue", "close", "1", "--note", "Refunded the two seats; billing confirmed.")
    t.run("queue")

    t.say("Where each run ended.")
    t.run("runs")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="kitebase-terminal-") as folder:
        walk(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
