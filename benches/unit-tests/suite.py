#!/usr/bin/env python3
"""The unit-test benchmark's suite: fetch, prepare, verify and check its projects.

    python3 suite.py fetch  [--slice NAME[,NAME]] [--reset]   # download, check, unpack, prepare
    python3 suite.py verify [--slice ...]                     # own tests pass in the pristine copy
    python3 suite.py check  [--slice ...]                     # after an agent's run on work/NAME
    python3 suite.py list

The cache (`$LUCID_BENCH_CACHE`, default ~/.cache/lucid-bench/unit-tests) holds:
    artifacts/NAME/   the downloaded sdist or .crate, checked against suite.toml's sha256
    pristine/NAME/    the artifact unpacked, untouched
    base/NAME/        pristine less the project's own tests (the reference for `check`)
    heldout/NAME/     the own tests taken out (same relative paths; rust: the original files
                      whose `#[cfg(test)] mod` blocks were cut from base)
    work/NAME/        a copy of base for the agent to write tests into (kept unless --reset)
    venvs/runner/     pytest and coverage.py that run the Python projects' own tests
"""

import argparse
import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from measure import coverage_of, junit_counts  # noqa: E402
from rust_tests import split_cfg_test_mods, strip_cfg_test_mods  # noqa: E402

RUNNER_PINS = ["pytest==8.4.2", "coverage==7.10.7"]


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "lucid-bench" / "unit-tests"
    return Path(os.environ.get("LUCID_BENCH_CACHE", default))


def load_suite(slice_arg):
    projects = tomllib.loads((HERE / "suite.toml").read_text())["project"]
    if not slice_arg:
        return projects
    wanted = [s for s in slice_arg.split(",") if s]
    names = {p["name"] for p in projects}
    unknown = [w for w in wanted if w not in names]
    if unknown:
        sys.exit(f"unknown project(s) {unknown}; the suite has {sorted(names)}")
    return [p for p in projects if p["name"] in wanted]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def run(cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), file=sys.stderr)
    return subprocess.run(cmd, check=True, **kw)


# ------------------------------------------------------------------ downloading

def artifact(project) -> Path:
    """The project's checked artifact, downloaded when it is missing or does not match."""
    folder = cache_dir() / "artifacts" / project["name"]
    folder.mkdir(parents=True, exist_ok=True)
    for f in folder.iterdir():
        if f.is_file() and sha256(f) == project["sha256"]:
            return f
    if project["ecosystem"] == "python":
        spec = f'{project["package"]}=={project["version"]}'
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:", spec, "-d", str(folder)])
    else:
        crate_download(project, folder)
    for f in folder.iterdir():
        if f.is_file() and sha256(f) == project["sha256"]:
            return f
    found = {f.name: sha256(f) for f in folder.iterdir() if f.is_file()}
    sys.exit(f'{project["name"]}: no download matches sha256 {project["sha256"]}: {found}')


def crate_download(project, folder: Path):
    """cargo itself fetches the pinned .crate (it verifies the registry's checksum) through a
    throwaway manifest; the file is then copied from cargo's download cache."""
    name, version = project["package"], project["version"]
    scratch = folder / "fetch-manifest"
    (scratch / "src").mkdir(parents=True, exist_ok=True)
    (scratch / "src" / "lib.rs").write_text("")
    (scratch / "Cargo.toml").write_text(
        '[package]\nname = "lucid-bench-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n'
        f'[dependencies]\n"{name}" = "={version}"\n\n[workspace]\n')
    run(["cargo", "fetch", "--quiet", "--manifest-path", str(scratch / "Cargo.toml")])
    cargo_home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    hits = sorted((cargo_home / "registry" / "cache").glob(f"*/{name}-{version}.crate"))
    if not hits:
        sys.exit(f"{name}: cargo fetched, but no {name}-{version}.crate under {cargo_home}")
    shutil.copyfile(hits[0], folder / hits[0].name)


# ------------------------------------------------------------------ preparing

def unpack(project) -> Path:
    """pristine/NAME: the artifact unpacked (or the repo folder copied), once per sha256."""
    pristine = cache_dir() / "pristine" / project["name"]
    stamp = pristine.with_suffix(".sha256")
    want = project.get("sha256") or json.dumps(project["files"], sort_keys=True)
    if pristine.is_dir() and stamp.is_file() and stamp.read_text() == want:
        return pristine
    shutil.rmtree(pristine, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(dir=pristine.parent if pristine.parent.exists() else None))
    try:
        if project["ecosystem"] == "java":
            copy_repo_files(project, tmp / "root")
            src = tmp / "root"
        else:
            with tarfile.open(artifact(project)) as tar:
                tar.extractall(tmp, filter="data")
            src = tmp / project["root"]
        pristine.parent.mkdir(parents=True, exist_ok=True)
        src.rename(pristine)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    stamp.write_text(want)
    return pristine


def copy_repo_files(project, dest: Path):
    source = REPO / project["source"]
    for entry in project["files"]:
        src = source / entry["path"]
        got = sha256(src)
        if got != entry["sha256"]:
            sys.exit(f'{project["name"]}: {src} has sha256 {got}, the suite pins {entry["sha256"]}')
        (dest / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest / entry["path"])


