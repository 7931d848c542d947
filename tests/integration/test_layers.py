# SPDX-License-Identifier: MIT
"""The core's layers (README, "Layout"): each folder of core/ is a layer,
in the order CORE_LAYERS of the GNUmakefile gives, lowest first. A file
may call into its own layer and those under it, never up, and no files
call each other round in a circle. Read from the built objects' symbols
(nm): what a file defines and what it leaves undefined for another."""

import os
import re
import subprocess
import tempfile

from harness import BUILD, ROOT


def layer_order():
    text = open(os.path.join(ROOT, "GNUmakefile")).read()
    return re.search(r"^CORE_LAYERS := (.*)$", text, re.M).group(1).split()


def symbols(obj):
    """What the object defines and what it needs from elsewhere."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, needed = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRCV":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            needed.add(parts[1])
    return defined, needed


def calls(objects):
    """{(file, file it calls): [symbols]} among `objects` ({name: path})."""
    owner, needs = {}, {}
    for name, path in objects.items():
        defined, needs[name] = symbols(path)
        for s in defined:
            owner[s] = name
    edges = {}
    for name, needed in needs.items():
        for s in sorted(needed):
            if s in owner and owner[s] != name:
                edges.setdefault((name, owner[s]), []).append(s)
    return edges


def cycles(edges):
    """The groups of files that call each other round (Tarjan's)."""
    out = {}
    for a, b in edges:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set())
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(out[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(out):
        if v not in index:
            visit(v)
    return found


def faults(root, order):
    """Every call up a layer and every circle among the objects under
    root/<layer>/, as sentences."""
    objects = {}
    for layer in order:
        folder = os.path.join(root, layer)
        for f in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if f.endswith(".o"):
                objects["%s/%s.c" % (layer, f[:-2])] = os.path.join(folder, f)
    rank = {layer: i for i, layer in enumerate(order)}
    edges = calls(objects)
    said = []
    for (a, b), syms in sorted(edges.items()):
        la, lb = a.split("/")[0], b.split("/")[0]
        if rank[lb] > rank[la]:
            said.append("core/%s calls up into core/%s (%s layer, above %s): %s"
                        % (a, b, lb, la, ", ".join(syms)))
    for group in cycles(edges):
        said.append("these call each other round: " + ", ".join("core/" + g for g in group))
    return said, objects


def test_every_core_file_sits_in_a_layer():
    order = layer_order()
    loose = [f for f in os.listdir(os.path.join(ROOT, "core")) if f.endswith(".c")]
    assert not loose, "core/ files outside a layer: %s" % loose
    folders = sorted(d for d in os.listdir(os.path.join(ROOT, "core"))
                     if os.path.isdir(os.path.join(ROOT, "core", d)) and d != "include")
    assert folders == sorted(order), "core's folders %s, CORE_LAYERS %s" % (folders, order)


def test_no_file_calls_up_a_layer_or_round_in_a_circle():
    said, objects = faults(os.path.join(BUILD, "core"), layer_order())
    sources = sum(len([f for f in os.listdir(os.path.join(ROOT, "core", layer)) if f.endswith(".c")])
                  for layer in layer_order())
    assert len(objects) == sources, "built %d core objects of %d sources" % (len(objects), sources)
    assert not said, "\n".join(said)


def test_the_check_sees_a_call_up_and_a_circle():
    """Two layers of real objects, the lower calling the upper: both faults
    are named, so the check above can fail."""
    with tempfile.TemporaryDirectory() as d:
        files = {"low/a.c": "int b(void); int a(void) { return b(); }\n",
                 "high/b.c": "int a(void); int b(void) { return a() + 1; }\n",
                 "high/c.c": "int a(void); int c(void) { return a(); }\n"}
        for name, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(name)), exist_ok=True)
            src = os.path.join(d, name)
            open(src, "w").write(text)
            subprocess.run(["cc", "-c", src, "-o", src[:-2] + ".o"], check=True)
        said, _ = faults(d, ["low", "high"])
    assert said == ["core/low/a.c calls up into core/high/b.c (high layer, above low): b",
                    "these call each other round: core/high/b.c, core/low/a.c"], said
