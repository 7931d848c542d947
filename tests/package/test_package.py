# SPDX-License-Identifier: MIT
"""The Debian packages as an administrator and a module author meet them,
in a throwaway Debian 12 root made by debootstrap (`make check-package`,
as root): the packages built by `make deb` installed with apt, the server
started as its systemd unit starts it (its user, its command line), the
API answering; a module made by `hyperlevel new-module`, packaged against
hyperlevel-dev, installed, enabled and answering; a configuration edit
kept across a reinstall; remove keeping the configuration and purge
taking it away, the data folder kept by both.

HL_DEBS names the folder of the .deb files (default BUILD/deb); the
Debian root is made once and kept as BUILD/package/bookworm.tar, so a
second run starts from it."""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness  # noqa: E402
from harness import free_port, run_tests, wait_for  # noqa: E402

BUILD = harness.BUILD
DEBS = os.environ.get("HL_DEBS") or os.path.join(BUILD, "deb")
ROOT = os.path.join(BUILD, "package", "root")
CACHE = os.path.join(BUILD, "package", "bookworm.tar")
MIRROR = "http://deb.debian.org/debian"
ADMIN = ("admin@example.test", "admin-pass-1")


def sh(command, user=None, check=True, timeout=900):
    """Run a shell command inside the root; returns (exit code, output)."""
    spec = ["--userspec=%s:%s" % (user, user)] if user else []
    p = subprocess.run(["chroot"] + spec + [ROOT, "/bin/sh", "-c", command],
                       capture_output=True, text=True, timeout=timeout,
                       env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
                            "DEBIAN_FRONTEND": "noninteractive", "HOME": "/root"})
    out = p.stdout + p.stderr
    if check and p.returncode:
        raise AssertionError("%s: exit %d\n%s" % (command, p.returncode, out[-4000:]))
    return p.returncode, out


def path(p):
    return os.path.join(ROOT, p.lstrip("/"))


def make_root():
    if os.path.exists(ROOT):
        subprocess.run(["umount", "-l", path("/proc")], capture_output=True)
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)
    if not os.path.exists(CACHE):
        subprocess.run(["debootstrap", "--variant=minbase", "bookworm", ROOT, MIRROR],
                       check=True, capture_output=True, timeout=1800)
        subprocess.run(["tar", "-cf", CACHE + ".tmp", "-C", ROOT, "."], check=True)
        os.rename(CACHE + ".tmp", CACHE)
    else:
        subprocess.run(["tar", "-xf", CACHE, "-C", ROOT], check=True)
    shutil.copy("/etc/resolv.conf", path("/etc/resolv.conf"))
    subprocess.run(["mount", "-t", "proc", "proc", path("/proc")], check=True)
    os.makedirs(path("/tmp/debs"), exist_ok=True)
    for name in os.listdir(DEBS):
        if name.endswith(".deb"):
            shutil.copy(os.path.join(DEBS, name), path("/tmp/debs"))


def unit_command():
    """The service's user and command line, from the installed unit."""
    for folder in ("/usr/lib/systemd/system", "/lib/systemd/system"):
        if os.path.exists(path(folder + "/hyperlevel.service")):
            with open(path(folder + "/hyperlevel.service")) as f:
                unit = f.read()
            break
    user = re.search(r"^User=(\S+)$", unit, re.M).group(1)
    command = re.search(r"^ExecStart=(.+)$", unit, re.M).group(1)
    return user, command, unit


class Service:
    """The server run as the unit runs it, inside the root."""

    def __init__(self, port):
        self.port = port
        self.user, self.command, _ = unit_command()
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            ["chroot", "--userspec=%s:%s" % (self.user, self.user), ROOT] +
            shlex.split(self.command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, env={"PATH": "/usr/sbin:/usr/bin:/bin", "LANG": "C.UTF-8"})
        def up():
            assert self.proc.poll() is None, self.proc.stdout.read()
            try:
                return harness.Client(self.port).get("/api/health").status == 200
            except OSError:
                return False
        assert wait_for(up, seconds=60)
        return self

    def stop(self):
        if self.proc:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)
            log = self.proc.stdout.read()
            self.proc = None
            return log
        return ""

    def login(self):
        client = harness.Client(self.port)
        r = client.post("/api/auth/login", {"email": ADMIN[0], "password": ADMIN[1]})
        assert r.status == 200, r.body
        return client


