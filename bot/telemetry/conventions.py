"""Every span name, attribute and event name we emit, in one place.

The gen_ai.* names follow the OpenTelemetry GenAI semantic conventions as published in
open-telemetry/semantic-conventions-genai (status Development; read at commit 002c8a6e, December 2026):
  docs/gen-ai/gen-ai-spans.md        inference span `{gen_ai.operation.name} {gen_ai.request.model}`, kind CLIENT
                                     (INTERNAL allowed for a model in the same process); execute tool span
                                     `execute_tool {gen_ai.tool.name}`, kind INTERNAL; content attributes Opt-In
  docs/gen-ai/gen-ai-agent-spans.md  invoke agent internal span `invoke_agent {gen_ai.agent.name}`, kind INTERNAL
  docs/gen-ai/anthropic.md           gen_ai.provider.name "anthropic"; gen_ai.usage.input_tokens = input_tokens
                                     + cache_read_input_tokens + cache_creation_input_tokens; the cache counts as
                                     gen_ai.usage.cache_read.input_tokens and gen_ai.usage.cache_creation.input_tokens
  docs/gen-ai/gen-ai-input-messages.json (and -output-messages, -system-instructions): the JSON of the
                                     opt-in content attributes
error.type, server.*, http.* and url.* are the stable core conventions (open-telemetry/semantic-conventions).
The kitebase.* names are ours: the conventions define no events for guards, approvals or escalations.
"""

from __future__ import annotations

from typing import Final

# Values
AGENT_NAME: Final = "kitebase"
PROVIDER: Final = "anthropic"  # the offline model speaks the Messages API's format too (the provider "flavor")

# Operations and span names
INVOKE_AGENT: Final = "invoke_agent"
CHAT: Final = "chat"
EXECUTE_TOOL: Final = "execute_tool"
SPAN_ESCALATE: Final = "kitebase.run.escalate"  # a sweep hands a run to a person (no agent is invoked)
SPAN_DECIDE: Final = "kitebase.approval.decide"
SPAN_DELIVER: Final = "kitebase.outbox.deliver"
SPAN_SLACK_REQUEST: Final = "POST /slack/events"  # HTTP server span name: `{method} {http.route}`

# GenAI attributes
OPERATION: Final = "gen_ai.operation.name"
PROVIDER_NAME: Final = "gen_ai.provider.name"
AGENT: Final = "gen_ai.agent.name"
CONVERSATION_ID: Final = "gen_ai.conversation.id"
REQUEST_MODEL: Final = "gen_ai.request.model"
REQUEST_MAX_TOKENS: Final = "gen_ai.request.max_tokens"
RESPONSE_MODEL: Final = "gen_ai.response.model"
FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS: Final = "gen_ai.usage.cache_read.input_tokens"
CACHE_CREATION_TOKENS: Final = "gen_ai.usage.cache_creation.input_tokens"
TOOL_NAME: Final = "gen_ai.tool.name"
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
TOOL_TYPE: Final = "gen_ai.tool.type"
# Opt-in content (only with KITEBASE_TRACE_CONTENT=1, always through the secret filter)
INPUT_MESSAGES: Final = "gen_ai.input.messages"
OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS: Final = "gen_ai.system_instructions"
TOOL_CALL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
TOOL_CALL_RESULT: Final = "gen_ai.tool.call.result"

# Core conventions
ERROR_TYPE: Final = "error.type"
HTTP_METHOD: Final = "http.request.method"
HTTP_ROUTE: Final = "http.route"
HTTP_STATUS: Final = "http.response.status_code"
URL_PATH: Final = "url.path"
ANTHROPIC_REQUEST_ID: Final = "anthropic.request.id"  # as the anthropic SDK's own spans name it

# Ours
RUN_ID: Final = "kitebase.run.id"
TICKET_ID: Final = "kitebase.ticket.id"
SLACK_THREAD: Final = "kitebase.slack.thread"  # "C123:1700000000.000100"
SLACK_CHANNEL: Final = "kitebase.slack.channel"
SLACK_REQUEST_TYPE: Final = "kitebase.slack.request.type"  # event_callback:app_mention, block_actions:approve_reply
WORKER: Final = "kitebase.worker"
RUN_STATUS: Final = "kitebase.run.status"
STOP_KIND: Final = "kitebase.run.stop_kind"
RUN_REASON: Final = "kitebase.run.reason"  # content: only with KITEBASE_TRACE_CONTENT=1
RUN_STEPS: Final = "kitebase.run.steps"
TOOL_STATUS: Final = "kitebase.tool.status"  # ran | refused (not run: a guard, bad arguments, no such tool)
APPROVAL_ID: Final = "kitebase.approval.id"
APPROVAL_OUTCOME: Final = "kitebase.approval.outcome"  # approved | edited | rejected | already_decided | ...
APPROVAL_DECIDED_BY: Final = "kitebase.approval.decided_by"
APPROVAL_WAITED: Final = "kitebase.approval.waited_seconds"
APPROVAL_OTHER_TICKET: Final = "kitebase.approval.other_ticket"  # a write to another ticket than the run's own
ESCALATION_KIND: Final = "kitebase.escalation.kind"
GUARD_REASON: Final = "kitebase.guard.reason"  # our own sentence naming the limit and the value
OUTBOX_ROW: Final = "kitebase.outbox.row"
OUTBOX_KIND: Final = "kitebase.outbox.kind"
OUTBOX_METHODS: Final = "kitebase.outbox.methods"
OUTBOX_OUTCOME: Final = "kitebase.outbox.outcome"  # sent | retry | failed | nothing_to_send
OUTBOX_ATTEMPTS: Final = "kitebase.outbox.attempts"

# Events
EVENT_GUARD: Final = "kitebase.guard.tripped"
EVENT_APPROVAL_REQUESTED: Final = "kitebase.approval.requested"
EVENT_APPROVAL_DECIDED: Final = "kitebase.approval.decided"
EVENT_ESCALATED: Final = "kitebase.run.escalated"
