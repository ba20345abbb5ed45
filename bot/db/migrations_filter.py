"""Which tables Alembic manages: not procrastinate's schema."""

from __future__ import annotations

from typing import Any

# procrastinate's schema; the search's full-text index (migration 0019: FTS5 virtual tables and their shadow
# tables on SQLite, tsvector tables on PostgreSQL), which no model describes
UNMANAGED_PREFIXES = ("procrastinate_", "search_fts_")


def include_object(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    table = name if type_ == "table" else getattr(getattr(obj, "table", None), "name", "")
    return not str(table or "").startswith(UNMANAGED_PREFIXES)
