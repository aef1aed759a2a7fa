#!/usr/bin/env python3
"""Checks a benchmark case's invariants on a SQLite database after the agent ran.

    python3 invariants.py DATABASE [JSON]      (the JSON on stdin when not given)

JSON is a case's `metadata` (its `invariants` list is read, with `foreign_key_check` and
`integrity_check`, both on unless false) or the list of invariants alone. Prints one line
(`ok: N invariants hold` or what failed) and exits 0 when every invariant holds, 1 when one
does not, 2 when the arguments or the JSON are wrong. Only Python's standard library.

Every check runs inside a transaction rolled back at the end, so `run` statements and
`fails` probes leave the database as it was; an invariant's `run` statements are undone
after its own check, so no invariant sees another's. The invariants:

    {"check": SQL, "equals": V}            the first column of the first row is V
    {"check": SQL, "at_least": N} / {"check": SQL, "at_most": N}
    {"check": SQL, "rows": [[...], ...]}   every row, in order
    {"check": SQL, "sha256": HEX}          the first value's text (UTF-8) has this digest
    {"run": [SQL, ...], "check": ...}      statements run first (e.g. to fire a trigger)
    {"fails": SQL}                         the statement is refused (a constraint holds)
    {"table": T, "exists": true|false}
    {"column": "T.c", "exists": true|false, "notnull": true|false}
    {"index_on": T, "columns": [c, ...], "unique": true|false}   an index leads with them
    {"trigger_on": T}                      at least one trigger on T
    {"foreign_key": "T.c", "references": P}
    {"schema_unchanged": SHA256}           tables, indexes, views and triggers as they were
                                           (Lucid's own tables, schema_versions and lucid_*,
                                           left out)
"""
import hashlib
import json
import sqlite3
import sys


class Failed(Exception):
    pass


def schema_sha256(db):
    """The schema's fingerprint: every object's type, name and SQL, sorted."""
    rows = db.execute(
        "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master "
        "WHERE name NOT LIKE 'sqlite_%' AND tbl_name NOT LIKE 'lucid_%' AND tbl_name <> 'schema_versions' "
        "ORDER BY type, name").fetchall()
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def same(got, want):
    if isinstance(want, bool) or isinstance(got, bool):
        return got == want
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return abs(got - want) <= 1e-6 * max(1.0, abs(want))
    if isinstance(want, (int, float)) and isinstance(got, str):
        try:
            return abs(float(got) - want) <= 1e-6 * max(1.0, abs(want))
        except ValueError:
            return False
    if isinstance(want, list) and isinstance(got, (list, tuple)):
        return len(want) == len(got) and all(same(g, w) for g, w in zip(got, want))
    return got == want


def short(sql, n=90):
    sql = " ".join(str(sql).split())
    return sql if len(sql) <= n else sql[: n - 1] + "…"


def table_info(db, table):
    return db.execute("SELECT name, type, \"notnull\" FROM pragma_table_info(?)", (table,)).fetchall()


def table_exists(db, table):
    return db.execute(
        "SELECT count(*) FROM sqlite_master WHERE type IN ('table','view') AND lower(name) = lower(?)",
        (table,)).fetchone()[0] > 0


