# SPDX-License-Identifier: MIT
"""The server's glibc settings (core/lib/heap.c): it runs with the per-thread
caches of freed blocks off, in the same process it was started as (and
under its own name), and an operator's GLIBC_TUNABLES is kept."""

from harness import Server


def heap_line(log):
    """The start-up log's line for the heap: what it runs with."""
    lines = [l for l in log.splitlines() if l.split()[:1] == ["heap"]]
    assert len(lines) == 1, log
    return lines[0]


def started(env):
    with Server(env=env).start() as s:
        assert s.get("/api/health").status == 200
        # As ps and top name it: the program's, not "exe".
        with open("/proc/%d/comm" % s.proc.pid) as f:
            assert f.read().strip() == "hyperlevel"
        assert s.stop() == 0
    assert s.log.count(" starting") == 1, s.log
    return heap_line(s.log)


def test_a_plain_start_turns_the_thread_caches_off_once_in_the_same_process():
    assert "thread caches off" in started({"GLIBC_TUNABLES": ""})


def test_other_tunables_are_kept_and_the_caches_still_turned_off():
    assert "thread caches off, arenas 3" in started({"GLIBC_TUNABLES": "glibc.malloc.perturb=0",
                                                    "MALLOC_ARENA_MAX": "3"})


def test_an_operators_thread_cache_setting_wins():
    line = started({"GLIBC_TUNABLES": "glibc.malloc.tcache_count=3"})
    assert "thread caches as GLIBC_TUNABLES sets them" in line
