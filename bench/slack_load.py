"""Fire signed Slack requests at a running `kitebase serve` from many clients at once, in a process of its
own (so the load generator's work does not slow the server it measures, nor the stand-ins beside it).

    python -m bench.slack_load URL SECRET --mentions 50 [--channels 1] [--first 101] [--sequential]

All at once (one client each, released together; each request signed before the release), or with --sequential one after another from one client.
Prints one JSON object: the acknowledgement latency of every request in milliseconds, in sending order."""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import sys
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from standins import slack_requests  # noqa: E402
from standins.slack_requests import SlackSender  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("secret")
    parser.add_argument("--mentions", type=int, default=50)
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--first", type=int, default=101)
    parser.add_argument("--sequential", action="store_true")
    parser.add_argument("--pause", type=float, default=0.2, help="seconds between sequential requests")
    args = parser.parse_args()
    # Message timestamps (and so delivery keys) unique to this invocation: a second burst at the same server
    # must be new mentions, not Slack retries of the first one.
    slack_requests._ids = itertools.count(int(time.time() * 1000) % 10**8)
    sender = SlackSender(args.url, args.secret)
    results: list[tuple[int, float, int]] = []
    lock, start = threading.Lock(), threading.Barrier(1 if args.sequential else args.mentions)

    # Every request is signed and encoded before the release, and sent as raw bytes on a socket of its own:
    # the timed part is connect, send and the answer, so the generator's own Python (it shares the machine's
    # cores with the server it measures) stays out of the figure as much as it can.
    requests = [sender.mention_bytes(f"handle KITE-{args.first + i}", channel=f"CBUSY{i % args.channels:03d}")
                for i in range(args.mentions)]
    target = urllib.parse.urlsplit(args.url)

    def mention(i: int) -> None:
        start.wait()
        t0 = time.perf_counter()
        with socket.create_connection((target.hostname, target.port or 80), timeout=10) as conn:
            conn.sendall(requests[i])
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
        elapsed = (time.perf_counter() - t0) * 1000
        status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
        with lock:
            results.append((i, elapsed, status))

    if args.sequential:
        for i in range(args.mentions):
            mention(i)
            time.sleep(args.pause)
    else:
        threads = [threading.Thread(target=mention, args=(i,)) for i in range(args.mentions)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    results.sort()
    print(json.dumps({"ack_ms": [round(r[1], 2) for r in results], "status": [r[2] for r in results]}))


if __name__ == "__main__":
    main()
