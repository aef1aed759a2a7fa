"""The table of benches/eval_compare.sh: its JSON lines on stdin, one row per run.

CPU per case is the run's CPU (dataset.evaluate / Runner::run, imports and start-up not
included) over its cases; `x lucid` is the pydantic-evals row's CPU over lucid-eval's at the
same concurrency and subject (`agent`: the two-call agent on the mock; `none`: each case
answered in-process, the harness alone). `calls` is the mock's count of model calls (2 a case: the tool call, the
answer). It fails (exit 1) when an agent run did not make them all, when a run did not pass exactly the cases it
should (all but every tenth, whose expected answer is wrong on purpose), or when the harnesses' verdicts differ.
"""

import json
import sys

rows = [json.loads(line) for line in sys.stdin if line.strip()]
lucid = {(r["concurrency"], r["agent"]): r for r in rows if r["harness"] == "lucid-eval"}
print(f"{'harness':<15} {'subject':<7} {'C':>4} {'cases':>6} {'pass':>6} {'calls':>6} {'wall s':>7} {'CPU s':>7} "
      f"{'CPU ms/case':>11} {'x lucid':>8} {'total CPU s':>11} {'peak MiB':>9}")
bad = []
for r in rows:
    mock = r.get("mock", {})
    calls = mock.get("tool_calls", 0) + mock.get("answers", 0) + mock.get("other", 0)
    base = lucid.get((r["concurrency"], r["agent"]))
    ratio = f"{r['cpu_s'] / base['cpu_s']:.1f}" if base and base["cpu_s"] > 0 else "-"
    subject = "agent" if r["agent"] else "none"
    print(f"{r['harness']:<15} {subject:<7} {r['concurrency']:>4} {r['cases']:>6} {r['pass_rate']:>6.3f} {calls:>6} "
          f"{r['wall_s']:>7.3f} {r['cpu_s']:>7.3f} {1000 * r['cpu_s'] / max(r['cases'], 1):>11.3f} {ratio:>8} "
          f"{r['cpu_total_s']:>11.2f} {r['peak_rss_mib']:>9.1f}")
    if r["agent"] and (mock.get("tool_calls"), mock.get("answers")) != (r["cases"], r["cases"]):
        bad.append(f"{r['harness']} {subject} C={r['concurrency']}: the mock saw {mock}, not {r['cases']} tool calls and answers")
    if r["passed"] != r["cases"] - r["cases"] // 10:
        bad.append(f"{r['harness']} {subject} C={r['concurrency']}: {r['passed']} passed, not every case but each tenth")
    if r.get("first_error"):
        bad.append(f"{r['harness']} {subject} C={r['concurrency']}: {r['first_error']}")
    if base and (r["pass_rate"], r["judges_passed"]) != (base["pass_rate"], base["judges_passed"]):
        bad.append(f"{r['harness']} {subject} C={r['concurrency']}: pass rate or judges {r['pass_rate']} {r['judges_passed']} "
                   f"differ from lucid-eval's {base['pass_rate']} {base['judges_passed']}")
for b in bad:
    print("MISMATCH:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
