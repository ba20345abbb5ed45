"""The one clock that several processes compare: the database's (DESIGN.md convention 16).

Leases, claims, heartbeats, named locks and the model budget are written by one process and judged by another,
perhaps on another host whose clock is minutes off. So their times are never a process's own: `now()` is the
database's time inside the statement that writes or compares (`now(seconds)` that many seconds later), and
`epoch()` the same as seconds since 1970 for arithmetic the model budget does in Python under its row lock.
`read_now` and `read_epoch` ask the database for it when a pass of work must judge several rows by one time
(the sweeps).

PostgreSQL: `statement_timestamp()`, the server's clock as the statement began (stable within it, so an index
on the compared column can be used; later than any lock the transaction waited for before it). SQLite: its own
'now', which is the clock of the host the process runs on; a SQLite file is only ever shared by processes on one
host, so they share that clock too. Stored the way SQLAlchemy stores a datetime there (`YYYY-MM-DD
HH:MM:SS.ffffff`, UTC), so the comparisons are the plain string comparisons of its column values."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Float, literal
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement
from sqlmodel import Session, select
from sqlmodel.sql.sqltypes import UTCDateTime

_SQLITE_NOW = "strftime('%Y-%m-%d %H:%M:%f', 'now'{}) || '000'"  # milliseconds, written as microseconds
_SQLITE_EPOCH = "((julianday('now') - 2440587.5) * 86400.0)"


class _Now(FunctionElement[datetime]):
    """The database's time, `seconds` (a number or a bound parameter) from now."""

    type = UTCDateTime()
    name = "kitebase_now"
    inherit_cache = True


class _Epoch(FunctionElement[float]):
    type = Float()
    name = "kitebase_epoch"
    inherit_cache = True


def now(seconds: float | ColumnElement[Any] | None = None) -> ColumnElement[datetime]:
    """The database's time (plus `seconds`) in the statement that uses it."""
    if seconds is None:
        return _Now()
    return _Now(seconds if isinstance(seconds, ColumnElement) else literal(float(seconds), Float()))


def epoch() -> ColumnElement[float]:
    """The database's time as seconds since 1970, in the statement that uses it."""
    return _Epoch()


def read_now(session: Session) -> datetime:
    """The database's time now, for a pass that judges several rows by one time."""
    value = session.exec(select(now())).one()
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def read_epoch(session: Session) -> float:
    return float(session.exec(select(epoch())).one())


@compiles(_Now, "postgresql")
def _now_postgresql(element: _Now, compiler: Any, **kw: Any) -> str:
    clauses = list(element.clauses)
    if not clauses:
        return "statement_timestamp()"
    return f"(statement_timestamp() + make_interval(secs => CAST({compiler.process(clauses[0], **kw)} AS DOUBLE PRECISION)))"


@compiles(_Now, "sqlite")
def _now_sqlite(element: _Now, compiler: Any, **kw: Any) -> str:
    clauses = list(element.clauses)
    if not clauses:
        return "(" + _SQLITE_NOW.format("") + ")"
    offset = compiler.process(clauses[0], **kw)
    return "(" + _SQLITE_NOW.format(f", printf('%+.3f seconds', {offset})") + ")"


@compiles(_Epoch, "postgresql")
def _epoch_postgresql(element: _Epoch, compiler: Any, **kw: Any) -> str:
    return "CAST(extract(epoch FROM statement_timestamp()) AS DOUBLE PRECISION)"


@compiles(_Epoch, "sqlite")
def _epoch_sqlite(element: _Epoch, compiler: Any, **kw: Any) -> str:
    return _SQLITE_EPOCH

