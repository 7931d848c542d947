# SPDX-License-Identifier: MIT
"""`make install` into a temporary DESTDIR, then a module built outside
the source tree with nothing but pkg-config and the installed header,
loaded by the installed server, its page installed where pkg-config
says."""

import json
import os
import shutil
import subprocess
import tempfile

import harness
from harness import Server


def test_installed_server_loads_a_module_built_out_of_tree():
    dest = tempfile.mkdtemp(prefix="hl-install-")
    try:
        harness.make_install(dest)
        usr = os.path.join(dest, "usr")
        for path in ("usr/bin/hyperlevel", "usr/lib/hyperlevel/modules/contacts.so",
                     "etc/hyperlevel/hyperlevel.conf", "etc/hyperlevel/plugins.d/contacts.conf",
                     "usr/share/hyperlevel/webui/index.html",
                     "usr/share/hyperlevel/webui/index.html.csp",
                     "usr/share/hyperlevel/webui/manifest.json", "usr/lib/hyperlevel/hl-assets",
                     "usr/include/hyperlevel/hyperlevel.h", "usr/lib/pkgconfig/hyperlevel.pc"):
            assert os.path.exists(os.path.join(dest, path)), path

        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(usr, "lib", "pkgconfig"),
                   PKG_CONFIG_SYSROOT_DIR=dest)
        cflags = subprocess.run(["pkg-config", "--cflags", "hyperlevel"], env=env, check=True,
                                capture_output=True, text=True).stdout.split()
        assert "-I" + os.path.join(usr, "include") in cflags
        moduledir = subprocess.run(["pkg-config", "--variable=moduledir", "hyperlevel"], env=env,
                                   check=True, capture_output=True, text=True).stdout.strip()
        # pkgconf prefixes the sysroot to path variables; pkg-config may not.
        if moduledir.startswith(dest):
            moduledir = moduledir[len(dest):]
        assert moduledir == "/usr/lib/hyperlevel/modules"
        def variable(name):
            return subprocess.run(["pkg-config", "--variable=" + name, "hyperlevel"], env=env,
                                  check=True, capture_output=True, text=True).stdout.strip()
        # Modules built on the machine go to a folder packages never touch.
        assert variable("localmoduledir").endswith("/usr/local/lib/hyperlevel/modules")
        with open(os.path.join(harness.ROOT, "core/include/hyperlevel/hyperlevel.h")) as f:
            header = f.read()
        assert "#define HL_ABI_MINOR %s\n" % variable("abi_minor") in header
        assert "#define HL_ABI_MAJOR %s\n" % variable("abi_major") in header
        assets = subprocess.run(["pkg-config", "--variable=hl_assets", "hyperlevel"], env=env,
                                check=True, capture_output=True, text=True).stdout.strip()
        assert assets.endswith("/usr/lib/hyperlevel/hl-assets")
        with open(os.path.join(usr, "share", "hyperlevel", "webui", "index.html")) as f:
            assert "data-inline" not in f.read()  # the built page, not its source
        webdir = subprocess.run(["pkg-config", "--variable=webdir", "hyperlevel"], env=env,
                                check=True, capture_output=True, text=True).stdout.strip()
        if webdir.startswith(dest):
            webdir = webdir[len(dest):]
        assert webdir == "/usr/share/hyperlevel/webui"

        # The example lives outside the tree: only the installed header is seen.
        work = tempfile.mkdtemp(prefix="hl-module-")
        shutil.copy(os.path.join(harness.ROOT, "examples", "hello", "hello.c"), work)
        modules = os.path.join(dest, moduledir.lstrip("/"))
        subprocess.run(["cc"] + cflags + ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fPIC",
                        "-shared", "-o", os.path.join(modules, "hello.so"), "hello.c"],
                       cwd=work, check=True, timeout=120)
        shutil.rmtree(work)
        # Its page, built by the installed asset tool, as its author would.
        pages = os.path.join(dest, webdir.lstrip("/"), "modules", "hello")
        subprocess.run([os.path.join(dest, assets.lstrip("/")) if not assets.startswith(dest)
                        else assets, "--out", pages, "--base", "/modules/hello/",
                        os.path.join(harness.ROOT, "examples", "hello", "webui")],
                       check=True, timeout=60)
        with open(os.path.join(pages, "manifest.json")) as f:
            hello_js = json.load(f)["hello.js"]
        assert hello_js != "hello.js"
        plugins = os.path.join(dest, "etc", "hyperlevel", "plugins.d")
        with open(os.path.join(plugins, "hello.conf"), "w") as f:
            f.write("greeting = Welcome\n")

        s = Server(modules=())
        s.modules_dir, s.plugins_dir = modules, plugins
        binary = os.path.join(usr, "bin", "hyperlevel")
        args = s.args
        s.args = lambda command="serve": [binary] + args(command)[1:-4] + [
            "--web-dir", os.path.join(usr, "share", "hyperlevel", "webui"),
            "--config", os.path.join(dest, "etc", "hyperlevel", "hyperlevel.conf")]
        s.create_admin()
        with s.start():
            r = s.get("/api/hello/Ada")
            assert r.status == 200
            assert r.json() == {"message": "Welcome, Ada!"}
            assert "<title>Sign in · HyperLevel</title>".encode() in s.get("/").body
            menu = s.login("admin@example.test", "admin-pass-1").get("/api/pages").json()["data"]
            hello = [p for p in menu if p["module"] == "hello"]
            assert hello == [{"module": "hello", "path": "/hello", "label": "Hello",
                              "script": "/modules/hello/" + hello_js, "order": 50}], menu
            r = s.get(hello[0]["script"])
            assert r.status == 200 and b"export default async function page" in r.body
    finally:
        shutil.rmtree(dest, ignore_errors=True)


test_installed_server_loads_a_module_built_out_of_tree.normal_build_only = True


def test_reinstall_keeps_an_edited_conf_and_uninstall_only_takes_its_own():
    dest = tempfile.mkdtemp(prefix="hl-install-")
    try:
        def make(target):
            return harness.make_install(dest, target)
        make("install")
        etc = os.path.join(dest, "etc", "hyperlevel")
        conf = os.path.join(etc, "hyperlevel.conf")
        with open(conf, "a") as f:
            f.write("port = 4801\n")
        mine = os.path.join(dest, "usr", "lib", "hyperlevel", "modules", "billing.so")
        with open(mine, "w") as f:
            f.write("an administrator's module")
        out = make("install")
        assert "%s was changed and is kept; the shipped one is %s.dist" % (conf, conf) in out, out
        with open(conf) as f:
            assert f.read().endswith("port = 4801\n")
        with open(conf + ".dist") as f, open(os.path.join(harness.ROOT, "hyperlevel.conf")) as g:
            assert f.read() == g.read()
        assert not os.path.exists(os.path.join(etc, "plugins.d", "contacts.conf.dist"))

        make("uninstall")
        assert not os.path.exists(os.path.join(dest, "usr", "bin", "hyperlevel"))
        assert not os.path.exists(os.path.join(dest, "usr", "include", "hyperlevel"))
        assert os.listdir(os.path.dirname(mine)) == ["billing.so"]  # not ours to take
        assert os.path.exists(conf)  # as a package's remove, /etc stays
    finally:
        shutil.rmtree(dest, ignore_errors=True)


test_reinstall_keeps_an_edited_conf_and_uninstall_only_takes_its_own.normal_build_only = True
