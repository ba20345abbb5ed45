"""One Settings object, read from the environment once, failing fast on bad values."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.durations import parse_duration
from bot.redact import register

REPO_ROOT = Path(__file__).resolve().parents[1]
# An intake run's intents by default (KITEBASE_TRIAGE_INTENTS), with the desk tags that mean each (kb_data's tags)
DEFAULT_TRIAGE_INTENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sso", ("sso", "okta", "saml", "azure-ad", "onelogin", "scim", "provisioning", "conditional-access")),
    ("account", ("login", "locked-out", "2fa", "password-reset", "account-recovery", "admin-transfer", "permissions",
                 "guests", "seats", "security")),
    ("billing", ("billing", "invoices", "vat", "payment", "payment-failed", "refund", "plan-change", "downgrade",
                 "cancellation", "proration", "card", "currency", "discount", "annual", "quote")),
    ("bug", ("bug", "outage", "incident", "502", "timeout", "performance", "sync", "duplicate", "offline",
             "mobile")),
    ("integrations", ("integrations", "slack", "webhooks", "api", "rate-limit", "github", "jira", "retries")),
    ("how-to", ("question", "import", "custom-fields", "audit-log", "boards", "timeline", "notifications", "email")),
)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=None, extra="ignore", populate_by_name=True)

    database_url: str = Field("sqlite:///kitebase.db", validation_alias="DATABASE_URL")
    data_dir: Path = Field(REPO_ROOT / "kb_data", validation_alias="KITEBASE_DATA_DIR")

    # Model
    anthropic_api_key: SecretStr | None = Field(None, validation_alias="ANTHROPIC_API_KEY")
    anthropic_base_url: str | None = Field(None, validation_alias="ANTHROPIC_BASE_URL")
    model: str = Field("claude-opus-5-5", validation_alias="KITEBASE_MODEL")
    offline: bool = Field(False, validation_alias="KITEBASE_OFFLINE")
    # max_tokens per call; unset: 16,000 when the model thinks (thinking counts against it), 4,096 when not
    # (bot/agent/capabilities.py)
    max_output_tokens: int | None = Field(None, gt=0, validation_alias="KITEBASE_MAX_OUTPUT_TOKENS")
    # Adaptive thinking (the model decides when and how much to think, between tool calls too) on the models
    # that support it; `off` sends no thinking parameter. Effort unset: the API's default.
    thinking: Literal["adaptive", "off"] = Field("adaptive", validation_alias="KITEBASE_THINKING")
    effort: Literal["low", "medium", "high", "xhigh", "max"] | None = Field(None, validation_alias="KITEBASE_EFFORT")
    # Tried once for a turn when overloaded answers (529) outlast the retries; unset: none
    fallback_model: str | None = Field(None, validation_alias="KITEBASE_FALLBACK_MODEL")
    # The longest a run waits for the shared model budget before a call (the wait does not count as running)
    capacity_wait_seconds: float = Field(900.0, gt=0, validation_alias="KITEBASE_CAPACITY_WAIT_SECONDS")
    model_max_retries: int = Field(3, ge=0, le=10, validation_alias="KITEBASE_MODEL_MAX_RETRIES")
    model_timeout_seconds: float = Field(120.0, gt=0, validation_alias="KITEBASE_MODEL_TIMEOUT_SECONDS")

    # Guards (checked before every model call)
    max_steps: int = Field(15, ge=1, le=200, validation_alias="KITEBASE_MAX_STEPS")
    token_budget: int = Field(400_000, ge=1, validation_alias="KITEBASE_TOKEN_BUDGET")
    cost_budget_usd: float = Field(2.00, gt=0, validation_alias="KITEBASE_COST_BUDGET_USD")
    deadline_seconds: float = Field(300.0, gt=0, validation_alias="KITEBASE_DEADLINE_SECONDS")
    max_repeats: int = Field(2, ge=1, le=20, validation_alias="KITEBASE_MAX_REPEATS")
    max_pause_continuations: int = Field(3, ge=0, le=20, validation_alias="KITEBASE_MAX_PAUSE_CONTINUATIONS")

    # Tools
    tool_result_max_chars: int = Field(8000, ge=200, validation_alias="KITEBASE_TOOL_RESULT_MAX_CHARS")
    tool_timeout_seconds: float = Field(30.0, gt=0, le=600, validation_alias="KITEBASE_TOOL_TIMEOUT_SECONDS")
    approval_tools: Annotated[frozenset[str], NoDecode] = Field(
        frozenset({"reply_to_customer"}), validation_alias="KITEBASE_APPROVAL_TOOLS"
    )
    max_goal_chars: int = Field(4000, ge=20, validation_alias="KITEBASE_MAX_GOAL_CHARS")

    # The desk (bot/desk): the embedded one (our tables, loaded from data_dir) or a Zendesk account
    desk: Literal["embedded", "zendesk"] = Field("embedded", validation_alias="KITEBASE_DESK")
    zendesk_url: str | None = Field(None, validation_alias="ZENDESK_URL")  # https://acme.zendesk.com (any base URL)
    zendesk_email: str | None = Field(None, validation_alias="ZENDESK_EMAIL")
    zendesk_api_token: SecretStr | None = Field(None, validation_alias="ZENDESK_API_TOKEN")
    zendesk_oauth_token: SecretStr | None = Field(None, validation_alias="ZENDESK_OAUTH_TOKEN")
    zendesk_webhook_secret: SecretStr | None = Field(None, validation_alias="ZENDESK_WEBHOOK_SECRET")
    zendesk_sync_since_seconds: float = Field(730 * 86400, gt=0, validation_alias="ZENDESK_SYNC_SINCE")  # 24 months
    zendesk_poll_seconds: float = Field(120.0, gt=0, validation_alias="ZENDESK_POLL_SECONDS")
    zendesk_timeout_seconds: float = Field(20.0, gt=0, validation_alias="ZENDESK_TIMEOUT_SECONDS")
    # A customer's tier from their Zendesk organization (docs/zendesk.md): the organization field's key, such as
    # support_plan, and which of its values mean which tier, "enterprise=Enterprise,business=Business". A value
    # not listed (or no field set) gives no tier: it is never guessed.
    zendesk_tier_field: str | None = Field(None, validation_alias="ZENDESK_TIER_FIELD")
    zendesk_tiers: Annotated[dict[str, str], NoDecode] = Field({}, validation_alias="ZENDESK_TIERS")

    # Intake (bot/runs/intake, docs/intake.md): new tickets that match a rule become runs without a mention.
    # Off while no rules file is named. A ticket a person answered publicly this many hours ago or less is skipped.
    intake_rules: Path | None = Field(None, validation_alias="KITEBASE_INTAKE_RULES")
    intake_quiet_hours: float = Field(24.0, ge=0, validation_alias="KITEBASE_INTAKE_QUIET_HOURS")
    intake_every_seconds: float = Field(2.0, gt=0, le=600, validation_alias="KITEBASE_INTAKE_EVERY")
    # The intents an intake run's triage chooses from (tools/triage.py), each with the desk tags that mean it:
    # "billing=billing,invoices; sso=sso,okta; how-to=question". `other` is always one (anything else).
    triage_intents: Annotated[dict[str, tuple[str, ...]], NoDecode] = Field(
        default_factory=lambda: dict(DEFAULT_TRIAGE_INTENTS), validation_alias="KITEBASE_TRIAGE_INTENTS")

    # What is due (bot/desk/sla.py, docs/sla.md). The embedded desk's reply targets by tier and priority, with
    # business hours (default: kb_data/sla.toml in KITEBASE_DATA_DIR; Zendesk brings its own SLA policies). A draft
    # waiting for a decision is announced again once this share of its ticket's target has passed.
    sla_policies: Path | None = Field(None, validation_alias="KITEBASE_SLA_POLICIES")
    sla_remind_share: float = Field(0.75, gt=0, lt=1, validation_alias="KITEBASE_SLA_REMIND_SHARE")

    # Step log (JSON lines); empty means: only the database
    step_log_path: Path | None = Field(None, validation_alias="KITEBASE_STEP_LOG")

    # Slack and the human queue (used by `kitebase serve`)
    slack_bot_token: SecretStr | None = Field(None, validation_alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(None, validation_alias="SLACK_SIGNING_SECRET")
    slack_app_token: SecretStr | None = Field(None, validation_alias="SLACK_APP_TOKEN")
    slack_api_base_url: str | None = Field(None, validation_alias="SLACK_API_BASE_URL")
    port: int = Field(3000, ge=1, le=65535, validation_alias="PORT")
    # Few threads answer Slack fastest: the work is short and Python runs one thread at a time (measured in
    # bench/busy_channel.py: 4 threads gave the lowest p99 for 50 simultaneous mentions).
    http_threads: int = Field(4, ge=1, le=64, validation_alias="KITEBASE_HTTP_THREADS")
    approvers: Annotated[frozenset[str], NoDecode] = Field(frozenset(), validation_alias="KITEBASE_APPROVERS")
    escalation_channel: str | None = Field(None, validation_alias="KITEBASE_ESCALATION_CHANNEL")
    # who the terminal acts as on the human queue (`kitebase queue take|resume|close`, unless --as says)
    cli_user: str = Field("cli", min_length=1, validation_alias="KITEBASE_CLI_USER")
    execution: Literal["embedded", "queue"] = Field("embedded", validation_alias="KITEBASE_EXECUTION")
    worker_concurrency: int = Field(8, ge=1, le=256, validation_alias="KITEBASE_WORKER_CONCURRENCY")
    stalled_job_seconds: float = Field(30.0, gt=0, validation_alias="KITEBASE_STALLED_JOB_SECONDS")
    lease_seconds: float = Field(120.0, gt=0, validation_alias="KITEBASE_LEASE_SECONDS")
    run_workers: int = Field(64, ge=1, le=1000, validation_alias="KITEBASE_RUN_WORKERS")
    slack_min_interval_seconds: float = Field(1.0, ge=0, le=10, validation_alias="KITEBASE_SLACK_MIN_INTERVAL")
    slack_streaming: bool = Field(True, validation_alias="KITEBASE_SLACK_STREAMING")
    slack_agent_sessions: bool = Field(True, validation_alias="KITEBASE_SLACK_AGENT_SESSIONS")
    slack_rate_scale: float = Field(1.0, gt=0, le=1000, validation_alias="KITEBASE_SLACK_RATE_SCALE")
    process_stale_seconds: float = Field(15.0, gt=0, validation_alias="KITEBASE_PROCESS_STALE_SECONDS")
    approval_ttl_seconds: float = Field(
        24 * 3600, gt=0, validation_alias=AliasChoices("KITEBASE_APPROVAL_TTL", "approval_ttl_seconds")
    )
    # A reminder in the thread when a draft has waited this long (default: a quarter of the TTL); backup
    # approvers (user and user-group ids) may decide once it has gone out.
    approval_remind_after_seconds: float | None = Field(
        None, gt=0, validation_alias=AliasChoices("KITEBASE_APPROVAL_REMIND_AFTER", "approval_remind_after_seconds")
    )
    backup_approvers: Annotated[frozenset[str], NoDecode] = Field(
        frozenset(), validation_alias="KITEBASE_BACKUP_APPROVERS"
    )
    help_center_url: str | None = Field(None, validation_alias="KITEBASE_HELP_CENTER_URL")  # links to cited sections

    # Traces and logs (bot/telemetry). Spans are exported over OTLP when an endpoint is set; the exporter reads
    # the standard OTEL_EXPORTER_OTLP_* variables itself. Content (prompts, replies) goes on spans only on request.
    otlp_endpoint: str | None = Field(None, validation_alias=AliasChoices("OTEL_EXPORTER_OTLP_ENDPOINT",
                                                                          "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
    trace_content: bool = Field(False, validation_alias="KITEBASE_TRACE_CONTENT")
    log_format: Literal["text", "json"] = Field("text", validation_alias="KITEBASE_LOG_FORMAT")

    @field_validator("approval_tools", "approvers", "backup_approvers", mode="before")
    @classmethod
    def _split_csv(cls, value: object) -> object:
        if isinstance(value, str):
            return frozenset(part.strip() for part in value.replace(" ", ",").split(",") if part.strip())
        return value

    @field_validator("approval_ttl_seconds", "approval_remind_after_seconds", "zendesk_sync_since_seconds",
                     "zendesk_poll_seconds", mode="before")
    @classmethod
    def _parse_duration(cls, value: object) -> object:
        """Accept plain seconds or a duration such as '90m', '24h', '2d'."""
        if isinstance(value, str) and value.strip():
            return parse_duration(value)
        return value

    @model_validator(mode="after")
    def _reminder_before_expiry(self) -> Settings:
        if self.approval_remind_after_seconds is not None and \
                self.approval_remind_after_seconds >= self.approval_ttl_seconds:
            raise ValueError("KITEBASE_APPROVAL_REMIND_AFTER must be shorter than KITEBASE_APPROVAL_TTL (a reminder "
                             "after the draft expired would never go out)")
        return self

    @field_validator("zendesk_tiers", mode="before")
    @classmethod
    def _tier_values(cls, value: object) -> object:
        """ZENDESK_TIERS: "value=Tier" pairs, comma-separated; the field's value is matched without case."""
        if not isinstance(value, str):
            return value
        tiers: dict[str, str] = {}
        for part in (p.strip() for p in value.split(",")):
            if not part:
                continue
            key, sep, tier = (x.strip() for x in part.partition("="))
            if not sep or not key or not tier:
                raise ValueError(f"ZENDESK_TIERS: {part!r} is not value=Tier; write e.g. "
                                 "\"enterprise=Enterprise,business=Business,standard=Standard\"")
            tiers[key] = tier
        return tiers

    @field_validator("zendesk_tier_field", mode="before")
    @classmethod
    def _tier_field_unset_when_blank(cls, value: object) -> object:
        return value.strip() or None if isinstance(value, str) else value

    @field_validator("triage_intents", mode="before")
    @classmethod
    def _parse_intents(cls, value: object) -> object:
        """"billing=billing,invoices; sso=sso,okta" → {"billing": ("billing", "invoices"), "sso": ("sso", "okta")}."""
        if not isinstance(value, str):
            return value
        intents: dict[str, tuple[str, ...]] = {}
        for part in filter(str.strip, value.split(";")):
            name, _, tags = part.partition("=")
            name = name.strip().lower()
            if not re.fullmatch(r"[a-z][a-z0-9-]{0,31}", name) or name in intents:
                raise ValueError(f"KITEBASE_TRIAGE_INTENTS: {name or part.strip()!r} is not an intent name (lower case "
                                 "letters, digits and '-', each once), as in \"billing=billing,invoices; sso=sso,okta\"")
            intents[name] = tuple(t.strip().lower() for t in tags.replace(" ", ",").split(",") if t.strip())
        if not intents:
            raise ValueError("KITEBASE_TRIAGE_INTENTS names no intent; unset it for the defaults")
        return intents

    @field_validator("intake_rules", "sla_policies", mode="before")
    @classmethod
    def _unset_when_empty(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("help_center_url", "zendesk_url", mode="before")
    @classmethod
    def _no_trailing_slash(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip().rstrip("/") or None
        return value

    @model_validator(mode="after")
    def _register_secrets(self) -> Settings:
        """Every secret setting is cut from whatever leaves the process (bot/redact.py)."""
        register(*(v.get_secret_value() for v in (self.anthropic_api_key, self.slack_bot_token,
                                                   self.slack_signing_secret, self.slack_app_token,
                                                   self.zendesk_api_token, self.zendesk_oauth_token,
                                                   self.zendesk_webhook_secret) if v))
        return self

    @model_validator(mode="after")
    def _zendesk_needs_an_account(self) -> Settings:
        if self.desk == "zendesk" and not self.zendesk_url:
            raise ValueError("KITEBASE_DESK=zendesk needs ZENDESK_URL (the account's address, e.g. "
                             "https://acme.zendesk.com)")
        if self.desk == "zendesk" and not (self.zendesk_oauth_token or (self.zendesk_email and self.zendesk_api_token)):
            raise ValueError("KITEBASE_DESK=zendesk needs ZENDESK_EMAIL and ZENDESK_API_TOKEN (or ZENDESK_OAUTH_TOKEN)")
        return self

    @model_validator(mode="after")
    def _tiers_need_both(self) -> Settings:
        if bool(self.zendesk_tier_field) != bool(self.zendesk_tiers):
            raise ValueError("a customer's tier from Zendesk needs both ZENDESK_TIER_FIELD (the organization field, "
                             "e.g. support_plan) and ZENDESK_TIERS (e.g. \"enterprise=Enterprise,business=Business\")")
        return self

    @model_validator(mode="after")
    def _queue_needs_postgres(self) -> Settings:
        if self.execution == "queue" and not self.database_url.startswith("postgresql"):
            raise ValueError("KITEBASE_EXECUTION=queue needs a PostgreSQL DATABASE_URL (the task queue lives there)")
        return self

    @field_validator("thinking", "effort", "fallback_model", mode="before")
    @classmethod
    def _unset_when_blank(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip() or None
        return value

    @property
    def use_offline_model(self) -> bool:
        return self.offline or self.anthropic_api_key is None

    @property
    def sla_policies_path(self) -> Path:
        return self.sla_policies or self.data_dir / "sla.toml"

    @property
    def remind_after_seconds(self) -> float:
        """When a waiting draft gets its reminder: KITEBASE_APPROVAL_REMIND_AFTER, else a quarter of the TTL."""
        return self.approval_remind_after_seconds or self.approval_ttl_seconds / 4


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
