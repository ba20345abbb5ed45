"""What a model can be asked for: adaptive thinking, effort, and the max_tokens that leaves room for thinking.

Sources: Anthropic's adaptive thinking page (checked 2026-12-03): adaptive thinking (`thinking: {"type":
"adaptive"}`, steered by `output_config.effort`) is supported from Claude Opus 4.6 and Sonnet 4.6 on, and
interleaves thinking between tool calls; Claude Sonnet 4.5, Opus 4.5, Haiku 4.5 and older do not support it
(they answer 400). A model not in the table is assumed to support it (every model since 4.6 does); if the API
answers 400 about thinking anyway, the client drops the parameters for the rest of the process (model.py).

Newer models omit the thinking text by default (only the signature comes back), so the request asks for
`display: "summarized"`: the summary is what the thread and the CLI show as the run's interim thoughts.
"""

from __future__ import annotations

import re
from typing import Any

from bot.config import Settings

# Models that do not think adaptively (a dated id, claude-haiku-4-5-20251001, is its model), besides Claude 3
WITHOUT_ADAPTIVE = frozenset({"claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5", "claude-opus-4-1",
                              "claude-opus-4", "claude-sonnet-4", "claude-opus-4-0", "claude-sonnet-4-0",
                              "kitebase-offline"})
THINKING_MAX_TOKENS = 16_000  # the API's own examples; thinking and the reply share it
PLAIN_MAX_TOKENS = 4096


def other_model(answered: str | None, configured: str | None) -> str | None:
    """The model that answered a turn when it is not the configured one (a fallback), else None; a dated id of
    the configured model (claude-opus-5-20261001) is the same model."""
    if not answered or not configured or answered == configured or answered.startswith(configured + "-"):
        return None
    return answered


def adaptive_thinking(model: str) -> bool:
    """Whether `model` accepts `thinking: {"type": "adaptive"}`."""
    base = re.sub(r"-\d{8}$", "", model)
    return base not in WITHOUT_ADAPTIVE and not base.startswith("claude-3")


def thinks(settings: Settings, model: str | None = None) -> bool:
    return settings.thinking == "adaptive" and adaptive_thinking(model or settings.model)


def max_tokens(settings: Settings, model: str | None = None) -> int:
    """KITEBASE_MAX_OUTPUT_TOKENS, else room for thinking when the model thinks."""
    if settings.max_output_tokens:
        return settings.max_output_tokens
    return THINKING_MAX_TOKENS if thinks(settings, model) else PLAIN_MAX_TOKENS


def request_options(settings: Settings, model: str) -> dict[str, Any]:
    """The thinking and effort parameters of a request to `model` (empty: the API's defaults)."""
    options: dict[str, Any] = {}
    if thinks(settings, model):
        options["thinking"] = {"type": "adaptive", "display": "summarized"}
    if settings.effort:
        options["output_config"] = {"effort": settings.effort}
    return options
