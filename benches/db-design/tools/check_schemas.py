#!/usr/bin/env python3
"""Checks every schema file loads, and that both versions hold the same rows:

    python3 tools/check_schemas.py [POSTGRES_URL]

Each schemas/<name>.sqlite.sql is loaded into an in-memory SQLite database (foreign keys
and integrity checked). With a server URL (postgres://user@host:port, or
$LUCID_TEST_POSTGRES_URL), each <name>.pg.sql is loaded into a scratch database
`dbbench_<name>` made for it and dropped afterwards, and every table's row count is
compared with SQLite's. Needs `psql` for Postgres; nothing else beyond Python.
"""
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def psql(url, *args):
    return subprocess.run(["psql", url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", *args],
                          capture_output=True, text=True)


def pg_name(name):
    return name.lower() if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else '"' + name + '"'


def main():
    url = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LUCID_TEST_POSTGRES_URL", "")
    server = re.sub(r"/[^/@]*$", "", url) if url.count("/") >= 3 else url
    failures = 0
    for path in sorted(SCHEMAS.glob("*.sqlite.sql")):
        name = path.name[: -len(".sqlite.sql")]
        db = sqlite3.connect(":memory:")
        db.executescript(path.read_text(encoding="utf-8"))
        fk = db.execute("PRAGMA foreign_key_check").fetchall()
        ok = db.execute("PRAGMA integrity_check").fetchone()[0]
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        counts = {t: db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
        views = db.execute("SELECT count(*) FROM sqlite_master WHERE type='view'").fetchone()[0]
        bad = bool(fk) or ok != "ok"
        failures += bad
        print(f"{'FAIL' if bad else 'ok  '} {path.name}: {len(tables)} tables, {sum(counts.values())} rows, "
              f"{views} views, foreign_key_check {len(fk)} rows, integrity_check {ok}")
        if not server:
            continue
        scratch = f"dbbench_{name}"
        psql(f"{server}/postgres", "-c", f"DROP DATABASE IF EXISTS {scratch}")
        made = psql(f"{server}/postgres", "-c", f"CREATE DATABASE {scratch}")
        if made.returncode:
            failures += 1
            print(f"FAIL {scratch}: {made.stderr.strip()}")
            continue
        try:
            pg = SCHEMAS / f"{name}.pg.sql"
            loaded = psql(f"{server}/{scratch}", "-f", str(pg))
            if loaded.returncode:
                failures += 1
                print(f"FAIL {pg.name}: {loaded.stderr.strip()[-500:]}")
                continue
            differ = []
            for t in tables:
                got = psql(f"{server}/{scratch}", "-c", f"SELECT count(*) FROM {pg_name(t)}").stdout.strip()
                if got != str(counts[t]):
                    differ.append(f"{t}: {got} vs {counts[t]}")
            pg_views = psql(f"{server}/{scratch}", "-c",
                            "SELECT count(*) FROM information_schema.views WHERE table_schema = 'public'").stdout.strip()
            failures += bool(differ)
            print(f"{'FAIL' if differ else 'ok  '} {pg.name}: loaded into {scratch}, {len(tables)} tables with the same "
                  f"row counts{' except ' + '; '.join(differ) if differ else ''}, {pg_views} views")
        finally:
            psql(f"{server}/postgres", "-c", f"DROP DATABASE IF EXISTS {scratch}")
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
