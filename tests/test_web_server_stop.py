"""The Slack harness stops its web server (waitress) without racing the server's own thread.

waitress's loop lists its sockets, then waits in select() on them. A busy machine can hold the loop between the
two for as long as it likes; a socket closed by another thread in that gap makes select() fail with "Bad file
descriptor" in the loop's thread (an error in the teardown of whatever test was stopping it). Here the loop is
held in that gap on purpose, while the harness stops the server."""

from __future__ import annotations

import os
import select
import threading
import time
import types
import urllib.request

import pytest
from waitress import wasyncore
from waitress.server import create_server

from standins.slack_harness import stop_waitress


def _hello(environ, start_response):  # type: ignore[no-untyped-def]
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"hello"]


def test_stopping_waitress_closes_no_socket_under_its_loop(monkeypatch):
    server = create_server(_hello, host="127.0.0.1", port=0, threads=2)
    loop = threading.Thread(target=server.run, daemon=True)
    armed, holding, release = threading.Event(), threading.Event(), threading.Event()
    closed_under_select: list[int] = []

    def held_select(r, w, e, timeout):  # type: ignore[no-untyped-def]
        if threading.current_thread() is loop and armed.is_set() and not release.is_set():
            holding.set()
            release.wait()  # the loop has listed its sockets and not yet called select()
        for fd in {*r, *w, *e}:
            try:
                os.fstat(fd)
            except OSError:
                closed_under_select.append(fd)
        return select.select(r, w, e, timeout)

    monkeypatch.setattr(wasyncore, "select", types.SimpleNamespace(select=held_select, error=OSError))
    loop.start()
    with urllib.request.urlopen(f"http://127.0.0.1:{server.effective_port}/", timeout=30) as answer:
        assert answer.read() == b"hello"
    armed.set()
    assert holding.wait(timeout=30)  # held, its sockets listed

    stopper = threading.Thread(target=stop_waitress, args=(server, loop))
    stopper.start()
    deadline = time.monotonic() + 30  # until the stop has done what it does without the loop (not a race)
    while stopper.is_alive() and not server.trigger.thunks and time.monotonic() < deadline:
        time.sleep(0.01)
    release.set()
    stopper.join(timeout=60)

    assert not stopper.is_alive() and not loop.is_alive()
    assert closed_under_select == [], "a socket was closed while the loop was about to select() on it"
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{server.effective_port}/", timeout=5)
