"""The soak (tests/reliability/soak.py): mixed faults against real processes, then every promise checked. The
short variant runs with the tests; the long one with `-m slow`, on each database the shape runs on."""

from __future__ import annotations

import pytest

from tests.reliability.soak import LONG, SHORT, Soak

SHAPES = [
    pytest.param("queue", SHORT, "postgres", id="queue-postgres-short", marks=pytest.mark.postgres),
    pytest.param("embedded", SHORT, "sqlite", id="embedded-sqlite-short"),
    pytest.param("queue", LONG, "postgres", id="queue-postgres-long", marks=[pytest.mark.postgres, pytest.mark.slow]),
    pytest.param("embedded", LONG, "sqlite", id="embedded-sqlite-long", marks=pytest.mark.slow),
    pytest.param("embedded", LONG, "postgres", id="embedded-postgres-long",
                 marks=[pytest.mark.postgres, pytest.mark.slow]),
]


@pytest.mark.parametrize(("shape", "size", "database"), SHAPES)
def test_soak_mixed_faults_keep_every_promise(request, tmp_path, shape, size, database):
    url = request.getfixturevalue("postgres_db")[1].database_url if database == "postgres" \
        else f"sqlite:///{tmp_path / 'kitebase.db'}"
    if shape == "queue":
        from bot.config import Settings
        from bot.runs.execution.workqueue import ensure_schema

        ensure_schema(Settings(database_url=url, execution="queue"))
    soak = Soak(shape, url, size, tmp_path)
    try:
        soak.run()
        problems = soak.problems()
        summary = soak.summary()
    finally:
        soak.close()
    print(summary)
    assert not problems, "\n".join([summary, *problems])
