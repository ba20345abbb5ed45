"""SQLModel tables. Nothing here assumes SQLite: JSON columns use SQLAlchemy's portable JSON type."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Dialect,
    Index,
    LargeBinary,
    Table,
    Text,
    UniqueConstraint,
    false,
    inspect,
    text,
)
from sqlalchemy.types import TypeDecorator
from sqlmodel import AutoString, Field, Session, SQLModel

from bot.db import clock
from bot.vocabulary import LIVE, Allowance, ApprovalStatus, EscalationStatus, OutboxStatus, RunStatus, Usage


def utcnow() -> datetime:
    """This process's clock: for what it alone compares or shows. Times other processes compare come from the
    database (bot/db/clock.py, `database_time`)."""
    return datetime.now(UTC)


def database_time() -> Any:
    """A time column that an INSERT not naming it fills with the database's time (bot/db/clock.py): the times
    other processes compare. Read back with the INSERT (RETURNING) when the ORM inserted the row."""
    return Field(default=None, sa_column_kwargs={"default": clock.now(), "nullable": False})


Row = TypeVar("Row", bound=SQLModel)


class Missing(LookupError):
    """A row that must exist does not (e.g. the run a lease was just taken on)."""


def get_or_raise(session: Session, model: type[Row], key: object) -> Row:
    """`session.get` for a row that must be there: raises Missing instead of returning None."""
    row = session.get(model, key)
    if row is None:
        raise Missing(f"there is no {model.__name__} {key!r}")
    return row


class Stored(Protocol):
    id: int | None


def id_of(row: Stored) -> int:
    """The primary key of a row that has been inserted (None only before the INSERT is flushed)."""
    if row.id is None:
        raise Missing(f"this {type(row).__name__} has not been stored yet")
    return row.id


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a table model, for statements built once (SQLModel does not declare `__table__` for
    type checkers)."""
    table = inspect(model).local_table
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} is not a table model")
    return table


def json_column() -> Any:
    return Field(default=None, sa_column=Column(JSON, nullable=True))


class StatusColumn(TypeDecorator[RunStatus]):
    """A run's status: stored as its plain string (the column is the VARCHAR it always was), read as RunStatus."""

    impl = AutoString
    cache_ok = True

    def process_bind_param(self, value: RunStatus | str | None, dialect: Dialect) -> str | None:
        return None if value is None else str(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> RunStatus | None:
        return None if value is None else RunStatus(value)


class Customer(SQLModel, table=True):
    id: str = Field(primary_key=True, max_length=64)
    name: str
    plan: str
    seats: int = 0
    region: str | None = None
    contact_name: str | None = None
    contact_email: str | None = None
    sso_provider: str | None = None
    notes: str | None = Field(default=None, sa_column=Column(Text))
    tier: str | None = Field(default=None, max_length=64)  # Enterprise, Business...: the desk's, as configured


class Ticket(SQLModel, table=True):
    id: str = Field(primary_key=True, max_length=32)
    customer_id: str = Field(foreign_key="customer.id", index=True)
    title: str
    status: str = Field(index=True)  # open | pending | closed
    priority: str | None = "normal"  # None: the desk has none set (Zendesk's null priority), not "normal"
    assignee: str | None = None
    tags: list[str] | None = json_column()
    created_at: datetime = Field(index=True)  # the first-reply figures read a window of new tickets by it
    updated_at: datetime
    requester: str | None = None  # a real desk's requester (its customer is their organization)
    # One fix for many: a problem ticket and its incidents (Zendesk's `type` and `problem_id`). No foreign key:
    # Zendesk's incident may name a problem the mirror does not hold (yet).
    type: str | None = Field(default=None, max_length=16)  # problem | incident | question | task; None: not set
    problem_id: str | None = Field(default=None, max_length=32, index=True)  # the problem this incident is of
    # What is due (bot/desk/sla.py): the reply target now as the desk knows it, and its breach time while it
    # runs (None: paused, achieved or no target), by which backlogs, queues and App Home are ordered.
    sla: dict[str, Any] | None = json_column()
    due_at: datetime | None = Field(default=None, index=True)


class TicketMessage(SQLModel, table=True):
    __tablename__ = "ticket_message"
    __table_args__ = (UniqueConstraint("run_id", "tool_use_id", name="uq_ticket_message_run_tool_use"),)

    id: int | None = Field(default=None, primary_key=True)
    ticket_id: str = Field(foreign_key="ticket.id", index=True)
    author: str
    role: str  # customer | staff | internal | unknown (a public comment whose author the desk could not name)
    body: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime
    # a real desk's files on the message: [{"name", "content_type", "size", "url", "inline"}], never their content
    attachments: list[dict[str, Any]] | None = json_column()
    # Set when an agent tool wrote this message: makes the side effect idempotent per tool call of a run
    # (tool-call ids are unique within a run, not across runs).
    run_id: int | None = Field(default=None, index=True)
    tool_use_id: str | None = Field(default=None, max_length=128)


class HelpSection(SQLModel, table=True):
    __tablename__ = "help_section"

    id: str = Field(primary_key=True, max_length=128)  # e.g. "account-recovery#2"
    article: str = Field(index=True)
    article_title: str
    number: int
    heading: str
    body: str = Field(sa_column=Column(Text, nullable=False))
    url: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # the customer's link (Zendesk)
    # Its article is restricted to a user segment (Zendesk): context for the agent and the lead, never cited or
    # quoted to a customer (bot/desk/links.py refuses a reply that cites it).
    internal: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))


