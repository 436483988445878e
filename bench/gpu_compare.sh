#!/usr/bin/env bash
# One command on the GPU machine: our cases on each DEVICE (bench/run.ts with PT_DEVICE set,
# under bun if on PATH, else deno; PT_BENCH_FULL=1 unless set), the C floors and the peers:
#   cuda:   native/zig-out/bin/cuda_floor (`zig build floor`)
#   vulkan: native/zig-out/bin/vulkan_floor when it exists, and bench/webgpu_peer.ts when the
#           runtime is Deno (PT_BENCH_RUNTIME=deno picks it)
#   always: bench/torch_peer.py and bench/cupy_peer.py
# Writes OUT_DIR/gpu_compare.md (the table, also on stdout), gpu_compare.svg (ratios),
# gpu_compare.json (every raw number) and one .json/.txt/.log/.rc per step. A step that
# fails is recorded and the others still run. `cpu` is accepted as a DEVICE for a dry run
# of the harness on a machine without a GPU.
#
#     bash bench/gpu_compare.sh [OUT_DIR [DEVICE...]]     (default bench/out/gpu cuda)
#
# Where git is absent, pass the commit as PT_COMMIT. PT_STEP_TIMEOUT (s, default 900) bounds
# each step. On the GPU machine, with no bun or deno found, .device/setup.sh is sourced first.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${1:-bench/out/gpu}
shift $(($# > 0 ? 1 : 0))
devices=("$@")
[ ${#devices[@]} -eq 0 ] && devices=(cuda)
for d in "${devices[@]}"; do
  case "$d" in cuda | vulkan | cpu) ;; *) echo "gpu_compare.sh: unknown device '$d' (cuda, vulkan, or cpu for a dry run)" >&2; exit 2 ;; esac
done
mkdir -p "$out" || exit 1
export PT_BENCH_FULL=${PT_BENCH_FULL:-1} PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
limit=${PT_STEP_TIMEOUT:-900}
py=$(command -v python3 || command -v python || echo python3)
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
  local name=$1 ext=json
  shift
  [ "$name" = vulkan_floor ] && ext=txt
  echo "== $name: $*" >&2
  if command -v timeout >/dev/null; then set -- timeout "$limit" "$@"; fi
  { "$@" 2>&1 >"$out/$name.$ext" | tee "$out/$name.log" >&2; }
  echo "${PIPESTATUS[0]}" >"$out/$name.rc"
}
skip() { # skip NAME REASON: the step could not start
  echo "== $1: not run: $2" >&2
  : >"$out/$1.$([ "$1" = vulkan_floor ] && echo txt || echo json)"
  echo "$2" >"$out/$1.log"
  echo 127 >"$out/$1.rc"
}

for d in "${devices[@]}"; do
  if [ -z "$rt" ]; then
    skip "polytensor-$d" "no ${PT_BENCH_RUNTIME:-bun or deno} found (PATH, .device/setup.sh, node_modules/.bin)"
  elif [ -z "${PT_LIBRARY:-}" ] && [ ! -f native/zig-out/lib/libpolytensor.so ]; then
    skip "polytensor-$d" "native/zig-out/lib/libpolytensor.so missing (build here: zig build -Dbackends=cpu,cuda,vulkan, and carry native/zig-out)"
  elif [ "$(basename "$rt")" = bun ]; then
    PT_DEVICE=$d step "polytensor-$d" "$rt" bench/run.ts
  else
    PT_DEVICE=$d step "polytensor-$d" "$rt" run --allow-all bench/run.ts
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
  if [ "$(basename "${rt:-none}")" = deno ]; then
    step webgpu "$rt" run --allow-all bench/webgpu_peer.ts
  else
    skip webgpu "Deno's WebGPU needs Deno as the runtime (PT_BENCH_RUNTIME=deno); this run has ${rt:-none}"
  fi
fi
step torch "$py" bench/torch_peer.py
step cupy "$py" bench/cupy_peer.py

rt_version=$([ -n "$rt" ] && "$rt" --version 2>/dev/null | head -1)
if commit=$(git rev-parse --short HEAD 2>/dev/null); then
  dirty=$(git status --porcelain 2>/dev/null | wc -l)
  [ "$dirty" -gt 0 ] && commit="$commit (+$dirty uncommitted files)"
else
  commit=${PT_COMMIT:-unknown}
fi
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)

PT_DEVICES="${devices[*]}" PT_RT="${rt:-none} ${rt_version:-}" PT_GIT="$commit" PT_GPU="$gpu" "$py" bench/gpu_report.py "$out" | tee "$out/gpu_compare.md"
