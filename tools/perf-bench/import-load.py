#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""import-load: what one sub-account's big CSV import costs the others.
Seeds a data set (perf-seed --scale, 4 sub-accounts) into a scratch folder,
starts BUILD/hyperlevel on it, then times contacts created one at a time
in a second sub-account (POST /api/contacts, 20 ms apart), first for a
few seconds alone and then for --seconds while the first sub-account
imports a CSV of --rows contacts (about 140 bytes each: 430,000 rows make
the 60 MB of issue 17). Prints p50, p95 and max of both, how far the
import got, and the import job's slices from /api/admin/metrics.

    import-load.py [--build build] [--seconds 20] [--rows 430000] [--scale 0.05]
"""

import argparse
import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
USER = {"email": "perf@example.test", "password": "perf-pass-123"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    def __init__(self, port):
        self.port, self.headers = port, {}

    def call(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        h = dict(self.headers, **(headers or {}))
        if isinstance(body, dict):
            body, h["Content-Type"] = json.dumps(body), "application/json"
        c.request(method, path, body, h)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r, data

    def sign_in(self):
        r, _ = self.call("POST", "/api/auth/login", USER)
        self.headers["Cookie"] = r.getheader("Set-Cookie").split(";")[0]
        me = json.loads(self.call("GET", "/api/auth/me")[1])
        self.headers["X-CSRF-Token"] = me["csrf_token"]
        return [loc["id"] for loc in me["locations"]]


def creations(port, headers, seconds):
    """Contacts created one at a time for `seconds`: their latencies, ms."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    out, end, i = [], time.time() + seconds, 0
    while time.time() < end:
        body = json.dumps({"first_name": "Load%d" % i, "email": "load%d-%f@b.test" % (i, time.time())})
        t = time.time()
        c.request("POST", "/api/contacts", body, dict(headers, **{"Content-Type": "application/json"}))
        r = c.getresponse()
        r.read()
        if r.status != 201:
            raise SystemExit("import-load: a contact got %d" % r.status)
        out.append((time.time() - t) * 1000)
        i += 1
        time.sleep(0.02)
    c.close()
    return out


def summary(ms):
    ms = sorted(ms)
    pick = lambda f: ms[min(len(ms) - 1, int(f * len(ms)))]
    return "n=%d p50=%.1f p95=%.1f max=%.1f ms" % (len(ms), pick(0.5), pick(0.95), ms[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--rows", type=int, default=430000)
    ap.add_argument("--scale", default="0.05")
    args = ap.parse_args()
    build = os.path.abspath(os.path.join(ROOT, args.build))
    data = tempfile.mkdtemp(prefix="hl-import-load-")
    server = None
    try:
        subprocess.run([build + "/perf-seed", "--data-dir", data, "--scale", args.scale,
                        "--locations", "4"], check=True, capture_output=True)
        port = free_port()
        server = subprocess.Popen([build + "/hyperlevel", "serve", "--data-dir", data, "--port",
                                   str(port), "--modules-dir", build + "/modules", "--plugins-dir",
                                   ROOT + "/plugins.d", "--web-dir", build + "/web", "--config",
                                   "/dev/null"], env=dict(os.environ, PGHL_BACKUPS="0"),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = Client(port)
        for _ in range(100):
            try:
                locations = client.sign_in()
                break
            except (OSError, AttributeError):
                time.sleep(0.1)
        other = dict(client.headers, **{"X-Location-Id": str(locations[1])})
        alone = creations(port, other, 5)
        rows = ["first_name,email,company_name"] + [
            "Big%d,big%d@import.test,Company %d %s" % (i, i, i, "x" * 100) for i in range(args.rows)]
        csv = ("\r\n".join(rows) + "\r\n").encode()
        r, body = client.call("POST", "/api/contacts/import", csv,
                              {"Content-Type": "text/csv", "X-Location-Id": str(locations[0])})
        job = json.loads(body)
        during = creations(port, other, args.seconds)
        state = json.loads(client.call("GET", "/api/contacts/imports/%d" % job["id"],
                                       headers={"X-Location-Id": str(locations[0])})[1])
        jobs = json.loads(client.call("GET", "/api/admin/metrics")[1])["jobs"]
        print("upload: %d MB, %d" % (len(csv) >> 20, r.status))
        print("contacts of another sub-account, alone:  " + summary(alone))
        print("contacts of another sub-account, during: " + summary(during))
        print("import after %.0f s: %d rows (%.0f rows/s), progress %s" % (
            args.seconds, state["created"], state["created"] / args.seconds, state["progress"]))
        for j in jobs:
            if j["name"].endswith(".import"):
                print("import slices: %d runs, %d over budget, mean %.0f ms, max %d ms" % (
                    j["runs"], j["overruns"], j["total_ms"] / max(1, j["runs"]), j["max_ms"]))
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
