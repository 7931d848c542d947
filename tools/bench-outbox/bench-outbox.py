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
     every tenth time) over both drains beside its quiet figure (4,000
     reads and 400 writes, half just before, half just after). The sinks run in processes of
     their own and use CPU too: on a 2-core machine they share it with
     the server.
  2. Latency: A offers e-mails and texts at a steady rate (default 100 a
     second each, for 10 s); each one's time from its POST's answer to its
     arrival at the sink. Reported: p50 and p99 per channel.
  3. At a set pace: the server restarted with send_rate at --pace (500
     a second, the rate the outbox must reach), a third sub-account, C,
     queues half as many of each, then sends them while B's people work
     as in step 1, beside B's quiet figure measured again around it.
  4. The control: nothing is sent; processes that only burn the CPU
     the sinks burned in step 1 (as large a share of a core, for as
     long, one channel's after the other) run while B's people work as
     in step 1, beside B's quiet figure measured around it. It is
     the share of the other client's p95 that is the machine's, not the
     server's: on a machine with the provider elsewhere it is not there.

Each quiet figure is begun once the messages queued have all been looked
at and put aside to wait for their channel, so that it is quiet.

    bench-outbox [--messages 10000] [--rate 100] [--seconds 10] [--pace 500] [--json out.json]

The conversations module's send_rate (20 a second per sub-account by
default, so one client cannot starve the others) is raised here to 5000
in steps 1 and 2: they measure what the server can send, not the
fairness limit; step 3 measures another client's share while the server
sends at the pace an operator would allow one sub-account."""

import argparse
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

SID, TOKEN = "AC" + "0123456789abcdef" * 2, "b" * 32
WRITE_HEADERS = {}  # a sub-account's: asked once, before any thread
ADMIN = ("bench@example.test", "bench-pass-123")
# B's quiet figure: as many reads as a drain sees (and a tenth as many
# writes), so that the two p95s rest on as many samples.
QUIET_READS = 4000


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench-outbox", description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.environ.get("BUILD", os.path.join(ROOT, "build")))
    p.add_argument("--messages", type=int, default=10000, help="per channel (default %(default)s)")
    p.add_argument("--rate", type=float, default=100, help="offered per second per channel, step 2")
    p.add_argument("--seconds", type=float, default=10, help="length of step 2")
    p.add_argument("--pace", type=int, default=500, help="send_rate of step 3, a second")
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


def outbox_conf(rate):
    return "send_rate = %d\nretry_first_s = 1\n" % rate


def set_up(args):
    # Before harness is first imported: it reads the build folder then.
    os.environ["HL_BUILD"] = os.path.relpath(args.build, ROOT)
    from harness import Server
    relay, double = Sink("email"), Sink("sms")
    r = relay.info
    s = Server(modules=("contacts", "conversations", "email", "sms"), plugins={
        "conversations": outbox_conf(5000),
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


def senders(name, number):
    """Each channel's settings for a sender called `name` texting from `number`."""
    return (("email", "/api/email/settings", {"from_name": name,
                                               "from_address": name.lower() + "@studio.example.test"}),
            ("sms", "/api/sms/settings", {"account_sid": SID, "auth_token": TOKEN, "from_number": number}))


def drain(client, pid, sinks, sender, n):
    """One channel after the other, so that each has its own rate and CPU:
    the channel set up, then its `n` messages waited for at the sink."""
    out = {}
    for channel, path, body in senders(*sender):
        sink = sinks[channel]
        base = sink.ask("count")
        cpu0, sink_cpu0, t0 = proc_cpu(pid), proc_cpu(sink.proc.pid), time.time()
        client.call("PUT", path, body)
        got = wait_count(sink, base + n, 900) - base
        last = max((at for at, _ in sink.ask("arrivals")[base:]), default=time.time())
        out[channel] = {"received": got, "per_s": got / (last - t0), "seconds": last - t0,
                        "cpu_s": proc_cpu(pid) - cpu0, "sink_cpu_s": proc_cpu(sink.proc.pid) - sink_cpu0}
    return out


