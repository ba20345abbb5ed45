"""Deciding a draft at the terminal: what the Slack card shows, shown before anything is sent. `kitebase approve
RUN|TICKET [--edit TEXT] [--yes]`, `kitebase reject RUN|TICKET --reason TEXT`, `kitebase drafts`, and the prompt
that `run`, `resume` and `follow-up` show when a draft waits."""

from __future__ import annotations

import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.agent.replay import source_lines
from bot.cli_output import visible
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import utcnow
from bot.redact import redact
from bot.runs import BadInput
from bot.runs.lifecycle import naming
from bot.runs.lifecycle.approvals import Decision
from bot.runs.lifecycle.people import approvers_hint
from bot.runs.lifecycle.service import RunService
from bot.runs.reports import due, for_slack, queries

LOST = ("already_decided", "mismatch", "not_found")
PROMPT = "Send this reply? [a]pprove / [e]dit / [r]eject / [l]ater: "
CHOICES = {"a": "approve", "approve": "approve", "e": "edit", "edit": "edit", "r": "reject", "reject": "reject",
           "l": "later", "later": "later"}


@dataclass(frozen=True)
class Draft:
    """One waiting gated call as a person decides it: the card's facts, and the text the customer gets."""

    approval_id: int
    run: naming.NamedRun
    view: dict[str, Any]  # bot/runs/reports/for_slack.approval
    customer_copy: str | None  # the exact text the customer receives (None: not a reply to a customer)
    now: datetime | None = None  # the database's time when it was read: how long it has waited

    @property
    def message(self) -> str | None:
        message = self.view["input"].get("message")
        return str(message) if message is not None and self.view["tool"] == "reply_to_customer" else None


def drafts_of(service: RunService, named: naming.NamedRun) -> list[Draft]:
    with service.db.session() as session:
        rows = naming.pending_approvals(session, named.run_id)
        now = due.now(session)
    found = []
    for row in rows:
        view = for_slack.approval(service.db, int(row.id or 0))
        if view is None:
            continue
        message = view["input"].get("message")
        copy = (customer_copy(service.db, service.settings, str(message))
                if message is not None and view["tool"] == "reply_to_customer" else None)
        found.append(Draft(int(row.id or 0), named, view, copy, now))
    return found


def customer_copy(db: Database, settings: Settings, message: str) -> str:
    """The reply exactly as the customer receives it (the desk turns citation codes into what a customer reads)."""
    from bot.desk import open_desk

    return open_desk(settings, db).customer_text(message.strip())


def show(draft: Draft, settings: Settings, out: Any) -> None:
    """What the approval card shows: ticket, customer and contact, what is due on it and the run's triage, the
    exact text, sources and checks, who may decide, how long it has waited."""
    view, target = draft.view, draft.view.get("target") or draft.view.get("run_ticket") or {}
    p = _printer(out)
    p(f"\n{draft.run.label(start=True)} waits for a decision: {_what(view)}")
    if target:
        contact = f" · contact {target['contact']}" if target.get("contact") else ""
        p(f"  Ticket {target['id']} · {target['customer']}{contact} · “{target['title']}” ({target['status']})")
        for file in target.get("files") or []:
            p(f"  File from the customer (not read by the agent): {visible(file['line'])}"
              + (f" {visible(str(file['url']))}" if file.get("url") else ""))
    for line in (view.get("due"), view.get("triage")):  # judged by the database's clock (reports/due.py)
        if line:
            p(f"  {line}")
    p(f"  Drafted {age(view['created_at'], draft.now)} ago · {who_decides(settings, view['run']['started_by'], view.get('reminded_at') is not None)}")
    if draft.customer_copy is not None:
        p("  The customer will receive exactly this:")
        box(draft.customer_copy, out)
        lines = source_lines(view.get("sources"))
        if lines:
            p("  Sources and checks:")
            for line in lines:
                p("  " + line.strip())
    else:
        p("  The call, exactly as it would run:")
        for key, value in view["input"].items():
            p(f"    {key}: {value}")


