"""Hot-path statements built once per dialect and executed through the session's connection with plain
parameters (no ORM unit of work, no statement construction per call): the writes Slack's acknowledgement
waits for, and the outbox rows every checkpoint writes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ClauseElement, CursorResult, Dialect, Result, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.sql.compiler import SQLCompiler
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


class Prepared:
    """A Core statement compiled once per dialect to the driver's SQL and executed on the driver's connection,
    its parameters converted by the statement's own column types (JSON, timestamps, status). For the one write
    Slack's acknowledgement waits on: SQLAlchemy's execute costs several times what SQLite's insert does.
    No SQLAlchemy events fire (take SQLite's write gate with `WriteGate.held`); the caller commits."""

    def __init__(self, statement: ClauseElement):
        self.statement = statement
        self._by_dialect: dict[str, _Compiled] = {}

    def execute(self, dbapi_connection: DBAPIConnection, dialect: Dialect, params: dict[str, Any]) -> Any:
        """Execute with `params`; returns the first row (RETURNING), or None."""
        compiled = self._by_dialect.get(dialect.name)
        if compiled is None:
            compiled = self._by_dialect[dialect.name] = _Compiled(self.statement, dialect)
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(compiled.sql, compiled.parameters(params), **compiled.options)
            return cursor.fetchone() if cursor.description else None
        finally:
            cursor.close()


class _Compiled:
    def __init__(self, statement: ClauseElement, dialect: Dialect):
        compiled = statement.compile(dialect=dialect)
        if not isinstance(compiled, SQLCompiler) or compiled.escaped_bind_names:
            raise ValueError("a Prepared statement needs plain parameter names")
        self.sql = compiled.string
        self.defaults = {key: bind.value for key, bind in compiled.binds.items() if bind.value is not None}
        self.processors = {key: processor for key, bind in compiled.binds.items()
                           if (processor := bind.type.dialect_impl(dialect).bind_processor(dialect)) is not None}
        self.order = list(compiled.positiontup) if compiled.positional and compiled.positiontup else None
        # psycopg: a server-side prepared statement from the first execution on a connection (by default only
        # from the sixth); planning this statement costs PostgreSQL more than running it.
        self.options = {"prepare": True} if dialect.driver == "psycopg" else {}

    def parameters(self, params: dict[str, Any]) -> Any:
        values = {**self.defaults, **params}
        for key, processor in self.processors.items():
            values[key] = processor(values.get(key))
        return tuple(values[key] for key in self.order) if self.order is not None else values
