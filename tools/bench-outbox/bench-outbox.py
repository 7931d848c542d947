#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench-outbox: messages leaving, at scale. One server sends e-mail
through a real SMTP server on loopback (aiosmtpd, STARTTLS and AUTH, as in
the tests) and texts to the local double of Twilio's API, for two
sub-accounts: A sends, B is a client whose people keep using the app.

  1. Drain: A queues N e-mails and N texts (default 10,000 each) while its
     channels are not set up; then its sender is set and all the mail goes,
     then its Twilio account and all the texts. Reported per channel:
     delivered per second (from the moment the channel was set to the last
     arrival at the sink) and the server's CPU time; the server's RSS; and
     B's API p95 (GET /api/contacts every 5 ms, and a contact changed
     every tenth time) over both drains beside its quiet figure measured
     just before (1,000 reads). The sinks run in processes of
     their own and use CPU too: on a 2-core machine they share it with
     the server.
  2. Latency: A offers e-mails and texts at a steady rate (default 100 a
     second each, for 10 s); each one's time from its POST's answer to its
     arrival at the sink. Reported: p50 and p99 per channel.

    bench-outbox [--messages 10000] [--rate 100] [--seconds 10] [--json out.json]

The conversations module's send_rate (20 a second per sub-account by
default, so one client cannot starve the others) is raised here to 5000:
the bench measures what the server can send, not the fairness limit."""

import argparse
import json
import os
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

SID, TOKEN = "AC" + "0123456789abcdef" * 2, "b" * 32
WRITE_HEADERS = {}  # a sub-account's: asked once, before any thread
ADMIN = ("bench@example.test", "bench-pass-123")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench-outbox", description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.environ.get("BUILD", os.path.join(ROOT, "build")))
    p.add_argument("--messages", type=int, default=10000, help="per channel (default %(default)s)")
    p.add_argument("--rate", type=float, default=100, help="offered per second per channel, step 2")
    p.add_argument("--seconds", type=float, default=10, help="length of step 2")
    p.add_argument("--json", help="write the figures here")
    return p.parse_args(argv)


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def proc_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_mem(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


class Client:
    """One keep-alive connection of the signed-in admin, in one sub-account."""

    def __init__(self, s, admin, location):
        from harness import Client as Http
        self.http = Http(s.port, dict(admin.headers, **WRITE_HEADERS[location]))
        self.http.cookies = dict(admin.cookies)

    def call(self, method, path, body=None, content_type=None):
        r = self.http.request(method, path, body, {"Content-Type": content_type} if content_type else None)
        if r.status >= 400:
            raise RuntimeError("%s %s: %d %s" % (method, path, r.status, r.body[:300]))
        return r.json() if r.body else None


def tag_of(kind, m):
    """The tag a message's text carries ("Offer 12", "Reminder email-3")."""
    if kind == "sms":
        return m["form"]["Body"].split(": ")[0]
    raw = m["raw"].decode("ascii", "replace")
    i = raw.find("\r\n\r\n", raw.find("text/plain"))
    return raw[i + 4:].split("\r\n")[0].split(": ")[0].rstrip("=") if i >= 0 else ""


def sink(kind, conn):
    """The relay or the double, in a process of its own (the bench's own
    threads would share Python's lock with it), answering `conn`: "count",
    "arrivals" ([(time, tag)]), "stop"."""
    from smtp_relay import Relay
    from twilio_double import TwilioDouble
    if kind == "email":
        server = Relay(parse=False)
        conn.send({"url": server.url, "user": server.user, "password": server.password,
                   "cert": server.cert})
    else:
        server = TwilioDouble({SID: TOKEN})
        server.callbacks = False
        conn.send({"url": server.url})
    while True:
        cmd = conn.recv()
        if cmd == "count":
            conn.send(len(server.messages))
        elif cmd == "arrivals":
            conn.send([(m["at"], tag_of(kind, m)) for m in list(server.messages)])
        else:
            server.close()
            conn.send(None)
            return


class Sink:
    def __init__(self, kind):
        import multiprocessing
        self.conn, theirs = multiprocessing.Pipe()
        self.proc = multiprocessing.Process(target=sink, args=(kind, theirs), daemon=True)
        self.proc.start()
        self.info = self.conn.recv()

    def ask(self, cmd):
        self.conn.send(cmd)
        return self.conn.recv()

    def close(self):
        self.ask("stop")
        self.proc.join(10)


