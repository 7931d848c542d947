# SPDX-License-Identifier: MIT
"""The hyperlevel command line: subcommands, settings from every source,
and one readable line with a meaningful exit code for every mistake."""

import os
import re
import signal
import subprocess
import tempfile

import harness
from harness import Server, wait_for


def hyperlevel(*args, env=None):
    p = subprocess.run([os.path.join(harness.BUILD, "hyperlevel")] + list(args),
                       env=dict(os.environ, **harness.ONE_SHOT, **(env or {})), capture_output=True, text=True,
                       timeout=60)
    harness.check_sanitizers(p.stderr)
    return p.returncode, p.stdout, p.stderr


def header_abi():
    """The module ABI the public header declares, as "MAJOR.MINOR"."""
    with open(os.path.join(harness.ROOT, "core/include/hyperlevel/hyperlevel.h")) as f:
        text = f.read()
    return "%s.%s" % tuple(re.search(r"#define HL_ABI_%s (\d+)" % part, text).group(1)
                           for part in ("MAJOR", "MINOR"))


def test_version_and_help():
    code, out, _ = hyperlevel("--version")
    assert code == 0 and re.match(r"hyperlevel \d+\.\d+\.\d+ \(module ABI %s\)"
                                  % re.escape(header_abi()), out), out
    code, out, _ = hyperlevel("--help")
    assert code == 0
    for flag in ("--data-dir", "--port", "--config", "--modules-dir", "--plugins-dir",
                 "PGHL_SQLITE_CACHE_MB", "PGHL_SQLITE_MMAP_MB", "PGHL_SLOW_REQUEST_MS",
                 "PGHL_SLOW_QUERY_MS", "PGHL_RESULT_CACHE", "PGHL_BACKUPS", "PGHL_BACKUP_KEEP",
                 "PGHL_CACHE_MB", "PGHL_METRICS_TOKEN"):
        assert flag in out, flag
    for command in ("serve", "migrate", "modules", "check-config", "backup"):
        assert command in out


def test_check_config_shows_settings_from_each_source():
    with tempfile.TemporaryDirectory() as d:
        conf = os.path.join(d, "hl.conf")
        with open(conf, "w") as f:
            f.write("port = 5001\nsqlite_cache_mb = 64\nslow_request_ms = 100\n")
        with Server(modules=("contacts",)) as s:
            args = s.args("check-config")
            args[args.index("--config") + 1] = conf
            args[args.index("--port"):args.index("--port") + 2] = []
            p = subprocess.run(args + ["--slow-request-ms=50"], capture_output=True, text=True,
                               env=dict(os.environ, PGHL_SQLITE_CACHE_MB="128"))
            assert p.returncode == 0, p.stderr
            assert "port = 5001" in p.stdout           # file over default
            assert "sqlite_cache_mb = 128" in p.stdout  # environment over file
            assert "slow_request_ms = 50" in p.stdout   # flag over file
            assert "configuration is valid" in p.stdout
            p = subprocess.run(args, capture_output=True, text=True,
                               env=dict(os.environ, PGHL_METRICS_TOKEN="scrape-secret-1"))
            assert "metrics_token = (set, not shown)" in p.stdout
            assert "scrape-secret-1" not in p.stdout + p.stderr


def one_error(result, want_code, pattern):
    code, _, err = result
    lines = [l for l in err.splitlines() if l.startswith("error: ")]
    assert code == want_code, (code, err)
    assert len(lines) == 1, err
    assert re.search(pattern, lines[0]), lines[0]


def test_bad_command_line_is_one_line_and_exit_2():
    one_error(hyperlevel("frobnicate"), 2, r"unknown command 'frobnicate'")
    one_error(hyperlevel("serve", "--prot", "1"), 2, r"unknown option '--prot'")
    one_error(hyperlevel("serve", "--port"), 2, r"option '--port' needs a value")
    one_error(hyperlevel("check-config", "--port", "99999", "--config", "/dev/null"), 2,
              r"--port: '99999' is not an integer between 1 and 65535")
    one_error(hyperlevel("check-config", "--config", "/dev/null", env={"PGHL_RESULT_CACHE": "maybe"}),
              2, r"PGHL_RESULT_CACHE: 'maybe' is not yes or no")
    one_error(hyperlevel("check-config", "--config", "/nonexistent/hl.conf"), 2,
              r"/nonexistent/hl.conf: No such file")
    one_error(hyperlevel("serve", "extra", "--config", "/dev/null"), 2, r"unexpected argument 'extra'")