_LIVE_SQL = text("status IN (" + ", ".join(f"'{status}'" for status in LIVE) + ")")  # a partial index's condition


class Run(Usage, Allowance, table=True):
    """A run. Its token totals (Usage) and its current allowance (Allowance) are the run state's own types."""

    # One live run per ticket, enforced by the database on both backends (a partial unique index).
    __table_args__ = (Index("uq_run_live_ticket", "ticket_id", unique=True, sqlite_where=_LIVE_SQL,
                            postgresql_where=_LIVE_SQL),)

    id: int | None = Field(default=None, primary_key=True)
    goal: str = Field(sa_column=Column(Text, nullable=False))
    ticket_id: str | None = Field(default=None, index=True)
    status: RunStatus = Field(default=RunStatus.QUEUED, index=True, sa_type=StatusColumn)
    reason: str | None = Field(default=None, sa_column=Column(Text))
    summary: str | None = Field(default=None, sa_column=Column(Text))
    answer: str | None = Field(default=None, sa_column=Column(Text))
    model: str = ""
    started_by: str | None = None
    origin: dict | None = json_column()  # where the request came from (cli, slack channel/thread)
    thread_key: str | None = Field(default=None, index=True, max_length=200)  # "C123:1700000000.000100"
    batch_id: int | None = Field(default=None, index=True)  # a fan-out child: the batch it drafts for (Batch)
    # A person pressed Stop while a worker held the run: the worker stops it at its next check (bot/runs/lifecycle/stops.py)
    stop_requested_by: str | None = None
    stop_requested_at: datetime | None = None

    # The conversation, stored whole after every turn; the tool results of a turn that waits
    # for approval are held in `pending_results` until every gated call is decided.
    messages: list | None = json_column()
    pending_results: list | None = json_column()
    triage: dict | None = json_column()  # an intake run's {intent, language, sentiment, priority} (record_triage)
    breached_at: datetime | None = None  # when the ticket's reply target breached while a draft of it waited

    # Totals over the run's life (and its tokens, from Usage; the current allowance's columns come from Allowance)
    steps: int = 0
    cost_usd: float = 0.0

    lease_owner: str | None = None
    lease_expires_at: datetime | None = None

    created_at: datetime = database_time()
    updated_at: datetime = database_time()  # the sweeps find stuck and never-dispatched runs by it
    finished_at: datetime | None = None

    @property
    def total_tokens(self) -> int:
        return self.total


class Batch(SQLModel, table=True):
    """One fix for many: the child runs a person started from a run whose reply was approved, each drafting the
    same fix for another ticket; their drafts are decided on one card. One batch per parent run."""

    id: int | None = Field(default=None, primary_key=True)
    parent_run_id: int = Field(foreign_key="run.id", unique=True)
    problem_ticket_id: str = Field(max_length=32)  # the parent's ticket: the problem its incidents link to
    requested_by: str | None = None
    reference: dict | None = json_column()  # {"message", "approved_by", "sources": [[anchor, heading]]}
    skipped: list | None = json_column()  # [{"ticket_id", "reason"}]: tickets asked for that got no child
    created_at: datetime = database_time()