def set_up(args):
    from harness import Server
    relay, double = Sink("email"), Sink("sms")
    r = relay.info
    os.environ["HL_BUILD"] = os.path.relpath(args.build, ROOT)
    s = Server(modules=("contacts", "conversations", "email", "sms"), plugins={
        "conversations": "send_rate = 5000\nretry_first_s = 1\n",
        "email": "smtp_url = %s\nsmtp_user = %s\nsmtp_ca_file = %s\n" % (r["url"], r["user"], r["cert"]),
        "sms": "twilio_base_url = %s\n" % double.info["url"]}, env={"PGHL_SMTP_PASSWORD": r["password"]})
    s.create_admin(*ADMIN)
    s.start()
    admin = s.login(*ADMIN)
    return relay, double, s, admin


def new_client(s, admin, location):
    return Client(s, admin, location)


def contacts(c, n, prefix):
    lines = ["first_name,email,phone"] + ["%s%d,%s%d@example.test,+1555%07d" % (prefix, i, prefix, i, i)
                                          for i in range(n)]
    c.call("POST", "/api/contacts/import", ("\n".join(lines) + "\n").encode(), "text/csv")


def threads(c, s, admin, location, channel, n):
    ids = [x["id"] for x in c.call("GET", "/api/contacts?limit=%d" % n)["data"]]
    return [c.call("POST", "/api/conversations", {"contact_id": i, "channel": channel})["id"] for i in ids]


