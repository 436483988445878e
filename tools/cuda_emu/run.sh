#!/usr/bin/env bash
# Runs the CUDA sort and reduce templates on the host, without a GPU: g++ compiles the
# rendered programs against shim.h, run.h runs each block as 256 fibers (warps in a random
# order, each as far as its barriers allow, so a missing __syncthreads shows up as a wrong
# answer). sort_test checks every dtype against std::stable_sort; reduce_test checks the
# reduce program against the one at REF (default: the commit before the fast paths),
# bit for bit except float sum/mean rounding. Usage: tools/cuda_emu/run.sh [REF]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref=${1:-9f2a21b}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
deno=${DENO:-$root/node_modules/.bin/deno}
git -C "$root" show "$ref:src/kernels/cuda/reduce.ts" >"$out/old_reduce.ts"
cat >"$out/dump.ts" <<TS
import { PREAMBLE } from "$root/src/kernels/cuda/preamble.ts";
import { cudaTemplateSource } from "$root/src/kernels/cuda.ts";
import { REDUCE } from "$out/old_reduce.ts";
const strip = (s: string) => s.replace(/\0\$/, "");
Deno.writeTextFileSync("$out/sort.cu", strip(cudaTemplateSource("sort")));
Deno.writeTextFileSync("$out/reduce.cu", strip(cudaTemplateSource("reduce")));
Deno.writeTextFileSync("$out/old_reduce.cu", PREAMBLE + REDUCE);
TS
"$deno" run --allow-all "$out/dump.ts"
flags=(-std=c++20 -O1 -w -I "$here")
g++ "${flags[@]}" -DSRC="\"$out/sort.cu\"" "$here/sort_test.cpp" -o "$out/sort_test"
g++ "${flags[@]}" -DOLD="\"$out/old_reduce.cu\"" -DNEW="\"$out/reduce.cu\"" "$here/reduce_test.cpp" -o "$out/reduce_test"
"$out/reduce_test" | tail -n 3
"$out/sort_test" | grep -v "^ok"
