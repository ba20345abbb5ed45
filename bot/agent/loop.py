"""The agent loop: call the model with the whole history, keep its reply verbatim, run every tool it
asked for, send all results back in one message, and repeat, until the model is done or a guard stops it.

Persistence is the caller's: after every step the loop hands the state and the step record to
`checkpoint`, which stores both together. The loop itself keeps nothing between calls.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from bot.agent import capabilities, checks, history, pricing
from bot.agent.errors import DeadlineReached, GuardTripped, MalformedHistory, ModelCallFailed, StopRequested
from bot.agent.guards import Limits
from bot.agent.interrupt import StopCheck, stop_asked, unless_stopped
from bot.agent.model import ModelClient, ModelResponse
from bot.agent.observer import Observer, Observers
from bot.agent.prompts import SYSTEM_PROMPT
from bot.agent.screen import Screen
from bot.agent.summary import summarize
from bot.agent.toolrun import STOPPED_BY, run_calls
from bot.config import Settings
from bot.db.engine import Database
from bot.redact import redact
from bot.vocabulary import PendingCall, RunState, RunStatus, StepKind, StepRecord, StopKind, Usage
from tools import Execute, Tool, ToolContext, ToolResult, execute

logger = logging.getLogger(__name__)

Checkpoint = Callable[[RunState, StepRecord], None]
CAPACITY_NOTE_SECONDS = 2.0  # a shorter wait for the model budget is not worth a line in the thread

# Every stop reason the Messages API documents, and what the loop does with it.
STOP_POLICY = {
    "end_turn": "done",
    "tool_use": "continue",
    "pause_turn": "resume",
    "max_tokens": StopKind.TRUNCATED,
    "stop_sequence": StopKind.STOP_SEQUENCE,
    "refusal": StopKind.REFUSAL,
    "model_context_window_exceeded": StopKind.CONTEXT_WINDOW,
}
STOP_MESSAGES = {
    StopKind.TRUNCATED: "the model's reply was cut off at max_tokens ({max_tokens}); a truncated reply is never "
                 "an answer and its tool calls were not run",
    StopKind.STOP_SEQUENCE: "the model stopped on a stop sequence before finishing; its reply is incomplete",
    StopKind.REFUSAL: "the model declined to continue (refusal); not retried",
    StopKind.CONTEXT_WINDOW: "the conversation no longer fits the model's context window",
}


class AgentLoop:
    def __init__(self, *, model: ModelClient, registry: dict[str, Tool], settings: Settings, db: Database,
                 observer: Observer | None = None, clock: Callable[[], float] = time.monotonic,
                 system_prompt: str = SYSTEM_PROMPT, run_id: int | None = None, execute: Execute = execute,
                 stop_check: StopCheck | None = None):
        self.model, self.registry, self.settings, self.db = model, registry, settings, db
        self.stop_check = stop_check  # who asked the run to stop (the run layer reads it from the run's row)
        self.execute = execute  # tools.execute; the run layer's is wrapped by bot/telemetry
        self.observer = Observers(observer) if observer else Observer()  # an observer failing never stops a run
        self.clock = clock
        self.system_prompt = system_prompt
        self.run_id = run_id
        self.limits = Limits.from_settings(settings)
        self.screen = Screen(registry, settings.approval_tools, self.limits)
        self.definitions = [tool.definition() for tool in registry.values()]
        self.max_tokens = capabilities.max_tokens(settings, model.name)
        self.waited = 0.0  # seconds this loop spent waiting for the model budget (not running)
        self._said_waiting = False  # the thread hears of a wait once per stretch of running, not once per turn
        self._last_usage: Usage | None = None

    # --- driving ------------------------------------------------------------------------------

    def run(self, state: RunState, checkpoint: Checkpoint) -> RunState:
        """Advance until the run completes, stops, or waits for a person."""
        started, base, waited = self.clock(), state.allowance.segment_active_seconds, self.waited

        def active() -> float:  # a wait for the model budget is not time spent running
            return base + (self.clock() - started) - (self.waited - waited)

        while state.status == RunStatus.RUNNING:
            try:
                if who := stop_asked(self.stop_check):
                    raise StopRequested(who)
                self.limits.check(state, active())
                time_left = self.limits.deadline_seconds - active()
                self._wait_for_capacity(state, checkpoint)
                step = self._turn(state, time_left=time_left)
                self._late_stop(state)
            except StopRequested as stop:
                self.stop(state, stop.who)
                step = StepRecord(number=state.steps, kind=StepKind.STOP, text=state.reason)
            except GuardTripped as guard:
                self.escalate(state, StopKind.GUARD, str(guard))
                step = StepRecord(number=state.steps, kind=StepKind.GUARD, text=state.reason)
            except DeadlineReached:
                reason = self.limits.deadline_message(active(), during_call=True)
                self.escalate(state, StopKind.GUARD, reason)
                step = StepRecord(number=state.steps, kind=StepKind.GUARD, text=state.reason)
            except ModelCallFailed as failure:
                self.escalate(state, failure.kind, str(failure))
                raw = [{"type": "malformed_response", "body": redact(failure.raw[:20_000])}] if failure.raw else None
                step = StepRecord(number=state.steps, kind=StepKind.ERROR, text=state.reason, response=raw)
            except MalformedHistory as bad:
                logger.error("refusing to send a malformed history: %s", bad)
                state.status, state.stop_kind = RunStatus.FAILED, StopKind.MALFORMED_HISTORY
                state.reason = f"internal error: the history is malformed and was not sent ({bad})"
                state.summary = summarize(state.messages)
                step = StepRecord(number=state.steps, kind=StepKind.ERROR, text=state.reason)
            state.allowance.segment_active_seconds = active()
            checkpoint(state, step)
            self.observer.on_step(state, step)
        if state.status == RunStatus.AWAITING_APPROVAL:
            self.observer.on_approval_needed(state, state.pending_calls)
        else:
            self.observer.on_finished(state)
        return state

    def _turn(self, state: RunState, time_left: float) -> StepRecord:
        history.check(state.messages)
        self.observer.on_model_call(state)
        response = unless_stopped(lambda: self.model.complete(
            system=self.system_prompt, tools=self.definitions, messages=state.messages, max_tokens=self.max_tokens,
            timeout=time_left), self.stop_check)
        step = self._account(state, response)
        problems = checks.response_problems(response.content, checks.earlier_tool_ids(state.messages))
        if problems:  # acted on nothing: not appended, no tool run; the raw response stays in the step log
            step.kind = StepKind.ERROR
            self.escalate(state, StopKind.MODEL_ERROR, "the model's reply was malformed, so nothing in it was run: "
                          + "; ".join(problems[:5]))
            return step
        self.observer.on_model_response(state, response)
        policy = STOP_POLICY.get(response.stop_reason or "", "unknown")

        if policy == "resume":
            return self._pause(state, response, step)
        state.pause_count = 0
        content = self._append_assistant(state, response.content)
        if policy == "continue":
            self._act(state, content, step)
        elif policy == "done":
            self._done(state, content)
        elif policy == "unknown":
            logger.warning("unknown stop_reason %r", response.stop_reason)
            self.escalate(state, StopKind.UNKNOWN_STOP_REASON,
                           f"the model stopped for an unknown reason ({response.stop_reason!r}); not treated as an answer")
        else:
            kind = StopKind(policy)
            self.escalate(state, kind, STOP_MESSAGES[kind].format(max_tokens=self.max_tokens))
        return step

    def _wait_for_capacity(self, state: RunState, checkpoint: Checkpoint) -> None:
        """Take this call's share of the organization's model budget, waiting for it when it is not there (the
        thread says so once a stretch: on a busy morning most turns wait, and one line says it); the wait does not
        count against the run's deadline (bot/agent/budget.py)."""
        budget = getattr(self.model, "budget", None)
        if budget is None:
            return
        last = self._last_usage
        expected_in = last.input_tokens + last.cache_write_tokens + 500 if last else 2000
        expected_out = min(self.max_tokens, last.output_tokens if last else 1000)
        started, waiter, granted = self.clock(), uuid.uuid4().hex, False
        try:
            while (wait := _reserve(budget, expected_in, expected_out, waiter)) > 0:
                waited = self.clock() - started
                if waited + wait > self.settings.capacity_wait_seconds:
                    raise ModelCallFailed(f"waited {waited:.0f} s for the organization's model capacity, and more "
                                          f"would pass KITEBASE_CAPACITY_WAIT_SECONDS "
                                          f"({self.settings.capacity_wait_seconds:.0f} s)")
                if not self._said_waiting and waited + wait >= CAPACITY_NOTE_SECONDS:  # short waits add up too
                    self._said_waiting = True
                    step = StepRecord(number=state.steps, kind=StepKind.WAIT,
                                      text="waiting for model capacity: the API's limits are shared by every run, "
                                           "and this one goes on when its turn comes")
                    checkpoint(state, step)
                    self.observer.on_step(state, step)
                if who := stop_asked(self.stop_check):
                    raise StopRequested(who)
                time.sleep(min(wait, 1.0))
            granted = True
        finally:
            self.waited += self.clock() - started
            if not granted:
                _leave(budget, waiter)

    def _account(self, state: RunState, response: ModelResponse) -> StepRecord:
        usage = response.usage
        self._last_usage = usage
        model = response.model or self.model.name  # a fallback model may have answered this turn
        cost = pricing.cost_usd(model, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                                cache_read_tokens=usage.cache_read_tokens, cache_write_tokens=usage.cache_write_tokens)
        state.steps += 1
        state.allowance.segment_steps += 1
        state.usage.add(usage)
        state.allowance.segment_tokens += usage.total
        state.cost_usd += cost
        state.allowance.segment_cost_usd += cost
        content = response.content if isinstance(response.content, list) else []
        text = history.text_of([b for b in content if isinstance(b, dict)])
        return StepRecord(number=state.steps, stop_reason=response.stop_reason, model=model, text=text,
                          response=response.content, usage=usage, latency_ms=response.latency_ms, cost_usd=cost)

    # --- stop reasons -------------------------------------------------------------------------

    def _pause(self, state: RunState, response: ModelResponse, step: StepRecord) -> StepRecord:
        """pause_turn: send the paused content back so the model resumes; bounded."""
        state.pause_count += 1
        self._append_assistant(state, response.content)
        if any(b.get("type") == "tool_use" for b in response.content):
            self.escalate(state, StopKind.PAUSED, "the model paused a turn that asks for tools; not run")
        elif state.pause_count > self.settings.max_pause_continuations:
            self.escalate(state, StopKind.PAUSED, f"the model paused {state.pause_count} times in a row "
                           f"(KITEBASE_MAX_PAUSE_CONTINUATIONS={self.settings.max_pause_continuations})")
        return step

    @staticmethod
    def _append_assistant(state: RunState, content: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append the reply verbatim; after pause_turn it continues the paused assistant message."""
        last = state.messages[-1]
        if last.get("role") == "assistant":
            merged = [*history.blocks(last), *content]
            last["content"] = merged
            return merged
        state.messages.append({"role": "assistant", "content": content})
        return content

    def _done(self, state: RunState, content: list[dict[str, Any]]) -> None:
        answer = history.text_of(content)
        if not answer:
            self.escalate(state, StopKind.EMPTY_ANSWER, "the model finished without writing an answer")
            return
        state.status, state.answer, state.stop_kind, state.reason = RunStatus.COMPLETED, answer, None, None
        state.summary = summarize(state.messages)

    def _late_stop(self, state: RunState) -> None:
        """A stop asked during the turn that finished the run wins over the answer it wrote (the stop was recorded
        first); the answer stays in the history."""
        if state.status == RunStatus.COMPLETED and (who := stop_asked(self.stop_check)):
            self.stop(state, who)

    def stop(self, state: RunState, who: str) -> None:
        """A person stopped the run: nothing more runs; it keeps its history and can be resumed."""
        state.status, state.stop_kind, state.reason = RunStatus.STOPPED, StopKind.STOPPED, f"stopped by {who}"
        state.summary = redact(summarize(state.messages, [c.__dict__ for c in state.pending_calls]))

    def escalate(self, state: RunState, kind: StopKind, reason: str) -> None:
        """The run stops and goes to a person; its reason and summary are cut of secrets before anyone sees them."""
        state.status, state.stop_kind, state.reason = RunStatus.ESCALATED, kind, redact(reason)
        state.summary = redact(summarize(state.messages, [c.__dict__ for c in state.pending_calls]))

    # --- tools --------------------------------------------------------------------------------

    def _act(self, state: RunState, content: list[dict[str, Any]], step: StepRecord) -> None:
        uses = [b for b in content if b.get("type") == "tool_use"]
        if not uses:
            self.escalate(state, StopKind.MODEL_ERROR, "stop_reason was tool_use but the reply held no tool calls")
            return
        results: dict[str, ToolResult] = {}
        records: dict[str, dict[str, Any]] = {}
        held: list[PendingCall] = []
        runnable: list[dict[str, Any]] = []
        for use in uses:
            verdict = self.screen(state, use, self._context(str(use["id"])))
            if verdict is None:
                runnable.append(use)
            elif isinstance(verdict, PendingCall):
                held.append(verdict)
            else:
                results[use["id"]] = verdict
                records[use["id"]] = self._record(use, verdict, 0, "refused")
        self._run_tools(runnable, results, records)

        stopped_by = next((r.data[STOPPED_BY] for r in results.values() if isinstance(r.data, dict) and
                           STOPPED_BY in r.data), None) or (stop_asked(self.stop_check) if held else None)
        escalation = next((results[u["id"]].data["reason"] for u in uses if self._ends_run(u, results)), None)
        if (escalation or stopped_by) and held:
            not_run = f"Not run: {stopped_by} stopped the run." if stopped_by else "Not run: the run was handed to a person."
            for call in held:
                results[call.tool_use_id] = ToolResult(not_run, is_error=True)
                records[call.tool_use_id] = self._record({"id": call.tool_use_id, "name": call.name,
                                                          "input": call.input}, results[call.tool_use_id], 0, "refused")
            held = []
        for call in held:
            why = "waiting for approval" + (" (a write to another ticket than the run's own)" if call.other_ticket else "")
            records[call.tool_use_id] = {"id": call.tool_use_id, "name": call.name, "input": call.input,
                                         "result": why, "is_error": False, "latency_ms": 0, "status": "held"}
        step.tool_calls = [records[u["id"]] for u in uses]
        for record in step.tool_calls:
            self.observer.on_tool_result(state, record)

        blocks = [result_block(u["id"], results[u["id"]]) for u in uses if u["id"] in results]
        if held:
            state.pending_results, state.pending_calls, state.status = blocks, held, RunStatus.AWAITING_APPROVAL
            state.summary = summarize(state.messages, [c.__dict__ for c in held])
            return
        state.messages.append({"role": "user", "content": blocks})
        if stopped_by:
            self.stop(state, stopped_by)
        elif escalation:
            self.escalate(state, StopKind.MODEL_REQUEST, f"the agent asked for a person: {escalation}")

    def _run_tools(self, uses: list[dict[str, Any]], results: dict[str, ToolResult],
                   records: dict[str, dict[str, Any]]) -> None:
        """Read-only calls run concurrently; calls with side effects then run one by one, in order."""
        ran = run_calls(self.registry, uses, self._context, self.settings.tool_timeout_seconds, self.execute,
                        stopped=lambda: stop_asked(self.stop_check))
        for use in uses:
            result, latency = ran[str(use["id"])]
            results[use["id"]] = result
            records[use["id"]] = self._record(use, result, latency, "ran")

    def execute_approved(self, call: PendingCall, arguments: dict[str, Any], actor: str | None) -> ToolResult:
        """Run a gated call after a person decided (the run layer decides who may)."""
        ctx = self._context(call.tool_use_id, actor=actor)
        return self.execute(self.registry, ctx, call.name, arguments)

    def _context(self, tool_use_id: str, actor: str | None = None) -> ToolContext:
        return ToolContext(db=self.db, settings=self.settings, run_id=self.run_id, tool_use_id=tool_use_id,
                           actor=actor)

    def _ends_run(self, use: dict[str, Any], results: dict[str, ToolResult]) -> bool:
        tool = self.registry.get(use.get("name", ""))
        result = results.get(use["id"])
        return bool(tool and tool.ends_run and result and not result.is_error and isinstance(result.data, dict))

    @staticmethod
    def _record(use: dict[str, Any], result: ToolResult, latency: int, status: str) -> dict[str, Any]:
        return {"id": use["id"], "name": use.get("name"), "input": use.get("input"), "result": result.text,
                "is_error": result.is_error, "latency_ms": latency, "status": status}

    # --- after a person decided -----------------------------------------------------------------

    def complete_waiting_turn(self, state: RunState, decided: dict[str, ToolResult]) -> None:
        """Every held call has its result: send the whole turn's results back as one user message."""
        uses = history.tool_uses(state.messages[-1])
        known = {b["tool_use_id"]: b for b in state.pending_results}
        known.update({tid: result_block(tid, result) for tid, result in decided.items()})
        state.messages.append({"role": "user", "content": [known[u["id"]] for u in uses]})
        state.pending_results, state.pending_calls, state.status = [], [], RunStatus.RUNNING


def _reserve(budget: Any, input_tokens: int, output_tokens: int, waiter: str) -> float:
    """The budget's answer; if it cannot be read (the database is away), the call goes without it."""
    try:
        return float(budget.reserve(input_tokens=input_tokens, output_tokens=output_tokens, waiter=waiter))
    except Exception:
        logger.warning("could not read the shared model budget; calling without it", exc_info=True)
        return 0.0


def _leave(budget: Any, waiter: str) -> None:
    try:
        budget.leave(waiter)
    except Exception:  # its place in the queue expires on its own
        logger.warning("could not leave the model budget's queue", exc_info=True)


def result_block(tool_use_id: str, result: ToolResult) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": result.text}
    if result.is_error:
        block["is_error"] = True
    return block
