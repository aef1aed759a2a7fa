#!/usr/bin/env python3
"""Writes benches/db-design/dataset.yaml from tools/cases.py, the expected values read from
the databases build.sh made (run `bash build.sh` first):

    python3 tools/make_dataset.py             # writes dataset.yaml
    python3 tools/make_dataset.py --selftest  # checks the cases against their databases

The self-test, on a copy of each case's database: a question's or an unclear request's
invariants hold on the untouched database; a change's invariants fail on the untouched
database (they measure something) and hold after its reference migration, when it has one.
Only Python's standard library (the YAML is written by hand: JSON values are YAML).
"""
import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(BENCH))

from cases import SCHEMAS  # noqa: E402
import invariants  # noqa: E402


def db_path(schema):
    return BENCH / "dbs" / schema / f"{schema}.db"


def value(db, sql):
    row = db.execute(sql).fetchone()
    return row[0] if row else None


def resolve(db, case):
    """The case's full invariants: its checks with their expected values filled in, then
    the row counts of the tables it does not touch, then (for a question) the schema."""
    out = []
    for check in case.get("checks", []):
        check = dict(check)
        before = check.pop("before", None)
        if "check" in check and not any(k in check for k in ("equals", "at_least", "at_most", "rows", "sha256")):
            expected = value(db, before or check["check"])
            if isinstance(expected, str) and len(expected) > 120:
                check["sha256"] = hashlib.sha256(expected.encode()).hexdigest()
            else:
                check["equals"] = expected
        out.append(check)
    touched = {t.lower() for t in case.get("touches", [])}
    names = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    for name in names:
        if name.lower() not in touched:
            out.append({"check": f"SELECT count(*) FROM {invariants_quote(name)}",
                        "equals": value(db, f"SELECT count(*) FROM {invariants_quote(name)}")})
    if case["kind"] in ("answer", "question") and not case.get("solution") and not case.get("checks"):
        out.append({"schema_unchanged": invariants.schema_sha256(db)})
    return out


def invariants_quote(name):
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else '"' + name.replace('"', '""') + '"'


def metadata(db, schema, case):
    md = {"schema": schema, "size": case["size"], "expected_kind": case["kind"],
          "invariants": resolve(db, case)}
    if case.get("solution"):
        md["reference_sql"] = case["solution"].strip()
    return md


def answer_pattern(db, case):
    if "answer_regex" in case:
        return case["answer_regex"]
    if "answer" in case:
        return r"\b" + re.escape(str(value(db, case["answer"]))) + r"\b"
    return None


def yaml_str(s):
    return json.dumps(s, ensure_ascii=False)


def write_dataset(path):
    lines = [
        "# The db-design benchmark: schema-change requests over five public sample schemas.",
        "# Written by tools/make_dataset.py from tools/cases.py: edit those, not this file.",
        "# Run `bash benches/db-design/build.sh` first: each case starts in a copy of",
        "# dbs/<schema>/ (its database); the Command judge runs invariants.py from the dataset's",
        "# folder (LUCID_EVAL_DATASET_DIR), out of the agent's reach.",
        "name: db-design",
        "agent: db-design",
        "cases:",
    ]
    count = 0
    for schema, cases in SCHEMAS.items():
        db = sqlite3.connect(f"file:{db_path(schema)}?mode=ro", uri=True)
        for case in cases:
            md = metadata(db, schema, case)
            tags = [case["size"], schema] + (["unclear"] if case.get("unclear") else [])
            judge_input = {"invariants": md["invariants"]}
            run = ["sh", "-c", 'exec python3 "$LUCID_EVAL_DATASET_DIR/invariants.py" "$@"', "invariants",
                   f"{schema}.db", json.dumps(judge_input, ensure_ascii=False)]
            lines += [
                f"  - name: {case['name']}",
                f"    inputs: {yaml_str(case['prompt'])}",
                f"    tags: {json.dumps(tags)}",
                f"    project: dbs/{schema}",
                f"    database: dbs/{schema}/{schema}.db",
                f"    metadata: {json.dumps(md, ensure_ascii=False)}",
                "    evaluators:",
                f"      - Command: {{run: {json.dumps(run, ensure_ascii=False)}, timeout: 60}}",
            ]
            pattern = answer_pattern(db, case)
            if pattern:
                lines.append(f"      - Regex: {yaml_str(pattern)}")
            count += 1
        db.close()
    path.write_text("\n".join(lines) + "\n")
    return count


def selftest():
    failures = 0
    for schema, cases in SCHEMAS.items():
        src = db_path(schema)
        original = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
        for case in cases:
            md = metadata(original, schema, case)
            with tempfile.TemporaryDirectory() as tmp:
                copy = Path(tmp) / src.name
                shutil.copy(src, copy)
                ok, reason = invariants.run(copy, md)
                if case["kind"] in ("answer", "question") and not case.get("checks"):
                    verdict = "ok" if ok else "FAIL"
                    failures += not ok
                    print(f"{verdict:4} {case['name']}: untouched database: {reason}")
                    continue
                if ok:
                    failures += 1
                    print(f"FAIL {case['name']}: its invariants already hold on the untouched database")
                    continue
                if not case.get("solution"):
                    print(f"ok   {case['name']}: fails untouched ({reason}); no reference migration")
                    continue
                db = sqlite3.connect(copy, isolation_level=None)
                try:
                    db.executescript(case["solution"])
                except sqlite3.Error as e:
                    failures += 1
                    print(f"FAIL {case['name']}: the reference migration fails: {e}")
                    continue
                finally:
                    db.close()
                # The judge itself, as the dataset runs it: the script and the JSON on argv.
                out = subprocess.run(
                    [sys.executable, str(BENCH / "invariants.py"), str(copy), json.dumps({"invariants": md["invariants"]})],
                    capture_output=True, text=True)
                verdict = "ok" if out.returncode == 0 else "FAIL"
                failures += out.returncode != 0
                print(f"{verdict:4} {case['name']}: fails untouched; after the reference migration: {out.stdout.strip()}")
        original.close()
    return failures


def main():
    if "--selftest" in sys.argv:
        failures = selftest()
        print(f"{failures} failures")
        return 1 if failures else 0
    n = write_dataset(BENCH / "dataset.yaml")
    print(f"dataset.yaml: {n} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
