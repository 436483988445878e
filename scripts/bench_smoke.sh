#!/usr/bin/env bash
# CI's benchmark smoke run: every case under `deno bench` and under Bun with tinybench, with
# tiny sample counts (PT_BENCH_QUICK=1). Each case checks its result; times are not judged.
source "$(dirname "$0")/env.sh"
build_native
echo "== deno bench (quick)" >&2
PT_BENCH_QUICK=1 "$DENO" bench --allow-all bench/ >&2
echo "== bun run bench (quick)" >&2
PT_BENCH_QUICK=1 "$BUN" bench/bun.ts >&2
