#!/usr/bin/env bash
# Makes the benchmark's SQLite databases from schemas/<name>.sqlite.sql, with python3's
# sqlite3 only:
#   bash benches/db-design/build.sh [OUT]      (OUT defaults to benches/db-design/dbs)
# Each schema becomes OUT/<name>/<name>.db, the folder a case starts in (its `project`);
# the dataset's Command judges run invariants.py from the dataset's folder
# ($LUCID_EVAL_DATASET_DIR) on the attempt's copy of the database.
# Existing databases are made again from scratch.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/dbs}"
mkdir -p "$out"
for sql in "$here"/schemas/*.sqlite.sql; do
  name="$(basename "$sql" .sqlite.sql)"
  mkdir -p "$out/$name"
  rm -f "$out/$name/$name.db"
  python3 - "$sql" "$out/$name/$name.db" <<'PY'
import sqlite3, sys
src, dst = sys.argv[1], sys.argv[2]
db = sqlite3.connect(dst)
with open(src, encoding="utf-8") as f:
    db.executescript(f.read())
bad = db.execute("PRAGMA foreign_key_check").fetchall()
if bad:
    sys.exit(f"{dst}: {len(bad)} foreign keys dangle")
tables = db.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]
db.execute("VACUUM")
db.close()
print(f"{dst}: {tables} tables")
PY
done
