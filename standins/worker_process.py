"""`kitebase worker` as a real process for tests that kill it: the queue shape against the stand-ins."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from standins.serve_process import BOT_TOKEN

ROOT = Path(__file__).resolve().parents[1]


class WorkerProcess:
    """One `kitebase worker` process, its output appended to `log`. `start()` returns once it waits for runs."""

    def __init__(self, database_url: str, log: Path, *, model_url: str | None = None, slack_url: str | None = None,
                 **extra: str):
        self.log = log
        env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "SLACK_", "ANTHROPIC_"))}
        env.update({"DATABASE_URL": database_url, "KITEBASE_EXECUTION": "queue", "PYTHONUNBUFFERED": "1"})
        if model_url:
            env.update({"ANTHROPIC_API_KEY": "sk-ant-worker-0123456789", "ANTHROPIC_BASE_URL": model_url,
                        "KITEBASE_MODEL": "claude-opus-5"})
        else:
            env["KITEBASE_OFFLINE"] = "1"
        if slack_url:
            env.update({"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_API_BASE_URL": slack_url + "/api/",
                        "KITEBASE_ESCALATION_CHANNEL": "CQUEUE", "KITEBASE_SLACK_MIN_INTERVAL": "0.02",
                        "KITEBASE_SLACK_RATE_SCALE": "100"})
        env.update(extra)
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 60) -> WorkerProcess:
        offset = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "bot.cli", "worker"], cwd=ROOT, env=self.env,
                                            stdout=log, stderr=subprocess.STDOUT)
        ready = f":{self.process.pid} waiting for runs"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"kitebase worker exited: {self.output()[-3000:]}")
            if ready in self.log.read_text(errors="replace")[offset:]:
                return self
            time.sleep(0.05)
        raise RuntimeError(f"kitebase worker did not come up: {self.output()[-3000:]}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.alive():
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.alive():
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""
