"""`kitebase serve` as a real process for tests that kill it: its environment points at the stand-ins."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECRET = "proc-signing-secret-0123456789"
BOT_TOKEN = "xoxb-proc-0123456789"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServeProcess:
    def __init__(self, database_url: str, slack_url: str, model_url: str | None, log: Path, **extra: str):
        self.port = free_port()
        self.log = log
        env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "SLACK_", "ANTHROPIC_"))}
        env.update({"DATABASE_URL": database_url, "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SECRET,
                    "SLACK_API_BASE_URL": slack_url + "/api/", "PORT": str(self.port),
                    "KITEBASE_ESCALATION_CHANNEL": "CQUEUE", "KITEBASE_SLACK_MIN_INTERVAL": "0.02",
                    "KITEBASE_SLACK_RATE_SCALE": "100", "PYTHONUNBUFFERED": "1", **extra})
        if model_url:
            env.update({"ANTHROPIC_API_KEY": "sk-ant-proc-0123456789", "ANTHROPIC_BASE_URL": model_url,
                        "KITEBASE_MODEL": "claude-opus-5"})
        else:
            env["KITEBASE_OFFLINE"] = "1"
        self.env = env
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/slack/events"

    def start(self, timeout: float = 60) -> ServeProcess:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve"], cwd=ROOT, env=self.env,
                                            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"kitebase serve exited: {self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("kitebase serve did not come up")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
