"""Line and branch coverage of one Python module by a pytest run, with coverage.py.

The measured file is the module alone: coverage.py's `--source` is the module's folder (so a
module no test imports still counts, at 0%) and the report keeps only the module's file, so
test files never count.
"""

import json
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path


def coverage_of(python: Path, src_root: Path, module_file: Path, pytest_args: list, cwd: Path) -> dict:
    """Runs `python -m coverage run --branch -m pytest ARGS` in cwd with src_root on PYTHONPATH.

    Returns statements, branches, covered counts, line and branch percent, and pytest's
    counts (tests, failed, errors) from its JUnit XML.
    """
    module_file = module_file.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        data, report, junit = Path(tmp) / ".coverage", Path(tmp) / "cov.json", Path(tmp) / "junit.xml"
        env = dict(os.environ, PYTHONPATH=str(src_root), PYTHONDONTWRITEBYTECODE="1")
        subprocess.run([str(python), "-m", "coverage", "run", "--branch", f"--data-file={data}",
                        f"--source={module_file.parent}", "-m", "pytest", "-p", "no:cacheprovider",
                        f"--junitxml={junit}", *pytest_args],
                       cwd=cwd, env=env, capture_output=True, text=True)
        subprocess.run([str(python), "-m", "coverage", "json", f"--data-file={data}", "-o", str(report),
                        f"--include={module_file}"], cwd=cwd, env=env, capture_output=True, text=True)
        tests = junit_counts(junit)
        if not report.is_file():
            return {"error": "coverage.py wrote no report", **tests}
        files = json.loads(report.read_text())["files"]
        summary = next((v["summary"] for k, v in files.items()
                        if Path(cwd, k).resolve() == module_file), None)
    if summary is None:
        return {"error": "the module is not in coverage.py's report", **tests}
    return {
        "statements": summary["num_statements"],
        "covered_lines": summary["covered_lines"],
        "branches": summary["num_branches"],
        "covered_branches": summary["covered_branches"],
        "line_percent": percent(summary["covered_lines"], summary["num_statements"]),
        "branch_percent": percent(summary["covered_branches"], summary["num_branches"]),
        **tests,
    }


def percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 100.0


def junit_counts(path: Path) -> dict:
    if not path.is_file():
        return {"tests": 0, "failed": 0, "errors": 0, "skipped": 0}
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    count = lambda attr: sum(int(s.get(attr, 0)) for s in suites)
    return {"tests": count("tests"), "failed": count("failures"), "errors": count("errors"),
            "skipped": count("skipped")}
