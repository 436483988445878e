#!/usr/bin/env bash
# CI's benchmark smoke run: every case under `deno bench` and under Bun with tinybench, with
# tiny sample counts (PT_BENCH_QUICK=1). Each case checks its result; times are not judged.
# Then the GPU harness as a dry run on the CPU (its report and chart, with the GPU steps
# failing or skipping as they must there), the WebGPU peer, bench/results.py's RESULTS.md and
# chart from that run, and bench/chart.py on a table of the session logs.
# With PT_LIBRARY set, that shim is used and nothing is built.
source "$(dirname "$0")/env.sh"
[ -n "${PT_LIBRARY:-}" ] || build_native
echo "== deno bench (quick)" >&2
PT_BENCH_QUICK=1 "$DENO" bench --allow-all bench/ >&2
echo "== bun run bench (quick)" >&2
PT_BENCH_QUICK=1 "$BUN" bench/bun.ts >&2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== bench/gpu_compare.sh, dry run on the CPU (quick)" >&2
PT_BENCH_RUNTIME=deno PT_BENCH_QUICK=1 PT_BENCH_FULL=0 bash bench/gpu_compare.sh "$tmp/gpu" cpu vulkan >/dev/null 2>"$tmp/gpu.err" ||
  { cat "$tmp/gpu.err" >&2; exit 1; }
for f in gpu_compare.md gpu_compare.svg gpu_compare.json RESULTS.md results.svg; do
  [ -s "$tmp/gpu/$f" ] || { echo "gpu_compare.sh wrote no $f" >&2; cat "$tmp/gpu.err" >&2; exit 1; }
done
python3 - "$tmp/gpu/polytensor-cpu.json" <<'PY' || { cat "$tmp/gpu.err" >&2; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["results"] and not r["errors"], f"dry run on the CPU: {r['errors'] or 'no results'}"
PY
grep -E '^- webgpu:' "$tmp/gpu/gpu_compare.md" >&2
echo "== bench/results.py on the dry run" >&2
python3 - "$tmp/gpu" <<'PY' || { cat "$tmp/gpu.err" >&2; exit 1; }
import re, sys
md, svg = open(f"{sys.argv[1]}/RESULTS.md").read(), open(f"{sys.argv[1]}/results.svg").read()
rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in md.splitlines() if ln.startswith("|") and "---" not in ln]
assert rows and rows[0][:2] == ["case", "CPU ms"] and "Vulkan ms" in rows[0], f"RESULTS.md: no table: {rows[:1]}"
cells = {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}
assert re.fullmatch(r"[\d.]+", cells.get("add_16m", {}).get("CPU ms", "")), f"RESULTS.md: add_16m on the CPU: {cells.get('add_16m')}"
assert "DRY RUN" in md and cells["add_16m"]["CUDA ms"] == "not run", "RESULTS.md of a run without a GPU must say so"
assert "<svg" in svg and "(results.svg)" in md, "results.svg missing or not linked"
print(f"RESULTS.md: {len(rows) - 1} cases", file=sys.stderr)
PY
echo "== bench/chart.py on the session logs" >&2
python3 bench/chart.py bench/history/sessions-1-10.md "$tmp/results0.svg" 0 >&2
echo "bench smoke passed" >&2
