# SPDX-License-Identifier: MIT
"""Clients of GET /api/live for the tests: a WebSocket client written out
from RFC 6455 (the standard library has none, and the tests must be able to
send what a library never would: unmasked, oversized or binary frames), and
an event-stream reader. Both read with a deadline, so a test that waits for
a message that never comes fails instead of hanging."""

import base64
import json
import os
import socket
import struct
import time

TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA


class Refused(Exception):
    """The server answered the request with an HTTP error instead of a stream."""

    def __init__(self, status, head, body):
        super().__init__("%d %s" % (status, body[:200]))
        self.status, self.head, self.body = status, head, body

    def json(self):
        return json.loads(self.body)


def _cookie_header(client):
    return "; ".join("%s=%s" % kv for kv in client.cookies.items()) if client and client.cookies else None


def _read_head(sock, deadline):
    data = b""
    while b"\r\n\r\n" not in data:
        sock.settimeout(max(0.01, deadline - time.time()))
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, rest


def _refusal(sock, status, headers, rest, deadline):
    length = int(headers.get("content-length", "0") or 0)
    while len(rest) < length and time.time() < deadline:
        sock.settimeout(max(0.01, deadline - time.time()))
        chunk = sock.recv(4096)
        if not chunk:
            break
        rest += chunk
    sock.close()
    return Refused(status, headers, rest.decode("utf-8", "replace"))


def _request(port, path, headers, client, timeout, receive_buffer=None):
    sock = socket.socket()
    if receive_buffer:  # before connecting, so the window stays small
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    lines = ["GET %s HTTP/1.1" % path, "Host: 127.0.0.1:%d" % port]
    cookie = _cookie_header(client)
    if cookie:
        lines.append("Cookie: " + cookie)
    lines += ["%s: %s" % kv for kv in headers.items() if kv[1] is not None]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    return sock


class WebSocket:
    """One WebSocket to /api/live. `client` lends its session cookie."""

    def __init__(self, port, path="/api/live", client=None, headers=None, timeout=10,
                 receive_buffer=None):
        key = base64.b64encode(os.urandom(16)).decode()
        hdrs = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": key,
                "Sec-WebSocket-Version": "13"}
        hdrs.update(headers or {})
        deadline = time.time() + timeout
        self.sock = _request(port, path, hdrs, client, timeout, receive_buffer)
        status, head, rest = _read_head(self.sock, deadline)
        if status != 101:
            raise _refusal(self.sock, status, head, rest, deadline)
        self.pending = rest
        self.closed = None  # (code, reason) once the server closed
        self.seen = []  # every text message received, as JSON

    def _fill(self, n, deadline):
        while len(self.pending) < n:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no frame in time")
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.pending += chunk

    def frame(self, timeout=5):
        """The next frame from the server: (opcode, payload bytes)."""
        deadline = time.time() + timeout
        self._fill(2, deadline)
        b0, b1 = self.pending[0], self.pending[1]
        assert not b1 & 0x80, "a server frame must not be masked"
        n, at = b1 & 0x7F, 2
        if n == 126:
            self._fill(4, deadline)
            n, at = struct.unpack(">H", self.pending[2:4])[0], 4
        elif n == 127:
            self._fill(10, deadline)
            n, at = struct.unpack(">Q", self.pending[2:10])[0], 10
        self._fill(at + n, deadline)
        payload, self.pending = self.pending[at:at + n], self.pending[at + n:]
        op = b0 & 0x0F
        if op == TEXT:
            self.seen.append(json.loads(payload))
        if op == CLOSE:
            code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
            self.closed = (code, payload[2:].decode("utf-8", "replace"))
        return op, payload

    def message(self, timeout=5, skip=("hello",)):
        """The next text message as JSON, answering pings on the way; types in
        `skip` are passed over. Raises ConnectionError once closed."""
        deadline = time.time() + timeout
        while True:
            op, payload = self.frame(max(0.01, deadline - time.time()))
            if op == PING:
                self.send(PONG, payload)
            elif op == CLOSE:
                raise ConnectionError("closed: %s" % (self.closed,))
            elif op == TEXT:
                m = json.loads(payload)
                if m.get("type") not in skip:
                    return m

    def messages_until_quiet(self, quiet=0.5):
        """Every message that arrives until none came for `quiet` seconds."""
        got = []
        while True:
            try:
                got.append(self.message(timeout=quiet, skip=()))
            except TimeoutError:
                return got

    def send(self, opcode, payload=b"", mask=True, fin=True):
        if isinstance(payload, str):
            payload = payload.encode()
        head = bytes([(0x80 if fin else 0) | opcode])
        n = len(payload)
        m = 0x80 if mask else 0
        if n < 126:
            head += bytes([m | n])
        elif n < 65536:
            head += bytes([m | 126]) + struct.pack(">H", n)
        else:
            head += bytes([m | 127]) + struct.pack(">Q", n)
        if mask:
            key = os.urandom(4)
            payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
            head += key
        self.sock.sendall(head + payload)

    def close_code(self, timeout=5):
        """Read until the server's close frame; its code."""
        deadline = time.time() + timeout
        while self.closed is None:
            self.frame(max(0.01, deadline - time.time()))
        return self.closed[0]

    def at_end(self, timeout=5):
        """Whether the server ends the TCP stream within `timeout`."""
        deadline = time.time() + timeout
        try:
            while True:
                self._fill(len(self.pending) + 1, deadline)
                self.pending = b""
        except ConnectionError:
            return True
        except TimeoutError:
            return False

    def close(self):
        self.sock.close()


class EventStream:
    """One event stream (text/event-stream) from /api/live."""

    def __init__(self, port, path="/api/live", client=None, headers=None, timeout=10):
        hdrs = {"Accept": "text/event-stream"}
        hdrs.update(headers or {})
        deadline = time.time() + timeout
        self.sock = _request(port, path, hdrs, client, timeout)
        status, self.head, rest = _read_head(self.sock, deadline)
        if status != 200:
            raise _refusal(self.sock, status, self.head, rest, deadline)
        self.pending = rest
        self.last_id = None

    def message(self, timeout=5, skip=("hello",)):
        deadline = time.time() + timeout
        while True:
            while b"\n\n" not in self.pending:
                left = deadline - time.time()
                if left <= 0:
                    raise TimeoutError("no message in time")
                self.sock.settimeout(left)
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("the server closed the stream")
                self.pending += chunk
            block, _, self.pending = self.pending.partition(b"\n\n")
            data = None
            for line in block.decode().split("\n"):
                if line.startswith("id: "):
                    self.last_id = line[4:]
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
            if data is not None and data.get("type") not in skip:
                return data

    def close(self):
        self.sock.close()
