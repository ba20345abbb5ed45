"""A customer's tier from their Zendesk organization: one organization field (ZENDESK_TIER_FIELD, its key in the
organization's `organization_fields`) and which of its values mean which tier (ZENDESK_TIERS). A value that is not
listed, an empty field or a customer without an organization has no tier: it is never guessed."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as default
from typing import Any

from bot.config import Settings


@dataclass(frozen=True)
class Tiers:
    field: str | None = None
    values: dict[str, str] = default(default_factory=dict)  # the field's value, case-folded -> the tier

    def of(self, org: dict[str, Any] | None) -> str | None:
        """The tier an organization's field names, or None."""
        if not self.field or not org:
            return None
        value = (org.get("organization_fields") or {}).get(self.field)
        if value is None or isinstance(value, (dict, list)):
            return None
        return self.values.get(str(value).strip().casefold())


def tiers_of(settings: Settings) -> Tiers:
    return Tiers(settings.zendesk_tier_field,
                 {key.strip().casefold(): tier for key, tier in settings.zendesk_tiers.items()})
