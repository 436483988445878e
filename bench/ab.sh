#!/usr/bin/env bash
# A same-run A/B of two builds of the library: bench/run.ts of an older commit's tree and of
# this one, alternated on one device, so that a rewrite (issue #26's kernels written once) is
# seen to make no case slower beyond noise.
#
#   bash bench/ab.sh prepare REF                      here: REF's files into .ab/REF, its shim built
#   bash bench/ab.sh run REF [OUT] [case ...]          on the device (PT_DEVICE picks it): writes OUT/ab.md
#
# .ab/REF holds plain files (not a git checkout), is neither tracked nor ignored, so a device
# run carries it; its built shim is ignored, so carry .ab/REF/native/zig-out too. Rounds
# alternate old, new, old, new (PT_AB_ROUNDS, default 2; PT_BENCH_BUDGET_MS per case and run as
# bench/run.ts reads it); a case's time per build is the median of its rounds' medians, and the
# report flags a case whose ratio new / old is above PT_AB_FLAG (default 1.10).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-} ref=${2:-}
[ -n "$ref" ] || { sed -n 2,12p "$0" >&2; exit 2; }
old=.ab/$ref
case "$mode" in
prepare)
  rm -rf "$old" && mkdir -p "$old"
  git archive "$ref" | tar -x -C "$old"
  # this tree's Zig (scripts/env.sh finds or installs it) builds the old shim, in the old tree
  source scripts/env.sh
  (cd "$old" && "${ZIG[@]}" build >&2)
  echo "ab: $old ready ($(git rev-parse --short "$ref")); carry $old/native/zig-out with it" >&2
  ;;
run)
  out=${3:-bench/out/ab}
  shift $(($# < 3 ? $# : 3))
  [ -d "$old/src" ] || { echo "ab: no $old (bash bench/ab.sh prepare $ref first)" >&2; exit 2; }
  mkdir -p "$out"
  deno=${DENO:-$(command -v deno || echo node_modules/.bin/deno)}
  rounds=${PT_AB_ROUNDS:-2}
  for ((r = 0; r < rounds; r++)); do
    for side in old new; do
      root=. && [ "$side" = old ] && root=$old
      echo "ab: round $r, $side" >&2
      "$deno" run --allow-all --no-check "$root/bench/run.ts" "$@" >"$out/$side-$r.json" 2>"$out/$side-$r.log" ||
        echo "ab: $side round $r exited $? (log $out/$side-$r.log)" >&2
    done
  done
  python3 - "$out" "$rounds" "$ref" "${PT_AB_FLAG:-1.10}" <<'PY' | tee "$out/ab.md"
import json, statistics, sys
out, rounds, ref, flag = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
runs = {side: [json.load(open(f"{out}/{side}-{r}.json")) for r in range(rounds)] for side in ("old", "new")}
cases = sorted(set().union(*(set(j.get("results", {})) for js in runs.values() for j in js)))
print(f"# A/B: {ref} (old) against this tree (new), {rounds} alternating rounds\n")
print(f"device: {runs['new'][0].get('device', '?')}\n")
print("| case | old median ms | new median ms | new / old | |")
print("|---|---|---|---|---|")
slower = 0
for c in cases:
    med = {s: [j["results"][c]["median_ms"] for j in runs[s] if c in j.get("results", {})] for s in runs}
    if not med["old"] or not med["new"]:
        one = "old" if med["old"] else "new"
        print(f"| {c} | | | | {one} build only |")
        continue
    o, n = statistics.median(med["old"]), statistics.median(med["new"])
    ratio = n / o if o > 0 else float("nan")
    mark = "**slower**" if ratio > flag else ""
    slower += ratio > flag
    print(f"| {c} | {o:.4f} | {n:.4f} | {ratio:.3f} | {mark} |")
print(f"\n{slower} of {len(cases)} cases above {flag:.2f}x; errors: old {sum(len(j.get('errors', {})) for j in runs['old'])}, new {sum(len(j.get('errors', {})) for j in runs['new'])}")
PY
  ;;
*)
  sed -n 2,12p "$0" >&2
  exit 2
  ;;
esac