class Step(Usage, table=True):
    """One entry of a run's log; a model call's tokens are its Usage columns."""

    __table_args__ = (UniqueConstraint("run_id", "number", name="uq_step_run_number"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    number: int  # position in the run's log, from 1
    turn: int = 0  # the model call this step belongs to (Run.steps at the time)
    kind: str = "model"  # model | guard | error | stop | approval | wait (bot.vocabulary.StepKind)
    worker: str | None = None  # the process that stored this step (host:pid)
    stop_reason: str | None = None
    model: str | None = None  # the model that answered this turn (a fallback model may answer one turn)
    text: str | None = Field(default=None, sa_column=Column(Text))
    response: list | None = json_column()  # the assistant content exactly as it came back
    tool_calls: list | None = json_column()  # [{id, name, input, result, is_error, latency_ms, status}]
    latency_ms: int = 0
    cost_usd: float = 0.0
    created_at: datetime = database_time()


class Approval(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("run_id", "tool_use_id", name="uq_approval_run_tool_use"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    tool_use_id: str = Field(max_length=128)
    tool_name: str
    tool_input: dict | None = json_column()
    fingerprint: str = Field(max_length=64)
    status: str = Field(default=ApprovalStatus.PENDING, index=True)  # an ApprovalStatus
    edited_input: dict | None = json_column()
    reason: str | None = Field(default=None, sa_column=Column(Text))
    decided_by: str | None = None
    decided_at: datetime | None = None
    result: dict | None = json_column()  # the tool_result block once executed
    origin: dict | None = json_column()  # e.g. the Slack message that shows the draft
    created_at: datetime = database_time()  # drafts expire and remind by it
    reminded_at: datetime | None = None  # when the approvers were reminded (backup approvers may decide after)
    due_reminded_at: datetime | None = None  # when they were told the ticket's reply target nears its breach


class Escalation(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    kind: str  # guard | refusal | truncated | model_error | tool_error | model_request | failure
    reason: str = Field(sa_column=Column(Text, nullable=False))
    summary: str | None = Field(default=None, sa_column=Column(Text))
    status: str = Field(default=EscalationStatus.OPEN, index=True)  # an EscalationStatus
    claimed_by: str | None = None
    note: str | None = Field(default=None, sa_column=Column(Text))
    origin: dict | None = json_column()
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Feedback(SQLModel, table=True):
    """A person's thumbs up or down on a run's answer (one per run and person; the latest click counts)."""

    __table_args__ = (UniqueConstraint("run_id", "user", name="uq_feedback_run_user"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    user: str = Field(max_length=64)
    value: str = Field(max_length=8)  # up | down
    note: str | None = Field(default=None, sa_column=Column(Text))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Delivery(SQLModel, table=True):
    """A Slack message already acted on: one human message starts at most one run, whatever the retries."""

    key: str = Field(primary_key=True, max_length=200)  # e.g. "msg:C123:1700000000.000100"
    run_id: int | None = None
    created_at: datetime = Field(default_factory=utcnow)


class Outbox(SQLModel, table=True):
    """Something Slack must show, written in the same transaction as the state change that causes it.

    One row per message the bot keeps in Slack (a run's timeline, an approval card, a queue post, a user's App
    Home...). Writers bump `version` whenever what the message should show changes; the sender delivers the
    latest state and records `sent_version` and the `ts` Slack returned, so unsent intermediate states are
    replaced by the newest and a restart resends nothing that was delivered.
    """

    # ix_outbox_kind: a change of any run re-publishes the App Homes (kind = 'home'): a lookup, not a scan of
    # every message the desk has ever sent
    __table_args__ = (Index("ix_outbox_due", "status", "next_attempt_at"), Index("ix_outbox_kind", "kind"))

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=200, unique=True)  # e.g. "card:12", "timeline:3:1", "home:U123"
    kind: str = Field(max_length=32)  # an OutboxKind (bot/vocabulary.py) | prompts | answer
    run_id: int | None = Field(default=None, index=True)
    ref_id: int | None = None  # the approval or escalation it shows
    parent_id: int | None = None  # a row that must be in Slack first (a transcript's queue post)
    channel: str | None = Field(default=None, max_length=64)
    thread_ts: str | None = Field(default=None, max_length=32)
    user: str | None = Field(default=None, max_length=64)  # App Home and ephemeral messages
    priority: int = 1  # 0 answers to people, 1 a run's first message, 2 progress, 3 background
    payload: dict | None = json_column()  # what to show, for messages that never change
    state: dict | None = json_column()  # the sender's own bookkeeping (stream mode, steps streamed...)
    version: int = 1
    sent_version: int = 0
    status: str = Field(default=OutboxStatus.PENDING, max_length=16)  # an OutboxStatus
    ts: str | None = Field(default=None, max_length=32)
    attempts: int = 0
    next_attempt_at: datetime = database_time()  # due by the database's clock (whoever wrote it, whoever sends)
    claimed_by: str | None = Field(default=None, max_length=200)
    last_error: str | None = Field(default=None, sa_column=Column(Text))
    created_at: datetime = database_time()
    updated_at: datetime = database_time()
    sent_at: datetime | None = None


class ProcessBeat(SQLModel, table=True):
    """A process that can own runs (serve, worker, CLI) says it is alive every few seconds."""

    __tablename__ = "process_beat"

    owner: str = Field(primary_key=True, max_length=200)  # host:pid, the lease owner name
    kind: str = Field(max_length=32)
    host: str = Field(max_length=200)
    pid: int
    started_at: datetime = database_time()
    beat_at: datetime = database_time()  # dead when older than KITEBASE_PROCESS_STALE_SECONDS by the database
    stopped_at: datetime | None = None


class NamedLock(SQLModel, table=True):
    """A lease on a job only one process should do at a time (e.g. delivering the outbox)."""

    __tablename__ = "named_lock"

    name: str = Field(primary_key=True, max_length=64)
    owner: str | None = Field(default=None, max_length=200)
    expires_at: datetime | None = None


class SearchTerm(SQLModel, table=True):
    """Every term and surface word the search has analysed, numbered once per database (bot/search)."""

    __tablename__ = "search_term"

    id: int | None = Field(default=None, primary_key=True)
    term: str = Field(sa_column=Column(Text, nullable=False, unique=True))


class SearchDocument(SQLModel, table=True):
    """A help section or ticket as the search analysed it: term numbers with their frequency in each field,
    surface word numbers, field lengths (packed arrays), its vector, and the version of the rows it was analysed
    from. `id` is its row in the database's full-text index (search_fts_help / search_fts_ticket: FTS5 on SQLite,
    a tsvector with a GIN index on PostgreSQL; made by migration 0019, outside these models)."""

    __tablename__ = "search_document"
    __table_args__ = (UniqueConstraint("kind", "key", name="uq_search_document_kind_key"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=16)  # help | ticket
    key: str = Field(max_length=128)
    source: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))  # a ticket's newest message id
    updated: float = 0.0  # for ties: the more recently updated ticket first
    terms: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # int32 term numbers, ascending
    tfs: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # uint8 frequency per term and field
    words: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # int32 word numbers (typo correction)
    lengths: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # int32 terms per field
    vector: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))  # vectors.py


class SearchStat(SQLModel, table=True):
    """Per kind of document and term: how many documents hold it as a term (its df) and as a surface word (the
    words typo correction chooses from). Kept in step by every store (bot/search/persist.py)."""

    __tablename__ = "search_stat"

    kind: str = Field(primary_key=True, max_length=16)
    term_id: int = Field(primary_key=True)
    docs: int = 0
    words: int = 0


class SearchTotal(SQLModel, table=True):
    """Per kind of document: how many there are and the sum of each field's length (BM25F's averages)."""

    __tablename__ = "search_total"

    kind: str = Field(primary_key=True, max_length=16)
    docs: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    field_0: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    field_1: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    field_2: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    field_3: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    field_4: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))


class SearchPending(SQLModel, table=True):
    """A help section or ticket whose rows changed since its analysis was stored. Database triggers add it
    (migration 0019), whoever writes; whoever stores the analysis removes it, and the next search stores what a
    writer left (bot/search/catch_up.py)."""

    __tablename__ = "search_pending"

    kind: str = Field(primary_key=True, max_length=16)
    key: str = Field(primary_key=True, max_length=128)


class ModelBudget(SQLModel, table=True):
    """What is left of the organization's Messages API limits, as every process sees it (bot/agent/budget.py):
    per dimension (requests, input and output tokens) its limit, what was available at `as_of`, and the rate it
    refills at, learned from the anthropic-ratelimit-* headers; `paused_until` from a 429's retry-after; the calls
    waiting their turn, in the order they first asked."""

    __tablename__ = "model_budget"

    key: str = Field(primary_key=True, max_length=64)  # a hash of the API key and the model: never the key itself
    dimensions: dict | None = json_column()
    waiters: dict | None = json_column()  # calls waiting their turn: {waiter: [first asked, last asked]}
    as_of: float = 0.0  # epoch seconds
    paused_until: float = 0.0


class DeskSync(SQLModel, table=True):
    """How far the mirror of a real desk has got: the Incremental Ticket Export's cursor, stored with the page
    it led to (bot/desk/zendesk/sync.py), and the Help Center's last read (name `help`)."""

    __tablename__ = "desk_sync"

    name: str = Field(primary_key=True, max_length=32)  # tickets | help
    cursor: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    synced_at: datetime | None = None
    pages: int = 0
    tickets: int = 0
    problem: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # why the last pass failed


class DeskArrival(SQLModel, table=True):
    """Something that arrived on the desk for the intake rules (bot/runs/intake/arrivals.py): a new ticket or a
    customer's new public message, recorded once however it came (webhook, poll, redelivery, `kitebase desk
    add`) in the transaction that mirrored it, then taken, held in a rule's backlog, skipped or ignored."""

    __tablename__ = "desk_arrival"
    __table_args__ = (Index("ix_desk_arrival_open", "state", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=200, unique=True)  # "ticket:4821", "zendesk-comment:5501", "message:88"
    kind: str = Field(max_length=16)  # an ArrivalKind
    ticket_id: str = Field(max_length=32, index=True)
    fields: dict[str, Any] | None = json_column()  # the desk's fields the rules match on, as they arrived
    body: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # a message's text
    author: str | None = Field(default=None, max_length=200)
    state: str = Field(default="new", max_length=16)  # an ArrivalState
    rule: str | None = Field(default=None, max_length=64, index=True)
    reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # why it waits or was skipped
    run_id: int | None = None
    created_at: datetime = database_time()
    decided_at: datetime | None = None  # when it was started, skipped or ignored (the database's clock)
    past_cap: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))
    # started past its rule's max_per_hour because its reply target was due within the rule's due_within