def check_one(db, inv):
    """Raises Failed with the reason when `inv` does not hold."""
    for sql in inv.get("run", []):
        try:
            db.execute(sql)
        except sqlite3.Error as e:
            raise Failed(f"`{short(sql)}` failed: {e}")
    if "fails" in inv:
        db.execute("SAVEPOINT probe")
        try:
            db.execute(inv["fails"])
        except sqlite3.Error:
            db.execute("ROLLBACK TO probe")
            return
        db.execute("ROLLBACK TO probe")
        raise Failed(f"`{short(inv['fails'])}` was accepted; it should be refused")
    if "check" in inv:
        sql = inv["check"]
        try:
            rows = db.execute(sql).fetchall()
        except sqlite3.Error as e:
            raise Failed(f"`{short(sql)}` failed: {e}")
        first = rows[0][0] if rows and rows[0] else None
        if "equals" in inv and not same(first, inv["equals"]):
            raise Failed(f"`{short(sql)}` gave {first!r}, expected {inv['equals']!r}")
        if "sha256" in inv and (first is None or hashlib.sha256(str(first).encode()).hexdigest() != inv["sha256"]):
            raise Failed(f"`{short(sql)}` gave {short(repr(first), 60)}, whose sha256 is not {inv['sha256'][:12]}…")
        if "at_least" in inv and not (isinstance(first, (int, float)) and first >= inv["at_least"]):
            raise Failed(f"`{short(sql)}` gave {first!r}, expected at least {inv['at_least']}")
        if "at_most" in inv and not (isinstance(first, (int, float)) and first <= inv["at_most"]):
            raise Failed(f"`{short(sql)}` gave {first!r}, expected at most {inv['at_most']}")
        if "rows" in inv and not same([list(r) for r in rows], inv["rows"]):
            raise Failed(f"`{short(sql)}` gave {short(json.dumps([list(r) for r in rows], default=str), 120)}, "
                         f"expected {short(json.dumps(inv['rows']), 120)}")
        return
    if "table" in inv:
        exists = table_exists(db, inv["table"])
        if exists != inv.get("exists", True):
            raise Failed(f"table {inv['table']} {'exists' if exists else 'is missing'}")
        return
    if "column" in inv:
        table, _, column = inv["column"].partition(".")
        cols = {name.lower(): (typ, notnull) for name, typ, notnull in table_info(db, table)}
        exists = column.lower() in cols
        if exists != inv.get("exists", True):
            raise Failed(f"column {inv['column']} {'exists' if exists else 'is missing'}")
        if exists and "notnull" in inv and bool(cols[column.lower()][1]) != inv["notnull"]:
            raise Failed(f"column {inv['column']} is {'NOT NULL' if cols[column.lower()][1] else 'nullable'}")
        return
    if "index_on" in inv:
        want = [c.lower() for c in inv.get("columns", [])]
        for _, name, unique, _, _ in db.execute("SELECT * FROM pragma_index_list(?)", (inv["index_on"],)).fetchall():
            cols = [r[0].lower() for r in db.execute(
                "SELECT name FROM pragma_index_info(?) ORDER BY seqno", (name,)).fetchall() if r[0]]
            if cols[: len(want)] == want and ("unique" not in inv or bool(unique) == inv["unique"]):
                return
        raise Failed(f"no {'unique ' if inv.get('unique') else ''}index on {inv['index_on']}({', '.join(want)})")
    if "trigger_on" in inv:
        n = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND lower(tbl_name) = lower(?)",
                       (inv["trigger_on"],)).fetchone()[0]
        if not n:
            raise Failed(f"no trigger on {inv['trigger_on']}")
        return
    if "foreign_key" in inv:
        table, _, column = inv["foreign_key"].partition(".")
        for r in db.execute("SELECT \"table\", \"from\" FROM pragma_foreign_key_list(?)", (table,)).fetchall():
            if r[1] and r[1].lower() == column.lower() and r[0].lower() == inv["references"].lower():
                return
        raise Failed(f"no foreign key {inv['foreign_key']} -> {inv['references']}")
    if "schema_unchanged" in inv:
        if schema_sha256(db) != inv["schema_unchanged"]:
            raise Failed("the schema changed; it should not have")
        return
    raise ValueError(f"an invariant of an unknown kind: {json.dumps(inv)[:200]}")


def run(path, spec):
    if isinstance(spec, list):
        spec = {"invariants": spec}
    invariants = spec.get("invariants", [])
    db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None)
    try:
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("BEGIN")
        try:
            for i, inv in enumerate(invariants, 1):
                db.execute("SAVEPOINT invariant")
                try:
                    check_one(db, inv)
                except Failed as e:
                    return False, f"invariant {i} of {len(invariants)} failed: {e}"
                finally:
                    db.execute("ROLLBACK TO invariant")
                    db.execute("RELEASE invariant")
            if spec.get("foreign_key_check", True):
                bad = db.execute("PRAGMA foreign_key_check").fetchall()
                if bad:
                    return False, f"{len(bad)} foreign keys dangle (first: {bad[0][0]} row {bad[0][1]} -> {bad[0][2]})"
            if spec.get("integrity_check", True):
                ok = db.execute("PRAGMA integrity_check").fetchone()[0]
                if ok != "ok":
                    return False, f"integrity_check: {ok}"
        finally:
            db.execute("ROLLBACK")
    finally:
        db.close()
    return True, f"ok: {len(invariants)} invariants hold"


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: invariants.py DATABASE [JSON]  (the JSON on stdin when not given)", file=sys.stderr)
        return 2
    try:
        spec = json.loads(argv[2] if len(argv) == 3 else sys.stdin.read())
        if not isinstance(spec, (dict, list)):
            raise ValueError("the JSON must be an object (a case's metadata) or a list of invariants")
        ok, reason = run(argv[1], spec)
    except (ValueError, sqlite3.Error) as e:
        print(f"error: {e}")
        return 2
    print(reason)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
