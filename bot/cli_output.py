"""What the CLI prints while a run goes on: every turn, call and result, and the draft to approve."""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Callable
from typing import Any, TextIO

from bot.agent.capabilities import other_model
from bot.agent.model import ModelResponse
from bot.agent.observer import Observer
from bot.redact import redact
from bot.vocabulary import PendingCall, RunState, RunStatus, StepKind, StepRecord

RESULT_CHARS = 300


def one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def call_text(name: str, arguments: Any, limit: int = 160) -> str:
    if not isinstance(arguments, dict):
        return f"{name}({arguments!r})"
    parts = [f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items()]
    return f"{name}({one_line(', '.join(parts), limit)})"


def visible(text: str) -> str:
    """Text for a terminal: escape sequences, carriage returns and invisible format characters (a right-to-left
    override, a zero-width space) shown as what they are instead of acting on the screen."""
    out = []
    for ch in text:
        if ch == "\t" or (ch >= " " and ch != "\x7f" and unicodedata.category(ch) not in ("Cf", "Cc", "Zl", "Zp")):
            out.append(ch)
        elif ch == "\x1b":
            out.append("␛")
        elif ch == "\r":
            out.append("␍")
        else:
            out.append(f"<U+{ord(ch):04X}>")
    return "".join(out)


class TurnPrinter(Observer):
    """Prints the run as it happens, for a person at a terminal."""

    def __init__(self, out: TextIO | None = None, *, customer_copy: Callable[[str], str] | None = None,
                 drafts: bool = True, due_line: Callable[[str], str | None] | None = None):
        self.out = out or sys.stdout
        self.customer_copy = customer_copy  # the desk's rendering: what the customer reads of a draft
        self.due_line = due_line  # what is due on a ticket now, by the database's clock (reports/due.py)
        self.drafts = drafts  # False when the prompt shows each draft as its card does

    def _p(self, text: str = "") -> None:
        print("\n".join(visible(line) for line in redact(text).split("\n")), file=self.out, flush=True)

    def on_model_response(self, state: RunState, response: ModelResponse) -> None:
        u = response.usage
        sent = len(state.messages)
        self._p(f"\nTurn {state.steps} · stop_reason={response.stop_reason} · sent {sent} message{'s' if sent != 1 else ''} · "
                f"in {u.input_tokens:,} / out {u.output_tokens:,} tokens (cache read {u.cache_read_tokens:,}, "
                f"write {u.cache_write_tokens:,}) · {response.latency_ms} ms"
                + (f" · answered by {response.model}" if other_model(response.model, state.model) else ""))
        for block in response.content:
            if block.get("type") == "text" and response.stop_reason == "end_turn":
                self._p("  says: (the final answer, below)")
            elif block.get("type") == "text" and block.get("text", "").strip():
                for line in block["text"].strip().splitlines():
                    self._p(f"  says: {line}")
            elif block.get("type") == "thinking" and str(block.get("thinking", "")).strip():
                self._p(f"  thinks: {one_line(block.get('thinking', ''), 300)}")
            elif block.get("type") == "redacted_thinking":
                self._p("  thinks: (redacted by the API)")
            elif block.get("type") == "tool_use":
                self._p(f"  asks: {call_text(block.get('name', '?'), block.get('input'))}  [{block.get('id')}]")

    def on_step(self, state: RunState, step: StepRecord) -> None:
        if step.kind == StepKind.WAIT:
            self._p(f"\n  waits: {step.text}")

    def on_tool_result(self, state: RunState, call: dict[str, Any]) -> None:
        if call.get("status") == "held":
            self._p(f"  held: {call['name']} waits for a person's approval")
            return
        marker = "error" if call.get("is_error") else "ok"
        self._p(f"  ← {call['name']} {marker} ({call.get('latency_ms', 0)} ms): {one_line(call.get('result', ''), RESULT_CHARS)}")

    def on_approval_needed(self, state: RunState, calls: list[PendingCall]) -> None:
        for call in calls if self.drafts else []:  # else the prompt shows each as its card does
            self._p(f"\nApproval needed: {call.name} on {call.input.get('ticket_id', '?')}")
            due = self.due_line(str(call.input["ticket_id"])) if self.due_line and call.input.get("ticket_id") else None
            if due:
                self._p(f"  {due}")
            message = call.input.get("message")
            if message and self.drafts:
                text = self.customer_copy(str(message)) if self.customer_copy else str(message)
                self._p("  ┌ the customer would receive exactly this " + "─" * 27)
                for line in text.split("\n"):
                    self._p(f"  │ {visible(line)}")
                self._p("  └" + "─" * 68)

    def on_finished(self, state: RunState) -> None:
        self._p("")
        self._p("─" * 70)
        if state.status == RunStatus.COMPLETED:
            self._p("Done. Final answer:\n")
            self._p(state.answer or "")
        else:
            self._p(f"Stopped ({state.status}): {state.reason}")
            if state.summary:
                self._p(state.summary)
            self._p("The run is in the human queue with its full history: `kitebase queue`.")
        self._p(f"\n{state.steps} model calls · {state.usage.total:,} tokens (in {state.usage.input_tokens:,}, out "
                f"{state.usage.output_tokens:,}, cache read {state.usage.cache_read_tokens:,}, write "
                f"{state.usage.cache_write_tokens:,}) · ${state.cost_usd:.4f}")
