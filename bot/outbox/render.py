"""Outbox rows into Slack calls: what each row's message should show now, read through the run layer and
built with the pure builders in bot/slack_ui. Nothing here sends; bot/outbox/sender.py does."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import col, func, select

from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Outbox
from bot.desk import Desk, open_desk
from bot.runs.lifecycle.people import approvers_hint
from bot.runs.reports import batches, for_slack
from bot.slack_ui import blocks as ui
from bot.slack_ui import cards, queue
from bot.slack_ui.batch import build_batch_card
from bot.slack_ui.limits import MAX_BLOCKS_MESSAGE, mrkdwn_section
from bot.slack_ui.notice import ai_notice
from bot.slack_ui.prompt_answers import build_today, build_waiting_for
from bot.vocabulary import SESSION_STATUS, ApprovalStatus, OutboxKind, RunStatus

METADATA_TYPE = "kitebase_outbox"
TITLE_CHARS = 200  # agents.sessions.setStatus: "Title for the agent session (max 200 characters)"
LINKED_DRAFTS = 10  # drafts an answer links to their threads (a chat.getPermalink each)
HOME_REUSE_SECONDS = 5.0  # App Home's lists read once serve the homes published within this long (_home_data)


@dataclass
class Call:
    method: str
    args: dict[str, Any]


@dataclass
class Delivery:
    calls: list[Call]
    state: dict[str, Any] = field(default_factory=dict)  # the row's bookkeeping once every call succeeded
    creates: bool = False  # the first call creates the message whose ts the row keeps


@dataclass
class Renderer:
    db: Database
    settings: Settings
    permalink: Callable[[str, str], str | None]
    streaming: Callable[[], bool]
    sessions: Callable[[], bool] = lambda: True
    desk: Desk | None = None  # opened when a card first needs the customer's copy of a draft
    _home_seen: tuple[int, float, dict[str, Any]] | None = field(default=None, repr=False)  # _home_data

    def __call__(self, row: Outbox) -> Delivery | None:
        """None when there is nothing to show any more (the run or approval is gone)."""
        if row.parent_id and not row.thread_ts and row.kind != OutboxKind.TRANSCRIPT:  # under a slash command's message
            parent = for_slack.outbox_row(self.db, row.parent_id)
            if parent is None or parent.ts is None:
                return None
            row.thread_ts = parent.ts
        return getattr(self, f"_{row.kind}")(row)

    def _request(self, row: Outbox) -> Delivery:
        payload = row.payload or {}
        if payload.get("intake"):
            taken = payload["intake"]
            due = for_slack.pick_up_due(self.db, int(row.run_id or 0))  # while the run is live (due_shown.py)
            text, blocks = ui.build_intake_request(str(taken.get("rule") or ""), str(taken.get("ticket") or ""),
                                                   taken.get("title"), list(taken.get("why") or []), due)
            return self._post_or_update(row, text, blocks, {**(row.state or {}), "due": due})
        text, blocks = ui.build_request(str(payload.get("user") or ""), str(payload.get("text") or ""))
        return self._post_or_update(row, text, blocks, dict(row.state or {}))

    # --- a run's thread ---------------------------------------------------------------------------

    def _timeline(self, row: Outbox) -> Delivery | None:
        payload, state = row.payload or {}, dict(row.state or {})
        view = for_slack.timeline(self.db, int(row.run_id or 0), payload.get("from_step", 1), payload.get("to_step"))
        if view is None:
            return None
        closed = payload.get("to_step") is not None
        status = ui.timeline_status(view["run"]["status"], closed)
        mode = state.get("mode") or ("stream" if self.streaming() and _has_reader(row.channel, view["run"])
                                     else "message")
        if mode == "stream":
            return self._stream(row, view, state, closed, status)
        text, blocks = ui.build_timeline(_header(view, payload, closed), view["steps"], status,
                                         stop_run=None if closed else view["run"]["id"])
        return self._post_or_update(row, text, blocks, {**state, "mode": "message"})

    def _stream(self, row: Outbox, view: dict[str, Any], state: dict[str, Any], closed: bool,
                status: str) -> Delivery:
        streamed = set(state.get("streamed", []))
        fresh = [s for s in view["steps"] if s["number"] not in streamed]
        chunks = [c for s in fresh for c in ui.step_chunks(s)]
        new_state = {**state, "mode": "stream", "streamed": sorted(streamed | {s["number"] for s in fresh}),
                     "stopped": bool(state.get("stopped")) or closed}
        calls = []
        if row.ts is None:
            run = view["run"]
            head = {"type": "markdown_text", "text": _header(view, row.payload or {}, closed, streamed=True) + "\n"}
            recipient = ({"recipient_user_id": run["started_by"], "recipient_team_id": run["team"]}
                         if run.get("team") and run.get("started_by") else {})
            calls.append(Call("chat.startStream", {"channel": row.channel, "thread_ts": row.thread_ts,
                                                   "task_display_mode": "timeline", "chunks": [head, *chunks],
                                                   **recipient}))
        elif chunks:
            calls.append(Call("chat.appendStream", {"channel": row.channel, "ts": row.ts, "chunks": chunks}))
        if closed and not state.get("stopped"):
            calls.append(Call("chat.stopStream", {"channel": row.channel, "ts": row.ts,  # blocks: under the stream
                                                  "chunks": [{"type": "markdown_text", "text": status + "\n"}],
                                                  "blocks": [ai_notice()]}))
        return Delivery(calls, new_state, creates=row.ts is None)

    def _agent_session(self, row: Outbox) -> Delivery | None:
        """The thread's agent session shows the run's status now; sent only when that differs from what was last
        sent (a bump may change nothing Slack shows). The first call creates the session: its title and who
        asked go with it (Slack ignores both once the session exists)."""
        state = dict(row.state or {})
        run = for_slack.agent_session(self.db, int(row.run_id or 0))
        if run is None:
            return None
        status = SESSION_STATUS[RunStatus(run["status"])]
        if not self.sessions() or state.get("status") == status:
            return Delivery([], state)
        args = {"channel_id": row.channel, "thread_ts": row.thread_ts, "status": status}
        if not state.get("status"):
            args["title"] = session_title(run["id"], run["ticket_id"], run["title"])
            if run["started_by"]:
                args["initiator_user_id"] = run["started_by"]
        return Delivery([Call("agents.sessions.setStatus", args)], {**state, "status": status})

    def _card(self, row: Outbox) -> Delivery | None:
        approval = for_slack.approval(self.db, int(row.ref_id or 0))
        if approval is None:
            return None
        common = {"tool": approval["tool"], "target": approval["target"], "run_ticket": approval["run_ticket"],
                  "sources": approval.get("sources"), "help_url": self.settings.help_center_url,
                  "ticket_url": self._ticket_url()}
        shown = approval["edited_input"] or approval["input"]
        if approval["draft"]:  # exactly what the customer gets (or got): the desk's own copy of the reply
            common["customer_copy"] = self._desk().customer_text(str(shown.get("message") or ""))
        if approval["status"] == ApprovalStatus.PENDING:
            text, blocks = cards.build_approval_request(
                approval_id=approval["id"], fingerprint=approval["fingerprint"], arguments=approval["input"],
                approvers_hint=approvers_hint(self.settings, approval["run"]["started_by"],
                                              reminded=approval.get("reminded_at") is not None),
                stop_run=approval["run"]["id"], due=approval.get("due"), triage=approval.get("triage"), **common)
        else:
            text, blocks = cards.build_approval_decided(
                arguments=shown, status=approval["status"],
                actor=approval["decided_by"], when=approval["decided_at"], reason=approval["reason"],
                result=approval["result"], **common)
        away = (row.payload or {}).get("away")
        if away and approval["status"] != ApprovalStatus.PENDING:
            away = (f":information_source: Shown here because I couldn't post in <#{(row.payload or {}).get('home')}> "
                    "when this draft was written.")
        if away:  # a copy shown elsewhere because the run's own channel refuses the bot: why, first
            text = f"{away}\n{text}"
            blocks = [mrkdwn_section(str(away)), *blocks] if len(blocks) < MAX_BLOCKS_MESSAGE else blocks
        return self._post_or_update(row, text, blocks, {**(row.state or {}), "due": approval.get("due")})

    def _desk(self) -> Desk:
        if self.desk is None:
            self.desk = open_desk(self.settings, self.db)
        return self.desk

    def _final(self, row: Outbox) -> Delivery:
        p, run_id = row.payload or {}, int(row.run_id or 0)
        offer = batches.offer(self.db, run_id, self.settings.desk) if p.get("status") == "completed" else []
        text, blocks = ui.build_final(run_id=run_id, status=p.get("status", ""), answer=p.get("answer"),
                                      reason=p.get("reason"), steps=p.get("steps", 0), tokens=p.get("tokens", 0),
                                      cost=p.get("cost_usd", 0.0), offer=offer,
                                      batch_started=batches.batch_of_run(self.db, run_id) is not None,
                                      stopped_by=p.get("stopped_by"))
        return self._post_or_update(row, text, blocks, dict(row.state or {}))

    def _batch(self, row: Outbox) -> Delivery | None:
        view = batches.batch(self.db, int(row.ref_id or 0))
        if view is None:
            return None
        self._customer_copies(view)
        dues = for_slack.batch_dues(self.db, int(row.ref_id or 0))  # each working or waiting child's ticket
        for child in view["children"]:
            child["due"] = dues.get(str(child.get("ticket_id")))
        text, blocks = build_batch_card(view, help_url=self.settings.help_center_url, ticket_url=self._ticket_url())
        return self._post_or_update(row, text, blocks, {**(row.state or {}), "due": dues})

    def _customer_copies(self, view: dict[str, Any]) -> None:
        """The batch card shows each draft, and the reference it is compared with, as the customer reads it (the
        desk's copy: cited sections by title or link), as the approval card does."""
        copy = self._desk().customer_text
        reference = view.get("reference") or {}
        if reference.get("message"):
            reference["message"] = copy(str(reference["message"]))
        for child in view["children"]:
            approval = child.get("approval") or {}
            if approval.get("message"):
                approval["message"] = copy(str(approval["message"]))

    def _ticket_url(self) -> str | None:
        """A real desk's ticket page ("{id}" filled in by the card)."""
        if self.settings.desk == "zendesk" and self.settings.zendesk_url:
            return f"{self.settings.zendesk_url}/agent/tickets/{{id}}"
        return None

    def _notice(self, row: Outbox) -> Delivery:
        payload = row.payload or {}
        if payload.get("reminder"):
            text, blocks = ui.build_reminder(**payload["reminder"])
        else:
            text, blocks = ui.build_notice(payload.get("text", ""))
        return self._post_or_update(row, text, blocks, dict(row.state or {}))

    # --- the human queue and App Home ---------------------------------------------------------------

    def _queue(self, row: Outbox) -> Delivery | None:
        escalation = for_slack.escalation(self.db, int(row.ref_id or 0))
        if escalation is None:
            return None
        state, run = dict(row.state or {}), escalation["run"]
        if not state.get("permalink") and run.get("channel") and run.get("thread_ts"):
            link = self.permalink(run["channel"], run["thread_ts"])
            if link:
                state["permalink"] = link
        text, blocks = queue.build_escalation(
            escalation_id=escalation["id"], run_id=run["id"], ticket_id=run["ticket_id"] or "-",
            kind=escalation["kind"], reason=escalation["reason"], summary=escalation["summary"] or "",
            thread_link=state.get("permalink"), status=escalation["status"], actor=escalation["claimed_by"],
            held=escalation.get("held"), due=escalation.get("due"))
        return self._post_or_update(row, text, blocks, {**state, "due": escalation.get("due")})

    def _transcript(self, row: Outbox) -> Delivery | None:
        parent = for_slack.outbox_row(self.db, int(row.parent_id or 0))
        if parent is None or parent.ts is None:
            return None
        content = for_slack.transcript(self.db, int(row.run_id or 0))
        return Delivery([Call("files.upload_v2", {
            "channel": parent.channel, "thread_ts": parent.ts, "content": content,
            "filename": f"run-{row.run_id}-transcript.txt", "title": f"Run #{row.run_id} transcript",
            "initial_comment": "The full logged history of this run."})])

    def _digest(self, row: Outbox) -> Delivery:
        p = row.payload or {}
        text, blocks = queue.build_digest(p.get("day", ""), p.get("items", []), p.get("figures"), p.get("gaps"))
        return self._post_or_update(row, text, blocks, dict(row.state or {}))

    def _home(self, row: Outbox) -> Delivery:
        """App Home; its state keeps the due lines it shows (the due-refresh job compares them)."""
        home = self._home_data()
        return Delivery([Call("views.publish", {"user_id": row.user, "view": queue.build_home(**home)})],
                        {**(row.state or {}), "due": for_slack.home_due(home)})

    def _home_data(self) -> dict[str, Any]:
        """Every App Home shows the same lists: read once for the homes published one after another (a due-refresh
        pass bumps them all), again when any home changed since (the homes' versions, summed: whatever changes
        what a home shows bumps them) or after HOME_REUSE_SECONDS."""
        with self.db.session() as session:
            mark = int(session.exec(select(func.coalesce(func.sum(Outbox.version), 0))
                                    .where(col(Outbox.kind) == OutboxKind.HOME)).one())
        kept = self._home_seen
        if kept is not None and kept[0] == mark and time.monotonic() - kept[1] < HOME_REUSE_SECONDS:
            return kept[2]
        home = for_slack.home(self.db, self.settings)
        self._home_seen = (mark, time.monotonic(), home)
        return home

    # --- the Messages tab: suggested prompts and their answers -----------------------------------------

    def _prompts(self, row: Outbox) -> Delivery:
        """Pinned in the DM; no thread_ts: for an agent app a call with one fails silently (the method's page)."""
        p = row.payload or {}
        return Delivery([Call("assistant.threads.setSuggestedPrompts",
                              {"channel_id": row.channel, "title": p.get("title"), "prompts": p.get("prompts", [])})])

    def _answer(self, row: Outbox) -> Delivery:
        p = row.payload or {}
        if p.get("about") == "approvals":
            drafts = [self._with_link(d, i) for i, d in enumerate(p.get("drafts") or [])]
            text, blocks = build_waiting_for(drafts, int(p.get("more") or 0))
        elif p.get("about") == "today":
            text, blocks = build_today(for_slack.today(self.db))
        else:
            text, blocks = queue.build_queue_message(for_slack.queue(self.db))
        return self._post_or_update(row, text, blocks, dict(row.state or {}))

    def _with_link(self, draft: dict[str, Any], index: int) -> dict[str, Any]:
        """A draft with a permalink to its run's thread (the first few: each is a chat.getPermalink)."""
        if index >= LINKED_DRAFTS or not draft.get("channel") or not draft.get("thread_ts"):
            return draft
        return {**draft, "link": self.permalink(str(draft["channel"]), str(draft["thread_ts"]))}

    def _ephemeral(self, row: Outbox) -> Delivery:
        text = str((row.payload or {}).get("text", ""))  # a sentence of ours (mrkdwn), like a notice
        args = {"channel": row.channel, "user": row.user, "text": text}
        if row.thread_ts:
            args["thread_ts"] = row.thread_ts
        return Delivery([Call("chat.postEphemeral", args)])

    # --- shared -----------------------------------------------------------------------------------

    def _post_or_update(self, row: Outbox, text: str, blocks: list[dict[str, Any]],
                        state: dict[str, Any]) -> Delivery:
        """Post the message, or update it; an update that would show exactly what Slack shows already is not
        sent (a writer bumps a row whenever what it shows may have changed; chat.update is Tier 3)."""
        shown = hashlib.sha256(json.dumps([text, blocks], sort_keys=True).encode()).hexdigest()[:16]
        state = {**state, "shown": shown}
        if row.ts is not None:
            if (row.state or {}).get("shown") == shown:
                return Delivery([], state)
            return Delivery([Call("chat.update", {"channel": row.channel, "ts": row.ts, "text": text,
                                                  "blocks": blocks})], state)
        args: dict[str, Any] = {"channel": row.channel, "text": text, "blocks": blocks, "unfurl_links": False,
                                "unfurl_media": False,
                                "metadata": {"event_type": METADATA_TYPE, "event_payload": {"row": row.id}}}
        if row.thread_ts:
            args["thread_ts"] = row.thread_ts
        return Delivery([Call("chat.postMessage", args)], state, creates=True)


def session_title(run_id: int, ticket_id: str | None, subject: str | None) -> str:
    """"KITE-142 · Export to CSV drops custom fields", within Slack's 200 characters."""
    title = " · ".join(part for part in (ticket_id, subject) if part) or f"Run #{run_id}"
    return title if len(title) <= TITLE_CHARS else title[:TITLE_CHARS - 1] + "…"


def _header(view: dict[str, Any], payload: dict[str, Any], closed: bool, *, streamed: bool = False) -> str:
    """Why the stretch opens, and what is due on the ticket while it is open (a closed stretch is history: the
    card or the queue item under it shows the line, kept fresh). A streamed header shows no due line: it is the
    stream's first chunk and is never drawn again, so "due in 25 min" would stay there after the reply was sent
    (the card and the intake pick-up message show the line, kept fresh)."""
    run = view["run"]
    return ui.timeline_header(run["id"], run["ticket_id"], run["model"], payload.get("opening") or {},
                              None if closed or streamed else view.get("due"))


def _has_reader(channel: str | None, run: dict[str, Any]) -> bool:
    """Whether Slack lets this run's timeline be streamed: outside a DM, chat.startStream needs the person it
    streams to (recipient_user_id and recipient_team_id), and a run an intake rule started has none; its timeline
    is a posted message that is updated instead."""
    return (channel or "").startswith("D") or bool(run.get("started_by") and run.get("team"))
