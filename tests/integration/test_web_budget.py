# SPDX-License-Identifier: MIT
"""The first download's budget, measured on the built web folder: the
brotli bytes of index.html and of everything the login form waits for
fit the first round trip (14 KB, 14336 bytes). What it waits for: the
stylesheets the page links (they block the first paint), the scripts it
names with src, and every static import of those scripts and of its
inline module script, transitively (a module runs only once they are all
loaded). An import() waits for nothing and is not counted; neither are
images, icons and preloads, which do not hold the form back. Every page
module of the modules is listed with its raw, gzip and brotli sizes."""

import html.parser
import os
import re
import shutil
import subprocess
import tempfile

import harness

BUDGET = 14336
# A static import or export-from at the start of a statement; import()
# does not match (its parenthesis is not a binding or a string).
STATIC_IMPORT = re.compile(r"""(?:^|[;}\n])\s*(?:import|export)\s*(?:[\w$*{}\s,"']*?\bfrom\s*)?"""
                           r"""["']([^"'\n]+)["']""")


class Page(html.parser.HTMLParser):
    """What index.html makes the browser fetch before the form is usable,
    and its inline module scripts."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.fetched, self.inline, self.in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and "stylesheet" in (a.get("rel") or "").split() and a.get("href"):
            self.fetched.append(a["href"])
        elif tag == "script" and a.get("src"):
            self.fetched.append(a["src"])
        elif tag == "script" and a.get("type") == "module":
            self.in_script = True
            self.inline.append("")

    def handle_endtag(self, tag):
        self.in_script = self.in_script and tag != "script"

    def handle_data(self, data):
        if self.in_script:
            self.inline[-1] += data


def sent_size(path):
    """The bytes the server sends for a file to a browser taking br."""
    for variant in (path + ".br", path + ".gz", path):
        if os.path.exists(variant):
            return os.path.getsize(variant)
    raise FileNotFoundError(path)


def resolve(web, base_url, spec):
    """The file in `web` a URL names from a file served at base_url, or None
    for another site's."""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^//", spec, re.I):
        return None
    url = spec.split("#")[0].split("?")[0]
    if not url.startswith("/"):
        url = os.path.normpath(os.path.join(os.path.dirname(base_url), url))
    return os.path.join(web, url.lstrip("/"))


def first_download(web):
    """[(name, bytes sent)] for index.html and what the form waits for."""
    with open(os.path.join(web, "index.html"), encoding="utf-8") as f:
        page = Page()
        page.feed(f.read())
    items = [("index.html", sent_size(os.path.join(web, "index.html")))]
    todo = [(url, "/") for url in page.fetched]
    todo += [(m, "/") for script in page.inline for m in STATIC_IMPORT.findall(script)]
    seen = set()
    while todo:
        spec, base_url = todo.pop(0)
        path = resolve(web, base_url, spec)
        if path is None or path in seen:
            continue
        seen.add(path)
        items.append((os.path.relpath(path, web), sent_size(path)))
        if path.endswith(".js"):
            with open(path, encoding="utf-8") as f:
                url = "/" + os.path.relpath(path, web)
                todo += [(m, url) for m in STATIC_IMPORT.findall(f.read())]
        elif path.endswith(".css"):
            with open(path, encoding="utf-8") as f:
                url = "/" + os.path.relpath(path, web)
                todo += [(m, url) for m in re.findall(r"""@import\s+(?:url\()?["']?([^"')\s;]+)""",
                                                       f.read())]
    return items


def later_files(web):
    """[(file, raw, gz, br)] for each script and stylesheet fetched after
    the first answer: the shell's, the System page's, each module's pages
    (modules/NAME/...) and the service worker; first.* are inlined."""
    rows = []
    for dirpath, _, names in sorted(os.walk(web)):
        for n in sorted(names):
            if n.endswith((".js", ".css")) and not n.startswith("first."):
                path = os.path.join(dirpath, n)
                sizes = [os.path.getsize(p) if os.path.exists(p) else os.path.getsize(path)
                         for p in (path, path + ".gz", path + ".br")]
                rows.append((os.path.relpath(path, web), *sizes))
    return rows


