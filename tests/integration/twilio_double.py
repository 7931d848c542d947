# SPDX-License-Identifier: MIT
"""A local double of Twilio's Programmable Messaging API, on loopback: it
speaks the real API (POST /2010-04-01/Accounts/{sid}/Messages.json with
basic authentication and a form; 201 with the message's JSON, or Twilio's
error JSON with its codes) and keeps what it was sent, for the tests of
the sms module. The tests can make it answer errors (fail), and hold its
answers back (hold) to catch the server with a text on its way.

Run as a program (python3 twilio_double.py SID TOKEN) it serves until
killed and prints its URL; the browser tests drive it over HTTP:
GET /double/messages (what it kept), POST /double/fail {"status", "code",
"message", "times"}."""

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kept import Kept

# Twilio's magic test number that its API refuses as not a number.
INVALID_NUMBER = "+15005550001"


def signature(token, url, params):
    """X-Twilio-Signature, as Twilio computes it: HMAC-SHA1 under the auth
    token over the URL and each parameter's name and value, sorted."""
    text = url + "".join(k + v for k, v in sorted(params.items()))
    return base64.b64encode(hmac.new(token.encode(), text.encode(), hashlib.sha1).digest()).decode()


def post_signed(url, params, token, sign=True):
    """POST `params` as a form to `url`, as Twilio calls a webhook: (status,
    body)."""
    data = urllib.parse.urlencode(params).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if sign:
        headers["X-Twilio-Signature"] = signature(token, url, params)
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except (urllib.error.URLError, OSError) as e:
        return 0, str(e)  # the server is gone (a test's end, a kill)


class TwilioDouble(Kept):
    def __init__(self, accounts):
        """`accounts` maps an account SID to its auth token."""
        super().__init__("double", "texts")  # messages: each accepted text, its form, account and SID
        self.accounts = dict(accounts)
        self.requests = 0     # every POST to the Messages resource
        self.failures = []    # (status, code, message, retry_after) to answer next
        self.report_first = False  # report delivery before answering the send
        self.callbacks = True      # call StatusCallback at all
        self.held = threading.Event()
        self.held.set()       # set: answers go at once
        self.arrived = threading.Event()
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                double.answer(self)

            def do_GET(self):
                double.control(self)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # a client gone before its answer (a server killed on purpose)

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def fail(self, status, code=None, message="", retry_after=None, times=1):
        with self.lock:
            self.failures += [(status, code, message, retry_after)] * times

    def hold(self):
        """Keep the next answers back until release()."""
        self.arrived.clear()
        self.held.clear()

    def release(self):
        self.held.set()

    def close(self):
        self.release()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- the API -------------------------------------------------------------

    @staticmethod
    def reply(h, status, body, headers=()):
        data = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    @classmethod
    def error(cls, h, status, code, message, headers=()):
        cls.reply(h, status, {"code": code, "message": message, "status": status,
                              "more_info": "https://www.twilio.com/docs/errors/%d" % code},
                  headers)

    def report(self, url, sid, text):
        """Twilio's status callbacks for an accepted text: sent, then
        delivered, each signed with the account's token."""
        time.sleep(0.05)
        for status in ("sent", "delivered"):
            params = {"MessageSid": text["sid"], "MessageStatus": status, "AccountSid": sid,
                      "To": text["form"]["To"], "From": text["form"].get("From", "")}
            text.setdefault("callbacks", []).append((status, post_signed(url, params,
                                                                         self.accounts[sid])[0]))

    def control(self, h, raw=""):
        """The browser tests' side door: what was kept, what to fail."""
        if h.path == "/double/messages" and h.command == "GET":
            with self.lock:
                return self.reply(h, 200, {"messages": self.messages, "requests": self.requests})
        if h.path == "/double/fail" and h.command == "POST":
            ask = json.loads(raw or "{}")
            self.fail(ask.get("status", 500), ask.get("code"), ask.get("message", ""),
                      times=ask.get("times", 1))
            return self.reply(h, 200, {})
        return self.error(h, 404, 20404, "The requested resource %s was not found" % h.path)

    def answer(self, h):
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length).decode()
        if h.path.startswith("/double/"):
            return self.control(h, raw)
        parts = h.path.split("/")
        if len(parts) != 5 or parts[1] != "2010-04-01" or parts[2] != "Accounts" or \
                parts[4] != "Messages.json":
            return self.error(h, 404, 20404, "The requested resource %s was not found" % h.path)
        sid = parts[3]
        with self.lock:
            self.requests += 1
        self.arrived.set()
        self.held.wait(60)
        auth = h.headers.get("Authorization", "")
        given = base64.b64decode(auth[6:]).decode() if auth.startswith("Basic ") else ""
        if sid not in self.accounts or given != sid + ":" + self.accounts[sid]:
            return self.error(h, 401, 20003, "Authenticate")
        with self.lock:
            failure = self.failures.pop(0) if self.failures else None
        if failure:
            status, code, message, retry_after = failure
            return self.error(h, status, code or status, message or "Service unavailable",
                              [("Retry-After", str(retry_after))] if retry_after else [])
        if not h.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            return self.error(h, 400, 20001, "Content-Type must be application/x-www-form-urlencoded")
        form = {k: v[0] for k, v in urllib.parse.parse_qs(raw, keep_blank_values=True).items()}
        to = form.get("To")
        if not to:
            return self.error(h, 400, 21604, "A 'To' phone number is required.")
        if to == INVALID_NUMBER:
            return self.error(h, 400, 21211, "The 'To' number %s is not a valid phone number." % to)
        if not form.get("From") and not form.get("MessagingServiceSid"):
            return self.error(h, 400, 21603, "A 'From' or 'MessagingServiceSid' parameter is"
                              " required to send a message.")
        if not form.get("Body"):
            return self.error(h, 400, 21602, "Message body is required.")
        text = {"sid": "SM" + secrets.token_hex(16), "account_sid": sid, "form": form, "at": time.time()}
        with self.lock:
            self.messages.append(text)
        if not self.callbacks:
            pass
        elif form.get("StatusCallback") and self.report_first:
            self.report(form["StatusCallback"], sid, text)
        elif form.get("StatusCallback"):
            threading.Thread(target=self.report, args=(form["StatusCallback"], sid, text),
                             daemon=True).start()
        self.reply(h, 201, {
            "sid": text["sid"], "account_sid": sid, "api_version": "2010-04-01",
            "body": form["Body"], "to": to, "from": form.get("From"),
            "messaging_service_sid": form.get("MessagingServiceSid"),
            "direction": "outbound-api", "status": "queued", "num_segments": "1",
            "date_created": time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime()),
            "uri": "/2010-04-01/Accounts/%s/Messages/%s.json" % (sid, text["sid"])})


if __name__ == "__main__":
    import sys
    serving = TwilioDouble({sys.argv[1]: sys.argv[2]})
    print(serving.url, flush=True)
    threading.Event().wait()
