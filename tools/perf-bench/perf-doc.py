#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perf-doc: the performance page, written from the benchmarks' JSON. It
reads what `make bench` (perf-bench, cache on and off, reads and --mix) and
bench-idle wrote, puts the published figures of reference.json beside ours,
checks each against its target, and writes docs/performance.md; with
--readme it also replaces the README's block between the performance
markers with the main tables, and the one between the seeding markers with
bench-idle's perf-seed runs. No figure here is typed by hand: a page that
must change is made again by `make bench-doc`.

    perf-doc --bench NAME --idle idle.json [--out FILE] [--readme README.md]

NAME is the BENCH_JSON prefix: NAME-cache-on.json, NAME-cache-off.json,
NAME-mix-on.json and NAME-mix-off.json (the mixes may be missing).

    perf-doc [--bench NAME --idle idle.json] --growth growth.json --readme README.md

With --growth, growth.py's figures go on the page and in the README's
block between the growth markers; given alone, only that block is written."""

import argparse
import functools
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
BEGIN, END = "<!-- performance:begin -->", "<!-- performance:end -->"
SEED_BEGIN, SEED_END = "<!-- seeding:begin -->", "<!-- seeding:end -->"
GROWTH_BEGIN, GROWTH_END = "<!-- growth:begin -->", "<!-- growth:end -->"
SEED_S, SEED_DB_MB = 3, 150  # the aims for seeding the full data set

# The targets of the figures, in ms and shares.
CACHED_P95_MS = 1
UNCACHED_P95_MS = 20
EXPORT_P50_MS = 15
HELLO_SHARE = 0.75
HELLO_SYSCALLS_MORE = 1  # a cached request's system calls, beyond the hello-world's
MIX_RPS, MIX_P95_MS = 4000, 8  # the mix at 10 clients, cache on
RSS_MB = {0: 15, 500: 30}
FULL_RSS_MB = 30  # the full data set, a minute after its first start
CPU_PERCENT = 0.05
STARTUP_MS = 100
# As the data grows (growth.py): 1x -> 10x without the cache, p95 at 10
# clients; the search in one sub-account of 100k contacts, p50 at 1 client.
GROWTH_RATIO = 1.5
GROWTH_AGENCY_MS = 100
# Screens over every sub-account the user may open (perf-bench signs in as
# the agency's admin): they grow with the sub-accounts, 50 to 500, as the
# agency's do, so they are held to the agency's bound, not to the ratio.
EVERY_LOCATION = ("mobile-inbox", "mobile-projects")
# The export sends every contact of the sub-account: it is held to its cost
# per contact, which should stay where it was.
PER_CONTACT = ("export",)
GROWTH_SEARCH_MS = 5
GROWTH_SEED_S = 40


class Fail(Exception):
    pass


def load(path, needed=True):
    if not os.path.exists(path):
        if needed:
            raise Fail("%s is missing (make bench BENCH_JSON=... writes it)" % path)
        return None
    with open(path) as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def tool(name):
    """tools/perf-bench/NAME.py as a module, for what the tools share."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"),
                                                  os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fig(v):
    """As perf-bench prints them: 12 300, 41.2, 3.07, 0.412; "–" for none."""
    return "–" if v is None else tool("perf-bench").number(v)


def by_name(run):
    """{(endpoint, clients): median figures} of a perf-bench JSON."""
    return {(s["name"], s["clients"]): s["median"] for s in run["endpoints"]}


def md_table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def syscalls(run):
    """{endpoint: system calls a request} of a perf-bench JSON, of those
    counted (perf-bench --server-pid)."""
    return {s["name"]: s["syscalls"] for s in run["endpoints"] if s.get("syscalls") is not None}


def endpoints_of(run):
    seen = []
    for s in run["endpoints"]:
        if s["name"] != "hello" and s["name"] not in seen:
            seen.append(s["name"])
    return seen


def path_of(run, name):
    return next(s["path"] for s in run["endpoints"] if s["name"] == name)


