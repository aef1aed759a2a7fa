#!/usr/bin/env python3
"""Makes benches/db-design/schemas/<name>.sqlite.sql and <name>.pg.sql from the public
sample databases (see ../schemas/SOURCES.md), each a bounded, consistent sample of rows.

    python3 tools/make_schemas.py MIRRORS [OUT]

MIRRORS holds the sources' git snapshots as `owner+name/repo` (bare repositories, read
with `git show COMMIT:PATH`); OUT defaults to ../schemas. Only Python's standard library.

Each source is loaded into an in-memory SQLite database, then at most MAX_ROWS rows are
kept per table, parents first, choosing child rows whose parents were kept (so no foreign
key dangles), and the result is written twice: the SQLite DDL as the source wrote it, and
a Postgres translation made from the catalog (columns, keys, indexes, views that load).
"""
import csv
import io
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

MAX_ROWS = 300

SOURCES = {
    "chinook": ("lerocha+chinook-database", "7f67772503d71ba90f19283c38e93923addb43fa"),
    "sakila": ("jOOQ+sakila", "e089a5b1ec9af0df7a9c6a5d47d49fa1736a4e84"),
    "northwind": ("jpwhite3+northwind-SQLite3", "4f56e7f5906dfd23b25244c5bfe8fb5da6402efd"),
    "hr": ("oracle-samples+db-sample-schemas", "6660bad68c07bd143430ace58565b3f727e17263"),
    "jaffle_shop": ("dbt-labs+jaffle_shop", "b0b77aac70f490770a1e77c02bb0a2b8771d3203"),
}


def show(mirrors, name, path):
    repo, commit = SOURCES[name]
    out = subprocess.run(
        ["git", "-C", str(Path(mirrors) / repo / "repo"), "show", f"{commit}:{path}"],
        check=True, capture_output=True)
    return out.stdout.decode("utf-8-sig")


# --- loading each source into SQLite -------------------------------------------------

def load_chinook(mirrors):
    db = sqlite3.connect(":memory:")
    db.executescript(show(mirrors, "chinook", "ChinookDatabase/DataSources/Chinook_Sqlite.sql"))
    return db


def load_northwind(mirrors):
    db = sqlite3.connect(":memory:")
    db.executescript(show(mirrors, "northwind", "src/create.sql"))
    # The pictures are large JPEG/BMP blobs: not kept.
    db.execute("UPDATE Categories SET Picture = NULL")
    db.execute("UPDATE Employees SET Photo = NULL")
    db.commit()
    return db


def unescape_copy(field):
    if field == "\\N":
        return None
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), field)


def load_sakila(mirrors):
    db = sqlite3.connect(":memory:")
    schema = show(mirrors, "sakila", "sqlite-sakila-db/sqlite-sakila-schema.sql")
    db.executescript(schema)
    # The triggers stamp `last_update` with the load's time: dropped for the load, and
    # made again after the rows (in the written file too).
    triggers = db.execute("SELECT name, sql FROM sqlite_master WHERE type='trigger'").fetchall()
    for name, _ in triggers:
        db.execute(f"DROP TRIGGER {name}")
    data = show(mirrors, "sakila", "postgres-sakila-db/postgres-sakila-insert-data-using-copy.sql")
    lines = data.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"COPY public\.(\w+) \(([^)]*)\) FROM stdin;", lines[i])
        i += 1
        if not m:
            continue
        table, cols = m.group(1), [c.strip() for c in m.group(2).split(",")]
        have = {r[1]: r for r in db.execute(f"PRAGMA table_info({table})")}
        keep = [c for c in cols if c in have]
        missing = [c for c, r in have.items() if c not in cols and r[3] and r[4] is None]
        while lines[i] != "\\.":
            values = dict(zip(cols, map(unescape_copy, lines[i].split("\t"))))
            i += 1
            if "special_features" in values and values["special_features"]:
                values["special_features"] = ",".join(
                    s.strip('"') for s in values["special_features"].strip("{}").split(","))
            if table == "staff":
                values["active"] = 1 if values.get("active") == "t" else 0
                values["picture"] = None
            row = [values[c] for c in keep]
            extra = [values.get("payment_date") or values.get("last_update") or "2006-02-15 22:12:30"
                     for _ in missing]
            names = ", ".join(keep + missing)
            marks = ", ".join("?" * (len(keep) + len(missing)))
            db.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", row + extra)
    # film_text is filled by the triggers in the original: filled here from film.
    db.execute("INSERT INTO film_text (film_id, title, description) SELECT film_id, title, description FROM film")
    for _, sql in triggers:
        db.execute(sql)
    db.commit()
    return db


