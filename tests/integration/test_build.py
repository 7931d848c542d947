# SPDX-License-Identifier: MIT
"""The makefile: a second `make` has nothing to do, and an edited header
or migration rebuilds exactly what uses it. `make -n -W FILE` asks make
what it would do were FILE edited, so the tree is never touched. `make
run` builds quietly, in a copy of the tree."""

import atexit
import os
import re
import shutil
import subprocess
import tempfile

import harness


def make(*args):
    build = os.path.relpath(harness.BUILD, harness.ROOT)
    return subprocess.run(["make", "--no-print-directory", "BUILD=" + build] + list(args),
                          cwd=harness.ROOT, capture_output=True, text=True, timeout=300)


def would_build(edited):
    """The files `make` would write were `edited` changed."""
    out = make("-n", "-W", edited, "all")
    assert out.returncode == 0, out.stderr
    return set(re.findall(r" -o (\S+)", out.stdout)) | set(
        re.findall(r"embed-sql (\S+)", out.stdout))


def modules_in(paths):
    return {os.path.basename(p)[:-3] for p in paths if p.endswith(".so")}


def test_a_second_make_has_nothing_to_do():
    out = make("-q", "all")
    assert out.returncode == 0, make("-n", "all").stdout[:2000]


def test_an_edited_module_header_rebuilds_every_source_that_includes_it():
    built = would_build("modules/tasks/tasks.h")
    includers = {f[:-2] for f in os.listdir(os.path.join(harness.ROOT, "modules", "tasks"))
                 if f.endswith(".c") and '#include "tasks.h"' in open(
                     os.path.join(harness.ROOT, "modules", "tasks", f)).read()}
    assert len(includers) > 1
    objects = {os.path.basename(p)[:-2] for p in built if p.endswith(".o")}
    assert objects == includers
    assert modules_in(built) == {"tasks"}


def test_the_public_header_rebuilds_every_module():
    shipped = {d for d in os.listdir(os.path.join(harness.ROOT, "modules"))}
    assert modules_in(would_build("core/include/hyperlevel/hyperlevel.h")) >= shipped


def test_an_edited_migration_rebuilds_its_module_alone():
    folder = os.path.join(harness.ROOT, "modules", "tasks", "migrations")
    first = sorted(os.listdir(folder))[0]
    built = would_build(os.path.join("modules", "tasks", "migrations", first))
    assert any(p.endswith("gen/modules/tasks/migrations.h") for p in built)
    assert modules_in(built) == {"tasks"}


def test_make_run_builds_quietly_and_shows_a_compile_error():
    # `make run` in a copy of the tree with a source that does not
    # compile: a line or two while it builds, the compiler's error and
    # the code it points at, a failure; the compiler's commands go to
    # build/make.log, not the screen.
    tree = tempfile.mkdtemp(prefix="hl-make-run-")
    atexit.register(shutil.rmtree, tree, True)
    tree = os.path.join(tree, "tree")
    shutil.copytree(harness.ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", "build", "build-*", "data", "perf-data", "node_modules", "__pycache__"))
    broken = os.path.join(tree, "core", "lib", "arena.c")
    with open(broken) as f:
        text = f.read()
    with open(broken, "w") as f:
        f.write("#error broken on purpose by test_build\n" + text)
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "BUILD")}
    p = subprocess.run(["make", "-j2", "run"], cwd=tree, env=env, capture_output=True,
                       text=True, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode != 0, out
    assert "Building HyperLevel" in p.stdout
    assert "core/lib/arena.c:1:2: error: #error broken on purpose" in p.stderr, out
    assert "-std=gnu11" not in out and len(out.splitlines()) < 25, out
    assert "build/make.log" in out
    with open(os.path.join(tree, "build", "make.log")) as f:
        log = f.read()
    assert "-std=gnu11" in log and "broken on purpose" in log
    assert not os.path.exists(os.path.join(tree, "data")), "no seed after a failed build"