def label(run, name):
    """The path as the reference names it, ids as :id."""
    parts = path_of(run, name).split("?")
    path = "/".join(":id" if p.isdigit() else p for p in parts[0].split("/"))
    return "`%s`" % (path + ("?" + parts[1] if len(parts) > 1 else ""))


# ---- the sections ----------------------------------------------------------------

def about(on, bench):
    m, loc = on["machine"], on["location"]
    step = "%g s" % on["duration_s"] if on["duration_s"] else "%d requests" % on["requests"]
    runs = "the median of %d runs of %s" % (on["runs"], step) if on["runs"] > 1 else \
        "from one run of %s" % step
    return ["Measured %s on %s (%d cores, %s GB, %s, Linux %s); HyperLevel %s, %s."
            % (on["started_at"][:10], m["cpu"] or "an unnamed CPU", m["cores"], m["memory_gb"],
               m["os"], m["kernel"], on["server"].get("version", "?"), on["wrk"]),
            "",
            "The data set is perf-seed's, with %s sub-accounts; the requests go to "
            "the largest sub-account, \"%s\" (%s contacts), as the reference's did. Clients are "
            "wrk's keep-alive connections, sending `Accept-Encoding: %s`. Each figure is %s; "
            "latencies are in ms, percentiles of every request. Client and server share the "
            "machine." % (on.get("sub_accounts", "?"), loc["name"], fig(loc["contacts"]),
                          on["accept_encoding"] or "none", runs),
            "",
            "The reference's figures are its own (%s)." % bench["reference"]["machine"]]


def main_table(on, off, ref):
    a, b = by_name(on), by_name(off)
    rows = []
    for name in endpoints_of(on):
        r = ref.get(name, {})
        rows.append([label(on, name)] +
                    [fig(a.get((name, c), {}).get(k)) for c, k in ((1, "p50"), (10, "p95"), (50, "p95"))] +
                    [fig(b.get((name, 10), {}).get("p95"))] +
                    [fig(r.get(k)) for k in ("p50_1", "p95_10", "p95_50", "uncached_p95_10")])
    head = ["endpoint", "p50, 1 client", "p95, 10", "p95, 50", "no cache: p95, 10",
            "reference: p50, 1", "p95, 10", "p95, 50", "no cache: p95, 10"]
    return md_table(head, rows)


def throughput_table(on, off):
    a, b = by_name(on), by_name(off)
    calls, calls_off = syscalls(on), syscalls(off)
    hello = a.get(("hello", 10), {}).get("rps")
    rows = []
    for name in (["hello"] if hello else []) + endpoints_of(on):
        share = a.get((name, 10), {}).get("rps", 0) / hello if hello else None
        rows.append(["hello-world" if name == "hello" else label(on, name)] +
                    [fig(a.get((name, c), {}).get("rps")) for c in (1, 10, 50)] +
                    ["%.0f %%" % (100 * share) if share is not None else "–",
                     fig(a.get((name, 50), {}).get("max")), fig(calls.get(name)),
                     fig(b.get((name, 10), {}).get("rps")), fig(b.get((name, 50), {}).get("max")),
                     fig(calls_off.get(name))])
    head = ["endpoint", "req/s, 1 client", "10", "50", "of hello-world, 10", "worst, 50 (ms)",
            "system calls", "no cache: req/s, 10", "worst, 50 (ms)", "system calls"]
    return md_table(head, rows)


def clients(n):
    return "1 client" if n == 1 else "%d clients" % n


def over(items, fmt):
    return ", ".join(fmt % x for x in items) if items else "none"


