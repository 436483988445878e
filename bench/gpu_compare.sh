#!/usr/bin/env bash
# One command on the GPU machine: our cases with PT_DEVICE=cuda (bench/run.ts under bun if on
# PATH, else deno; PT_BENCH_FULL=1 unless set), the C floor (native/zig-out/bin/cuda_floor,
# built here with `zig build floor`), bench/torch_peer.py and bench/cupy_peer.py. Writes
# OUT_DIR/gpu_compare.md (the table, also on stdout), OUT_DIR/gpu_compare.json (every raw
# number) and one .json/.log per step. A step that fails is recorded and the others still run.
#
#     bash bench/gpu_compare.sh [OUT_DIR]     (default bench/out/gpu)
#
# Where git is absent, pass the commit as PT_COMMIT. PT_STEP_TIMEOUT (s, default 900) bounds
# each step. On the GPU machine, with no bun or deno found, .device/setup.sh is sourced first.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${1:-bench/out/gpu}
mkdir -p "$out" || exit 1
export PT_BENCH_FULL=${PT_BENCH_FULL:-1} PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
limit=${PT_STEP_TIMEOUT:-900}
py=$(command -v python3 || command -v python || echo python3)

find_rt() {
  local c
  for c in bun deno node_modules/.bin/bun node_modules/.bin/deno; do
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

# step NAME CMD...: stdout -> OUT/NAME.json, stderr -> OUT/NAME.log (and ours), exit code -> OUT/NAME.rc
step() {
  local name=$1
  shift
  echo "== $name: $*" >&2
  if command -v timeout >/dev/null; then set -- timeout "$limit" "$@"; fi
  { "$@" 2>&1 >"$out/$name.json" | tee "$out/$name.log" >&2; }
  echo "${PIPESTATUS[0]}" >"$out/$name.rc"
}
skip() { # skip NAME REASON: the step could not start
  echo "== $1: not run: $2" >&2
  : >"$out/$1.json"
  echo "$2" >"$out/$1.log"
  echo 127 >"$out/$1.rc"
}

if [ -z "$rt" ]; then
  skip polytensor "no bun or deno found (PATH, .device/setup.sh, node_modules/.bin)"
elif [ -z "${PT_LIBRARY:-}" ] && [ ! -f native/zig-out/lib/libpolytensor.so ]; then
  skip polytensor "native/zig-out/lib/libpolytensor.so missing (build here: zig build -Dbackends=cpu,cuda, and carry native/zig-out)"
elif [ "$(basename "$rt")" = bun ]; then
  PT_DEVICE=cuda step polytensor "$rt" bench/run.ts
else
  PT_DEVICE=cuda step polytensor "$rt" run --allow-all bench/run.ts
fi
if [ -x native/zig-out/bin/cuda_floor ]; then
  step floor native/zig-out/bin/cuda_floor
else
  skip floor "native/zig-out/bin/cuda_floor missing (build here: zig build floor)"
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

PT_RT="${rt:-none} ${rt_version:-}" PT_GIT="$commit" PT_GPU="$gpu" "$py" bench/gpu_report.py "$out" | tee "$out/gpu_compare.md"
