# SPDX-License-Identifier: MIT
"""hl-assets (tools/assets.c) run on small source folders of its own: the
references it rewrites and those it must leave alone, content-hashed names
that follow what a file imports, what it inlines into index.html and the
CSP for it, the compressed copies, the errors it refuses with, and an
output folder that is the same bytes every time."""

import base64
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile

import harness

HASHED = re.compile(r"^(.+)\.([0-9a-f]{10})(\.[a-z]+)$")


def tool():
    return os.path.join(harness.BUILD, "tools", "hl-assets")


class Site:
    """A source folder (src/) and an output folder (out/) in a temporary
    folder, removed on exit."""

    def __init__(self, files):
        self.root = tempfile.mkdtemp(prefix="hl-assets-")
        self.src = os.path.join(self.root, "src")
        self.out = os.path.join(self.root, "out")
        for name, text in files.items():
            self.write(name, text)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.root, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.src, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text.encode() if isinstance(text, str) else text)

    def run(self, *flags, out=None):
        return subprocess.run([tool(), "--out", out or self.out] + list(flags) + [self.src],
                              capture_output=True, text=True, timeout=120)

    def build(self, *flags, out=None):
        p = self.run(*flags, out=out)
        assert p.returncode == 0 and p.stderr == "", p.stderr
        with open(os.path.join(out or self.out, "manifest.json")) as f:
            return json.load(f)

    def read(self, name, out=None):
        with open(os.path.join(out or self.out, name), "rb") as f:
            return f.read()

    def text(self, name, out=None):
        return self.read(name, out).decode()


def tree(folder):
    """Every file under folder with its bytes."""
    files = {}
    for dirpath, _, names in os.walk(folder):
        for n in names:
            path = os.path.join(dirpath, n)
            with open(path, "rb") as f:
                files[os.path.relpath(path, folder)] = f.read()
    return files


def unbrotli(data):
    return subprocess.run(["brotli", "-d", "-c"], input=data, capture_output=True,
                          check=True).stdout


def csp_hash(text):
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


SITE = {
    "index.html": """<!doctype html>
<html lang="en"><head><title>T</title>
<link rel="stylesheet" href="style.css">
<link rel="stylesheet" href="first.css" data-inline>
<link rel="canonical" href="/app">
</head><body>
<!-- <script src="nope-comment.js"></script> -->
<img src="img/pic.svg" alt="">
<a href="/app/contacts">Contacts</a> <a href="https://example.com/x.js">x</a>
<script type="module" src="first.js" data-inline></script>
<script type="module" src="./app.js"></script>
</body></html>
""",
    "first.css": "body { background: url(img/pic.svg) no-repeat; }\n",
    "first.js": "import { get } from './api.js';\nconst later = () => import('./app.js');\n"
                "const icon = new URL('./img/pic.svg', import.meta.url);\n",
    "api.js": "export const get = (p) => fetch('/api' + p);\n",
    "app.js": "import { get } from './api.js';\nexport * from './sub/page.js';\n"
              "export default function start() { return import('./sub/page.js'); }\n",
    "sub/page.js": "import { get } from '../api.js';\nexport const page = () => get('/pages');\n",
    "style.css": """@import "base.css";
@import url(theme.css);
@import"print.css"print;
/* url(nope-comment.svg) */
.a { background: url(img/pic.svg); }
.b { background: url('img/pic.svg#frag'); }
.c::after { content: "url(nope-string.svg)"; }
.d { background: url(data:image/png;base64,iVBORw0KGgo=); }
.e { background: url(https://example.com/x.svg); }
.f { mask: url("/img/pic.svg?v=2"); }
""",
    "base.css": "html { color: black; }\n",
    "print.css": "html { color: gray; }\n",
    "theme.css": "html { background: white; }\n",
    "img/pic.svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" '
                   'height="1"/></svg>\n',
    "sw.js": "self.addEventListener('fetch', () => {});\n",
    ".hidden.js": "this is not even JS (",
}