HR_DDL = """
CREATE TABLE regions (
  region_id INTEGER NOT NULL PRIMARY KEY,
  region_name VARCHAR(25)
);
CREATE TABLE countries (
  country_id CHAR(2) NOT NULL PRIMARY KEY,
  country_name VARCHAR(60),
  region_id INTEGER REFERENCES regions (region_id)
);
CREATE TABLE locations (
  location_id INTEGER NOT NULL PRIMARY KEY,
  street_address VARCHAR(40),
  postal_code VARCHAR(12),
  city VARCHAR(30) NOT NULL,
  state_province VARCHAR(25),
  country_id CHAR(2) REFERENCES countries (country_id)
);
CREATE TABLE departments (
  department_id INTEGER NOT NULL PRIMARY KEY,
  department_name VARCHAR(30) NOT NULL,
  manager_id INTEGER REFERENCES employees (employee_id),
  location_id INTEGER REFERENCES locations (location_id)
);
CREATE TABLE jobs (
  job_id VARCHAR(10) NOT NULL PRIMARY KEY,
  job_title VARCHAR(35) NOT NULL,
  min_salary INTEGER,
  max_salary INTEGER
);
CREATE TABLE employees (
  employee_id INTEGER NOT NULL PRIMARY KEY,
  first_name VARCHAR(20),
  last_name VARCHAR(25) NOT NULL,
  email VARCHAR(25) NOT NULL UNIQUE,
  phone_number VARCHAR(20),
  hire_date DATE NOT NULL,
  job_id VARCHAR(10) NOT NULL REFERENCES jobs (job_id),
  salary NUMERIC(8,2) CHECK (salary > 0),
  commission_pct NUMERIC(2,2),
  manager_id INTEGER REFERENCES employees (employee_id),
  department_id INTEGER REFERENCES departments (department_id)
);
CREATE TABLE job_history (
  employee_id INTEGER NOT NULL REFERENCES employees (employee_id),
  start_date DATE NOT NULL,
  end_date DATE NOT NULL,
  job_id VARCHAR(10) NOT NULL REFERENCES jobs (job_id),
  department_id INTEGER REFERENCES departments (department_id),
  PRIMARY KEY (employee_id, start_date),
  CHECK (end_date > start_date)
);
CREATE INDEX emp_department_ix ON employees (department_id);
CREATE INDEX emp_job_ix ON employees (job_id);
CREATE INDEX emp_manager_ix ON employees (manager_id);
CREATE INDEX emp_name_ix ON employees (last_name, first_name);
CREATE INDEX dept_location_ix ON departments (location_id);
CREATE INDEX jhist_job_ix ON job_history (job_id);
CREATE INDEX jhist_employee_ix ON job_history (employee_id);
CREATE INDEX jhist_department_ix ON job_history (department_id);
CREATE INDEX loc_city_ix ON locations (city);
CREATE INDEX loc_country_ix ON locations (country_id);
CREATE VIEW emp_details_view AS
SELECT e.employee_id, e.job_id, e.manager_id, e.department_id, d.location_id, l.country_id,
       e.first_name, e.last_name, e.salary, e.commission_pct, d.department_name, j.job_title,
       l.city, l.state_province, c.country_name, r.region_name
FROM employees e
JOIN departments d ON e.department_id = d.department_id
JOIN jobs j ON j.job_id = e.job_id
JOIN locations l ON d.location_id = l.location_id
JOIN countries c ON l.country_id = c.country_id
JOIN regions r ON c.region_id = r.region_id;
"""


def load_hr(mirrors):
    """Oracle's HR schema, its DDL rewritten by hand above (same tables, columns, keys,
    checks and indexes; Oracle's sequences and procedures left out), its rows read from
    hr_populate.sql (`TO_DATE('dd-MM-yyyy')` as ISO dates)."""
    db = sqlite3.connect(":memory:")
    db.executescript(HR_DDL)
    text = show(mirrors, "hr", "human_resources/hr_populate.sql")
    text = re.sub(r"TO_DATE\('(\d\d)-(\d\d)-(\d{4})',\s*'dd-MM-yyyy'\)", r"'\3-\2-\1'", text)
    for m in re.finditer(r"INSERT INTO (\w+)\s+VALUES\s*\((.*?)\);", text, re.S):
        db.execute(f"INSERT INTO {m.group(1)} VALUES ({m.group(2)})")
    db.commit()
    return db


