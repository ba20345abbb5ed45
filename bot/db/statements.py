"""Small statement helpers: the row count of an UPDATE, and INSERT … ON CONFLICT DO NOTHING built once per
dialect and table."""

from __future__ import annotations

from typing import Any

from sqlalchemy import CursorResult, Result, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

_cache: dict[tuple[str, str, tuple[str, ...], str | None], Any] = {}


def changed(result: Result[Any]) -> int:
    """How many rows an UPDATE or DELETE changed (its result is a cursor result; the ORM types it as Result)."""
    if not isinstance(result, CursorResult):
        raise TypeError(f"{type(result).__name__} has no row count")
    return result.rowcount


def insert_ignore(session: Session, table: Table, values: dict[str, Any], *, conflict: tuple[str, ...],
                  returning: str | None = None) -> Any:
    """INSERT … ON CONFLICT DO NOTHING [RETURNING col]; returns the returned value (None when the row was
    already there) or the row count (not reliable on PostgreSQL for a skipped row: use `returning`)."""
    dialect = session.get_bind().dialect.name
    key = (dialect, table.name, conflict, returning)
    statement = _cache.get(key)
    if statement is None:
        module = postgresql if dialect == "postgresql" else sqlite
        statement = module.insert(table).on_conflict_do_nothing(index_elements=list(conflict))
        if returning is not None:
            statement = statement.returning(table.c[returning])
        _cache[key] = statement
    result = session.connection().execute(statement, values)
    return result.scalar() if returning is not None else result.rowcount
