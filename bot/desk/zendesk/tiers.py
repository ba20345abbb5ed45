"""A customer's tier from their Zendesk organization: one organization field (ZENDESK_TIER_FIELD, its key in the
organization's `organization_fields`) and which of its values mean which tier (ZENDESK_TIERS). A value that is not
listed, an empty field or a customer without an organization has no tier: it is never guessed. An organization
whose `organization_fields` has no such key at all (the field was renamed or deleted in Zendesk) says nothing about
the tier: the stored one stays, and the log says once per process what to do."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from dataclasses import field as default
from typing import Any

from bot.config import Settings

logger = logging.getLogger(__name__)
_warned: set[str] = set()  # the fields whose absence this process has logged
_lock = threading.Lock()


@dataclass(frozen=True)
class Tiers:
    field: str | None = None
    values: dict[str, str] = default(default_factory=dict)  # the field's value, case-folded -> the tier

    def of(self, org: dict[str, Any] | None, stored: str | None = None) -> str | None:
        """The tier an organization's field names, or None; `stored` when the organization has no such field."""
        if not self.field or not org:
            return None
        fields = org.get("organization_fields") or {}
        if self.field not in fields:
            _say_missing(self.field, org.get("id"))
            return stored
        value = fields.get(self.field)
        if value is None or isinstance(value, (dict, list)):
            return None
        return self.values.get(str(value).strip().casefold())


def _say_missing(field: str, org_id: Any) -> None:
    with _lock:
        if field in _warned:
            return
        _warned.add(field)
    logger.warning("Zendesk organization %s has no field %r (ZENDESK_TIER_FIELD): it was probably renamed or deleted "
                   "in Zendesk. Customers keep the tier they had until it is fixed. Set ZENDESK_TIER_FIELD to the "
                   "field's key as Admin Center lists it under Organization fields (or unset ZENDESK_TIER_FIELD and "
                   "ZENDESK_TIERS), then restart.", org_id, field)


def tiers_of(settings: Settings) -> Tiers:
    return Tiers(settings.zendesk_tier_field,
                 {key.strip().casefold(): tier for key, tier in settings.zendesk_tiers.items()})