def targets(on, off):
    """Each target and the endpoints that miss it. The export streams its
    8k rows, so it is never cached and is held to its own aim."""
    a, b = by_name(on), by_name(off)
    names = [n for n in endpoints_of(on) if n != "export"]
    lines = []
    p95 = [(n, a[(n, 10)]["p95"]) for n in names if (n, 10) in a]
    slow = [x for x in p95 if x[1] > CACHED_P95_MS]
    lines.append("- Cached, p95 at 10 clients at most %g ms (the export aside): %d of %d endpoints."
                 " Over: %s."
                 % (CACHED_P95_MS, len(p95) - len(slow), len(p95), over(slow, "%s %.3g ms")))
    if ("hello", 10) in a:
        h = a[("hello", 10)]["rps"]
        share = [(n, a[(n, 10)]["rps"] / h) for n in names if (n, 10) in a]
        low = [(n, 100 * s) for n, s in share if s < HELLO_SHARE]
        lines.append("- Cached throughput at 10 clients at least %.0f %% of the hello-world's (%s "
                     "req/s): %d of %d. Below: %s."
                     % (100 * HELLO_SHARE, fig(h), len(share) - len(low), len(share),
                        over(low, "%s %.0f %%")))
    calls = syscalls(on)
    if "hello" in calls:
        most = calls["hello"] + HELLO_SYSCALLS_MORE
        counted = [(n, calls[n]) for n in names if n in calls]
        many = [x for x in counted if x[1] > most]
        lines.append("- A cached request's system calls at most the hello-world's (%s) plus %d:"
                     " %d of %d. Over: %s."
                     % (fig(calls["hello"]), HELLO_SYSCALLS_MORE, len(counted) - len(many),
                        len(counted), over(many, "%s %.3g")))
    q95 = [(n, b[(n, 10)]["p95"]) for n in names if (n, 10) in b]
    slow = [x for x in q95 if x[1] > UNCACHED_P95_MS]
    lines.append("- Without the cache, p95 at 10 clients at most %g ms: %d of %d."
                 " Over: %s." % (UNCACHED_P95_MS, len(q95) - len(slow), len(q95),
                                 over(slow, "%s %.3g ms")))
    if ("export", 1) in b:
        lines.append("- The export (%s), p50 at 1 client: %s ms (aim: under %g)."
                     % ("%s rows" % fig(on["location"]["contacts"]), fig(b[("export", 1)]["p50"]),
                        EXPORT_P50_MS))
    for run, state in ((a, "cached"), (b, "without the cache")):
        pairs = [(n, run[(n, 50)]["rps"] / run[(n, 10)]["rps"]) for n in names
                 if (n, 50) in run and (n, 10) in run]
        if not pairs:
            continue
        low = [(n, 100 * r) for n, r in pairs if r < 1]
        worst = max((run[(n, 50)]["max"], n) for n, _ in pairs)
        lines.append("- 50 clients, %s: throughput not below 10 clients' for %d of %d (below: %s); "
                     "the worst single latency %s ms (%s)."
                     % (state, len(pairs) - len(low), len(pairs), over(low, "%s %.0f %%"),
                        fig(worst[0]), worst[1]))
    return lines


def mix_section(mix_on, mix_off):
    if not mix_on:
        return ["(not measured: make bench with MIX_FLAGS=no)"]
    levels = [s["clients"] for s in mix_on["mix"]]
    kinds = [k for k in mix_on["mix"][0]["median"]]
    percents = mix_on["mix"][0]["percents"]
    rows = []
    for k in kinds:
        row = [k, "%g %%" % percents.get(k, 100)]
        for run in (mix_on, mix_off):
            for s in (run["mix"] if run else []):
                m = s["median"][k]
                row.append("%s / %s / %s" % (fig(m["rps"]), fig(m["p50"]), fig(m["p95"])))
        rows.append(row)
    head = ["kind", "share"] + [clients(c) for c in levels] + \
        (["no cache: " + clients(c) for c in levels] if mix_off else [])
    lines = ["Requests/s, p50 and p95 (ms) of each kind, while all run together in the "
             "shares of `MIX_READS` and `MIX_WRITES` (perf-bench.py): nine reads in ten, and "
             "contacts created, deals moved, messages sent, tasks completed.", ""]
    lines += md_table(head, rows) + [""]
    ten = next((s["median"]["all"] for s in mix_on["mix"] if s["clients"] == 10), None)
    if ten:
        lines.append("- At 10 clients, cache on: %s req/s (aim: at least %d), p95 %s ms (aim: at most %g)."
                     % (fig(ten["rps"]), MIX_RPS, fig(ten["p95"]), MIX_P95_MS))
    for s in mix_on["mix"]:
        c = s["cache_median"]
        if c:
            lines.append("- %s: %s cache hits and %s misses; %s of the misses found an "
                         "answer a write had made out of date, %.1f a write (%s writes)."
                         % (clients(s["clients"]), fig(c["hits"]), fig(c["misses"]), fig(c["invalidated"]),
                            c["invalidated"] / s["writes"] if s["writes"] else 0, fig(s["writes"])))
    return lines


