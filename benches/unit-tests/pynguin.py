#!/usr/bin/env python3
"""The no-model baseline: Pynguin on each Python module of the suite, measured by coverage.py.

    python3 pynguin.py [--slice NAME[,NAME]] [--module DOTTED[,DOTTED]] [--search-time S] [--seed N]

For each module: a fresh copy of the project's base (own tests held out) so Pynguin never
touches the work copy; Pynguin with a fixed search budget and seed writes its tests; those
tests run under coverage.py (`measure.coverage_of`: the module's file only, test files never
counted); one entry per module is merged into results/pynguin.json. Coverage before is 0: with
the project's own tests held out nothing runs the module.

Run through pynguin.sh, which makes the venv (Pynguin and coverage.py pinned) in the cache.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from measure import coverage_of  # noqa: E402
from suite import cache_dir, load_suite, prepare, save_results  # noqa: E402


def run_module(project, module, venv: Path, search_time: int, seed: int, timeout: int) -> dict:
    base = cache_dir() / "base" / project["name"]
    if not base.is_dir():
        prepare(project, reset=False)
    out = cache_dir() / "pynguin" / module["name"]
    shutil.rmtree(out, ignore_errors=True)
    copy, tests = out / "project", out / "tests"
    shutil.copytree(base, copy, symlinks=True)
    tests.mkdir(parents=True)
    src_root = copy / project["src_root"]
    cmd = [str(venv / "bin" / "pynguin"), "--project-path", str(src_root),
           "--module-name", module["name"], "--output-path", str(tests),
           "--report-dir", str(out / "report"), "--maximum-search-time", str(search_time),
           "--seed", str(seed), "--no-rich", "-v"]
    env = dict(os.environ, PYNGUIN_DANGER_AWARE="1", PYTHONPATH=str(src_root))
    started = time.monotonic()
    with open(out / "pynguin.log", "w") as log:
        try:
            proc = subprocess.run(cmd, cwd=out, env=env, stdout=log, stderr=subprocess.STDOUT,
                                  timeout=timeout)
            exit_code = proc.returncode
        except subprocess.TimeoutExpired:
            exit_code = "timeout"
    wall = round(time.monotonic() - started, 1)
    files = sorted(tests.glob("test_*.py"))
    after = coverage_of(venv / "bin" / "python", src_root, copy / module["path"],
                        [str(f) for f in files], out) if files else {}
    if not files:
        # No test written: measure the empty run so the module's size is still known.
        after = coverage_of(venv / "bin" / "python", src_root, copy / module["path"],
                            ["--collect-only", str(tests)], out)
    return {
        "module": module["name"],
        "project": project["name"],
        "version": project["version"],
        "statements": after.get("statements"),
        "branches": after.get("branches"),
        "before": {"line_percent": 0.0, "branch_percent": 0.0},
        "after": {k: after.get(k) for k in
                  ("line_percent", "branch_percent", "covered_lines", "covered_branches")},
        "tests_generated": after.get("tests", 0),
        "tests_failed": after.get("failed", 0) + after.get("errors", 0),
        "test_files": [str(f.relative_to(out)) for f in files],
        "pynguin_exit": exit_code,
        "wall_seconds": wall,
        "search_time": search_time,
        "seed": seed,
        **({"error": after["error"]} if "error" in after else {}),
    }


def table(entries) -> str:
    """The README's table: one row per module, then the median line and branch coverage."""
    rows = ["| module | statements | branches | line before → after | branch before → after "
            "| tests (failed on rerun) | wall time |", "| --- | ---: | ---: | --- | --- | --- | ---: |"]
    for e in entries:
        a = e["after"]
        rows.append(f'| `{e["module"]}` | {e["statements"]} | {e["branches"]} '
                    f'| 0% → {a["line_percent"]}% | 0% → {a["branch_percent"]}% '
                    f'| {e["tests_generated"]} ({e["tests_failed"]}){exit_note(e)} '
                    f'| {e["wall_seconds"]:.0f} s |')
    lines = sorted(e["after"]["line_percent"] or 0.0 for e in entries)
    branches = sorted(e["after"]["branch_percent"] or 0.0 for e in entries)
    if entries:
        rows.append(f"\nMedian over {len(entries)} modules: line {median(lines)}%, "
                    f"branch {median(branches)}%.")
    return "\n".join(rows)


def exit_note(entry) -> str:
    code = entry["pynguin_exit"]
    return "" if code == 0 else f", Pynguin exit {code}: see its log"


def median(xs):
    n = len(xs)
    return round(xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--venv", help="the venv with Pynguin (pynguin.sh makes it)")
    ap.add_argument("--table", action="store_true",
                    help="print results/pynguin.json as the README's Markdown table, run nothing")
    ap.add_argument("--slice", help="project names, comma-separated (default: all Python ones)")
    ap.add_argument("--module", help="dotted module names, comma-separated (default: all)")
    ap.add_argument("--search-time", type=int, default=60, help="Pynguin's budget, seconds")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--timeout", type=int, default=1200, help="wall limit per module, seconds")
    args = ap.parse_args()
    if args.table:
        print(table(json.loads((HERE / "results" / "pynguin.json").read_text())))
        return
    if not args.venv:
        ap.error("--venv is required to run Pynguin")
    wanted = set(args.module.split(",")) if args.module else None
    venv = Path(args.venv)
    version = subprocess.run([str(venv / "bin" / "python"), "-c",
                              "import importlib.metadata as m; print(m.version('pynguin'))"],
                             capture_output=True, text=True).stdout.strip()
    for project in load_suite(args.slice):
        if project["ecosystem"] != "python":
            continue
        for module in project["modules"]:
            if wanted and module["name"] not in wanted:
                continue
            entry = run_module(project, module, venv, args.search_time, args.seed, args.timeout)
            entry["pynguin"] = version
            print(json.dumps(entry), flush=True)
            save_results("pynguin.json", [entry], key="module")


if __name__ == "__main__":
    main()