def strip_test_mods(text: str) -> str:
    """Cuts each `#[cfg(test)] mod NAME { … }` block (a crate's inline unit tests)."""
    return strip_cfg_test_mods(text)


def prepare(project, reset: bool):
    pristine = unpack(project)
    name = project["name"]
    base, held = cache_dir() / "base" / name, cache_dir() / "heldout" / name
    work = cache_dir() / "work" / name
    for d in (base, held):
        shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(pristine, base, symlinks=True)
    held.mkdir(parents=True)
    for rel in project.get("own_tests", []):
        src = base / rel
        if not src.exists():
            sys.exit(f"{name}: own test path {rel} is not in the artifact")
        (held / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(src, held / rel)
    for rel in project.get("inline_tests", []):
        original = (base / rel).read_text()
        stripped = strip_test_mods(original)
        if stripped == original:
            sys.exit(f"{name}: {rel} has no #[cfg(test)] mod block to hold out")
        (held / rel).parent.mkdir(parents=True, exist_ok=True)
        (held / rel).write_text(original)
        (base / rel).write_text(stripped)
    if project["ecosystem"] == "java":
        try:
            maven_config(base)  # so that the agent's Maven runs offline too
        except SystemExit as missing:
            print(f"note: {missing}", file=sys.stderr)
    if reset:
        shutil.rmtree(work, ignore_errors=True)
    if not work.exists():
        shutil.copytree(base, work, symlinks=True)
    print(f"{name}: work copy {work} (own tests held out in {held})")


def runner_python() -> Path:
    """venvs/runner: pytest and coverage.py pinned, for the Python projects' own tests."""
    venv = cache_dir() / "venvs" / "runner"
    python = venv / "bin" / "python"
    stamp = venv / "lucid-bench-pins"
    if not (python.exists() and stamp.is_file() and stamp.read_text() == " ".join(RUNNER_PINS)):
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(python), "-m", "pip", "install", "--quiet", *RUNNER_PINS])
        stamp.write_text(" ".join(RUNNER_PINS))
    return python


# ------------------------------------------------------------------ running own tests

def test_env(project, root: Path) -> dict:
    env = dict(os.environ)
    if project["ecosystem"] == "python":
        env["PATH"] = f'{runner_python().parent}{os.pathsep}{env["PATH"]}'
        env["PYTHONPATH"] = str(root / project["src_root"])
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    elif project["ecosystem"] == "rust":
        env["CARGO_TARGET_DIR"] = str(cache_dir() / "cargo-target" / project["name"])
    elif project["ecosystem"] == "java":
        maven_config(root)
    return env


def maven_config(root: Path):
    """Offline Maven needs the local repository of .ci/maven-repo.sh (its maven.config)."""
    repo = os.environ.get("LUCID_TEST_MAVEN_REPO") or subprocess.run(
        ["bash", str(REPO / ".ci" / "maven-repo.sh")], capture_output=True, text=True
    ).stdout.strip()
    if not repo:
        sys.exit("maven-sample: no offline Maven repository (.ci/maven-repo.sh printed none)")
    (root / ".mvn").mkdir(exist_ok=True)
    shutil.copyfile(Path(repo) / "maven.config", root / ".mvn" / "maven.config")


def own_tests(project, root: Path) -> dict:
    """Runs the project's test_cmd in root; returns its exit code and last output line."""
    proc = subprocess.run(project["test_cmd"], shell=True, cwd=root, env=test_env(project, root),
                          capture_output=True, text=True)
    text = summary(proc.stdout + proc.stderr)
    if project["ecosystem"] == "java":
        counts = [junit_counts(f) for f in sorted((root / "target" / "surefire-reports").glob("TEST-*.xml"))]
        total = {k: sum(c[k] for c in counts) for k in ("tests", "failed", "errors", "skipped")}
        text = (f'{total["tests"] - total["failed"] - total["errors"] - total["skipped"]} passed, '
                f'{total["failed"] + total["errors"]} failed, {total["skipped"]} skipped (Surefire)')
    failures = [l for l in proc.stdout.splitlines() if l.startswith(("FAILED ", "ERROR "))]
    return {"exit": proc.returncode, "summary": text, **({"failures": failures[:20]} if failures else {})}


def summary(output: str) -> str:
    """The runner's closing count: pytest's last line, cargo's `test result:` lines added up,
    or Surefire's `Tests run:` line (with -q Maven prints none when all pass)."""
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    cargo = [re.search(r"(\d+) passed; (\d+) failed; (\d+) ignored", l) for l in lines
             if l.startswith("test result:")]
    if cargo:
        totals = [sum(int(m.group(i)) for m in cargo if m) for i in (1, 2, 3)]
        return f"{totals[0]} passed, {totals[1]} failed, {totals[2]} ignored ({len(cargo)} test binaries)"
    counted = [l for l in lines if re.search(r"\bpassed\b|\bfailed\b|Tests run:", l)]
    return counted[-1] if counted else (lines[-1] if lines else "")