def full_data_set(idle):
    """The full data set's idle figures (bench-idle's startup step), or None."""
    return (idle.get("startup") or {}).get("full")


def idle_table(idle, levelrail):
    ref = levelrail["idle"]
    rows = []
    for s in idle["steps"]:
        r = ref.get(str(s["sub_accounts"]), {})
        rows.append([str(s["sub_accounts"]), "%.1f" % s["rss_mb"], "%.3f" % s["cpu_percent"],
                     fig(r.get("rss_mb")), fig(r.get("cpu_percent"))])
    full = full_data_set(idle)
    if full:
        rows.append(["the full data set, %g s after its first start" % full["settle_s"],
                     "%.1f" % full["rss_mb"], "%.3f" % full["cpu_percent"], "", ""])
    return md_table(["sub-accounts", "RSS (MB)", "CPU (%)", "levelrail: RSS (MB)", "CPU (%)"], rows)


def idle_section(idle, levelrail):
    lines = idle_table(idle, levelrail)
    lines += ["", "%d sequential requests per endpoint over one connection, p50 / p95 in ms:" %
              idle["requests"], ""]
    steps = idle["steps"]
    rows = []
    for path in steps[0]["endpoints"]:
        cells = []
        for s in steps:
            f = s["endpoints"][path]
            cells.append("%.2f / %.2f" % (f["p50"], f["p95"]) if f else "n/a")
        rows.append(["`GET %s`" % path] + cells)
    lines += md_table(["endpoint"] + ["%d sub-accounts" % s["sub_accounts"] for s in steps], rows)
    full = full_data_set(idle)
    if full:
        j = full["jobs"]
        lines += ["", "The full data set (perf-seed) is sampled after its first start, which makes the"
                  " start-up backup and runs the jobs' first passes: %.1f MB anonymous and %.1f MB of"
                  " the database's file pages resident. Its job slices so far: %d, the longest %d ms"
                  " (%s), %d over the %d ms budget." % (full["rss_anon_mb"], full["rss_file_mb"],
                                                       j["slices"], j["max_slice_ms"], j["slowest"],
                                                       j["overruns"], j["budget_ms"])]
    if idle.get("startup"):
        st = idle["startup"]
        lines += ["", "Start-up to the first answer on the full data set: %s ms, the median of %s "
                  "(aim: under %d ms)." % (fig(st["median_ms"]), ", ".join(fig(t) for t in st["runs_ms"]),
                                           STARTUP_MS)]
    lines += ["", idle_targets(idle)]
    return lines


def idle_targets(idle):
    parts = []
    for s in idle["steps"]:
        if s["sub_accounts"] in RSS_MB:
            parts.append("RSS at %d sub-accounts %.1f MB (aim: at most %d)"
                         % (s["sub_accounts"], s["rss_mb"], RSS_MB[s["sub_accounts"]]))
    full = full_data_set(idle)
    if full:
        parts.append("RSS on the full data set %.1f MB (aim: at most %d), every job slice within"
                     " its budget: %s" % (full["rss_mb"], FULL_RSS_MB,
                                          "yes" if not full["jobs"]["overruns"] else
                                          "no, %d over" % full["jobs"]["overruns"]))
    worst = max([s["cpu_percent"] for s in idle["steps"]] + ([full["cpu_percent"]] if full else []))
    parts.append("idle CPU at most %.3f %% (aim: under %g)" % (worst, CPU_PERCENT))
    return "Against the targets: " + "; ".join(parts) + "."