def test_assets_names_files_by_their_content():
    with Site(SITE) as s:
        manifest = s.build()
        assert ".hidden.js" not in manifest  # dotfiles are skipped
        assert manifest["index.html"] == "index.html" and manifest["sw.js"] == "sw.js"
        assert sorted(manifest) == sorted(n for n in SITE if not n.startswith("."))
        for source, out in manifest.items():
            if source in ("index.html", "sw.js"):
                continue
            m = HASHED.match(out)
            assert m, out
            assert m.group(1) + m.group(3) == source  # the folder and name kept
            assert hashlib.sha256(s.read(out)).hexdigest()[:10] == m.group(2), out
        assert sorted(tree(s.out)) == sorted(
            [n for out in manifest.values() for n in (out, out + ".br", out + ".gz")
             if os.path.exists(os.path.join(s.out, n))] +
            ["manifest.json", "manifest.json.br", "manifest.json.gz", "index.html.csp"])


def test_assets_rewrite_js_css_and_html_references():
    with Site(SITE) as s:
        m = s.build()
        app = s.text(m["app.js"])
        assert "from './%s'" % m["api.js"] in app  # static import
        assert "export * from './%s'" % m["sub/page.js"] in app  # export-from
        assert "import('./%s')" % m["sub/page.js"] in app  # dynamic import
        assert "from '../api.%s" % m["api.js"][4:] in s.text(m["sub/page.js"])
        css = s.text(m["style.css"])
        assert '@import "%s";' % m["base.css"] in css
        assert "@import url(%s);" % m["theme.css"] in css
        assert '@import"%s"print;' % m["print.css"] in css
        assert ".a { background: url(%s); }" % m["img/pic.svg"] in css
        assert ".b { background: url('%s#frag'); }" % m["img/pic.svg"] in css
        assert '.f { mask: url("/%s?v=2"); }' % m["img/pic.svg"] in css  # absolute, under /
        assert "nope-comment" not in css  # comments are left out, not followed
        for untouched in ('"url(nope-string.svg)"', "url(data:image/png;base64,iVBORw0KGgo=)",
                          "url(https://example.com/x.svg)"):
            assert untouched in css, untouched
        html = s.text("index.html")
        # The page is served for /app/... too: its references are absolute.
        assert '<link rel="stylesheet" href="/%s">' % m["style.css"] in html
        assert '<img src="/%s" alt="">' % m["img/pic.svg"] in html
        assert '<script type="module" src="/%s"></script>' % m["app.js"] in html
        for untouched in ('<a href="/app/contacts">', 'href="https://example.com/x.js"',
                          '<link rel="canonical" href="/app">',
                          '<!-- <script src="nope-comment.js"></script> -->'):
            assert untouched in html, untouched


def test_assets_inline_the_first_parts_with_absolute_urls_and_their_csp():
    with Site(SITE) as s:
        m = s.build()
        html = s.text("index.html")
        assert "data-inline" not in html and 'href="first.css"' not in html
        style = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
        assert style == "body { background: url(/%s) no-repeat; }\n" % m["img/pic.svg"]
        script = re.search(r'<script type="module">(.*?)</script>', html, re.S).group(1)
        assert script == ("import { get } from '/%s';\nconst later = () => import('/%s');\n"
                          "const icon = new URL('/%s', import.meta.url);\n"
                          % (m["api.js"], m["app.js"], m["img/pic.svg"]))
        csp = s.text("index.html.csp")
        assert csp == "script-src 'self' %s; style-src 'self' %s" % (csp_hash(script),
                                                                      csp_hash(style))
        # A module's folder is served under /modules/NAME/: --base says so.
        m = s.build("--base", "/modules/demo/")
        html = s.text("index.html")
        assert "import { get } from '/modules/demo/%s';" % m["api.js"] in html
        assert '<img src="/modules/demo/%s" alt="">' % m["img/pic.svg"] in html
        assert "from './%s'" % m["api.js"] in s.text(m["app.js"])  # relative stays relative
        assert 'url("/img/pic.svg?v=2")' in s.text(m["style.css"])  # not under the base


