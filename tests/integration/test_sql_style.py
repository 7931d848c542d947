# SPDX-License-Identifier: MIT
"""One way to write SQL (README, "Writing a module"), in the modules and the
core's own routes alike, read from their sources: parameters are named
(":id") and bound by name (hl_bind_int, hl_bind_text), never by place;
a statement of one sub-account's rows is scoped (hl_scoped_read,
hl_scoped_write, or hl_stmt_scoped in a store or a job), never bound to
:location by hand, so the rule that refuses SQL without :location holds
everywhere. A write is stepped with hl_step_changes and
a row is placed among others with hl_move_to_position, not by hand, and
a list of rows is written with hl_json_rows. The core's mechanisms (the
database, the request API, the platform, HTTP, main) bind by name too; the
binders themselves (hl_bind_*, the scoped statements) use SQLite's index
of a name, and are the one place a bind call may take a variable index.
A loop that folds rows into something C computes (groups, series, a
merge) steps by hand: that is what SQLite's stepping API is for."""

import glob
import os
import re

from harness import ROOT

# The modules and the core's routes, held to every rule.
FILES = sorted(glob.glob(os.path.join(ROOT, "modules", "*", "*.c")) +
               glob.glob(os.path.join(ROOT, "core", "admin", "*.c")) +
               glob.glob(os.path.join(ROOT, "core", "auth", "*.c")))
# The rest of the core: no parameter by place.
MECHANISMS = sorted(set(glob.glob(os.path.join(ROOT, "core", "*", "*.c"))) - set(FILES))

LITERALS = r'((?:"(?:[^"\\]|\\.)*"\s*)+)'


def where(path, text, at):
    return "%s:%d" % (os.path.relpath(path, ROOT), text.count("\n", 0, at) + 1)


BINDS = r"\bsqlite3_bind_(int|int64|text|text64|null|double|blob|blob64)\s*\("


def places_in_sql(path, text):
    """A ?N, or a bare ?, in a string of SQL."""
    said = []
    for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"', text):
        sql = re.search(r"\b(SELECT|INSERT|UPDATE|DELETE|WHERE|VALUES|AND|SET)\b", m.group(0))
        if re.search(r"\?\d", m.group(0)) or sql and re.search(r"\?\s*[,)]|=\s*\?(?!\w)",
                                                                 m.group(0)):
            said.append("%s: a parameter by place (?) in %s" % (where(path, text, m.start()),
                                                                  m.group(0)[:60]))
    return said


def by_place(path, text):
    """Parameters by place: a ?N in SQL, a bind call at a number."""
    said = ["%s: sqlite3_bind_%s binds by place: name the parameter"
            % (where(path, text, m.start()), m.group(1))
            for m in re.finditer(BINDS + r"\w+,\s*\d", text)]
    return said + places_in_sql(path, text)


def faults(paths):
    said = []
    for path in paths:
        text = open(path).read()
        for m in re.finditer(BINDS, text):
            said.append("%s: sqlite3_bind_%s binds by place: name the parameter and use"
                        " hl_bind_int, hl_bind_text or hl_bind_blob"
                        % (where(path, text, m.start()), m.group(1)))
        said += places_in_sql(path, text)
        for m in re.finditer(r'hl_bind_(?:int|text)\([^,]+,\s*":location"', text):
            said.append("%s: :location bound by hand: use a scoped statement"
                        % where(path, text, m.start()))
        for m in re.finditer(r"\bhl_stmt\(([^,()]+(?:\([^()]*\))?),\s*" + LITERALS + r"\)", text):
            if ":location" in m.group(2):
                said.append("%s: an unscoped statement names :location: use hl_scoped_read,"
                            " hl_scoped_write or hl_stmt_scoped" % where(path, text, m.start()))
    return said


def module_faults(paths):
    """What the modules write once through the header's helpers."""
    said = []
    for path in paths:
        text = open(path).read()
        for m in re.finditer(r"\bsqlite3_step\(\w+\)\s*[!=]=\s*SQLITE_DONE", text):
            said.append("%s: a write stepped by hand: use hl_step_changes" % where(path, text, m.start()))
        for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"', text):
            if re.search(r"position\s*=\s*position\s*\+\s*1|max\(position\)\s*\+\s*1", m.group(0)):
                said.append("%s: positions shifted by hand: use hl_move_to_position"
                            % where(path, text, m.start()))
        for m in re.finditer(r"while\s*\(\(\w+ = sqlite3_step\((\w+)\)\) == SQLITE_ROW\)\s*"
                             r"hl_json_row\(\w+, \1\);", text):
            said.append("%s: a list of rows written by hand: use hl_json_rows"
                        % where(path, text, m.start()))
    return said


def test_the_modules_and_the_core_routes_write_sql_one_way():
    assert len(FILES) > 40, FILES
    said = faults(FILES) + module_faults(FILES)
    assert not said, "\n".join(said)


def test_the_core_mechanisms_bind_by_name():
    assert len(MECHANISMS) > 40, MECHANISMS
    said = [s for p in MECHANISMS for s in by_place(p, open(p).read())]
    assert not said, "\n".join(said)


def test_the_check_names_each_other_way():
    """Each way the rule forbids, written once, is named: the check above
    can fail."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.c")
        open(bad, "w").write(
            'static void f(sqlite3_stmt *st, struct hl_db *db)\n{\n'
            '\tsqlite3_bind_int64(st, 1, 7);\n'
            '\tst = hl_stmt(db, "SELECT id FROM t WHERE id = ?1");\n'
            '\thl_bind_int(st, ":location", 3);\n'
            '\tst = hl_stmt(db, "SELECT id FROM contacts"\n\t\t" WHERE location_id = :location");\n'
            '\tif (sqlite3_step(st) != SQLITE_DONE)\n\t\treturn;\n'
            '\tst = hl_stmt(db, "UPDATE stages SET position = position + 1 WHERE id = :id");\n'
            '\twhile ((rc = sqlite3_step(st)) == SQLITE_ROW)\n\t\thl_json_row(j, st);\n'
            '}\n')
        said = faults([bad]) + module_faults([bad])
        text = open(bad).read()
        mechanism = by_place(bad, text)
    assert [s.split(": ", 1)[1][:24] for s in said] == [
        "sqlite3_bind_int64 binds", "a parameter by place (?)", ":location bound by hand:",
        "an unscoped statement na", "a write stepped by hand:", "positions shifted by han",
        "a list of rows written b"], said
    assert [s.split(": ", 1)[1][:24] for s in mechanism] == [
        "sqlite3_bind_int64 binds", "a parameter by place (?)"], mechanism