def test_web_first_download_fits_the_first_round_trip():
    web = os.path.join(harness.BUILD, "web")
    items = first_download(web)
    total = sum(n for _, n in items)
    print("     first download (brotli; budget %d bytes):" % BUDGET)
    for name, n in items:
        print("     %7d  %s" % (n, name))
    print("     %7d  in all" % total)
    rows = later_files(web)
    print("     fetched later (raw / gzip / brotli bytes):%s" % ("" if rows else " none"))
    for name, raw, gz, br in rows:
        print("     %7d %7d %7d  %s" % (raw, gz, br, name))
    assert total <= BUDGET, "the first download is %d bytes of brotli, over %d" % (total, BUDGET)


# import("...") with a literal: a module fetched on demand.
DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["']([^"'\n]+)["']\s*\)""")


def test_no_page_loads_another_pages_module():
    """A module's pages import (statically or on demand) only files of
    their own module's folder: the shell's shared code reaches them as
    ctx, and another module's files may be turned off with it."""
    web = os.path.join(harness.BUILD, "web")
    modules = os.path.join(web, "modules")
    names = sorted(os.listdir(modules))
    assert "contacts" in names and "agency" in names, names
    seen = 0
    for name in names:
        folder = os.path.join(modules, name)
        for n in sorted(os.listdir(folder)):
            if not n.endswith(".js"):
                continue
            path = os.path.join(folder, n)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            url = "/modules/%s/%s" % (name, n)
            for spec in STATIC_IMPORT.findall(text) + DYNAMIC_IMPORT.findall(text):
                target = resolve(web, url, spec)
                seen += 1
                assert target and os.path.dirname(target) == folder and os.path.exists(target), \
                    "%s imports %s, not a file of its own module" % (url, spec)
    assert seen >= 5, "the modules' own imports were not found: %d" % seen


def test_web_budget_counts_what_the_form_waits_for():
    """The measure on a folder of its own: what blocks is counted, what
    does not is not, and too much fails."""
    root = tempfile.mkdtemp(prefix="hl-budget-")
    try:
        src, web = os.path.join(root, "src"), os.path.join(root, "web")
        os.makedirs(src)
        noise = os.urandom(20000).hex()  # does not compress below the budget
        files = {
            "index.html": '<!doctype html><link rel="stylesheet" href="big.css">'
                          '<link rel="icon" href="icon.svg">'
                          '<script type="module" src="first.js" data-inline></script>'
                          '<script type="module" src="late.js"></script>',
            "first.js": "import { a } from './dep.js';\nconst later = import('./lazy.js');\n",
            "dep.js": "export * from './deeper.js';\nexport const a = 1;\n",
            "deeper.js": "export const b = 2;\n",
            "lazy.js": "export const big = '%s';\n" % noise,
            "late.js": "// %s\n" % ("x" * 2000),
            "big.css": '.x::after { content: "%s"; }\n' % noise,
            "icon.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
        }
        for name, text in files.items():
            with open(os.path.join(src, name), "w") as f:
                f.write(text)
        subprocess.run([os.path.join(harness.BUILD, "tools", "hl-assets"), "--out", web, src],
                       check=True, capture_output=True, timeout=120)
        items = first_download(web)
        names = [re.sub(r"\.[0-9a-f]{10}\.", ".", n) for n, _ in items]
        assert sorted(names) == ["big.css", "deeper.js", "dep.js", "index.html", "late.js"]
        assert dict(zip(names, (n for _, n in items)))["late.js"] < 2000  # its .br
        assert sum(n for _, n in items) > BUDGET
        os.remove(os.path.join(src, "big.css"))
        with open(os.path.join(src, "index.html"), "w") as f:
            f.write(files["index.html"].replace('<link rel="stylesheet" href="big.css">', ""))
        subprocess.run([os.path.join(harness.BUILD, "tools", "hl-assets"), "--out", web, src],
                       check=True, capture_output=True, timeout=120)
        assert sum(n for _, n in first_download(web)) < 1000
    finally:
        shutil.rmtree(root, ignore_errors=True)