TRICKY = r"""#!/usr/bin/env node
// import a from './nope-1.js'
/* import('./nope-2.js'); export * from './nope-3.js' */
import def, { a as b, "c-d" as e } from './lib.js';
import * as ns from "./ns.js";
import from from './from.js';
import './side.js';
import {
	x,
	y,
} from './multi.js';
export { z } from './ex.js';
export * as all from './all.js';
const s1 = "import x from './nope-4.js'";
const s2 = 'it\'s import("./nope-5.js")';
const t1 = `import('./nope-6.js') ${b} export * from './nope-7.js'`;
const t2 = `${`${'import("./nope-8.js")'}`} import('./nope-9.js')`;
const t3 = `a ${ { k: import('./in-template.js') }.k } b`;
const re1 = /import\('.\/nope-10.js'\)/;
const re2 = /[/'"]/g; const after = import('./after-regex.js');
let q = 4 / 2; let sl = '/'; import('./after-division.js');
const obj = { import: './nope-11.js', export: './nope-12.js' };
obj.import('./nope-13.js'); obj?.import('./nope-14.js');
const u = new URL('./pic.svg', import.meta.url);
const meta = import.meta.url;
const tpl = import(`./tpl.js`);
const joined = import('./' + 'nope-15.js');
const subst = import(`./nope-${q}.js`);
const escaped = import('./nope\x2d16.js');
const bare = import('nope-17');
function f() { return /'/.test("import('./nope-18.js')"); }
const g = a => /"/.test(a) && import('./after-arrow.js');
const h = (1) / 2 / import('./after-paren.js');
"""
TRICKY_REFS = ("lib.js", "ns.js", "from.js", "side.js", "multi.js", "ex.js", "all.js",
               "in-template.js", "after-regex.js", "after-division.js", "pic.svg", "tpl.js",
               "after-arrow.js", "after-paren.js")


def test_assets_js_reader_skips_comments_strings_templates_and_regexes():
    files = {"tricky.js": TRICKY}
    files.update({name: "export const v = %d;\n" % i for i, name in enumerate(TRICKY_REFS)})
    with Site(files) as s:
        # Every look-alike names a missing file: taken for a reference, it
        # would stop the build.
        m = s.build()
        out = s.text(m["tricky.js"])
        for name in TRICKY_REFS:
            assert "./%s" % m[name] in out, name
            assert "./%s'" % name not in out and "./%s\"" % name not in out, name
        # compact: the comments and the indentation gone, the lines kept
        want = TRICKY.replace("// import a from './nope-1.js'", "", 1)
        want = want.replace("/* import('./nope-2.js'); export * from './nope-3.js' */", "", 1)
        want = want.replace("\tx,\n\ty,\n", "x,\ny,\n", 1)
        for name in TRICKY_REFS:
            want = want.replace("./%s'" % name, "./%s'" % m[name])
            want = want.replace('./%s"' % name, './%s"' % m[name])
            want = want.replace("./%s`" % name, "./%s`" % m[name])
        assert out == want  # and nothing else changed


