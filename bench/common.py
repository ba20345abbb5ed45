"""What every benchmark shares: the figure record, percentiles, the machine, scratch databases."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.config import Settings  # noqa: E402
from bot.db.engine import Database, create_schema  # noqa: E402
from bot.db.seed import seed_desk  # noqa: E402


@dataclass
class Figure:
    """One measured figure next to the reference measured in the same run, and the issue's target."""

    item: int
    name: str
    value: float | None
    unit: str
    reference: float | None = None
    reference_name: str = ""
    target: str = ""
    met: bool | None = None  # None: no target, or not measured
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.value is None or not self.reference:
            return None
        return self.value / self.reference

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": None if self.ratio is None else round(self.ratio, 4)}


def pct(values: list[float], p: float) -> float:
    """The p-quantile (0..1) by nearest rank; NaN for no values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, int(round(p * (len(ordered) - 1)))))]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def machine() -> dict[str, Any]:
    cpu, memory = "", None
    with contextlib.suppress(OSError):
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "")
    with contextlib.suppress(OSError, IndexError, ValueError):
        memory = round(int(Path("/proc/meminfo").read_text().split()[1]) / 2**20, 1)
    return {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count(),
            "cpu": cpu, "memory_gb": memory, "load_average": _load()}


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU a live process has used so far (Linux /proc), or None where that is not readable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def commit() -> dict[str, Any]:
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    head = git("rev-parse", "HEAD")
    if not head:  # an exported tree, or no git: say so rather than leave it blank
        return {"commit": "unknown (not a git checkout)", "dirty": None}
    return {"commit": head, "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def create_database(url: str, *, replace: bool = False) -> None:
    """The PostgreSQL database `url` names, created when it does not exist (dropped first with `replace`)."""
    target = make_url(url)
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        if replace:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
        if conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :name"),
                        {"name": target.database}).first() is None:
            conn.execute(text(f'CREATE DATABASE "{target.database}"'))
    admin.dispose()


def wipe_postgres(url: str) -> None:
    """An empty public schema (the bench's PostgreSQL database is scratch: everything in it goes; it is created
    when missing)."""
    create_database(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def fresh_url(kind: str, scratch: Path, postgres_url: str | None, name: str) -> str:
    """A new empty database: a SQLite file in the scratch directory, or the wiped PostgreSQL database."""
    if kind == "sqlite":
        path = scratch / f"{name}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        return f"sqlite:///{path}"
    if not postgres_url:
        raise ValueError("no PostgreSQL database given (--postgres or KITEBASE_BENCH_DATABASE_URL)")
    wipe_postgres(postgres_url)
    return postgres_url


def seeded(url: str, **overrides: Any) -> tuple[Settings, Database]:
    settings = Settings(database_url=url, **overrides)
    db = Database.from_url(url)
    create_schema(db.engine)
    seed_desk(db, settings.data_dir)
    return settings, db


class Stopwatch:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started