class IntakeRule(SQLModel, table=True):
    """A rule's standing: since when it is in force (arrivals before that are not its), whether a lead paused
    it, and when it last told its channel about its backlog. The rule itself lives in the rules file."""

    __tablename__ = "intake_rule"

    name: str = Field(primary_key=True, max_length=64)
    since: datetime = database_time()
    paused: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))
    paused_by: str | None = Field(default=None, max_length=64)
    noticed_at: datetime | None = None


class DeskWrite(SQLModel, table=True):
    """A write to a real desk (a public reply, an internal note, a status or assignee change), recorded with the
    tool call that decides it and sent exactly once by the desk's sender (bot/desk/zendesk/writes.py)."""

    __tablename__ = "desk_write"
    __table_args__ = (Index("ix_desk_write_due", "status", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    key: str | None = Field(default=None, max_length=200, unique=True)  # "<run id>:<tool_use id>"
    ticket_id: str = Field(max_length=32, index=True)
    kind: str = Field(max_length=16)  # reply | update
    body: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    public: bool = False
    fields: dict[str, Any] | None = json_column()  # status, assignee_id
    run_id: int | None = Field(default=None, index=True)
    tool_use_id: str | None = Field(default=None, max_length=128)
    status: str = Field(default="pending", max_length=16)  # pending | sending | unknown | sent | failed
    attempts: int = 0
    next_attempt_at: datetime = Field(default_factory=utcnow)
    claimed_until: datetime | None = None  # by the database's clock (bot/db/clock.py)
    claimed_by: str | None = Field(default=None, max_length=120)  # the claim's owner: every change is fenced on it
    first_tried_at: datetime | None = None
    zendesk_since: datetime | None = None  # Zendesk's time before the first PUT: the look-up's lower bound
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    comment_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None
    waits_for: int | None = None  # another write's id: this one is not sent while that one is unfinished


class UserGroup(SQLModel, table=True):
    """A Slack user group whose members were read (bot/slack/groups.py, a timer): no row means never read, so the
    rule (bot/runs/lifecycle/people.py) can tell "Slack not asked yet" from an empty group."""

    __tablename__ = "user_group"

    id: str = Field(primary_key=True, max_length=32)  # S…
    refreshed_at: datetime = database_time()


class UserGroupMember(SQLModel, table=True):
    """One member of a user group as last read; a refresh replaces all of a group's rows in one transaction."""

    __tablename__ = "user_group_member"

    group_id: str = Field(primary_key=True, max_length=32, foreign_key="user_group.id")
    user_id: str = Field(primary_key=True, max_length=32)
    refreshed_at: datetime = database_time()


class ChannelReach(SQLModel, table=True):
    """Whether the bot can post in a Slack channel, as every process reads it (bot/runs/intake/reach.py): written
    when `serve` looks at start, when Slack refuses a post for good (not in the channel, archived...) and when the
    bot is invited (Slack's member_joined_channel). No row: never found wanting. `error` None: it can post."""

    __tablename__ = "channel_reach"

    channel: str = Field(primary_key=True, max_length=64)
    error: str | None = Field(default=None, max_length=64)  # Slack's error code: not_in_channel, is_archived...
    name: str | None = Field(default=None, max_length=120)  # the channel's name, when Slack told it
    updated_at: datetime = database_time()