JAFFLE_DDL = """
CREATE TABLE customers (
  id INTEGER NOT NULL PRIMARY KEY,
  first_name VARCHAR(50) NOT NULL,
  last_name VARCHAR(50) NOT NULL
);
CREATE TABLE orders (
  id INTEGER NOT NULL PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES customers (id),
  order_date DATE NOT NULL,
  status VARCHAR(20) NOT NULL
);
CREATE TABLE payments (
  id INTEGER NOT NULL PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders (id),
  payment_method VARCHAR(20) NOT NULL,
  amount INTEGER NOT NULL
);
CREATE INDEX orders_user_id_ix ON orders (user_id);
CREATE INDEX payments_order_id_ix ON payments (order_id);
"""


def load_jaffle_shop(mirrors):
    """dbt's jaffle_shop seeds (raw_customers, raw_orders, raw_payments; `amount` in cents
    as the seed has it) as three tables with their keys."""
    db = sqlite3.connect(":memory:")
    db.executescript(JAFFLE_DDL)
    for table, seed in (("customers", "raw_customers"), ("orders", "raw_orders"), ("payments", "raw_payments")):
        rows = list(csv.reader(io.StringIO(show(mirrors, "jaffle_shop", f"seeds/{seed}.csv"))))
        marks = ", ".join("?" * len(rows[0]))
        db.executemany(f"INSERT INTO {table} ({', '.join(rows[0])}) VALUES ({marks})", rows[1:])
    db.commit()
    return db


LOADERS = {
    "chinook": load_chinook,
    "sakila": load_sakila,
    "northwind": load_northwind,
    "hr": load_hr,
    "jaffle_shop": load_jaffle_shop,
}

# --- the bounded sample ----------------------------------------------------------------


def q(name):
    return '"' + name.replace('"', '""') + '"'


def tables(db):
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")]


def foreign_keys(db, table):
    """[(parent, [child columns], [parent columns])]"""
    fks = {}
    for r in db.execute(f"PRAGMA foreign_key_list({q(table)})"):
        fk_id, _, parent, frm, to = r[0], r[1], r[2], r[3], r[4]
        entry = fks.setdefault(fk_id, (parent, [], []))
        entry[1].append(frm)
        entry[2].append(to)
    out = []
    for parent, frm, to in fks.values():
        if any(t is None for t in to):  # REFERENCES parent, without columns: its key
            to = [r[1] for r in sorted(db.execute(f"PRAGMA table_info({q(parent)})"), key=lambda r: r[5]) if r[5]]
        out.append((parent, frm, to))
    return out


def real_name(db, name):
    for t in tables(db):
        if t.lower() == name.lower():
            return t
    return name


def order_parents_first(db):
    names = tables(db)
    deps = {t: {real_name(db, p) for p, _, _ in foreign_keys(db, t)} - {t} for t in names}
    done, out = set(), []
    while len(out) < len(names):
        ready = [t for t in names if t not in done and deps[t] <= done]
        if not ready:  # a cycle: take the first left, its cyclic keys settled afterwards
            ready = [next(t for t in names if t not in done)]
        for t in ready:
            done.add(t)
            out.append(t)
    return out