def full_table(run):
    rows = [[s["name"], "`%s`" % s["path"], str(s["clients"])] +
            [fig(s["median"][k]) for k in ("rps", "p50", "p95", "p99", "max")] +
            ["%g" % s["median"]["errors"]] for s in run["endpoints"]]
    return md_table(["endpoint", "path", "clients", "req/s", "p50", "p95", "p99", "max", "errors"], rows)


def settled(data_set):
    """How long after its start the server had been quiet for a few
    seconds and the benchmark began (growth.py's settle)."""
    if "settled_s" not in data_set:
        return "–"
    if data_set["settled_s"] is None:
        return "still busy when measured"
    return "%.1f s" % data_set["settled_s"]


def growth_section(growth):
    """The 1x and 10x figures side by side, and the targets; from growth.py."""
    sets = growth["sets"]
    sizes = " and ".join("%s contacts at %s" % (fig(sets[n]["bench"]["location"]["contacts"]), n)
                         for n in ("1x", "10x") if n in sets)
    side_by_side = (" 1x and 10x were served side by side and measured step by step, each run"
                    " on one right after the same run on the other, so that a slow moment of the"
                    " machine falls on both." if growth.get("paired") else "")
    lines = ["Measured %s by growth.py (`make bench-growth`), each data set seeded by perf-seed"
             " and served with the read cache off, once its jobs' first passes over the data were"
             " done.%s Figures: p50 / p95 in ms at 10 clients, to the largest"
             " sub-account (%s). Its lists are paged and read from indexes, so their figures should"
             " not grow with it; the agency's, and the phone's projects and inbox, grow with the"
             " sub-accounts, and the export with the contacts."
             % (growth["started_at"][:10], side_by_side, sizes), ""]
    lines += md_table(["data set", "seeding", "database", "peak memory", "settled after start"], [
        ["%s: %s" % (n, s["holds"]), "%.2f s" % s["seeding"]["seconds"],
         "%.1f MB" % s["seeding"]["db_mb"], "%.1f MB" % s["seeding"]["peak_mb"], settled(s)]
        for n, s in sets.items()]) + [""]
    if "1x" in sets and "10x" in sets:
        one, ten = sets["1x"]["bench"], sets["10x"]["bench"]
        a, b = by_name(one), by_name(ten)
        rows = []
        for n in endpoints_of(one):
            x, y = a.get((n, 10)), b.get((n, 10))
            if x and y:
                rows.append([label(one, n), "%s / %s" % (fig(x["p50"]), fig(x["p95"])),
                             "%s / %s" % (fig(y["p50"]), fig(y["p95"])),
                             "%.2fx" % (y["p95"] / x["p95"]) if x["p95"] else "–"])
        lines += md_table(["endpoint", "1x", "10x", "10x / 1x (p95)"], rows) + [""]
    lines += growth_targets(sets)
    return lines


def spans_locations(name):
    return name.startswith("agency-") or name in EVERY_LOCATION


def growth_targets(sets):
    lines = []
    if "1x" in sets and "10x" in sets:
        one, ten = sets["1x"]["bench"], sets["10x"]["bench"]
        a, b = by_name(one), by_name(ten)
        names = [n for n in endpoints_of(one) if (n, 10) in a and (n, 10) in b]
        own = [n for n in names if not spans_locations(n) and n not in PER_CONTACT]
        grew = [(n, b[(n, 10)]["p95"] / a[(n, 10)]["p95"]) for n in own
                if b[(n, 10)]["p95"] > GROWTH_RATIO * a[(n, 10)]["p95"]]
        lines.append("- A sub-account's endpoints at 10x within %gx of 1x (p95): %d of %d. Over: %s."
                     % (GROWTH_RATIO, len(own) - len(grew), len(own), over(grew, "%s %.2fx")))
        for n in (n for n in names if n in PER_CONTACT):
            per = [m[(n, 10)]["p95"] * 1000 / run["location"]["contacts"]
                   for m, run in ((a, one), (b, ten))]
            lines.append("- %s sends every contact of the sub-account: p95 %s ms per 1 000 contacts"
                         " at 1x, %s at 10x, %.2fx (aim: within %gx)."
                         % (label(one, n), fig(per[0]), fig(per[1]), per[1] / per[0], GROWTH_RATIO))
        agency = [(n, b[(n, 10)]["p95"]) for n in names if spans_locations(n)]
        slow = [x for x in agency if x[1] > GROWTH_AGENCY_MS]
        lines.append("- The endpoints over every sub-account (the agency's; the phone's projects and"
                     " inbox) at 10x, p95 at most %d ms: %d of %d. Over: %s."
                     % (GROWTH_AGENCY_MS, len(agency) - len(slow), len(agency),
                        over(slow, "%s %.3g ms")))
    if "one" in sets:
        search = by_name(sets["one"]["bench"]).get(("contacts-search", 1))
        if search:
            lines.append("- The contact search in one sub-account of 100k contacts, p50 at 1 client:"
                         " %s ms (aim: at most %d)." % (fig(search["p50"]), GROWTH_SEARCH_MS))
    if "10x" in sets:
        lines.append("- Seeding 1M contacts: %.2f s (aim: under %d)."
                     % (sets["10x"]["seeding"]["seconds"], GROWTH_SEED_S))
    return lines


