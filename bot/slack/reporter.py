"""The run's Slack thread: thoughts and one compact line per tool call, the draft to approve, the ending.

Streams with chat.startStream / appendStream / stopStream (task timeline) where the workspace allows it,
else posts one progress message per stretch of work and updates it in place. Writes are batched and paced
(about one per second per channel), so a busy run never floods the channel.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from slack_sdk.errors import SlackApiError
from sqlmodel import select

from bot.agent.events import Observer
from bot.agent.history import text_of
from bot.agent.model import ModelResponse
from bot.agent.state import PendingCall, RunState
from bot.db.models import Approval, Customer, Run, Ticket
from bot.slack import queue
from bot.slack.authz import approvers_hint
from bot.slack.context import SlackContext
from bot.slack_ui import blocks as ui
from bot.slack_ui.limits import clip

logger = logging.getLogger(__name__)
ROLL_OVER_LINES = 25


class ThreadReporter(Observer):
    def __init__(self, ctx: SlackContext, run_id: int):
        self.ctx, self.run_id = ctx, run_id
        with ctx.db.session() as session:
            run = session.get(Run, run_id)
            origin = dict(run.origin or {})
            self.started_by = run.started_by
        self.channel, self.thread_ts = origin.get("channel"), origin.get("thread_ts")
        self.team = origin.get("team")
        self.enabled = bool(self.channel and self.thread_ts)
        self._lock = threading.RLock()
        self._lines: list[str] = []
        self._chunks: list[dict[str, Any]] = []
        self._stream_ts: str | None = None
        self._progress_ts: str | None = None
        self._progress_lines: list[str] = []
        self._dirty, self._last_flush, self._timer = False, 0.0, None
        self.finished = False

    # --- events from the loop ---------------------------------------------------------------------

    def on_model_response(self, state: RunState, response: ModelResponse) -> None:
        thought = text_of(response.content)
        if thought and response.stop_reason == "tool_use":
            self._add(ui.thought_line(thought), {"type": "markdown_text", "text": clip(thought, 1500) + "\n"})

    def on_tool_result(self, state: RunState, call: dict[str, Any]) -> None:
        status = "error" if call.get("is_error") else "complete"
        if call.get("status") == "held":
            status = "pending"
        args = call.get("input") or {}
        title = f"{call.get('name')} {ui.escape(str(args.get('ticket_id') or args.get('query') or ''))}"
        chunk = {"type": "task_update", "id": call["id"], "title": clip(title, 200), "status": status,
                 "output": clip(" ".join(str(call.get("result", "")).split()), 200)}
        self._add(ui.tool_line(call), chunk)

    def on_approval_needed(self, state: RunState, calls: list[PendingCall]) -> None:
        self._close_stretch()
        for call in calls:
            self._post_approval(call)
        queue.refresh_homes(self.ctx)

    def on_finished(self, state: RunState) -> None:
        self._close_stretch()
        self.finished = True
        if self.enabled:
            text, blocks = ui.build_final(run_id=self.run_id, status=state.status, answer=state.answer,
                                          reason=state.reason, steps=state.steps, tokens=state.usage.total,
                                          cost=state.cost_usd)
            self._safe(lambda: self.ctx.post(self.channel, text, blocks, thread_ts=self.thread_ts))
        if state.status in ("escalated", "failed"):
            queue.post_escalations(self.ctx, self.run_id)
        queue.refresh_homes(self.ctx)

    # --- batching ---------------------------------------------------------------------------------

    def _add(self, line: str, chunk: dict[str, Any]) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._lines.append(line)
            self._chunks.append(chunk)
            self._dirty = True
        self._flush()

    def _flush(self, force: bool = False) -> None:
        with self._lock:
            if not self._dirty:
                return
            wait = self._last_flush + self.ctx.settings.slack_min_interval_seconds - time.monotonic()
            if wait > 0 and not force:
                if self._timer is None:
                    self._timer = threading.Timer(wait, self._timer_flush)
                    self._timer.daemon = True
                    self._timer.start()
                return
            lines, chunks = self._lines, self._chunks
            self._lines, self._chunks, self._dirty = [], [], False
            self._last_flush = time.monotonic()
            self._safe(lambda: self._write(lines, chunks))

    def _timer_flush(self) -> None:
        with self._lock:
            self._timer = None
        self._flush()

    def _write(self, lines: list[str], chunks: list[dict[str, Any]]) -> None:
        if self.ctx.settings.slack_streaming and self.ctx.streaming_ok and self._stream(chunks):
            return
        self._progress_lines += lines
        text, blocks = ui.build_progress(self._progress_lines)
        if self._progress_ts is None:
            self._progress_ts = self.ctx.post(self.channel, text, blocks, thread_ts=self.thread_ts)
        else:
            self.ctx.update(self.channel, self._progress_ts, text, blocks)
        if len(self._progress_lines) >= ROLL_OVER_LINES:
            self._progress_ts, self._progress_lines = None, []

    def _stream(self, chunks: list[dict[str, Any]]) -> bool:
        try:
            self.ctx.pacer.wait(self.channel)
            if self._stream_ts is None:
                extra = {"recipient_user_id": self.started_by, "recipient_team_id": self.team} if self.team else {}
                response = self.ctx.client.chat_startStream(channel=self.channel, thread_ts=self.thread_ts,
                                                            task_display_mode="timeline", chunks=chunks, **extra)
                self._stream_ts = response["ts"]
            else:
                self.ctx.client.chat_appendStream(channel=self.channel, ts=self._stream_ts, chunks=chunks)
            return True
        except SlackApiError as exc:
            if self._stream_ts is None:  # the workspace cannot stream: post and update ordinary messages
                logger.info("streaming unavailable (%s); falling back to posted messages", exc.response.get("error"))
                self.ctx.streaming_ok = False
                return False
            raise

    def _close_stretch(self) -> None:
        """Flush what is buffered and end the current stream or progress message."""
        if not self.enabled:
            return
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        self._flush(force=True)
        with self._lock:
            if self._stream_ts is not None:
                ts, self._stream_ts = self._stream_ts, None
                self._safe(lambda: self.ctx.client.chat_stopStream(channel=self.channel, ts=ts))
            self._progress_ts, self._progress_lines = None, []

    # --- approvals ----------------------------------------------------------------------------------

    def _post_approval(self, call: PendingCall) -> None:
        with self.ctx.db.session() as session:
            approval = session.exec(select(Approval).where(Approval.tool_use_id == call.tool_use_id)).first()
            ticket = session.get(Ticket, call.input.get("ticket_id", "")) if approval else None
            customer = session.get(Customer, ticket.customer_id) if ticket else None
        if approval is None or not self.enabled:
            return
        text, blocks = ui.build_approval_request(
            approval_id=approval.id, fingerprint=approval.fingerprint, ticket_id=call.input.get("ticket_id", "?"),
            customer=customer.name if customer else "the customer", title=ticket.title if ticket else "",
            message=str(call.input.get("message", "")), approvers_hint=approvers_hint(self.ctx, self.started_by))
        ts = self._safe(lambda: self.ctx.post(self.channel, text, blocks, thread_ts=self.thread_ts))
        if ts:
            with self.ctx.db.session() as session:
                row = session.get(Approval, approval.id)
                row.origin = {"channel": self.channel, "ts": ts, "thread_ts": self.thread_ts}
                session.add(row)

    def _safe(self, action: Any) -> Any:
        """Slack trouble is logged and never stops the run."""
        try:
            return action()
        except Exception:
            logger.exception("Slack update for run %s failed", self.run_id)
            return None