def sample(db):
    """Keeps at most MAX_ROWS rows a table, each child's rows chosen among those whose
    parents were kept; rows left dangling by a cycle are then deleted until none is."""
    kept = sqlite3.connect(":memory:")
    # The rows kept so far, copied beside the source for the EXISTS tests below.
    db.execute("ATTACH DATABASE ':memory:' AS kept")
    for (sql,) in db.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"):
        kept.execute(sql)
    for t in order_parents_first(db):
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({q(t)})")]
        conds = []
        for parent, frm, to in foreign_keys(db, t):
            parent = real_name(db, parent)
            if parent == t:
                continue
            present = kept.execute(f"SELECT count(*) FROM {q(parent)}").fetchone()[0]
            if not present:
                continue
            inner = " AND ".join(f"p.{q(b)} = c.{q(a)}" for a, b in zip(frm, to))
            nulls = " OR ".join(f"c.{q(a)} IS NULL" for a in frm)
            conds.append((parent, frm, to, f"({nulls} OR EXISTS (SELECT 1 FROM kept.{q(parent)} p WHERE {inner}))"))
        # The kept parents, copied into the source's attached database for the EXISTS tests.
        for parent, _, _, _ in conds:
            db.execute(f"DROP TABLE IF EXISTS kept.{q(parent)}")
            pcols = [r[1] for r in db.execute(f"PRAGMA table_info({q(parent)})")]
            db.execute(f"CREATE TABLE kept.{q(parent)} ({', '.join(q(c) for c in pcols)})")
            rows = kept.execute(f"SELECT * FROM {q(parent)}").fetchall()
            db.executemany(f"INSERT INTO kept.{q(parent)} VALUES ({', '.join('?' * len(pcols))})", rows)
        where = " AND ".join(c for *_, c in conds) or "1"
        rows = db.execute(
            f"SELECT {', '.join('c.' + q(c) for c in cols)} FROM main.{q(t)} c WHERE {where} ORDER BY c.rowid LIMIT {MAX_ROWS}"
        ).fetchall()
        kept.executemany(f"INSERT INTO {q(t)} ({', '.join(q(c) for c in cols)}) VALUES ({', '.join('?' * len(cols))})", rows)
    # Cycles and self references: the parents a kept row names are added from the source
    # (and theirs), until no key dangles; a row whose parent the source lacks is deleted.
    kept.execute("PRAGMA foreign_keys = ON")
    while True:
        bad = kept.execute("PRAGMA foreign_key_check").fetchall()
        if not bad:
            break
        added = 0
        for table, rowid, parent, fk_id in bad:
            fk = [r for r in kept.execute(f"PRAGMA foreign_key_list({q(table)})") if r[0] == fk_id]
            frm = [r[3] for r in fk]
            to = foreign_keys(kept, table)
            to = next(t for p, f, t in to if f == frm)
            values = kept.execute(f"SELECT {', '.join(q(c) for c in frm)} FROM {q(table)} WHERE rowid = ?", (rowid,)).fetchone()
            parent = real_name(kept, parent)
            where = " AND ".join(f"{q(c)} = ?" for c in to)
            rows = db.execute(f"SELECT * FROM main.{q(parent)} WHERE {where}", values).fetchall()
            for row in rows:
                cur = kept.execute(f"INSERT OR IGNORE INTO {q(parent)} VALUES ({', '.join('?' * len(row))})", row)
                added += cur.rowcount
            if not rows:
                kept.execute(f"DELETE FROM {q(table)} WHERE rowid = ?", (rowid,))
                added += 1
        if not added:
            raise SystemExit(f"cannot settle the foreign keys: {bad[:3]}")
    kept.execute("PRAGMA foreign_keys = OFF")
    kept.commit()
    return kept


# --- writing ---------------------------------------------------------------------------


def sql_literal(value, pg_type=None):
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return ("'\\x" + value.hex() + "'::bytea") if pg_type else ("X'" + value.hex() + "'")
    if isinstance(value, (int, float)):
        if pg_type == "boolean":
            return "true" if value else "false"
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def write_sqlite(src, kept, name, header, out):
    lines = [header, "PRAGMA foreign_keys = OFF;", "BEGIN;"]
    objects = src.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid").fetchall()
    for kind, _, _, sql in objects:
        if kind == "table":
            lines.append(sql.strip() + ";")
    for t in tables(kept):
        cols = [r[1] for r in kept.execute(f"PRAGMA table_info({q(t)})")]
        for row in kept.execute(f"SELECT * FROM {q(t)} ORDER BY rowid"):
            lines.append(f"INSERT INTO {q(t)} ({', '.join(q(c) for c in cols)}) VALUES ({', '.join(sql_literal(v) for v in row)});")
    for want in ("index", "view", "trigger"):
        for kind, _, _, sql in objects:
            if kind == want:
                lines.append(sql.strip() + ";")
    lines.append("COMMIT;")
    path = Path(out) / f"{name}.sqlite.sql"
    path.write_text("\n".join(lines) + "\n")
    return path


PG_RESERVED = {"user", "order", "group", "table", "select", "from", "where", "references", "check",
               "default", "desc", "end", "limit", "offset", "primary", "unique", "column", "to", "for"}


