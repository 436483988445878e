#!/usr/bin/env bash
# One pass on the GPU machine: the suite on each backend with
# PT_REQUIRE set, then the benchmark comparison (bench/gpu_compare.sh) on those backends, all
# written under $OUT.
#   source .device/setup.sh && bash scripts/gpu_run.sh [backends...]   (default: cuda)
#   source .device/setup.sh && bash scripts/gpu_run.sh bench            (bench/RESULTS.md's run)
# `bench` runs no tests: the comparison on cpu, cuda and vulkan with their peers, bounded to
# finish inside 9 minutes (PT_BENCH_DEADLINE, default 500 s), and leaves $OUT/RESULTS.md and
# $OUT/results.svg, which replace bench/RESULTS.md and bench/results.svg.
# PT_SKIP_TESTS=1 runs only the benchmarks; PT_BENCH_RUNTIME=deno runs them under Deno. Deno's
# WebGPU peer runs whenever a Deno is found. PT_BENCH_TIMEOUT (s) bounds the comparison:
# 250 + 150 per backend, or 530 for `bench`.
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-/tmp/pt-out}
mkdir -p "$out"
backends=("$@") bench_mode=0
[ ${#backends[@]} -eq 0 ] && backends=(cuda)
if [ "${backends[*]}" = bench ]; then
  backends=(cpu cuda vulkan) bench_mode=1
  export PT_SKIP_TESTS=1 PT_BENCH_DEADLINE=${PT_BENCH_DEADLINE:-500}
  : "${PT_BENCH_TIMEOUT:=530}"
fi
runtimes=""
command -v bun >/dev/null && runtimes="bun"
command -v deno >/dev/null && runtimes="$runtimes deno"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "runtimes: $runtimes"
} | tee "$out/device.txt"
bench_devices=()
for b in "${backends[@]}"; do
  case "$b" in cpu | cuda | vulkan) bench_devices+=("$b") ;; esac
  [ "${PT_SKIP_TESTS:-0}" = 1 ] && continue
  # Types are checked in CI; the GPU machine has no node_modules to check them with.
  PT_DENO_FLAGS=--no-check PT_SKIP_SETUP=1 PT_RUNTIMES="$runtimes" PT_DEVICE="$b" PT_REQUIRE="$b" timeout 900 bash scripts/test.sh >"$out/test-$b.txt" 2>&1
  echo "$b: $(tail -1 "$out/test-$b.txt")" | tee -a "$out/device.txt"
done
# The comparison writes many files; only 8 may come back, so they travel as one tarball, and
# RESULTS.md with its chart come out of it only for `bench`, which writes no test logs.
if [ -f bench/gpu_compare.sh ] && [ "${PT_SKIP_BENCH:-0}" != 1 ] && [ ${#bench_devices[@]} -gt 0 ]; then
  rm -rf /tmp/pt-bench
  timeout "${PT_BENCH_TIMEOUT:-$((250 + 150 * ${#bench_devices[@]}))}" bash bench/gpu_compare.sh /tmp/pt-bench "${bench_devices[@]}" >"$out/bench.txt" 2>&1
  echo "bench (${bench_devices[*]}): exit $? at ${SECONDS} s" | tee -a "$out/device.txt"
  files=(gpu_compare.md gpu_compare.svg)
  [ "$bench_mode" = 1 ] && files+=(RESULTS.md results.svg)
  for f in "${files[@]}"; do cp "/tmp/pt-bench/$f" "$out/" 2>/dev/null; done
  tar czf "$out/bench.tgz" -C /tmp pt-bench 2>/dev/null
fi
