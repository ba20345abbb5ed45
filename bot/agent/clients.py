"""Which model client a run uses. Apart from model.py and offline.py, so neither imports the other."""

from __future__ import annotations

from bot.agent.model import AnthropicModel, ModelClient
from bot.config import Settings

OFFLINE_NAME = "kitebase-offline"


def model_name(settings: Settings) -> str:
    """The name of the model `build_model` would build, without building it (nor importing its library)."""
    return OFFLINE_NAME if settings.use_offline_model or settings.anthropic_api_key is None else settings.model


def build_model(settings: Settings) -> ModelClient:
    """The real client when ANTHROPIC_API_KEY is set (and KITEBASE_OFFLINE is not), else the offline model."""
    if settings.use_offline_model or settings.anthropic_api_key is None:
        from bot.agent.offline import OfflineModel  # only when used: it loads the search's query analysis

        return OfflineModel()
    return AnthropicModel(api_key=settings.anthropic_api_key.get_secret_value(), model=settings.model,
                          base_url=settings.anthropic_base_url, max_retries=settings.model_max_retries,
                          timeout=settings.model_timeout_seconds)
