# SPDX-License-Identifier: MIT
"""A real SMTP submission server on loopback for the e-mail tests:
aiosmtpd (Debian's python3-aiosmtpd) with STARTTLS required, under a test
certificate made here with openssl for 127.0.0.1, and AUTH (PLAIN or
LOGIN) required after it. It keeps each message it accepted, parsed with
Python's email package. The tests can make it answer a failure to the
next messages (fail: "421 4.7.0 Try again later", "550 5.1.1 No such
user") or drop the connection in the middle of DATA (fail("drop")).

Run as a program (python3 smtp_relay.py USER PASSWORD) it serves until
killed and prints its port and the certificate's path."""

import email
import email.policy
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time

try:
    from aiosmtpd.controller import Controller
except ImportError:  # a Python of its own (pyenv): Debian's packages are here
    sys.path.append("/usr/lib/python3/dist-packages")
    from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from kept import Kept
import ssl

# aiosmtpd logs its own use of a name it deprecated on every AUTH, and
# each client that gives up on its certificate, as the tests make some do.
logging.getLogger("mail.log").setLevel(logging.CRITICAL)


def make_certificate(folder):
    """A self-signed certificate for 127.0.0.1 (its own authority): the
    server's smtp_ca_file. (certificate path, key path)"""
    cert, key = os.path.join(folder, "relay.pem"), os.path.join(folder, "relay.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", cert,
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-addext", "basicConstraints=critical,CA:TRUE"],
                   check=True, capture_output=True)
    return cert, key


class Relay(Kept):
    def __init__(self, user="relay-user", password="relay-pass-1", parse=True):
        """`parse`: read each message with the email package as it comes
        (the tests); a benchmark keeps the bytes and the time alone."""
        super().__init__("relay", "messages")
        self.user, self.password, self.parse = user, password, parse
        self.folder = tempfile.mkdtemp(prefix="hl-relay-")
        self.cert, key = make_certificate(self.folder)
        # self.messages: each accepted, {"from", "to", "raw", "at", "parsed"}
        self.sessions = 0     # every DATA begun
        self.logins = 0       # every AUTH that passed: one per connection
        self.failures = []    # what to answer the next DATA commands
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(self.cert, key)
        relay = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                return relay.take(server, envelope)

        def authenticate(server, session, envelope, mechanism, auth_data):
            ok = auth_data.login.decode() == relay.user and auth_data.password.decode() == relay.password
            with relay.lock:
                relay.logins += ok
            return AuthResult(success=ok, handled=False)  # aiosmtpd answers 535

        # aiosmtpd 1.4 checks it is up by connecting to its port: it needs one.
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=free_port(), tls_context=tls,
                                     require_starttls=True, auth_required=True,
                                     auth_require_tls=True, authenticator=authenticate,
                                     server_hostname="127.0.0.1")
        self.controller.start()
        self.url = "smtp://127.0.0.1:%d" % self.controller.port

    def take(self, server, envelope):
        with self.lock:
            self.sessions += 1
            failure = self.failures.pop(0) if self.failures else None
        if failure == "drop":
            server.transport.close()
            return "421 4.4.2 Connection dropped"
        if failure:
            return failure
        raw = envelope.original_content or envelope.content
        kept = {"from": envelope.mail_from, "to": list(envelope.rcpt_tos), "raw": raw, "at": time.time()}
        if self.parse:
            kept["parsed"] = email.message_from_bytes(raw, policy=email.policy.default)
        with self.lock:
            self.messages.append(kept)
        return "250 2.0.0 Ok: queued"

    def fail(self, answer, times=1):
        with self.lock:
            self.failures += [answer] * times

    def close(self):
        self.controller.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    serving = Relay(*sys.argv[1:3])
    print(serving.controller.port, serving.cert, flush=True)
    threading.Event().wait()
