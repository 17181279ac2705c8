#!/usr/bin/env bash
# The GPU benchmark (called by scripts/gpu-check): nvcc builds (cold, cached,
# parallel) and timing repeatability: the same kernel evaluated 10 times in
# separate evaluations, coefficient of variation of the reported medians.
#   bench/gpu_bench.sh BIN_DIR OUT_DIR
set -uo pipefail
bin=$1
out=$2
arch=$("$bin/hone" machine --json >/dev/null 2>&1; nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
arch="sm_${arch}"; [ "$arch" = sm_90 ] && arch=sm_90a
echo "-- nvcc builds ($arch)"
"$bin/harness_bench" --cuda "$arch" --iterations 5 | tee "$out/builds.txt"
echo "-- CPU-side harness overhead on this machine"
"$bin/harness_bench" --iterations 10 | tee "$out/harness.txt"
echo "-- repeatability: 10 separate evaluations each"
mkdir -p "$out/rep"
for task in bench/tasks/scale tasks/examples/gelu tasks/examples/matmul; do
  name=$(basename "$task")
  for i in $(seq 1 10); do
    "$bin/hone" eval "$task" "$task/solutions/fast.cu" --json > "$out/rep/$name-$i.json" 2>/dev/null
  done
done
python3 - "$out/rep" <<'PY' | tee "$out/repeatability.txt"
import json, statistics, sys, glob, os
out = sys.argv[1]
print(f"{'task':<10} {'median us':>10} {'CV of medians':>14} {'ref us':>10} {'speedup':>8} {'SOL%':>6} {'rse%':>6} {'clock MHz':>10} {'throttle':>12}")
for name in ["scale", "gelu", "matmul"]:
    meds, refs, sp, sol, rse, clk, thr = [], [], [], [], [], [], set()
    for f in sorted(glob.glob(os.path.join(out, f"{name}-*.json"))):
        try:
            d = json.load(open(f))
        except Exception:
            continue
        if d.get("status") != "passed" or "timing" not in d:
            print(f"  {f}: {d.get('status')} {d.get('reason','')[:200]}")
            continue
        t = d["timing"]
        meds.append(t["candidate"]["median_us"]); refs.append(t["reference"]["median_us"])
        sp.append(t["speedup"]); sol.append(t["sol_percent"]); rse.append(100 * t["candidate"]["rse"])
        ds = t.get("device_state") or {}
        if ds: clk.append(ds.get("sm_mhz_max", 0)); thr.add(ds.get("throttle", ""))
    if len(meds) < 2:
        print(f"{name:<10} not enough passing evaluations"); continue
    cv = 100 * statistics.stdev(meds) / statistics.mean(meds)
    print(f"{name:<10} {statistics.median(meds):>10.2f} {cv:>13.2f}% {statistics.median(refs):>10.2f} "
          f"{statistics.median(sp):>8.2f} {statistics.median(sol):>6.1f} {statistics.median(rse):>6.2f} "
          f"{max(clk) if clk else 0:>10} {','.join(sorted(thr))[:12]:>12}")
PY
