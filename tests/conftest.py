"""Shared fixtures. No test may reach the network: the guard below refuses every non-loopback address."""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text

from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk
from bot.search.catch_up import drain

LOOPBACK = {"localhost", "127.0.0.1", "::1", "0.0.0.0", None, ""}
_real_getaddrinfo = socket.getaddrinfo
SECRET_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET",
              "SLACK_API_BASE_URL", "DATABASE_URL", "KITEBASE_OFFLINE")


def _loopback_only(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    if isinstance(host, bytes):
        host = host.decode()
    if host not in LOOPBACK and not str(host).startswith("127."):
        raise OSError(f"tests may not reach the network (tried {host!r}); use a local stand-in")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def _no_network_no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", _loopback_only)
    for name in SECRET_ENV:
        monkeypatch.delenv(name, raising=False)
    for name in [n for n in os.environ if n.startswith("KITEBASE_") and n != "KITEBASE_TEST_DATABASE_URL"]:
        monkeypatch.delenv(name, raising=False)
    for name in [n for n in os.environ if n.startswith("OTEL_")]:  # no test exports traces unless it asks to
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _alone_when_postgres_restarts(request: pytest.FixtureRequest,
                                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Under pytest-xdist, a test that restarts the PostgreSQL server (marked restarts_postgres) runs while no
    other worker is in a test: every other test holds a shared lock, that one an exclusive lock. A turnstile
    keeps the exclusive lock from waiting behind an endless line of shared ones."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    folder = tmp_path_factory.getbasetemp().parent  # shared by the workers of one run
    alone = request.node.get_closest_marker("restarts_postgres") is not None
    with open(folder / "postgres.turnstile", "a") as turnstile, open(folder / "postgres.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _postgres_url() -> str | None:
    return os.environ.get("KITEBASE_TEST_DATABASE_URL") or None


def _skip_without_postgres() -> None:
    """Locally the PostgreSQL half may be skipped; in CI (CI=true) a missing database is a failure."""
    if os.environ.get("CI", "").lower() in ("1", "true"):
        pytest.fail("KITEBASE_TEST_DATABASE_URL is not set in CI: the PostgreSQL tests would not run")
    pytest.skip("KITEBASE_TEST_DATABASE_URL is not set (CI sets it)")


def _reset_postgres(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


# --- databases: the seeded desk is built once per test run, and each test gets its own copy ---------------------
# Migrating and seeding took 0.5 s a test on SQLite and 1.4-1.7 s on PostgreSQL; a file copy and a CREATE DATABASE
# from a template take a fraction of that. Tests that ask for `db` (or `postgres_db`) get the seeded copy; the
# others get an empty database, as before. On PostgreSQL each test works in `<database>_case`, cloned from
# `<database>_seeded` (the database KITEBASE_TEST_DATABASE_URL names is only used to reach the server). Under
# pytest-xdist each worker has its own pair (`<database>_seeded_gw0`, `<database>_case_gw0`, ...).

_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
_SUFFIX = f"_{_WORKER}" if _WORKER else ""

def _seeds(request: pytest.FixtureRequest) -> bool:
    return bool({"db", "postgres_db"} & set(request.fixturenames))


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "kitebase.db"
    _build(f"sqlite:///{path}")
    return path


def _build(url: str) -> None:
    database = Database.from_url(url)
    try:
        create_schema(database.engine)
        seed_desk(database, make_settings(url).data_dir)
        drain(database.engine)  # the search's analysis stored, as a started `serve` stores it: tests start warm
    finally:
        database.engine.dispose()


def _with_database(url: str, name: str) -> str:
    return make_url(url).set(database=name).render_as_string(hide_password=False)


def _admin(url: str):  # type: ignore[no-untyped-def]
    return create_engine(_with_database(url, "postgres"), isolation_level="AUTOCOMMIT")


@pytest.fixture(scope="session")
def _postgres_template() -> str | None:
    url = _postgres_url()
    if url is None:
        return None
    template = f"{make_url(url).database}_seeded{_SUFFIX}"
    engine = _admin(url)
    try:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{template}" TEMPLATE template0'))
        _build(_with_database(url, template))
    finally:
        engine.dispose()
    return template


def _fresh_postgres(url: str, template: str) -> str:
    """`<database>_case`, dropped (whoever is still connected) and created anew from `template`."""
    case = _with_database(url, f"{make_url(url).database}_case{_SUFFIX}")
    engine = _admin(url)
    try:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{make_url(case).database}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{make_url(case).database}" TEMPLATE "{template}"'))
    finally:
        engine.dispose()
    return case


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        path = tmp_path / "kitebase.db"
        if _seeds(request):
            shutil.copyfile(request.getfixturevalue("_sqlite_template"), path)
        return f"sqlite:///{path}"
    url = _postgres_url()
    if url is None:
        _skip_without_postgres()
    seeded = request.getfixturevalue("_postgres_template") if _seeds(request) else "template0"
    return _fresh_postgres(url, seeded)


@pytest.fixture
def postgres_db(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """A fresh, seeded PostgreSQL database, for what only PostgreSQL can do (the task queue)."""
    url = _postgres_url()
    if url is None:
        _skip_without_postgres()
    url = _fresh_postgres(url, request.getfixturevalue("_postgres_template"))
    settings = make_settings(url)
    database = Database.from_url(url)
    create_schema(database.engine)
    seed_desk(database, settings.data_dir)
    yield database, settings
    database.engine.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'kitebase.db'}"


def make_settings(url: str, **overrides: object) -> Settings:
    return Settings(database_url=url, **overrides)


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url)


@pytest.fixture
def db(settings: Settings):  # type: ignore[no-untyped-def]
    database = Database.from_url(settings.database_url)
    create_schema(database.engine)
    seed_desk(database, settings.data_dir)
    yield database
    database.engine.dispose()


@pytest.fixture
def lead(settings, db):
    """The Slack app with one approver, ULEAD (UOTHER is a colleague who may not decide)."""
    from standins.slack_harness import start_harness

    h, stop = start_harness(settings.model_copy(update={"approvers": frozenset({"ULEAD"})}), db)
    yield h
    stop()


@pytest.fixture
def harness(settings, db):
    """The Slack app on signed HTTP against the Web API stand-in (standins/slack_harness.py), drained and stopped
    after the test."""
    from standins.slack_harness import start_harness

    h, stop = start_harness(settings, db)
    yield h
    stop()


@pytest.fixture
def cli(database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """`kitebase …` in this process against the test's database: (exit code, stdout, stderr). A test file may
    define its own."""
    from bot.cli import main

    monkeypatch.setenv("DATABASE_URL", database_url)

    def invoke(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return invoke
