"""Replay a stored run: as a readable timeline, or against the loop as a regression check."""

from __future__ import annotations

import json
from typing import Any

from bot.agent.capabilities import other_model
from bot.agent.history import thinking_of
from bot.agent.model import ModelResponse
from bot.db.models import Run, Step
from bot.vocabulary import RunStatus, Usage


class ReplayModel:
    """Hands back a stored run's model responses, in order, and fails loudly if the loop asks for more."""

    def __init__(self, steps: list[Step], name: str = "replay"):
        self.name = name
        self._responses = [(s, s.response) for s in steps if s.kind == "model" and s.response is not None]
        self.calls = 0

    def complete(self, *, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]],
                 max_tokens: int, timeout: float | None = None) -> ModelResponse:
        if self.calls >= len(self._responses):
            raise RuntimeError(f"the replayed run made only {len(self._responses)} model calls; the loop asked for more")
        step, content = self._responses[self.calls]
        self.calls += 1
        return ModelResponse(content=content, stop_reason=step.stop_reason,
                             usage=Usage.of(step), model=self.name)


WHOLE_AFTER = 80  # a text argument longer than this (a draft, a note) is shown whole on lines of its own


def timeline(run: Run, steps: list[Step], *, result_chars: int = 240) -> str:
    """A readable account of a stored run, step by step."""
    lines = [f"Run {run.id} · {run.ticket_id or '-'} · {run.status} · model {run.model}",
             f"Goal: {run.goal}",
             f"Started {run.created_at:%Y-%m-%d %H:%M:%S} UTC by {run.started_by or 'unknown'}", ""]
    for step in steps:
        lines.extend(_step_lines(step, result_chars, run.model))
    lines.append("")
    lines.append(f"Totals: {run.steps} model calls · {run.total_tokens:,} tokens (in {run.input_tokens:,}, out "
                 f"{run.output_tokens:,}, cache read {run.cache_read_tokens:,}, cache write {run.cache_write_tokens:,})"
                 f" · ${run.cost_usd:.4f}")
    if run.status == RunStatus.COMPLETED:
        lines.append(f"Answer:\n{run.answer}")
    elif run.reason:
        lines.append(f"Stopped: {run.reason}")
    return "\n".join(lines)


def _step_lines(step: Step, result_chars: int, run_model: str | None = None) -> list[str]:
    if step.kind == "model":
        head = (f"[{step.number}] turn {step.turn} · stop_reason={step.stop_reason} · in {step.input_tokens:,} / out "
                f"{step.output_tokens:,} tok (cache r {step.cache_read_tokens:,} w {step.cache_write_tokens:,}) · "
                f"{step.latency_ms} ms · ${step.cost_usd:.4f}")
        if other_model(step.model, run_model):
            head += f" · answered by {step.model}"
    else:
        head = f"[{step.number}] {step.kind}: {step.text or ''}"
    lines = [head]
    if step.kind == "model":
        lines += ["    thinks: " + line for line in thinking_of(step.response).splitlines() if line.strip()]
        redacted = sum(1 for b in step.response or [] if isinstance(b, dict) and b.get("type") == "redacted_thinking")
        if redacted:
            lines.append(f"    thinks: ({redacted} block{'s' if redacted != 1 else ''} of thinking redacted by the API)")
    if step.kind == "model" and step.text:
        lines += ["    says: " + line for line in step.text.splitlines()]
    for call in step.tool_calls or []:
        arguments = call.get("input")
        whole = {k: v for k, v in arguments.items() if isinstance(v, str) and (len(v) > WHOLE_AFTER or "\n" in v)} \
            if isinstance(arguments, dict) else {}
        short = {k: ("(below)" if k in whole else v) for k, v in arguments.items()} if isinstance(arguments, dict) \
            else arguments
        args = json.dumps(short, ensure_ascii=False)
        if len(args) > 200:
            args = args[:199] + "…"
        result = " ".join(str(call.get("result", "")).split())
        if len(result) > result_chars:
            result = result[:result_chars] + "…"
        flag = "ERROR " if call.get("is_error") else ""
        lines.append(f"    {call.get('name')}({args}) [{call.get('status')}, {call.get('latency_ms', 0)} ms]")
        for key, text in whole.items():  # a draft or a note is read whole: what a person decided on
            lines.append(f"      {key}:")
            lines += [f"      │ {line}" for line in text.splitlines()]
        lines.append(f"      ← {flag}{result}")
        lines += source_lines(call.get("sources"))
    return lines


def source_lines(sources: dict[str, Any] | None) -> list[str]:
    """A draft's citation check as the step log stored it (bot/runs/lifecycle/citations.py)."""
    if not sources:
        return []
    cited = ", ".join(f"{s['id']}" + (f" ({s['heading']})" if s.get("heading") else "") for s in sources["cited"])
    lines = [f"      sources: cites {cited or 'nothing'}"]
    if sources.get("similar"):
        lines.append("      similar tickets consulted: " + ", ".join(t["id"] for t in sources["similar"]))
    lines += [f"      ⚠ {problem}" for problem in sources.get("problems") or []]
    if sources.get("internal_read"):
        lines.append("      internal help read (never for the customer): "
                     + ", ".join(s["id"] for s in sources["internal_read"]))
    for found in sources.get("quotes") or []:
        span = found["span"] if len(found["span"]) <= 300 else found["span"][:299] + "…"
        lines.append(f"      ⚠ quotes {found.get('what') or 'internal text'} word for word: “{span}”")
    return lines