def test_the_packages_install_serve_take_a_module_and_purge_in_a_debian_12_root():
    make_root()
    try:
        sh("apt-get update -qq && apt-get install -y -qq --no-install-recommends"
           " /tmp/debs/hyperlevel_*.deb /tmp/debs/hyperlevel-dev_*.deb build-essential debhelper",
           timeout=1800)
        what_is_where()
        assert "refusing to run as root" in sh("hyperlevel serve", check=False)[1]

        # An administrator's edit survives a reinstall of the package.
        port = free_port()
        with open(path("/etc/hyperlevel/hyperlevel.conf"), "a") as f:
            f.write("\n# moved off the default port\nport = %d\n" % port)
        sh("apt-get install -y -qq --reinstall /tmp/debs/hyperlevel_*.deb")
        with open(path("/etc/hyperlevel/hyperlevel.conf")) as f:
            assert f.read().endswith("port = %d\n" % port)

        sh("echo '%s' | hyperlevel create-admin %s Ada" % (ADMIN[1], ADMIN[0]), user="hyperlevel")
        service = Service(port).start()
        try:
            admin = service.login()
            loc = admin.post("/api/admin/locations", {"name": "Client A"}).json()["id"]
            r = admin.get("/api/contacts?location_id=%d" % loc)
            assert r.status == 200 and r.json()["data"] == [], r.body
            assert b"<title>Sign in" in admin.get("/").body
        finally:
            service.stop()

        # A module author's package, made with new-module, built against
        # hyperlevel-dev (its tests run as the package builds), installed.
        sh("cd /tmp && hyperlevel new-module notes && cd notes && make deb", timeout=1800)
        sh("apt-get install -y -qq /tmp/hyperlevel-notes_0.1.0_*.deb")
        _, out = sh("dpkg-query -W -f '${Depends}' hyperlevel-notes")
        assert out.startswith("hyperlevel-abi-1, hyperlevel (>= 0.1.0)"), out
        assert os.path.exists(path("/usr/lib/hyperlevel/modules/notes.so"))
        code, out = sh("hyperlevel modules")
        assert re.search(r"^notes +0\.1\.0 +loaded", out, re.M), out
        service = Service(port).start()
        try:
            admin = service.login()
            r = admin.post("/api/notes/notes?location_id=%d" % loc, {"body": "Call Ada"})
            assert r.status == 201, r.body
            assert [n["body"] for n in admin.get("/api/notes/notes?location_id=%d" % loc)
                    .json()["data"]] == ["Call Ada"]
            pages = [p["module"] for p in admin.get("/api/pages").json()["data"]]
            assert "notes" in pages, pages
        finally:
            service.stop()

        # Removed, its conf stays (a conffile) and the server starts
        # without it, saying so; purged, the conf goes too.
        sh("apt-get remove -y -qq hyperlevel-notes")
        assert os.path.exists(path("/etc/hyperlevel/plugins.d/notes.conf"))
        log = Service(port).start().stop()
        assert "notes.conf: not loaded: there is no notes.so in" in log, log
        sh("apt-get purge -y -qq hyperlevel-notes")
        assert not os.path.exists(path("/etc/hyperlevel/plugins.d/notes.conf"))

        # Remove keeps the configuration; purge takes it, never the data.
        sh("apt-get remove -y -qq hyperlevel-dev hyperlevel")
        with open(path("/etc/hyperlevel/hyperlevel.conf")) as f:
            assert "port = %d" % port in f.read()
        assert not os.path.exists(path("/usr/sbin/hyperlevel"))
        code, out = sh("apt-get purge -y -qq hyperlevel")
        assert not os.path.exists(path("/etc/hyperlevel")), os.listdir(path("/etc/hyperlevel"))
        assert os.path.exists(path("/var/lib/hyperlevel/hyperlevel.db"))
        assert "/var/lib/hyperlevel" in out and "kept" in out, out
    finally:
        subprocess.run(["umount", "-l", path("/proc")], capture_output=True)


def what_is_where():
    for p in ("/usr/sbin/hyperlevel", "/usr/lib/hyperlevel/modules/contacts.so",
              "/usr/share/hyperlevel/webui/index.html", "/etc/hyperlevel/plugins.d/invoices.conf",
              "/usr/share/man/man8/hyperlevel.8.gz", "/usr/share/man/man5/hyperlevel.conf.5.gz",
              "/usr/include/hyperlevel/hyperlevel.h", "/usr/lib/hyperlevel/embed-sql",
              "/usr/share/hyperlevel/dev/harness.py", "/usr/share/hyperlevel/dev/module/Makefile"):
        assert os.path.exists(path(p)), p
    st = os.stat(path("/etc/hyperlevel/hyperlevel.conf"))
    data = os.stat(path("/var/lib/hyperlevel"))
    with open(path("/etc/group")) as f:
        gid = [int(l.split(":")[2]) for l in f if l.startswith("hyperlevel:")][0]
    assert (st.st_mode & 0o777, st.st_uid, st.st_gid) == (0o640, 0, gid)
    assert (data.st_mode & 0o777, data.st_gid) == (0o750, gid)
    _, out = sh("dpkg-query -W -f '${Provides}' hyperlevel")
    assert out == "hyperlevel-abi-1", out
    _, out = sh("dpkg-query -W -f '${Conffiles}' hyperlevel")
    assert "/etc/hyperlevel/hyperlevel.conf" in out, out
    user, command, unit = unit_command()
    assert user == "hyperlevel" and command.startswith("/usr/sbin/hyperlevel serve")
    for line in ("NoNewPrivileges=yes", "ProtectSystem=strict", "Restart=on-failure",
                 "StateDirectory=hyperlevel"):
        assert "\n" + line + "\n" in unit, line


if __name__ == "__main__":
    if os.geteuid() != 0:
        sys.exit("check-package: debootstrap and chroot need root")
    run_tests(globals())