def growth_block(growth):
    return "\n".join([GROWTH_BEGIN, ""] + growth_section(growth) + ["", GROWTH_END])


# ---- the page ----------------------------------------------------------------------

REPRODUCE = """```
make bench-doc        # all of this page, about 40 minutes; rewrites it and the README's tables
make bench-doc GROWTH=yes   # and the growth section, about 10 minutes more
make bench-growth     # only the growth section's figures and the README's growth table
make bench            # perf-bench on a fresh full data set: cache on, off, then the mix
make bench-idle       # bench-idle: the idle footprint and the start-up time
```

By hand, against a server of your own:

```
build/perf-seed --data-dir perf-data
build/hyperlevel serve --data-dir perf-data --modules-dir build/modules --plugins-dir plugins.d
build/tools/bench-hello 4701 &
build/perf-bench --concurrency 1,10,50 --hello http://127.0.0.1:4701/ --json on.json
PGHL_RESULT_CACHE=0 build/hyperlevel serve ...    # and again, for the uncached figures
build/perf-bench --mix --concurrency 1,10,50      # reads and writes together (it writes)
build/perf-bench --concurrency 10 --budget-ms 2   # exit code 1 when a p95 is over
```"""


def page(on, off, mix_on, mix_off, idle, ref, growth=None):
    lines = ["# Performance", "",
             "<!-- Written by make bench-doc (tools/perf-bench/perf-doc.py) from the JSON of the "
             "benchmarks: make it again rather than editing a figure. -->", ""]
    lines += about(on, ref) + ["", "## Reproducing it", "", REPRODUCE, ""]
    lines += ["## The reference's endpoints", ""] + main_table(on, off, ref["reference"]["endpoints"])
    lines += ["", "## Throughput, and the HTTP floor", "",
              "The hello-world is civetweb answering 17 bytes with our settings "
              "(tools/bench-hello.c), measured in the same run by the same tool: the most this "
              "machine serves. System calls are those of one request to the process that answers "
              "it, counted by strace over %d requests on one kept-alive connection."
              % tool("perf-bench").SYSCALL_REQUESTS, ""] + throughput_table(on, off)
    lines += ["", "## Against the targets", ""] + targets(on, off)
    lines += ["", "## Reads and writes together", ""] + mix_section(mix_on, mix_off)
    lines += ["", "## Idle", "",
              "bench-idle, in the shape levelrail publishes (its figures: %s)." % ref["levelrail"]["machine"],
              ""] + idle_section(idle, ref["levelrail"])
    lines += ["", "## As the data grows", ""] + (
        growth_section(growth) if growth else
        ["(not measured in this run: `make bench-doc GROWTH=yes`, or `make bench-growth`)"])
    lines += ["", "## Every figure, read cache on", ""] + full_table(on)
    lines += ["", "## Every figure, read cache off", ""] + full_table(off)
    return "\n".join(lines) + "\n"


