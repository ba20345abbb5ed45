"""A local stand-in for Slack's Socket Mode WebSocket endpoint, for tests.

Slack's side of Socket Mode, small enough to read: an RFC 6455 server on 127.0.0.1
that greets each client with ``hello``, pushes envelopes the test hands it and
records what comes back (the client's acks)::

    sm = SocketModeServer().start()
    slack.socket_mode_url = sm.url           # what apps.connections.open answers
    handler = SocketModeHandler(app, "xapp-test-token")
    handler.connect()
    sm.wait_connected()
    sm.send({"envelope_id": "e1", "type": "events_api", "payload": {...}})
    assert sm.wait_for_ack("e1") == {"envelope_id": "e1"}

What slack_sdk's builtin client (slack_sdk/socket_mode/builtin) does, and so what this
server has to cope with:

* It asks apps.connections.open for a URL, then opens a plain TCP socket (no TLS for a
  port other than 443) with a 3 s timeout and sends ``GET /link? HTTP/1.1`` with Host,
  Upgrade, Connection, Sec-WebSocket-Key and Sec-WebSocket-Version: 13 -- nothing else.
  It checks ``Sec-WebSocket-Accept`` and expects status 101.
* Right after the handshake it pings (payload ``"<session id>:<time>"``), and again
  every ``ping_interval`` seconds; it reads a pong carrying that payload as "alive".
  It answers server pings with pongs.
* It masks every frame it sends (as clients must) and cannot read masked frames, so
  server frames are never masked.  It acks an envelope with ``{"envelope_id": ...}``
  (plus ``"payload"`` when Bolt answered with a body).
* On a close frame it calls its close listeners and, with auto-reconnect on, asks
  apps.connections.open for a new URL and connects again.
* Its reader holds a lock while blocked in ``recv`` (3 s timeout) and ``close()`` needs
  that lock, so a client closes faster when the server sends something now and then:
  with ``ping_interval`` set, this server pings each client that often (Slack pings too).

Standard library only.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import itertools
import json
import socket
import struct
import threading
import time
from typing import Any
from urllib.parse import urlsplit

__all__ = ["SocketModeServer"]

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
OPCODE_NAMES = {OP_CONTINUATION: "continuation", OP_TEXT: "text", OP_BINARY: "binary", OP_CLOSE: "close",
                OP_PING: "ping", OP_PONG: "pong"}
MAX_HANDSHAKE_BYTES = 16 * 1024
MAX_MESSAGE_BYTES = 16 * 1024 * 1024


def accept_key(key: str) -> str:
    """The ``Sec-WebSocket-Accept`` answer to a ``Sec-WebSocket-Key`` (RFC 6455 section 4.2.2)."""
    return base64.b64encode(hashlib.sha1((key.strip() + WS_GUID).encode("ascii")).digest()).decode("ascii")


def encode_frame(opcode: int, payload: bytes = b"", *, fin: bool = True, mask: bytes | None = None) -> bytes:
    """One frame; servers send unmasked frames, ``mask`` (4 bytes) is there for tests playing the client."""
    head = bytes([(0x80 if fin else 0) | opcode])
    mask_bit = 0x80 if mask is not None else 0
    n = len(payload)
    if n <= 125:
        head += bytes([mask_bit | n])
    elif n <= 0xFFFF:
        head += bytes([mask_bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", n)
    if mask is None:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class _Closed(Exception):
    """The peer went away (or we are stopping): end this connection quietly."""


class _ProtocolError(_Closed):
    """The client broke RFC 6455: close with 1002 (protocol error)."""


class _Connection:
    """One client: handshake, then a reader loop in its own thread. Writes are serialized by a lock."""

    def __init__(self, server: SocketModeServer, sock: socket.socket, address: tuple, number: int):
        self.server, self.sock, self.address, self.number = server, sock, address, number
        self.request_line = ""
        self.headers: dict[str, str] = {}
        self.open = False  # handshake done, not closed yet
        self.close_code: int | None = None
        self._buf = b""
        self._send_lock = threading.Lock()
        self._last_ping = time.monotonic()
        self.thread = threading.Thread(target=self._run, name=f"SocketModeServer-conn{number}", daemon=True)

    # -- writing --------------------------------------------------------------
    def send_frame(self, opcode: int, payload: bytes = b"") -> None:
        data = encode_frame(opcode, payload)
        with self._send_lock:
            self.sock.sendall(data)

    def send_text(self, text: str) -> None:
        self.send_frame(OP_TEXT, text.encode("utf-8"))

    def close(self, code: int = 1001, reason: str = "") -> None:
        """Send a close frame (best effort), then drop the socket; the reader thread ends."""
        if self.open:
            self.open = False
            with contextlib.suppress(OSError):
                self.send_frame(OP_CLOSE, struct.pack("!H", code) + reason.encode("utf-8"))
        self._drop()

    def _drop(self) -> None:
        self.open = False
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()

    # -- reading --------------------------------------------------------------
    def _fill(self) -> None:
        while True:
            if self.server._stopping.is_set():
                raise _Closed
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                self._maybe_ping()
                continue
            except OSError:
                raise _Closed from None
            if not chunk:
                raise _Closed
            self._buf += chunk
            return

    def _read_exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            self._fill()
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def _read_handshake(self) -> bytes:
        while b"\r\n\r\n" not in self._buf:
            if len(self._buf) > MAX_HANDSHAKE_BYTES:
                raise _Closed
            self._fill()
        head, self._buf = self._buf.split(b"\r\n\r\n", 1)
        return head

    def _read_frame(self) -> tuple[bool, int, bytes]:
        b1, b2 = self._read_exact(2)
        fin, rsv, opcode = bool(b1 & 0x80), b1 & 0x70, b1 & 0x0F
        masked, length = bool(b2 & 0x80), b2 & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", self._read_exact(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", self._read_exact(8))
        if rsv or opcode not in OPCODE_NAMES or not masked:  # client frames must be masked (RFC 6455 5.1)
            self.server._protocol_errors.append(
                f"conn{self.number}: bad frame (rsv={rsv}, opcode={opcode:#x}, masked={masked})")
            raise _ProtocolError
        if opcode >= OP_CLOSE and (length > 125 or not fin):
            self.server._protocol_errors.append(f"conn{self.number}: bad control frame (opcode={opcode:#x})")
            raise _ProtocolError
        if length > MAX_MESSAGE_BYTES:
            self.server._protocol_errors.append(f"conn{self.number}: frame of {length} bytes")
            raise _ProtocolError
        key = self._read_exact(4)
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(self._read_exact(length)))
        return fin, opcode, payload

    def _maybe_ping(self) -> None:
        interval = self.server.ping_interval
        if not self.open or interval is None or time.monotonic() - self._last_ping < interval:
            return
        self._last_ping = time.monotonic()
        with contextlib.suppress(OSError):
            self.send_frame(OP_PING, f"server:{time.time()}".encode())

    # -- the connection's life ------------------------------------------------------
    def _handshake(self) -> bool:
        lines = self._read_handshake().decode("latin-1").split("\r\n")
        self.request_line = lines[0]
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                self.headers[name.strip().lower()] = value.strip()
        parts = self.request_line.split(" ")
        path = urlsplit(parts[1]).path if len(parts) == 3 else ""
        problem = None
        if len(parts) != 3 or parts[0] != "GET" or not parts[2].startswith("HTTP/1."):
            problem = "400 Bad Request"
        elif path.rstrip("/") != self.server.path.rstrip("/"):
            problem = "404 Not Found"
        elif (self.headers.get("upgrade", "").lower() != "websocket"
              or "upgrade" not in self.headers.get("connection", "").lower()
              or self.headers.get("sec-websocket-version") != "13"
              or not self.headers.get("sec-websocket-key")):
            problem = "400 Bad Request"
        if problem is not None:
            self.server._protocol_errors.append(f"conn{self.number}: refused handshake ({problem}): "
                                                f"{self.request_line!r} {self.headers}")
            with self._send_lock:
                self.sock.sendall(f"HTTP/1.1 {problem}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
            return False
        response = ("HTTP/1.1 101 Switching Protocols\r\n"
                    "Upgrade: websocket\r\n"
                    "Connection: Upgrade\r\n"
                    f"Sec-WebSocket-Accept: {accept_key(self.headers['sec-websocket-key'])}\r\n"
                    "\r\n")
        with self._send_lock:
            self.sock.sendall(response.encode("ascii"))
        self.open = True
        self._last_ping = time.monotonic()
        return True

    def _run(self) -> None:
        server = self.server
        try:
            self.sock.settimeout(server.poll_interval)
            if not self._handshake():
                return
            self.send_text(json.dumps(server.hello_message()))
            server._connected(self)
            message_opcode, fragments = None, []
            while True:
                fin, opcode, payload = self._read_frame()
                if opcode == OP_PING:
                    server._record(self, "ping", payload)
                    self.send_frame(OP_PONG, payload)
                elif opcode == OP_PONG:
                    server._record(self, "pong", payload)
                elif opcode == OP_CLOSE:
                    self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                    server._record(self, "close", payload)
                    if self.open:  # echo the close, then hang up (RFC 6455 5.5.1)
                        self.open = False
                        with contextlib.suppress(OSError):
                            self.send_frame(OP_CLOSE, payload[:2])
                    return
                elif opcode == OP_CONTINUATION:
                    if message_opcode is None:
                        server._protocol_errors.append(f"conn{self.number}: continuation without a message")
                        raise _ProtocolError
                    fragments.append(payload)
                    if fin:
                        server._message(self, message_opcode, b"".join(fragments))
                        message_opcode, fragments = None, []
                elif fin:
                    server._message(self, opcode, payload)
                else:
                    message_opcode, fragments = opcode, [payload]
        except _ProtocolError:
            self.close(1002, "protocol error")
        except _Closed:
            pass
        except Exception as exc:  # a bug here: keep it for the test, never let the thread die loudly
            server._protocol_errors.append(f"conn{self.number}: {type(exc).__name__}: {exc}")
        finally:
            self._drop()
            server._disconnected(self)


class SocketModeServer:
    """Local stand-in for Slack's Socket Mode endpoint (``wss://wss-primary.slack.com/link/?ticket=...``).

    State (guarded by one lock):

    * ``acks``: every JSON text message a client sent, in arrival order (Socket Mode clients
      only send acks: ``{"envelope_id": ..., "payload"?: ...}``)
    * ``frames``: every frame read, ``(connection number, "text"|"ping"|"pong"|"close"|..., payload bytes)``
    * ``sent``: every envelope sent with :meth:`send`
    * ``handshakes``: the request line and lower-cased headers of each accepted upgrade
    * ``errors``: protocol problems seen (bad frames, refused handshakes); a passing test expects none
    """

    def __init__(self, *, app_id: str = "A0APP", path: str = "/link", ping_interval: float | None = 0.25,
                 poll_interval: float = 0.05):
        self.app_id = app_id
        self.path = path
        self.ping_interval = ping_interval
        self.poll_interval = poll_interval
        self.url: str = ""
        self.acks: list[dict] = []
        self.frames: list[tuple[int, str, bytes]] = []
        self.sent: list[dict] = []
        self.handshakes: list[dict] = []
        self._protocol_errors: list[str] = []
        self._connections: list[_Connection] = []
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._numbers = itertools.count(1)
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------
    def start(self) -> SocketModeServer:
        if self._listener is not None:
            return self
        self._stopping.clear()
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.settimeout(self.poll_interval)
        self._listener = listener
        host, port = listener.getsockname()[:2]
        self.url = f"ws://{host}:{port}{self.path}"
        self._thread = threading.Thread(target=self._accept_loop, name="SocketModeServer", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Say goodbye (close 1001) to connected clients, hang up, stop listening; waits for the threads."""
        listener, self._listener = self._listener, None
        if listener is None:
            return
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            conn.close(1001, "server stopping")
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        for conn in connections:
            conn.thread.join(timeout=5)
        with contextlib.suppress(OSError):
            listener.close()

    def __enter__(self) -> SocketModeServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- what Slack sends -------------------------------------------------
    def hello_message(self) -> dict:
        """The first message on every connection, as Slack sends it."""
        with self._lock:
            count = sum(1 for c in self._connections if c.open)
        return {"type": "hello", "num_connections": max(count, 1),
                "debug_info": {"host": "applink-stand-in", "build_number": 1,
                               "approximate_connection_time": 18060},
                "connection_info": {"app_id": self.app_id}}

    def send(self, envelope: dict) -> None:
        """Send ``envelope`` as a JSON text frame to the newest open connection."""
        conn = self._current()
        conn.send_text(json.dumps(envelope))
        with self._lock:
            self.sent.append(envelope)

    def disconnect(self, reason: str = "warning") -> None:
        """Slack's ``{"type": "disconnect"}`` notice: the client should fetch a new URL and reconnect."""
        self.send({"type": "disconnect", "reason": reason,
                   "debug_info": {"host": "applink-stand-in"}})

    def close_connections(self, code: int = 1001, reason: str = "") -> None:
        """Close every open connection with a close frame (the client may reconnect)."""
        with self._lock:
            connections = [c for c in self._connections if c.open]
        for conn in connections:
            conn.close(code, reason)

    # -- inspection -------------------------------------------------------
    @property
    def connections(self) -> int:
        """How many connections are open now."""
        with self._lock:
            return sum(1 for c in self._connections if c.open)

    @property
    def errors(self) -> list[str]:
        with self._lock:
            return list(self._protocol_errors)

    def wait_connected(self, timeout: float = 5.0, count: int = 1) -> None:
        """Block until ``count`` clients completed the handshake (and got ``hello``) since start."""
        self._wait(lambda: len(self.handshakes) >= count, timeout,
                   lambda: f"waited {timeout}s for {count} Socket Mode connection(s), got {len(self.handshakes)}")

    def wait_for_ack(self, envelope_id: str, timeout: float = 5.0) -> dict:
        """Block until the client acked ``envelope_id``; returns the ack."""
        def found() -> dict | None:
            return next((a for a in self.acks if a.get("envelope_id") == envelope_id), None)

        self._wait(lambda: found() is not None, timeout,
                   lambda: f"waited {timeout}s for the ack of envelope {envelope_id!r}; acks so far: {self.acks}")
        with self._lock:
            return found()  # type: ignore[return-value]

    def _wait(self, ready: Any, timeout: float, message: Any) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not ready():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    errors = f"\nprotocol errors: {self._protocol_errors}" if self._protocol_errors else ""
                    raise AssertionError(message() + errors)
                self._cond.wait(min(remaining, 0.1))

    # -- internals --------------------------------------------------------
    def _current(self) -> _Connection:
        with self._lock:
            for conn in reversed(self._connections):
                if conn.open:
                    return conn
        raise AssertionError("no Socket Mode client is connected")

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            listener = self._listener
            if listener is None:
                return
            try:
                sock, address = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn = _Connection(self, sock, address, next(self._numbers))
            with self._lock:
                self._connections.append(conn)
            conn.thread.start()

    def _connected(self, conn: _Connection) -> None:
        with self._cond:
            self.handshakes.append({"connection": conn.number, "request_line": conn.request_line,
                                    "headers": dict(conn.headers)})
            self._cond.notify_all()

    def _disconnected(self, conn: _Connection) -> None:
        with self._cond:
            self._cond.notify_all()

    def _record(self, conn: _Connection, kind: str, payload: bytes) -> None:
        with self._cond:
            self.frames.append((conn.number, kind, payload))
            self._cond.notify_all()

    def _message(self, conn: _Connection, opcode: int, payload: bytes) -> None:
        kind = OPCODE_NAMES[opcode]
        with self._cond:
            self.frames.append((conn.number, kind, payload))
            if opcode == OP_TEXT:
                try:
                    message = json.loads(payload.decode("utf-8"))
                except ValueError:
                    self._protocol_errors.append(f"conn{conn.number}: a text frame that is not JSON: {payload!r}")
                else:
                    self.acks.append(message)
            self._cond.notify_all()