COMPACT_JS = (
    "/* SPDX-License-Identifier: MIT */\n"
    "/*\n * what it does\n */\n"
    "const a = 'a // b /* c */';   // the end\n"
    "function f(x) {\n"
    "\tif (x)  /* why */  return x /\n"
    "\t\t2;\n"
    "\treturn `  ${x /* in */ + 1}  // kept\n\t  /* kept */`;\n"
    "}\n"
    "const re = /a  b\\/\\//g;\n"
    "let b = a\n"
    "/**/\n"
    "++b;\n"
    "const c = 1 - -a, d = a/**/in b;\n"
    "let v = 1 // a line ends at a lone CR\rv = 2;\n"
    "const r = () => { return /* here too\r */ 5; };\n"
    "export default /p  q/;\n"
    "if (a)  /x  y[/*]/.test(a);  // a regex the reader takes for a division\n"
    "/* and a comment whose end closes what it took for one */\n"
    "let z = 1;  // dropped again\n"
)
COMPACT_JS_OUT = (
    "\n"
    "\n\n\n"
    "const a = 'a // b /* c */';\n"
    "function f(x) {\n"
    "if (x) return x /\n"
    "2;\n"
    "return `  ${x + 1}  // kept\n\t  /* kept */`;\n"
    "}\n"
    "const re = /a  b\\/\\//g;\n"
    "let b = a\n"
    "\n"
    "++b;\n"
    "const c = 1 - -a, d = a in b;\n"
    "let v = 1\rv = 2;\n"
    "const r = () => { return\r5; };\n"
    "export default /p  q/;\n"
    "if (a)  /x  y[/*]/.test(a);  // a regex the reader takes for a division\n"
    "/* and a comment whose end closes what it took for one */\n"
    "let z = 1;\n"
)
COMPACT_CSS = (
    "/* SPDX-License-Identifier: MIT */\n"
    ".a::after { content: \"/* not a comment */  \"; }\n"
    "\n"
    ".b  .c,\n"
    "\t.d/**/.e {\n"
    "\twidth: calc(1px  +  2px); /* why */\n"
    "\tbackground: url(  'x.svg'  );\n"
    "}\n"
    ".m { margin: 1px/**/2px; }\n"
    ".\\31  p { color: red; }\n"
    ".u { background: url(https://cdn.example/*/x.png); }  /* gone */\n"
)
COMPACT_CSS_OUT = (
    "\n"
    ".a::after { content: \"/* not a comment */  \"; }\n"
    "\n"
    ".b .c,\n"
    ".d/**/.e {\n"
    "width: calc(1px + 2px);\n"
    "background: url( '%s' );\n"
    "}\n"
    ".m { margin: 1px/**/2px; }\n"
    ".\\31  p { color: red; }\n"
    ".u { background: url(https://cdn.example/*/x.png); }\n"
)


def test_assets_compact_js_and_css_keeping_lines_and_literals():
    # What people read (comments, indentation, alignment) is left out;
    # strings, templates and regexes stay as written, and every line keeps
    # its number, so automatic semicolons and messages are unchanged.
    with Site({"a.js": COMPACT_JS, "a.css": COMPACT_CSS, "x.svg": "<svg/>\n"}) as s:
        m = s.build()
        assert s.text(m["a.js"]) == COMPACT_JS_OUT
        assert s.text(m["a.css"]) == COMPACT_CSS_OUT % m["x.svg"]
    with Site({"a.js": "/* one\n two */ import x from './gone.js';\n"}) as s:
        p = s.run()
        assert p.returncode == 1 and "a.js:2:" in p.stderr, p.stderr
    # A template after a slash the reader is unsure of could carry its guess
    # to other lines: refused, with the line.
    with Site({"a.js": "let a = 1;\nif (a) /`/.test(a);\n// `\n"}) as s:
        p = s.run()
        assert p.returncode == 1 and "a.js:2:" in p.stderr and "regex in parentheses" in p.stderr, \
            p.stderr


def test_assets_hash_changes_with_what_a_file_imports():
    with Site(SITE) as s:
        before = s.build()
        s.write("sub/page.js", SITE["sub/page.js"] + "// changed\n")
        after = s.build()
        # the file, its importer, and first.js, which imports that one
        for changed in ("sub/page.js", "app.js", "first.js"):
            assert before[changed] != after[changed], changed
        for same in ("api.js", "first.css", "style.css", "img/pic.svg"):
            assert before[same] == after[same], same
        assert ("/%s" % after["app.js"]) in s.text("index.html")
        names = tree(s.out)
        for old in (before["sub/page.js"], before["app.js"], before["first.js"]):  # gone
            assert not any(n.startswith(old) for n in names), old


def test_assets_refuse_a_cycle_naming_its_files():
    with Site({"a.js": "import './b.js';\n", "b.js": "import './c.js';\n",
               "c.js": "export const c = import('./a.js');\n", "d.js": "import './a.js';\n"}) as s:
        p = s.run()
        assert p.returncode == 1
        assert p.stderr.count("\n") == 1, p.stderr
        assert "a.js -> b.js -> c.js -> a.js" in p.stderr, p.stderr
        assert not os.path.exists(os.path.join(s.out, "manifest.json"))


