# SPDX-License-Identifier: MIT
"""A module author's first hour: `make install` into a temporary DESTDIR,
then `hyperlevel new-module notes` from the installed templates, built
with nothing but pkg-config, its own tests run by `make check` against the
installed server with the installed harness, then `make install` and the
installed server loading it, its route and page answering. And the
refusals: a bad name, a folder that exists, templates that are missing."""

import os
import shutil
import subprocess
import tempfile

import harness
from harness import Server, error_lines


def install(dest):
    harness.make_install(dest)
    # pkgconf puts the sysroot before each path it gives, so the module's
    # Makefile finds everything under DESTDIR as it would under /.
    return dict(os.environ, PKG_CONFIG_PATH=os.path.join(dest, "usr", "lib", "pkgconfig"),
                PKG_CONFIG_SYSROOT_DIR=dest)


def test_a_new_module_builds_passes_its_tests_and_loads_in_the_installed_server():
    dest = tempfile.mkdtemp(prefix="hl-dev-")
    try:
        env = install(dest)
        binary = os.path.join(dest, "usr", "bin", "hyperlevel")
        templates = os.path.join(dest, "usr", "share", "hyperlevel", "dev", "module")
        work = os.path.join(dest, "work")
        os.makedirs(work)
        p = subprocess.run([binary, "new-module", "notes", "--template-dir", templates],
                           cwd=work, env=env, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert p.stdout.startswith("wrote notes/ (15 files)"), p.stdout
        folder = os.path.join(work, "notes")
        with open(os.path.join(folder, "notes.c")) as f:
            source = f.read()
        assert '.name = "notes"' in source and "@NAME@" not in source
        with open(os.path.join(folder, "debian", "control")) as f:
            assert "Depends: hyperlevel-abi-1," in f.read()
        assert os.access(os.path.join(folder, "debian", "rules"), os.X_OK)

        p = subprocess.run(["make", "-s", "check"], cwd=folder, env=env, capture_output=True,
                           text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
        assert p.stdout.endswith("3 passed, 0 failed\n"), p.stdout
        p = subprocess.run(["make", "-s", "install", "SYSCONFDIR=" + os.path.join(dest, "etc")],
                           cwd=folder, env=env, capture_output=True,
                           text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
        local = os.path.join(dest, "usr", "local", "lib", "hyperlevel", "modules")
        assert os.listdir(local) == ["notes.so"]

        usr = os.path.join(dest, "usr")
        s = Server(modules=())
        s.modules_dir = os.path.join(usr, "lib", "hyperlevel", "modules") + ":" + local
        s.plugins_dir = os.path.join(dest, "etc", "hyperlevel", "plugins.d")
        with open(os.path.join(s.plugins_dir, "notes.conf")) as f:
            assert "enabled = yes" in f.read()
        args = s.args
        s.args = lambda command="serve": [binary] + args(command)[1:-4] + [
            "--web-dir", os.path.join(usr, "share", "hyperlevel", "webui"), "--config", "/dev/null"]
        s.create_admin()
        with s.start():
            admin = s.login("admin@example.test", "admin-pass-1")
            loc = admin.post("/api/admin/locations", {"name": "Client A"}).json()["id"]
            r = admin.post("/api/notes/notes?location_id=%d" % loc, {"body": "Call Ada"})
            assert r.status == 201, r.body
            listed = admin.get("/api/notes/notes?location_id=%d" % loc).json()["data"]
            assert [n["body"] for n in listed] == ["Call Ada"]
            pages = [p for p in admin.get("/api/pages").json()["data"] if p["module"] == "notes"]
            assert [(p["path"], p["label"]) for p in pages] == [("/notes", "Notes")], pages
            r = s.get(pages[0]["script"])
            assert r.status == 200 and b"export default async function page" in r.body
    finally:
        shutil.rmtree(dest, ignore_errors=True)


test_a_new_module_builds_passes_its_tests_and_loads_in_the_installed_server.normal_build_only = True


def test_new_module_refuses_a_bad_name_an_existing_folder_and_missing_templates():
    work = tempfile.mkdtemp(prefix="hl-new-")
    try:
        s = Server(modules=())
        templates = os.path.join(harness.ROOT, "tools", "module-template")
        def new(*extra):
            p = subprocess.run([s.args()[0], "new-module"] + list(extra), cwd=work,
                               capture_output=True, text=True, timeout=60, env=s.env)
            harness.check_sanitizers(p.stderr)
            return p.returncode, error_lines(p.stderr)
        for bad in ("Notes", "core", "sqlite_notes", "9lives", "a-b", "x" * 33):
            assert new(bad, "--template-dir", templates) == (2, [
                "error: '%s' cannot name a module: use 1 to 32 lowercase letters, digits and _,"
                " starting with a letter (not core, nor sqlite...)" % bad])
        assert new("notes", "--template-dir", os.path.join(work, "none")) == (2, [
            "error: the module templates are not in %s: install the hyperlevel-dev package"
            " (or set template_dir)" % os.path.join(work, "none")])
        os.makedirs(os.path.join(work, "taken"))
        assert new("notes", "taken", "--template-dir", templates) == (2, [
            "error: taken already exists: new-module writes a new folder, never into one"])
        assert os.listdir(work) == ["taken"]  # nothing else was left
        assert new("notes", "here/notes", "--template-dir", templates)[0] == 1  # no such parent
        assert os.listdir(work) == ["taken"]
        assert new("my_notes", "--template-dir", templates) == (0, [])
        assert sorted(os.listdir(os.path.join(work, "my_notes"))) == [
            "Makefile", "README.md", "debian", "migrations", "my_notes.c",
            "my_notes.conf", "tests", "webui"]
        with open(os.path.join(work, "my_notes", "webui", "my_notes.js")) as f:
            assert "ctx.title('My notes')" in f.read()
        with open(os.path.join(work, "my_notes", "debian", "control")) as f:
            control = f.read()  # Debian names take no _
        assert "Source: hyperlevel-my-notes\n" in control and "Package: hyperlevel-my-notes\n" in control
        # A name the product ships, or that an installed module has, would
        # clash with it (file, tables, URLs).
        for shipped in ("contacts", "opportunities", "reports"):
            assert new(shipped, "--template-dir", templates) == (2, [
                "error: '%s' is the name of a module HyperLevel ships: choose another" % shipped])
        installed = os.path.join(work, "installed")
        os.makedirs(installed)
        open(os.path.join(installed, "crm_extra.so"), "w").close()
        assert new("crm_extra", "--template-dir", templates, "--modules-dir", installed) == (2, [
            "error: 'crm_extra' is the name of an installed module (%s/crm_extra.so): choose"
            " another" % installed])
        shutil.rmtree(installed)
        # Outside the current folder and the home, only with --force.
        elsewhere = tempfile.mkdtemp(prefix="hl-elsewhere-")
        try:
            env = dict(s.env, HOME=os.path.join(work, "home-that-is-not-there"))
            for target in (os.path.join(elsewhere, "notes"), "../" + os.path.basename(elsewhere) + "/n"):
                p = subprocess.run([s.args()[0], "new-module", "notes", target, "--template-dir", templates],
                                   cwd=work, capture_output=True, text=True, timeout=60, env=env)
                assert p.returncode == 2 and error_lines(p.stderr) == [
                    "error: %s is outside the current folder and your home: give --force to write"
                    " there" % target], p.stderr
            assert os.listdir(elsewhere) == []
            p = subprocess.run([s.args()[0], "new-module", "notes", os.path.join(elsewhere, "notes"),
                                "--force", "--template-dir", templates],
                               cwd=work, capture_output=True, text=True, timeout=60, env=env)
            assert p.returncode == 0 and os.listdir(elsewhere) == ["notes"], p.stderr
            # The home counts as one's own.
            env["HOME"] = elsewhere
            p = subprocess.run([s.args()[0], "new-module", "more", os.path.join(elsewhere, "more"),
                                "--template-dir", templates],
                               cwd=work, capture_output=True, text=True, timeout=60, env=env)
            assert p.returncode == 0 and sorted(os.listdir(elsewhere)) == ["more", "notes"], p.stderr
        finally:
            shutil.rmtree(elsewhere, ignore_errors=True)
        # A link in a template could lead the copy anywhere: refused.
        linked = os.path.join(work, "linked")
        shutil.copytree(templates, linked)
        os.symlink("/etc", os.path.join(linked, "etc"))
        code, lines = new("other", "--template-dir", linked)
        assert code == 1 and lines == ["error: %s/etc: neither a file nor a folder" % linked], lines
        assert sorted(os.listdir(work)) == ["linked", "my_notes", "taken"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
