"""Reads the JSON lines of benches/compare.sh (raw, then lucid, per mode) and prints
CPU per task side by side. Exits 1 when any task failed."""
import json
import sys

rows = [json.loads(line) for line in sys.stdin if line.strip()]
print(f"{'mode':10} {'C':>4} {'raw cpu/task':>13} {'lucid cpu/task':>15} {'ratio':>6} {'raw p50':>10} {'lucid p50':>10} {'ok':>11}")
failed = False
for raw, lucid in zip(rows[0::2], rows[1::2]):
    r = raw["cpu_s"] / raw["n"] * 1e3
    l = lucid["cpu_s"] / lucid["n"] * 1e3
    print(f"{raw['mode']:10} {raw['concurrency']:>4} {r:>10.3f} ms {l:>12.3f} ms {l / r:>6.2f} "
          f"{raw['lat_p50_ms']:>7.3f} ms {lucid['lat_p50_ms']:>7.3f} ms {lucid['ok']:>5}/{lucid['n']}")
    for row in (raw, lucid):
        if row["ok"] != row["n"]:
            failed = True
            print(f"FAILED: {row['client']} {row['mode']} C={row['concurrency']}: {row['first_error']}")
sys.exit(1 if failed else 0)