def test_assets_refuse_a_missing_file_with_its_line():
    cases = {
        "app.js": ("// one\nimport {\n\ta,\n} from './gone.js';\n", "app.js:4:", "./gone.js"),
        "page.css": ("a {}\n\nb { background: url(img/gone.svg); }\n", "page.css:3:",
                     "img/gone.svg"),
        "index.html": ("<!doctype html>\n<script src=\"/gone.js\"></script>\n", "index.html:2:",
                       "/gone.js"),
        "late.js": ("const p = import('../late/./gone.js');\n", None, None),  # outside: left
    }
    for name, (text, where, spec) in cases.items():
        with Site({name: text}) as s:
            p = s.run()
            if where is None:
                assert p.returncode == 0, p.stderr
                continue
            assert p.returncode == 1, name
            line = p.stderr.strip()
            assert "\n" not in line and line.startswith("hl-assets: ")
            assert os.path.join(s.src, where) in line and spec in line, line


def test_assets_compressed_copies_decode_and_exist_only_when_smaller():
    files = dict(SITE)
    files["tiny.js"] = "export{}\n"
    files["logo.png"] = bytes(range(256)) * 8
    with Site(files) as s:
        m = s.build()
        seen = 0
        for name, data in tree(s.out).items():
            if name.endswith(".br"):
                assert unbrotli(data) == s.read(name[:-3]), name
                assert len(data) < len(s.read(name[:-3]))
                seen += 1
            elif name.endswith(".gz"):
                assert gzip.decompress(data) == s.read(name[:-3]), name
                assert data[4:8] == b"\0\0\0\0"  # no time stamp
                seen += 1
        assert seen >= 10
        for none in (m["tiny.js"] + ".br", m["tiny.js"] + ".gz", m["logo.png"] + ".gz",
                     m["logo.png"] + ".br"):
            assert not os.path.exists(os.path.join(s.out, none)), none
        for some in ("index.html.br", "index.html.gz", m["style.css"] + ".br"):
            assert os.path.exists(os.path.join(s.out, some)), some


def test_assets_output_is_the_same_bytes_every_time():
    with Site(SITE) as s:
        s.build()
        first = tree(s.out)
        stamp = os.stat(os.path.join(s.out, "index.html")).st_mtime_ns
        os.utime(os.path.join(s.out, "index.html"), ns=(1, 1))
        s.build()
        assert tree(s.out) == first
        # unchanged bytes are not written again: the file keeps its ETag
        assert os.stat(os.path.join(s.out, "index.html")).st_mtime_ns == 1 != stamp
        # another folder, its files created in the reverse order
        with Site({}) as t:
            for name in reversed(list(SITE)):
                t.write(name, SITE[name])
            t.build()
            assert tree(t.out) == first


def test_assets_own_the_output_folder_but_not_its_modules():
    with Site(SITE) as s:
        s.build()
        for name in ("stale.0123456789.js", "old/x.js", "modules/contacts/contacts.js"):
            path = os.path.join(s.out, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("old\n")
        s.build()
        assert not os.path.exists(os.path.join(s.out, "stale.0123456789.js"))
        assert not os.path.exists(os.path.join(s.out, "old"))
        assert s.text("modules/contacts/contacts.js") == "old\n"
        # A folder it did not make is left alone.
        other = os.path.join(s.root, "other")
        os.makedirs(other)
        with open(os.path.join(other, "notes.txt"), "w") as f:
            f.write("mine\n")
        p = s.run(out=other)
        assert p.returncode == 1 and "not a folder hl-assets made" in p.stderr
        assert os.listdir(other) == ["notes.txt"]
        p = s.run(out=os.path.join(s.src, "out"))
        assert p.returncode == 1 and not os.path.exists(os.path.join(s.src, "out"))
