"""The outbox: what Slack must show, as rows written in the same transaction as the change that causes it, and
the one code that delivers them. Nothing else calls the Slack Web API for a run.

- writers.py  the rows, in the caller's transaction (this package's own names: `outbox.card_changed(...)`),
              among them a run thread's agent session (kind `agent_session`, key `agent_session:{run_id}`)
- claims.py   the sender's side of the table: what is due, claimed before it is sent, the outcome recorded
- sender.py   the thread that delivers rows: paced per channel, answers before progress, Retry-After honoured
- render.py   what each row's message shows now, built with the pure builders in bot/slack_ui
- pacing.py   how fast each Slack method may be called
"""

from bot.outbox.writers import (
    OUTBOX,
    NewRun,
    RunRef,
    Where,
    after_step,
    agent_session,
    batch_card,
    batch_key,
    bump,
    card,
    card_changed,
    digest,
    digest_written,
    endings_changed,
    ephemeral,
    final,
    home,
    homes_changed,
    in_thread,
    intake_request,
    new_row,
    notice,
    plain,
    put,
    queue_changed,
    queue_post,
    reminder,
    request,
    step_stored,
    thread_of,
    timeline,
    timeline_key,
    wake,
)

__all__ = ["OUTBOX", "NewRun", "RunRef", "Where", "after_step", "agent_session", "batch_card", "batch_key", "bump", "card", "card_changed", "digest",
           "digest_written", "endings_changed", "ephemeral", "final", "home", "homes_changed", "in_thread", "intake_request", "new_row", "notice", "plain", "put",
           "queue_changed", "queue_post", "reminder", "request", "step_stored", "thread_of", "timeline", "timeline_key",
           "wake"]