def post_all(s, admin, location, convs, channel, n, workers=4):
    """n messages over the conversations, from `workers` connections."""
    def work(k):
        c = new_client(s, admin, location)
        for i in range(k, n, workers):
            body = {"body": "Offer %d: 20%% off this weekend" % i}
            if channel == "email":
                body["subject"] = "Offer %d" % i
            c.call("POST", "/api/conversations/%d/messages" % convs[i % len(convs)], body)
    ts = [threading.Thread(target=work, args=(k,)) for k in range(workers)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def api_times(c, stop=None, count=1000):
    """B's people: GET /api/contacts every 5 ms and, every tenth time, a
    contact changed (PATCH), until `stop` or `count` reads; the reads' and
    the writes' times in ms."""
    reads, writes = [], []
    first = c.call("GET", "/api/contacts?limit=1")["data"][0]["id"]
    while (stop is None and len(reads) < count) or (stop is not None and not stop.is_set()):
        t = time.perf_counter()
        c.call("GET", "/api/contacts?limit=25")
        reads.append((time.perf_counter() - t) * 1000)
        if len(reads) % 10 == 0:
            t = time.perf_counter()
            c.call("PATCH", "/api/contacts/%d" % first, {"last_name": "Changed %d" % len(reads)})
            writes.append((time.perf_counter() - t) * 1000)
        time.sleep(0.005)
    return reads, writes


def wait_count(sink, n, timeout):
    deadline = time.time() + timeout
    while sink.ask("count") < n and time.time() < deadline:
        time.sleep(0.05)
    return sink.ask("count")


def main(argv):
    args = parse_args(argv)
    relay, double, s, admin = set_up(args)
    out = {}
    try:
        a_id = admin.post("/api/admin/locations", {"name": "Sender"}).json()["id"]
        b_id = admin.post("/api/admin/locations", {"name": "Other client"}).json()["id"]
        from harness import headers
        WRITE_HEADERS.update({a_id: headers(admin, a_id), b_id: headers(admin, b_id)})
        a, b = new_client(s, admin, a_id), new_client(s, admin, b_id)
        contacts(a, 100, "a")
        contacts(b, 500, "b")
        mail_threads = threads(a, s, admin, a_id, "email", 100)
        text_threads = threads(a, s, admin, a_id, "sms", 100)
        print("queueing %d e-mails and %d texts ..." % (args.messages, args.messages), flush=True)
        post_all(s, admin, a_id, mail_threads, "email", args.messages)
        post_all(s, admin, a_id, text_threads, "sms", args.messages)
        quiet, quiet_writes = api_times(b)
        out["quiet_p95_ms"] = pct(quiet, 95)
        out["quiet_write_p95_ms"] = pct(quiet_writes, 95)

        stop = threading.Event()
        busy, busy_writes = [], []

        def watch():
            reads, writes = api_times(new_client(s, admin, b_id), stop)
            busy.extend(reads)
            busy_writes.extend(writes)
        watcher = threading.Thread(target=watch)
        pid = s.proc.pid
        watcher.start()
        # One channel after the other: each one's own rate and CPU.
        for channel, sink, setting in (
                ("email", relay, ("/api/email/settings", {"from_name": "Bench",
                                                          "from_address": "bench@studio.example.test"})),
                ("sms", double, ("/api/sms/settings", {"account_sid": SID, "auth_token": TOKEN,
                                                       "from_number": "+15550100000"}))):
            cpu0, t0 = proc_cpu(pid), time.time()
            a.call("PUT", *setting)
            got = wait_count(sink, args.messages, 900)
            last = max(at for at, _ in sink.ask("arrivals"))
            out[channel] = {"received": got, "per_s": got / (last - t0), "seconds": last - t0,
                            "cpu_s": proc_cpu(pid) - cpu0}
        stop.set()
        watcher.join()
        out.update({"messages": args.messages, "rss_peak_mb": proc_mem(pid, "VmHWM"),
                    "rss_mb": proc_mem(pid, "VmRSS"), "busy_p95_ms": pct(busy, 95),
                    "busy_requests": len(busy), "busy_write_p95_ms": pct(busy_writes, 95),
                    "busy_writes": len(busy_writes)})
        out["busy_over_quiet"] = out["busy_p95_ms"] / out["quiet_p95_ms"]
        out["busy_write_over_quiet"] = out["busy_write_p95_ms"] / out["quiet_write_p95_ms"]

        # Step 2: a steady offer, each message timed from its answer to its arrival.
        sent = {}
        base_mail, base_text = relay.ask("count"), double.ask("count")
        n = int(args.rate * args.seconds)

        def offer(channel, convs, client):
            start = time.time()
            for i in range(n):
                due = start + i / args.rate
                time.sleep(max(0.0, due - time.time()))
                tag = "Reminder %s-%d" % (channel, i)
                body = {"body": tag + ": see you soon"}
                if channel == "email":
                    body["subject"] = "Reminder"
                sent[tag] = time.time()  # queued: its POST begins
                client.call("POST", "/api/conversations/%d/messages" % convs[i % len(convs)], body)
        ts = [threading.Thread(target=offer, args=("email", mail_threads, new_client(s, admin, a_id))),
              threading.Thread(target=offer, args=("sms", text_threads, new_client(s, admin, a_id)))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        wait_count(relay, base_mail + n, 120)
        wait_count(double, base_text + n, 120)
        mail_lat = [at - sent[tag] for at, tag in relay.ask("arrivals")[base_mail:] if tag in sent]
        text_lat = [at - sent[tag] for at, tag in double.ask("arrivals")[base_text:] if tag in sent]
        out.update({"offered_per_s": args.rate, "email_p50_s": pct(mail_lat, 50), "email_p99_s": pct(mail_lat, 99),
                    "text_p50_s": pct(text_lat, 50), "text_p99_s": pct(text_lat, 99),
                    "latency_emails": len(mail_lat), "latency_texts": len(text_lat)})
    finally:
        s.stop()
        relay.close()
        double.close()
    for channel, what in (("email", "e-mails"), ("sms", "texts")):
        f = out[channel]
        print("drain: %d %s in %.1f s, %.0f a second; server CPU %.1f s" % (
            f["received"], what, f["seconds"], f["per_s"], f["cpu_s"]))
    print("server RSS at the end %(rss_mb).1f MB, peak %(rss_peak_mb).1f MB" % out)
    print("other sub-account GET /api/contacts p95: quiet %(quiet_p95_ms).2f ms, during the drain"
          " %(busy_p95_ms).2f ms (%(busy_over_quiet).2fx, %(busy_requests)d requests)" % out)
    print("other sub-account PATCH /api/contacts/:id p95: quiet %(quiet_write_p95_ms).2f ms, during the"
          " drain %(busy_write_p95_ms).2f ms (%(busy_write_over_quiet).2fx, %(busy_writes)d writes)" % out)
    print("offered %(offered_per_s).0f/s each: e-mail p50 %(email_p50_s).3f s, p99 %(email_p99_s).3f s"
          " (%(latency_emails)d); texts p50 %(text_p50_s).3f s, p99 %(text_p99_s).3f s"
          " (%(latency_texts)d)" % out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
