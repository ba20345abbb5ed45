"""Which model client a run uses. Apart from model.py and offline.py, so neither imports the other."""

from __future__ import annotations

from functools import partial

from bot.agent import capabilities
from bot.agent.model import AnthropicModel, ModelClient
from bot.config import Settings
from bot.db.engine import Database

OFFLINE_NAME = "kitebase-offline"


def model_name(settings: Settings) -> str:
    """The name of the model `build_model` would build, without building it (nor importing its library)."""
    return OFFLINE_NAME if settings.use_offline_model or settings.anthropic_api_key is None else settings.model


def build_model(settings: Settings, db: Database | None = None) -> ModelClient:
    """The real client when ANTHROPIC_API_KEY is set (and KITEBASE_OFFLINE is not), else the offline model.
    With `db`, the real client draws on the organization's model budget shared through that database."""
    if settings.use_offline_model or settings.anthropic_api_key is None:
        from bot.agent.offline import OfflineModel  # only when used: it loads the search's query analysis

        return OfflineModel()
    key = settings.anthropic_api_key.get_secret_value()
    budgets = None
    if db is not None:
        from bot.agent.budget import SharedModelBudget, budget_key

        made: dict[str, SharedModelBudget] = {}

        def budgets(model: str) -> SharedModelBudget:
            if model not in made:
                made[model] = SharedModelBudget(db, budget_key(key, settings.anthropic_base_url, model))
            return made[model]

    return AnthropicModel(api_key=key, model=settings.model, base_url=settings.anthropic_base_url,
                          max_retries=settings.model_max_retries, timeout=settings.model_timeout_seconds,
                          options=partial(capabilities.request_options, settings), budgets=budgets,
                          fallback=settings.fallback_model)
