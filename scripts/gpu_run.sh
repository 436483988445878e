#!/usr/bin/env bash
# One pass on the GPU machine (see ../shared/device/README.md): the suite on each GPU
# backend with PT_REQUIRE set, then the benchmark comparison on those of them that are GPU
# devices (cuda, vulkan: bench/gpu_compare.sh), all written under $OUT.
#   source .device/setup.sh && bash scripts/gpu_run.sh [backends...]   (default: cuda)
# PT_SKIP_TESTS=1 runs only the benchmarks; PT_BENCH_RUNTIME=deno runs them under Deno (and
# then Deno's WebGPU peer too). PT_BENCH_TIMEOUT (s) bounds the comparison: 250 + 150 per device.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/pt-out}
mkdir -p "$out"
backends=("$@")
[ ${#backends[@]} -eq 0 ] && backends=(cuda)
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
  case "$b" in cuda | vulkan) bench_devices+=("$b") ;; esac
  [ "${PT_SKIP_TESTS:-0}" = 1 ] && continue
  # Types are checked in CI; the GPU machine has no node_modules to check them with.
  PT_DENO_FLAGS=--no-check PT_SKIP_SETUP=1 PT_RUNTIMES="$runtimes" PT_DEVICE="$b" PT_REQUIRE="$b" timeout 900 bash scripts/test.sh >"$out/test-$b.txt" 2>&1
  echo "$b: $(tail -1 "$out/test-$b.txt")" | tee -a "$out/device.txt"
done
# The comparison writes many files; only a few may come back, so they travel as one tarball.
if [ -f bench/gpu_compare.sh ] && [ "${PT_SKIP_BENCH:-0}" != 1 ] && [ ${#bench_devices[@]} -gt 0 ]; then
  rm -rf /tmp/pt-bench
  timeout "${PT_BENCH_TIMEOUT:-$((250 + 150 * ${#bench_devices[@]}))}" bash bench/gpu_compare.sh /tmp/pt-bench "${bench_devices[@]}" >"$out/bench.txt" 2>&1
  echo "bench (${bench_devices[*]}): exit $?" | tee -a "$out/device.txt"
  cp /tmp/pt-bench/gpu_compare.md /tmp/pt-bench/gpu_compare.svg "$out/" 2>/dev/null
  tar czf "$out/bench.tgz" -C /tmp pt-bench 2>/dev/null
fi