def readme_block(on, off, idle, ref):
    lines = [BEGIN, "",
             "Measured %s on this machine: %s, %d cores. Latencies in ms; the reference's "
             "figures are its own; how they were made and every other figure: "
             "[docs/performance.md](docs/performance.md)."
             % (on["started_at"][:10], on["machine"]["cpu"] or "an unnamed CPU",
                on["machine"]["cores"]), ""]
    lines += main_table(on, off, ref["reference"]["endpoints"]) + [""]
    lines += targets(on, off) + [""]
    lines += idle_table(idle, ref["levelrail"])
    lines += ["", idle_targets(idle), "", END]
    return "\n".join(lines)


def seeding_block(idle, ref):
    """The README's seeding table, from bench-idle's perf-seed runs; None
    when it made none."""
    sd = (idle.get("startup") or {}).get("seeding")
    if not sd:
        return None
    theirs = ref["reference"]["seeding"]
    lines = [SEED_BEGIN, "", "Seeding, measured %s by bench-idle (`make bench-doc`):" % idle_date(idle), ""]
    lines += md_table(["", "HyperLevel", ref["reference"]["name"]], [
        ["seeding the reference data set, indexes built", "%.2f s (median of %d runs of `perf-seed`)"
         % (sd["median_s"], len(sd["runs_s"])), "%g s" % theirs["seconds"]],
        ["database file for it", "%.1f MB" % sd["db_mb"], "%g MB" % theirs["db_mb"]],
        ["peak memory while seeding", "%.1f MB" % sd["peak_mb"], ""]])
    lines += ["", "Against the aims: %.2f s (at most %d) and %.1f MB (at most %d)."
              % (sd["median_s"], SEED_S, sd["db_mb"], SEED_DB_MB), "", SEED_END]
    return "\n".join(lines)


def idle_date(idle):
    return idle.get("measured_at", "")[:10] or "on this machine"


def replace_blocks(path, blocks):
    """Put each block (which starts with its `begin` line and ends with its
    `end` line) in place of the block between those two lines of the file
    at `path`; the file is written once, when every block has its place."""
    with open(path) as f:
        text = f.read()
    for block, begin, end in blocks:
        if begin not in text or end not in text:
            raise Fail("%s has no %s ... %s block to fill" % (path, begin, end))
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1]
    with open(path, "w") as f:
        f.write(text)


def main(argv):
    p = argparse.ArgumentParser(prog="perf-doc", description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", metavar="NAME", help="the BENCH_JSON prefix")
    p.add_argument("--idle", metavar="FILE", help="bench-idle's --json")
    p.add_argument("--growth", metavar="FILE", help="growth.py's --json")
    p.add_argument("--out", default="docs/performance.md", help="the page (default %(default)s)")
    p.add_argument("--readme", metavar="FILE", help="fill this README's performance block")
    args = p.parse_args(argv)
    growth = load(args.growth) if args.growth else None
    if not args.bench and not args.idle and growth:
        if not args.readme:
            p.error("--growth alone writes only the README's growth block: give --readme")
        replace_blocks(args.readme, [(growth_block(growth), GROWTH_BEGIN, GROWTH_END)])
        return 0
    if not args.bench or not args.idle:
        p.error("--bench and --idle are needed for the page")
    on, off = load(args.bench + "-cache-on.json"), load(args.bench + "-cache-off.json")
    mix_on, mix_off = load(args.bench + "-mix-on.json", False), load(args.bench + "-mix-off.json", False)
    idle, ref = load(args.idle), load(os.path.join(HERE, "reference.json"))
    text = page(on, off, mix_on, mix_off, idle, ref, growth)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    if args.readme:
        blocks = [(readme_block(on, off, idle, ref), BEGIN, END)]
        seeding = seeding_block(idle, ref)
        if seeding:
            blocks.append((seeding, SEED_BEGIN, SEED_END))
        if growth:
            blocks.append((growth_block(growth), GROWTH_BEGIN, GROWTH_END))
        replace_blocks(args.readme, blocks)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Fail as e:
        print("perf-doc: %s" % e, file=sys.stderr)
        sys.exit(2)