def test_bad_config_file_line_names_file_and_line():
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write("# comment\nport = 4701\nsqlite_cach_mb = 3\n")
    try:
        one_error(hyperlevel("check-config", "--config", f.name), 2,
                  re.escape(f.name) + r":3: unknown setting 'sqlite_cach_mb'")
    finally:
        os.unlink(f.name)


def test_port_in_use_is_one_line_and_exit_1():
    with Server().start() as first:
        with Server() as second:
            second.port = first.port
            p = subprocess.run(second.args(), capture_output=True, text=True, timeout=60)
        assert p.returncode == 1
        assert "error: cannot listen on 127.0.0.1:%d" % first.port in p.stderr


def test_second_server_on_the_same_data_is_refused():
    with Server().start() as first:
        with Server(data_dir=first.data_dir) as second:
            code, log = second.start_fails()
        assert code == 1
        assert "is used by another hyperlevel process" in log
        assert first.get("/api/health").status == 200


def test_unwritable_data_dir_is_one_line_and_exit_1():
    if os.geteuid() == 0:
        data = "/proc/hyperlevel-cannot-be-here"
    else:
        data = "/hyperlevel-cannot-be-here"
    with Server(data_dir=data) as s:
        code, log = s.start_fails()
        assert code == 1
        assert "cannot create the data directory" in log


def test_sighup_reads_the_settings_again_and_reopens_the_log():
    s = Server(modules=())
    s.env.pop("PGHL_THREADS", None)  # the file's threads must be the one that counts
    conf = os.path.join(s.root, "hyperlevel.conf")
    log = os.path.join(s.root, "hyperlevel.log")
    with open(conf, "w") as f:
        f.write("rate_limit = 0\nlog_file = %s\n" % log)
    args = s.args
    s.args = lambda command="serve": [conf if a == "/dev/null" else a for a in args(command)]
    with s:
        s.start()
        kept = s.client()  # a keep-alive connection that must outlive the reload
        assert kept.get("/api/health").status == 200
        with open(conf, "w") as f:
            f.write("rate_limit = 2\nrate_limit_loopback = yes\nthreads = 64\nlog_file = %s\n"
                    % log)
        os.rename(log, log + ".1")  # as logrotate does
        s.proc.send_signal(signal.SIGHUP)
        line = "SIGHUP: settings read again; in force now: rate_limit, rate_limit_loopback;" \
               " these need a restart: threads"
        assert wait_for(lambda: os.path.exists(log) and line in open(log).read()), \
            open(log + ".1").read()
        assert "listening" in open(log + ".1").read()
        # Signed out, /api/auth/me answers 200 ("user": null), until the limit.
        statuses = [kept.get("/api/auth/me").status for _ in range(4)]
        assert statuses[-1] == 429 and statuses[0] == 200, statuses
        with open(conf, "w") as f:
            f.write("port = 0\n")  # a bad value: nothing changes
        s.proc.send_signal(signal.SIGHUP)
        assert wait_for(lambda: "no setting was changed" in open(log).read()), open(log).read()
        assert kept.get("/api/auth/me").status == 429  # still limited
        with open(conf, "w") as f:
            f.write("rate_limit = 0\n")  # and no log_file: back to standard error
        s.proc.send_signal(signal.SIGHUP)
        assert wait_for(lambda: kept.get("/api/auth/me").status == 200)
        s.stop()
        assert "in force now: rate_limit, rate_limit_loopback, log_file" in s.log, s.log
        assert "in force now: rate_limit, rate_limit_loopback, log_file" not in open(log).read()



def test_root_is_refused_unless_allowed():
    env = {k: v for k, v in os.environ.items() if k != "PGHL_ALLOW_ROOT"}
    data = tempfile.mkdtemp(prefix="hl-root-")
    p = subprocess.run([os.path.join(harness.BUILD, "hyperlevel"), "migrate", "--data-dir", data,
                        "--modules-dir", data, "--config", "/dev/null"], env=env,
                       capture_output=True, text=True, timeout=60)
    if os.geteuid() == 0:
        assert p.returncode == 1 and harness.error_lines(p.stderr) == [
            "error: refusing to run as root: the files of %s would belong to root; run it as"
            " its own user (systemctl start hyperlevel, or sudo -u hyperlevel hyperlevel"
            " migrate), or set allow_root = yes" % data], p.stderr
        assert os.listdir(data) == []
        p = subprocess.run(p.args + ["--allow-root", "yes"], env=env, capture_output=True,
                           text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert os.path.exists(os.path.join(data, "hyperlevel.db"))
    # Listing modules and changing their confs is an administrator's, root's, work.
    code, _, err = hyperlevel("modules", "--modules-dir", data, "--plugins-dir", data,
                              "--config", "/dev/null", env={"PGHL_ALLOW_ROOT": "no"})
    assert code == 0, err