def who_decides(settings: Settings, started_by: str | None, reminded: bool) -> str:
    """Who may decide, in the words of the terminal: Slack's rule (bot/runs/lifecycle/people.py), and that the
    terminal, which holds the database, decides as its user."""
    if settings.approvers:
        return approvers_hint(settings, started_by, reminded)
    if started_by:
        return f"Started by {started_by}: in Slack only they may decide (no KITEBASE_APPROVERS); here, this terminal."
    return "No KITEBASE_APPROVERS: in Slack no one may decide on this intake draft; here, this terminal."


def box(text: str, out: Any) -> None:
    """The customer's text as it will arrive: nothing reformatted (Slack markup such as <@U0LEAD1> is shown as
    written), control and invisible characters made visible so they cannot hide text on the screen; a secret-shaped
    string is the one thing not printed, and the approver is told it is there."""
    hidden = redact(text) != text
    print("  ┌" + "─" * 68, file=out)
    for line in text.split("\n"):
        print(f"  │ {visible(redact(line))}", file=out)
    print("  └" + "─" * 68, file=out, flush=True)
    if hidden:
        print("  ⚠ This text holds what looks like a secret (a token or key), shown as [redacted] here: it would reach "
              "the customer as written. Edit it out before sending.", file=out, flush=True)





def show_diff(before: str, after: str, out: Any) -> None:
    """What an edit changes in what the customer reads."""
    p = _printer(out)
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), "the draft", "your edit", lineterm="", n=1))
    if not diff:
        p("  (your edit is the same text as the draft)")
    for line in diff:  # as written, like the text itself (see `box`)
        print("  " + visible(redact(line)), file=out, flush=True)


def age(when: datetime | None, now: datetime | None = None) -> str:
    """How long since `when`, by `now`: the database's clock as the caller read it (the desk's clock, never a
    process clock; without one, this process's)."""
    if when is None:
        return "a while"
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    seconds = max(0, int((_aware(now or utcnow()) - _aware(when)).total_seconds()))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 5400:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    return f"{seconds // 86400} days"


def _what(view: dict[str, Any]) -> str:
    if view["tool"] == "reply_to_customer":
        return f"a reply to the customer on {view['input'].get('ticket_id', '?')}"
    return f"{view['tool']} on {view['input'].get('ticket_id', '?')}"


def _printer(out: Any) -> Any:
    """Lines about a draft (not its text: `box` prints that as it is): mentions as a terminal reads them,
    secrets cut, control characters made visible line by line."""
    return lambda text="": print("\n".join(visible(line) for line in redact(plain(text)).split("\n")), file=out,
                                 flush=True)


def plain(text: str) -> str:
    """Slack's mention markup as a terminal reads it: <@U0LEAD1> → @U0LEAD1, <!subteam^S0LEADS> → @S0LEADS."""
    return re.sub(r"<(?:@|!subteam\^)([A-Z0-9]+)>", r"@\1", text)


# --- deciding -------------------------------------------------------------------------------------------

def lost(decision: Decision, named: naming.NamedRun, out: Any, db: Database | None = None) -> bool:
    """A decision that lost to another (a stop, someone else's click) says what happened, that nothing was sent,
    and what the person can do now."""
    if decision.outcome not in LOST:
        return False
    after = ""
    if db is not None:
        with db.session() as session:
            now = naming.resolve(session, f"run {named.run_id}")
        if now.status == "stopped":
            after = f" `kitebase resume {named.run_id}` continues the run when you want it to."
        elif now.status == "awaiting_approval":
            after = f" `kitebase approve {named.run_id}` shows the draft that waits now."
    print(redact(plain(f"Your decision on {named.label()} did not count: {decision.message}{after}")), file=out,
          flush=True)
    return True