def own_coverage(project, root: Path) -> list:
    """Python: line and branch coverage of each module under the project's own tests."""
    out = []
    for module in project["modules"]:
        # test_cmd is `python -m pytest ARGS`: coverage.py runs pytest with the same ARGS.
        args = shlex.split(project["test_cmd"])[3:]
        cov = coverage_of(runner_python(), root / project["src_root"], root / module["path"],
                          args, root)
        out.append({"module": module["name"], **cov})
    return out


def verify(projects):
    results = []
    for p in projects:
        # A copy, so that build output (target/, Cargo.lock) never lands in pristine.
        with scratch_copy(unpack(p), p["name"]) as copy:
            r = own_tests(p, copy)
            entry = {"project": p["name"], "version": p["version"], "own_tests": r}
            if p["ecosystem"] == "python" and r["exit"] == 0:
                entry["modules"] = own_coverage(p, copy)
        if p["ecosystem"] == "rust":
            base = cache_dir() / "base" / p["name"]
            build = subprocess.run(["cargo", "build", "--offline", "-q"], cwd=base,
                                   env=test_env(p, base), capture_output=True, text=True)
            entry["base_builds"] = build.returncode == 0
        print(json.dumps(entry), flush=True)
        results.append(entry)
    save_results("own-tests.json", results, key="project")
    return all(e["own_tests"]["exit"] == 0 and e.get("base_builds", True) for e in results)


def check(projects):
    """After an agent's run: edits to the code under test, and the own tests on the work copy."""
    ok = True
    for p in projects:
        name = p["name"]
        base, work = cache_dir() / "base" / name, cache_dir() / "work" / name
        held = cache_dir() / "heldout" / name
        edited = [str(f.relative_to(base)) for m in p["modules"] for f in files_under(base / m["path"])
                  if code_differs(f, work / f.relative_to(base))]
        with scratch_copy(work, name) as copy:
            clashes = []
            for f in files_under(held):
                rel = str(f.relative_to(held))
                dest = copy / rel
                if rel in p.get("inline_tests", []) and dest.is_file():
                    # The work copy's code (its own inline tests cut) with the held-out test
                    # modules put back: the own tests run against what the agent left.
                    code = strip_cfg_test_mods(dest.read_text()).rstrip("\n")
                    blocks = split_cfg_test_mods(f.read_text())[1]
                    dest.write_text("\n\n".join([code, *blocks]) + "\n")
                    continue
                if dest.exists():
                    clashes.append(rel)
                    dest.rename(dest.with_name(dest.name + ".agent"))
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, dest)
            r = own_tests(p, copy)
        added = [str(f.relative_to(work)) for m in p["modules"] for f in files_under(work / m["path"])
                 if not (base / f.relative_to(work)).exists() and "__pycache__" not in f.parts]
        entry = {"project": name, "edits_to_code_under_test": edited, "files_added_beside_code": added,
                 "own_tests_after": r, "renamed_agent_files": clashes}
        ok &= r["exit"] == 0 and not edited
        print(json.dumps(entry), flush=True)
    return ok


@contextlib.contextmanager
def scratch_copy(src: Path, name: str):
    """A copy of src at the fixed path scratch/NAME: a test that depends on its folder's name
    (boltons' test_iter_find_files strips its path with `str.lstrip`) then always sees the same."""
    copy = cache_dir() / "scratch" / name
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(src, copy, symlinks=True)
    try:
        yield copy
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def files_under(path: Path):
    if path.is_file():
        return [path]
    return sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else []


def code_differs(base_file: Path, work_file: Path) -> bool:
    if not work_file.is_file():
        return True
    before, after = base_file.read_text(errors="replace"), work_file.read_text(errors="replace")
    if before == after:
        return False
    # Inline tests added to a Rust source file are tests, not an edit of the code.
    return base_file.suffix != ".rs" or nonblank(strip_test_mods(after)) != nonblank(before)


def nonblank(text: str) -> list:
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def save_results(filename, entries, key):
    path = HERE / "results" / filename
    path.parent.mkdir(exist_ok=True)
    old = json.loads(path.read_text()) if path.is_file() else []
    done = {e[key] for e in entries}
    merged = [e for e in old if e[key] not in done] + entries
    path.write_text(json.dumps(merged, indent=2) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("command", choices=["fetch", "verify", "check", "list"])
    ap.add_argument("--slice", help="project names, comma-separated (default: all)")
    ap.add_argument("--reset", action="store_true", help="fetch: recreate the work copies")
    args = ap.parse_args()
    projects = load_suite(args.slice)
    if args.command == "list":
        for p in projects:
            mods = ", ".join(m.get("name", m["path"]) for m in p["modules"])
            print(f'{p["name"]:18} {p["ecosystem"]:7} {p["version"]:8} {mods}')
    elif args.command == "fetch":
        if any(p["ecosystem"] == "python" for p in projects):
            runner_python()
        for p in projects:
            prepare(p, args.reset)
    elif args.command == "verify":
        sys.exit(0 if verify(projects) else 1)
    elif args.command == "check":
        sys.exit(0 if check(projects) else 1)


if __name__ == "__main__":
    main()