def beside_b(s, admin, b_id, b, work):
    """work() while B's people keep at it (api_times); B's p95s then, beside
    its quiet figure (through client `b`), with work()'s figures. Half the
    quiet samples are taken just before, half just after: this machine's
    speed drifts from one minute to the next, and a figure taken on one
    side only stood for whichever minute it fell in."""
    before = api_times(b, count=QUIET_READS // 2)
    stop = threading.Event()
    busy = ([], [])

    def watch():
        reads, writes = api_times(new_client(s, admin, b_id), stop)
        busy[0].extend(reads)
        busy[1].extend(writes)
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        out = work()
    finally:
        stop.set()
        watcher.join()
    after = api_times(b, count=QUIET_READS // 2)
    quiet = (before[0] + after[0], before[1] + after[1])
    out.update({"quiet_p95_ms": pct(quiet[0], 95), "quiet_write_p95_ms": pct(quiet[1], 95),
                "busy_p95_ms": pct(busy[0], 95), "busy_requests": len(busy[0]),
                "busy_write_p95_ms": pct(busy[1], 95), "busy_writes": len(busy[1])})
    out["busy_over_quiet"] = out["busy_p95_ms"] / out["quiet_p95_ms"]
    out["busy_write_over_quiet"] = out["busy_write_p95_ms"] / out["quiet_write_p95_ms"]
    return out


def burn(share, seconds):
    """A sink's CPU without its work: busy `share` of every 2 ms."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        while time.perf_counter() - t < share * 0.002:
            pass
        time.sleep((1 - share) * 0.002)


def control(drained):
    """Step 4's work: for each channel drained in step 1, a process burning
    the share of a core its sink burned, for as long."""
    import multiprocessing
    for channel in ("email", "sms"):
        g = drained[channel]
        p = multiprocessing.Process(target=burn, args=(min(1.0, g["sink_cpu_s"] / g["seconds"]),
                                                       g["seconds"]))
        p.start()
        p.join()
    return {}


def latency(s, admin, a_id, sinks, convs, rate, seconds):
    """Step 2: a steady offer, each message timed from its POST to its arrival."""
    sent = {}
    base = {k: sink.ask("count") for k, sink in sinks.items()}
    n = int(rate * seconds)

    def offer(channel, client):
        start = time.time()
        for i in range(n):
            time.sleep(max(0.0, start + i / rate - time.time()))
            tag = "Reminder %s-%d" % (channel, i)
            body = {"body": tag + ": see you soon"}
            if channel == "email":
                body["subject"] = "Reminder"
            sent[tag] = time.time()  # queued: its POST begins
            client.call("POST", "/api/conversations/%d/messages" % convs[channel][i % len(convs[channel])],
                        body)
    ts = [threading.Thread(target=offer, args=(k, new_client(s, admin, a_id))) for k in sinks]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out = {"offered_per_s": rate}
    for k, name in (("email", "email"), ("sms", "text")):
        wait_count(sinks[k], base[k] + n, 120)
        lat = [at - sent[tag] for at, tag in sinks[k].ask("arrivals")[base[k]:] if tag in sent]
        out.update({name + "_p50_s": pct(lat, 50), name + "_p99_s": pct(lat, 99),
                    "latency_%ss" % name: len(lat)})
    return out


def queue(s, admin, client, location, prefix, n):
    """100 contacts, a thread of each channel with each, and n messages of
    each channel over them, while the sub-account's channels are not set
    up; returns the threads, by channel, once the outbox has put every
    one aside to wait for its channel."""
    contacts(client, 100, prefix)
    convs = {k: threads(client, s, admin, location, k, 100) for k in ("email", "sms")}
    print("queueing %d e-mails and %d texts ..." % (n, n), flush=True)
    for k, ids in convs.items():
        post_all(s, admin, location, ids, k, n)
    deadline = time.time() + 300
    while time.time() < deadline and s.sql("SELECT count(*) FROM outbox WHERE location_id = ?"
                                           " AND due_at <= ?", location, int(time.time() * 1000))[0][0]:
        time.sleep(0.2)
    return convs


def restart_paced(s, args):
    """The server again, with send_rate at the pace of step 3; its admin."""
    s.stop()
    with open(os.path.join(s.plugins_dir, "conversations.conf"), "w") as f:
        f.write(outbox_conf(args.pace))
    s.start()
    return s.login(*ADMIN)


def main(argv):
    args = parse_args(argv)
    relay, double, s, admin = set_up(args)
    sinks = {"email": relay, "sms": double}
    paced_n = args.messages // 2
    out = {}
    try:
        from harness import headers
        ids = [admin.post("/api/admin/locations", {"name": n}).json()["id"]
               for n in ("Sender", "Other client", "Paced sender")]
        a_id, b_id, c_id = ids
        WRITE_HEADERS.update({i: headers(admin, i) for i in ids})
        a, b = new_client(s, admin, a_id), new_client(s, admin, b_id)
        contacts(b, 500, "b")
        convs = queue(s, admin, a, a_id, "a", args.messages)

        out.update(beside_b(s, admin, b_id, b,
                            lambda: drain(a, s.proc.pid, sinks, ("Bench", "+15550100000"), args.messages)))
        out.update({"messages": args.messages, "rss_peak_mb": proc_mem(s.proc.pid, "VmHWM"),
                    "rss_mb": proc_mem(s.proc.pid, "VmRSS")})
        out.update(latency(s, admin, a_id, sinks, convs, args.rate, args.seconds))

        admin = restart_paced(s, args)
        WRITE_HEADERS.update({i: headers(admin, i) for i in ids})
        b, c = new_client(s, admin, b_id), new_client(s, admin, c_id)
        queue(s, admin, c, c_id, "c", paced_n)
        out["paced"] = beside_b(s, admin, b_id, b,
                                lambda: drain(c, s.proc.pid, sinks, ("Pace", "+15550100001"), paced_n))
        out["paced"].update({"send_rate": args.pace, "messages": paced_n})
        out["control"] = beside_b(s, admin, b_id, b,
                                  lambda: control(out))
    finally:
        s.stop()
        relay.close()
        double.close()
    report(out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


def report(out):
    def shares(f, when):
        print("other sub-account GET /api/contacts p95: quiet %.2f ms, %s %.2f ms (%.2fx, %d requests)"
              % (f["quiet_p95_ms"], when, f["busy_p95_ms"], f["busy_over_quiet"], f["busy_requests"]))
        print("other sub-account PATCH /api/contacts/:id p95: quiet %.2f ms, %s %.2f ms (%.2fx, %d writes)"
              % (f["quiet_write_p95_ms"], when, f["busy_write_p95_ms"], f["busy_write_over_quiet"],
                 f["busy_writes"]))

    def drained(f, step):
        for channel, what in (("email", "e-mails"), ("sms", "texts")):
            g = f[channel]
            print("%s: %d %s in %.1f s, %.0f a second; server CPU %.1f s, its sink's %.1f s" % (
                step, g["received"], what, g["seconds"], g["per_s"], g["cpu_s"], g["sink_cpu_s"]))
    drained(out, "drain")
    print("server RSS at the end %(rss_mb).1f MB, peak %(rss_peak_mb).1f MB" % out)
    shares(out, "during the drain")
    print("offered %(offered_per_s).0f/s each: e-mail p50 %(email_p50_s).3f s, p99 %(email_p99_s).3f s"
          " (%(latency_emails)d); texts p50 %(text_p50_s).3f s, p99 %(text_p99_s).3f s"
          " (%(latency_texts)d)" % out)
    paced = out["paced"]
    drained(paced, "at send_rate %d" % paced["send_rate"])
    shares(paced, "while sending at %d a second" % paced["send_rate"])
    shares(out["control"], "beside the sinks' CPU alone, nothing sent,")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
