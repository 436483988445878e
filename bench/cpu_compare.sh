#!/usr/bin/env bash
# One command: our cases under Deno (bench/run.ts) and the NumPy peer (bench/numpy_peer.py),
# then a markdown table  case | polytensor ms | NumPy ms | ratio  written to OUT_DIR/cpu_compare.md
# and stdout. ratio = NumPy time / ours: our throughput relative to NumPy (> 1: we are faster).
# Beside it, OUT_DIR/cpu_compare.svg charts ours / NumPy (bench/chart.py: the sense of the GPU
# chart, below 1 we are faster). The host microcases (bench/micro.ts) get their own ns table.
#
#     bash bench/cpu_compare.sh [OUT_DIR]        (default bench/out/; PT_BENCH_QUICK / PT_BENCH_FULL apply)
#
# NumPy: Debian's python3-numpy under /usr/bin/python3 (installed with apt-get when missing),
# else numpy from pip in a venv under /tmp. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset
# for both runs (they slow a current OpenBLAS); our shim may open the same OpenBLAS.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/out}
mkdir -p "$out"

py=/usr/bin/python3
if ! "$py" -c "import numpy" 2>/dev/null; then
  if command -v apt-get >/dev/null && { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-numpy; } >&2; then
    "$py" -c "import numpy"
  else
    echo "apt unavailable: using pip's numpy in /tmp/pt-numpy-venv" >&2
    [ -x /tmp/pt-numpy-venv/bin/python ] || { python3 -m venv /tmp/pt-numpy-venv && /tmp/pt-numpy-venv/bin/pip install -q numpy threadpoolctl; } >&2
    py=/tmp/pt-numpy-venv/bin/python
  fi
fi

clean=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
echo "== polytensor (deno bench/run.ts)" >&2
"${clean[@]}" node_modules/.bin/deno run --allow-all bench/run.ts >"$out/polytensor.json"
echo "== numpy ($py bench/numpy_peer.py)" >&2
"${clean[@]}" "$py" bench/numpy_peer.py >"$out/numpy.json" 2> >(tee "$out/numpy.log" >&2)
sleep 0.2 # let tee flush numpy.log

"$py" - "$out" <<'PY' | tee "$out/cpu_compare.md"
import json, os, platform, subprocess, sys
sys.path.insert(0, "bench")
from chart import svg
out = sys.argv[1]
ours = json.load(open(f"{out}/polytensor.json"))
peer = {k: v for k, v in json.load(open(f"{out}/numpy.json")).items() if not k.startswith("_")}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
shim = os.environ.get("PT_LIBRARY") or "native/zig-out/lib"
print(f"CPU: {cpu}, {os.cpu_count()} cores, load average {open('/proc/loadavg').read().split()[0]}.")
print(f"polytensor: {ours['device']}, shim {shim}. {open(f'{out}/numpy.log').readline().strip()}\n")
print("| case | polytensor ms | NumPy ms | ratio |\n|---|---:|---:|---:|")
micro = [n for n, r in ours["results"].items() if "ns_per_call" in r] + [n for n in ours["errors"] if n.startswith("host_")]
for name in list(peer) + [n for n in list(ours["results"]) + list(ours["errors"]) if n not in peer and n not in micro]:
    r, p = ours["results"].get(name), peer.get(name)
    mine = f"{r['median_ms']:.3f}" if r else "error" if name in ours["errors"] else "-"
    ratio = f"{p / r['median_ms']:.2f}x" if r and p else "-"
    print(f"| {name} | {mine} | {f'{p:.3f}' if p else '-'} | {ratio} |")
if micro:
    print("\nHost-side microcases (bench/micro.ts), ns per call; their C floors are CUDA's (bench/gpu_compare.sh):\n")
    print("| case | polytensor ns |\n|---|---:|")
    for name in micro:
        r = ours["results"].get(name)
        print(f"| {name} | {'%.0f' % r['ns_per_call'] if r else 'error'} |")
ratios = {n: ours["results"][n]["median_ms"] / p for n, p in peer.items() if p and n in ours["results"]}
with open(f"{out}/cpu_compare.svg", "w") as f:
    f.write(svg(f"polytensor vs NumPy on {cpu}, {os.cpu_count()} cores", [("ours / NumPy", ratios)], list(peer)))
if ours["errors"]:
    print("\nerrors:\n" + "\n".join(f"- {name}: {msg}" for name, msg in ours["errors"].items()))
if ours["skipped"]:
    print(f"\nskipped: {', '.join(ours['skipped'])} (set PT_BENCH_FULL=1)")
PY