def prompt_decision(service: RunService, draft: Draft, actor: str, out: Any) -> str:
    """Ask at the terminal until the answer is one it knows: approve, edit, reject or later. Returns what
    happened: approved | edited | rejected | later | lost."""
    while True:
        answer = ask(PROMPT, out)
        if answer is None:
            print("\n(no answer: the draft still waits)", file=out)
            return "later"
        choice = CHOICES.get(answer.strip().lower())
        if choice is None:
            print("  Please answer a, e, r or l (nothing was decided).", file=out)
            continue
        if choice == "later":
            return "later"
        if choice == "approve":
            return _record(service, draft, out, action="approve", actor=actor)
        if choice == "reject":
            reason = ask("Why? (the agent will use this to revise): ", out)
            if reason is None:
                print("\n(no answer: nothing was decided, the draft still waits)", file=out)
                return "later"
            return _record(service, draft, out, action="reject", actor=actor, reason=reason.strip() or "no reason given")
        edited = edit_text(draft.message or "", out)
        if edited is None or not edited.strip():
            print("  The edit was empty; nothing was decided.", file=out)
            continue
        if edited.strip() == (draft.message or "").strip():
            print("  The edit left the draft as it was; nothing was decided.", file=out)
            continue
        problems = service.check_call(draft.view["tool"], {**draft.view["input"], "message": edited})
        if problems:
            print(redact("  Your edit was not sent and the draft still waits: " + "; ".join(problems)), file=out)
            continue
        copy = customer_copy(service.db, service.settings, edited)
        show_diff(draft.customer_copy or "", copy, out)
        print("  The customer will receive exactly this:", file=out)
        box(copy, out)
        sure = ask("Send your edited reply? [y]es / [n]o, back to the draft: ", out)
        if sure is None:
            print("\n(no answer: nothing was decided, the draft still waits)", file=out)
            return "later"
        if sure.strip().lower() in ("y", "yes"):
            return _record(service, draft, out, action="edit", actor=actor, message=edited)


def _record(service: RunService, draft: Draft, out: Any, **decision: Any) -> str:
    try:
        result = service.decide(draft.approval_id, expected_fingerprint=draft.view["fingerprint"], **decision)
    except BadInput as exc:  # an edit that fails the tool's own checks: the draft still waits
        print(redact(f"  {exc}"), file=out)
        return "later"
    if lost(result, draft.run, out, service.db):
        return "lost"
    return result.outcome


def ask(prompt: str, out: Any) -> str | None:
    """One line from the person at the terminal; None at end of input."""
    print(prompt, end="", file=out, flush=True)
    line = sys.stdin.readline()
    return line if line else None


def edit_text(text: str, out: Any) -> str | None:
    """The person's edit of `text`: in $VISUAL or $EDITOR when set, else typed line by line."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if editor:
        with tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=False, encoding="utf-8") as handle:
            handle.write(text + "\n")
            path = handle.name
        try:
            try:
                code = subprocess.call([*shlex.split(editor), path])
            except (OSError, ValueError) as exc:  # no such program, or an unparseable $EDITOR
                print(f"  Could not start your editor ({editor!r}: {exc}); type the reply instead.", file=out)
                print("Type the reply to send; end with a line holding a single '.':", file=out, flush=True)
                return read_block()
            if code != 0:
                print(f"  The editor exited with {code}; nothing was decided.", file=out)
                return None
            with open(path, encoding="utf-8") as edited:
                return edited.read().strip()
        finally:
            os.unlink(path)
    print("Type the reply to send; end with a line holding a single '.':", file=out, flush=True)
    return read_block()


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)  # SQLite gives the stored UTC time without its zone


def read_block() -> str:
    lines = []
    for line in sys.stdin:
        if line.rstrip("\n") == ".":
            break
        lines.append(line.rstrip("\n"))
    return "\n".join(lines)


# --- `kitebase drafts` ---------------------------------------------------------------------------------

def print_drafts(db: Database, settings: Settings, out: Any) -> int:
    """What waits for a decision, what is due first on top (then priority, then arrival)."""
    with db.session() as session:
        rows, now = queries.waiting_approvals(session), due.now(session)
    p = _printer(out)
    if not rows:
        p("No drafts wait for a decision.")
        return 0
    for row in rows:
        about = " · ".join(x for x in (row["ticket_id"], row["customer"]) if x)
        p(f"Run {row['run_id']} · {about} · waiting {age(row['created_at'], now)} · {row['tool']}")
        if row.get("due"):
            p(f"  {row['due']}")
        if row["message"]:
            p(f"  “{_one_line(row['message'], 100)}”")
        p(f"  {who_decides(settings, row['started_by'], row['reminded'])}")
        p(f"  Decide: kitebase approve {row['run_id']}   kitebase reject {row['run_id']} --reason TEXT\n")
    return len(rows)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
