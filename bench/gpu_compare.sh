#!/usr/bin/env bash
# One command on the GPU machine: our cases on each DEVICE (bench/run.ts with PT_DEVICE set,
# under bun if on PATH, else deno; PT_BENCH_FULL=1 unless set), the C floors and the peers:
#   cpu:    bench/torch_peer.py --device cpu and bench/numpy_peer.py; the CPU steps sample
#           each case for PT_CPU_BUDGET_MS (default 1000) instead of the usual 2 to 5 s
#   cuda:   native/zig-out/bin/cuda_floor (`zig build floor`)
#   vulkan: native/zig-out/bin/vulkan_floor when it exists, and bench/webgpu_peer.ts when a
#           Deno is found (PATH, node_modules/.bin), whatever runs our cases
#   always: bench/torch_peer.py and bench/cupy_peer.py (CUDA)
# Writes OUT_DIR/gpu_compare.md (the full table, also on stdout), gpu_compare.svg (ratios),
# gpu_compare.json (every raw number), RESULTS.md + results.svg (bench/results.py: the one
# table of bench/RESULTS.md) and one .json/.txt/.log/.rc per step. A step that fails is
# recorded and the others still run. Run without a GPU (`cpu vulkan` on lavapipe), it is a
# dry run of the harness, and RESULTS.md says so.
#
#     bash bench/gpu_compare.sh [OUT_DIR [DEVICE...]]     (default bench/out/gpu cuda)
#
# PT_COMMIT names the commit (else git's HEAD; the GPU machine's copy of .git can be stale).
# PT_STEP_TIMEOUT (s, default 900) bounds each step; PT_BENCH_DEADLINE (s) the whole run: a
# step gets what is left of it less 20 s for the report, and one that would start with under
# 10 s left is recorded as not run. On the GPU machine, with no bun or deno found,
# .device/setup.sh is sourced first. PT_PYTHON picks the Python (default python3).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${1:-bench/out/gpu}
shift $(($# > 0 ? 1 : 0))
devices=("$@")
[ ${#devices[@]} -eq 0 ] && devices=(cuda)
for d in "${devices[@]}"; do
  case "$d" in cuda | vulkan | cpu) ;; *) echo "gpu_compare.sh: unknown device '$d' (cpu, cuda or vulkan)" >&2; exit 2 ;; esac
done
mkdir -p "$out" || exit 1
export PT_BENCH_FULL=${PT_BENCH_FULL:-1} PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
cmd="bash bench/gpu_compare.sh $out ${devices[*]}"
for v in PT_BENCH_QUICK PT_BENCH_FULL PT_BENCH_RUNTIME PT_CPU_BUDGET_MS PT_PYTHON PT_LIBRARY; do [ -n "${!v:-}" ] && cmd="$v=${!v} $cmd"; done
limit=${PT_STEP_TIMEOUT:-900} deadline=${PT_BENCH_DEADLINE:-0}
py=${PT_PYTHON:-$(command -v python3 || command -v python || echo python3)}
cpu_budget=${PT_CPU_BUDGET_MS:-1000}
has() { [[ " ${devices[*]} " == *" $1 "* ]]; }

find_rt() {
  local c
  for c in ${PT_BENCH_RUNTIME:-bun deno} node_modules/.bin/${PT_BENCH_RUNTIME:-bun} node_modules/.bin/${PT_BENCH_RUNTIME:-deno}; do
    if "$c" --version >/dev/null 2>&1; then rt=$c; return 0; fi
  done
  return 1
}
rt=""
# .device/setup.sh unpacks into / : only on the GPU machine, and only when no runtime is found.
if ! find_rt && [ -f .device/setup.sh ] && [ -e /dev/nvidiactl ]; then
  # shellcheck disable=SC1091
  source .device/setup.sh >&2
  find_rt || true
fi

# step NAME CMD...: stdout -> OUT/NAME.json (.txt for the line-printing vulkan_floor),
# stderr -> OUT/NAME.log (and ours), exit code -> OUT/NAME.rc
step() {
  local name=$1 ext=json t=$limit
  shift
  [ "$name" = vulkan_floor ] && ext=txt
  if [ "$deadline" -gt 0 ]; then
    t=$((deadline - 20 - SECONDS))
    [ "$t" -lt 10 ] && { skip "$name" "PT_BENCH_DEADLINE=$deadline s was spent before this step"; return; }
    [ "$t" -gt "$limit" ] && t=$limit
  fi
  echo "== $name: $*" >&2
  if command -v timeout >/dev/null; then set -- timeout "$t" "$@"; fi
  { "$@" 2>&1 >"$out/$name.$ext" | tee "$out/$name.log" >&2; }
  echo "${PIPESTATUS[0]}" >"$out/$name.rc"
}
skip() { # skip NAME REASON: the step could not start
  echo "== $1: not run: $2" >&2
  : >"$out/$1.$([ "$1" = vulkan_floor ] && echo txt || echo json)"
  echo "$2" >"$out/$1.log"
  echo 127 >"$out/$1.rc"
}

deno=""
for c in deno node_modules/.bin/deno; do "$c" --version >/dev/null 2>&1 && { deno=$c; break; }; done
started=$(date -u "+%Y-%m-%d %H:%M UTC")

for d in "${devices[@]}"; do
  # The CPU's cases are slower and many: a shorter sampling time keeps the run short.
  budget=""
  [ "$d" = cpu ] && budget=$cpu_budget
  if [ -z "$rt" ]; then
    skip "polytensor-$d" "no ${PT_BENCH_RUNTIME:-bun or deno} found (PATH, .device/setup.sh, node_modules/.bin)"
  elif [ -z "${PT_LIBRARY:-}" ] && [ ! -f native/zig-out/lib/libpolytensor.so ]; then
    skip "polytensor-$d" "native/zig-out/lib/libpolytensor.so missing (build here: zig build -Dbackends=cpu,cuda,vulkan, and carry native/zig-out)"
  elif [ "$(basename "$rt")" = bun ]; then
    PT_BENCH_BUDGET_MS=$budget PT_DEVICE=$d step "polytensor-$d" "$rt" bench/run.ts
  else
    PT_BENCH_BUDGET_MS=$budget PT_DEVICE=$d step "polytensor-$d" "$rt" run --allow-all bench/run.ts
  fi
done
if has cuda; then
  if [ -x native/zig-out/bin/cuda_floor ]; then
    step floor native/zig-out/bin/cuda_floor
  else
    skip floor "native/zig-out/bin/cuda_floor missing (build here: zig build floor)"
  fi
fi
if has vulkan; then
  if [ -x native/zig-out/bin/vulkan_floor ]; then
    step vulkan_floor native/zig-out/bin/vulkan_floor
  else
    skip vulkan_floor "native/zig-out/bin/vulkan_floor missing (build here: zig build floor)"
  fi
  if [ -n "$deno" ]; then
    step webgpu "$deno" run --allow-all bench/webgpu_peer.ts
  else
    skip webgpu "no Deno found (PATH, node_modules/.bin): Deno's WebGPU needs Deno"
  fi
fi
step torch "$py" bench/torch_peer.py
step cupy "$py" bench/cupy_peer.py
if has cpu; then
  PT_BENCH_BUDGET_MS=$cpu_budget step torch_cpu "$py" bench/torch_peer.py --device cpu
  PT_BENCH_BUDGET_MS=$cpu_budget step numpy "$py" bench/numpy_peer.py
fi

rt_version=$([ -n "$rt" ] && "$rt" --version 2>/dev/null | head -1)
if [ -n "${PT_COMMIT:-}" ]; then
  commit=$PT_COMMIT
elif commit=$(git rev-parse --short HEAD 2>/dev/null); then
  dirty=$(git status --porcelain 2>/dev/null | wc -l)
  [ "$dirty" -gt 0 ] && commit="$commit (+$dirty uncommitted files)"
else
  commit=unknown
fi
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1), $(nproc 2>/dev/null || echo '?') cores"

export PT_DEVICES="${devices[*]}" PT_RT="${rt:-none} ${rt_version:-}" PT_GIT="$commit" PT_GPU="$gpu" PT_CPU="$cpu"
export PT_CMD="$cmd" PT_STARTED="$started"
"$py" bench/gpu_report.py "$out" | tee "$out/gpu_compare.md"
rc=${PIPESTATUS[0]}
"$py" bench/results.py "$out" "$out/RESULTS.md" >&2 || rc=1
exit "$rc"