def pg_name(name):
    """A name as Postgres spells it: plain (folded to lower case) when it is a plain
    identifier, so the same unquoted SQL reads both databases; quoted otherwise."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name.lower() not in PG_RESERVED:
        return name.lower()
    return q(name)


def pg_type(declared):
    d = (declared or "").upper()
    if "TEXT" in d or "CLOB" in d:
        return "text"
    if "BLOB" in d:
        return "bytea"
    if "BOOL" in d:
        return "boolean"
    if d.startswith("SMALLINT"):
        return "smallint"
    if "BIGINT" in d:
        return "bigint"
    if "INT" in d:
        return "integer"
    m = re.match(r"(?:N?VARCHAR|NVARCHAR|CHARACTER VARYING)\s*\((\d+)\)", d)
    if m:
        return f"varchar({m.group(1)})"
    m = re.match(r"N?CHAR(?:ACTER)?\s*\((\d+)\)", d)
    if m:
        return f"char({m.group(1)})"
    m = re.match(r"(?:NUMERIC|DECIMAL)\s*(\(\s*\d+\s*(?:,\s*\d+\s*)?\))?", d)
    if m:
        return "numeric" + (m.group(1) or "").replace(" ", "")
    if any(k in d for k in ("REAL", "FLOA", "DOUB")):
        return "double precision"
    if "DATETIME" in d or "TIMESTAMP" in d:
        return "timestamp"
    if d.startswith("DATE"):
        return "date"
    if "CHAR" in d:
        return "text"
    return "text"


def pg_default(default, typ):
    if default is None:
        return ""
    d = default.strip()
    if d.upper() in ("CURRENT_TIMESTAMP", "NULL"):
        return f" DEFAULT {d.upper()}"
    if d.upper().startswith("DATETIME("):
        return " DEFAULT CURRENT_TIMESTAMP"
    if typ == "boolean" and d in ("0", "1"):
        return " DEFAULT " + ("true" if d == "1" else "false")
    return f" DEFAULT {d}"


def pg_check_clauses(sql):
    """The CHECK constraints of a SQLite CREATE TABLE, as written (they use portable SQL)."""
    out = []
    for m in re.finditer(r"CHECK\s*\(", sql, re.I):
        depth, i = 1, m.end()
        while depth and i < len(sql):
            depth += {"(": 1, ")": -1}.get(sql[i], 0)
            i += 1
        out.append(sql[m.start():i])
    return out


def pg_view(sql):
    """A SQLite view as Postgres reads it: [name] and "Name" made plain where they can be."""
    body = re.sub(r"\[([^\]]+)\]", lambda m: pg_name(m.group(1)), sql)
    body = re.sub(r'"([^"]+)"', lambda m: pg_name(m.group(1)), body)
    body = re.sub(r"^CREATE\s+VIEW\s+", "CREATE VIEW ", body.strip(), flags=re.I)
    return body


def write_pg(src, kept, name, header, out):
    lines = [header, "BEGIN;"]
    fk_lines, index_lines, serials = [], [], []
    types = {}
    for t in tables(kept):
        info = list(kept.execute(f"PRAGMA table_info({q(t)})"))
        pk = [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]]
        sql = src.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (t,)).fetchone()[0]
        defs = []
        for cid, col, decl, notnull, default, pkpos in info:
            typ = pg_type(decl)
            types[(t, col)] = typ
            ident = ""
            if pk == [col] and typ in ("integer", "smallint", "bigint"):
                ident = " GENERATED BY DEFAULT AS IDENTITY"
                serials.append((t, col))
            null = " NOT NULL" if notnull or col in pk else ""
            defs.append(f"  {pg_name(col)} {typ}{ident}{'' if ident else pg_default(default, typ)}{null}")
        if pk:
            defs.append(f"  PRIMARY KEY ({', '.join(pg_name(c) for c in pk)})")
        for clause in pg_check_clauses(sql):
            defs.append("  " + re.sub(r"\[([^\]]+)\]", lambda m: pg_name(m.group(1)), clause))
        for idx in kept.execute(f"PRAGMA index_list({q(t)})"):
            iname, unique, origin = idx[1], idx[2], idx[3]
            cols = [r[2] for r in kept.execute(f"PRAGMA index_info({q(iname)})")]
            if origin == "u":
                defs.append(f"  UNIQUE ({', '.join(pg_name(c) for c in cols)})")
        lines.append(f"CREATE TABLE {pg_name(t)} (\n" + ",\n".join(defs) + "\n);")
        for parent, frm, to in foreign_keys(kept, t):
            fk_lines.append(
                f"ALTER TABLE {pg_name(t)} ADD FOREIGN KEY ({', '.join(pg_name(c) for c in frm)}) "
                f"REFERENCES {pg_name(real_name(kept, parent))} ({', '.join(pg_name(c) for c in to)});")
    for t in tables(kept):
        cols = [r[1] for r in kept.execute(f"PRAGMA table_info({q(t)})")]
        for row in kept.execute(f"SELECT * FROM {q(t)} ORDER BY rowid"):
            values = ", ".join(sql_literal(v, types[(t, c)]) for c, v in zip(cols, row))
            lines.append(f"INSERT INTO {pg_name(t)} ({', '.join(pg_name(c) for c in cols)}) VALUES ({values});")
    for t, col in serials:
        lines.append(
            f"SELECT setval(pg_get_serial_sequence('{pg_name(t)}', '{col.lower()}'), "
            f"coalesce((SELECT max({pg_name(col)}) FROM {pg_name(t)}), 0) + 1, false);")
    lines += fk_lines
    for (iname, tname, sql) in src.execute(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL ORDER BY rowid"):
        m = re.match(r"CREATE\s+(UNIQUE\s+)?INDEX\s+(?:IF NOT EXISTS\s+)?\S+\s+ON\s+\S+\s*\((.*)\)\s*$", sql.strip(), re.I | re.S)
        if not m:
            continue
        cols = [pg_name(c.strip().strip("[]\"`").split()[0]) for c in m.group(2).split(",")]
        index_lines.append(
            f"CREATE {'UNIQUE ' if m.group(1) else ''}INDEX {pg_name(iname)} ON {pg_name(tname)} ({', '.join(cols)});")
    lines += index_lines
    lines.append("COMMIT;")
    views = [pg_view(sql) + ";" for (sql,) in src.execute(
        "SELECT sql FROM sqlite_master WHERE type='view' ORDER BY rowid")]
    path = Path(out) / f"{name}.pg.sql"
    path.write_text("\n".join(lines) + "\n")
    return path, views


def psql(url, *args):
    return subprocess.run(["psql", url, "-q", "-v", "ON_ERROR_STOP=1", *args], capture_output=True, text=True)


def add_pg_views(path, views):
    """Appends the views Postgres accepts as they are (tried in a scratch database on
    DBBENCH_PG_URL, a server URL without its database); the others are named in a comment
    (they use SQLite's functions or compare text with numbers)."""
    import os
    url = os.environ.get("DBBENCH_PG_URL")
    if not views:
        return
    if not url:
        raise SystemExit("DBBENCH_PG_URL (postgres://user@host:port) is needed to try the views on Postgres")
    scratch = "dbbench_gen_" + path.name.split(".")[0]
    psql(f"{url}/postgres", "-c", f"DROP DATABASE IF EXISTS {scratch}")
    psql(f"{url}/postgres", "-c", f"CREATE DATABASE {scratch}")
    try:
        loaded = psql(f"{url}/{scratch}", "-f", str(path))
        if loaded.returncode:
            raise SystemExit(f"{path} does not load: {loaded.stderr[-2000:]}")
        kept, left = [], []
        for view in views:
            (kept if psql(f"{url}/{scratch}", "-c", view).returncode == 0 else left).append(view)
    finally:
        psql(f"{url}/postgres", "-c", f"DROP DATABASE IF EXISTS {scratch}")
    names = [re.match(r"CREATE VIEW\s+(.+?)\s+AS\b", v, re.I | re.S).group(1).strip() for v in left]
    with open(path, "a") as f:
        f.write("\n".join(kept) + "\n")
        if names:
            f.write("-- Views of the SQLite version left out (SQLite-only functions or text compared with numbers): "
                    + ", ".join(names) + "\n")


def main():
    mirrors = sys.argv[1]
    out = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).resolve().parent.parent / "schemas")
    only = sys.argv[3:] or list(LOADERS)
    for name in only:
        src = LOADERS[name](mirrors)
        kept = sample(src)
        repo, commit = SOURCES[name]
        header = (f"-- {name}: a bounded sample (at most {MAX_ROWS} rows a table) of {repo.replace('+', '/')}"
                  f" at {commit[:12]}, made by benches/db-design/tools/make_schemas.py; see SOURCES.md for its license.")
        p1 = write_sqlite(src, kept, name, header, out)
        p2, views = write_pg(src, kept, name, header, out)
        add_pg_views(p2, views)
        counts = {t: kept.execute(f"SELECT count(*) FROM {q(t)}").fetchone()[0] for t in tables(kept)}
        print(name, p1.stat().st_size, p2.stat().st_size, counts)


if __name__ == "__main__":
    main()
