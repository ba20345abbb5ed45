"""The database's clock: "now" for times that several processes compare (claims, leases, heartbeats).

A host whose clock runs ahead would otherwise take over work another host still owns, or look dead to it. So a
statement that writes or compares such a time says `db_now()` (plus or minus seconds) and the database puts its
own time there: PostgreSQL's `clock_timestamp()`, one clock for every host that connects. SQLite is a file on
one host, whose processes share that host's clock; its `now` is used the same way.

`db_now()` is typed like the `UTCDateTime` columns it is compared with, and SQLite gets the text those columns
hold there (`YYYY-MM-DD HH:MM:SS.ffffff`), so comparisons and stored values agree on both databases.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import literal, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlmodel import Session
from sqlmodel.sql.sqltypes import UTCDateTime


class db_now(FunctionElement[datetime]):  # noqa: N801  (reads as the SQL function it stands for)
    """The database's current time, `seconds` later (or earlier, when negative)."""

    type = UTCDateTime()
    inherit_cache = True
    name = "db_now"

    def __init__(self, seconds: float = 0.0) -> None:
        super().__init__(literal(float(seconds)))


@compiles(db_now, "postgresql")
def _postgresql(element: db_now, compiler: SQLCompiler, **kw: Any) -> str:
    return f"(clock_timestamp() + make_interval(secs => {compiler.process(element.clauses, **kw)}))"


@compiles(db_now, "sqlite")
def _sqlite(element: db_now, compiler: SQLCompiler, **kw: Any) -> str:
    seconds = compiler.process(element.clauses, **kw)
    # %f is SS.SSS; three more digits make the six the UTCDateTime columns store, so text compares as time
    return f"(strftime('%Y-%m-%d %H:%M:%f', 'now', printf('%+.3f seconds', {seconds})) || '000')"


def database_now(session: Session) -> datetime:
    """The database's time now, read with one round trip (for a figure shown to a person, or a test)."""
    value = session.execute(select(db_now())).scalar_one()
    return value
