#!/usr/bin/env bash
# The test command: builds the shim, then runs the one suite under Deno and under Bun and
# prints the total of both as its last line: "N passed, N failed".
#   bash scripts/test.sh [test files...]      (default: every test/*.test.ts)
source "$(dirname "$0")/env.sh"
build_native
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(test/*.test.ts)
log=$(mktemp -d)

set +e
echo "== deno test" >&2
"$DENO" test --allow-all --v8-flags=--expose-gc "${files[@]}" 2>&1 | tee "$log/deno.txt"
deno_rc=${PIPESTATUS[0]}
echo "== bun test" >&2
"$BUN" test --timeout 120000 "${files[@]}" 2>&1 | tee "$log/bun.txt"
bun_rc=${PIPESTATUS[0]}
set -e

# Deno: "ok | 12 passed | 1 failed"; Bun: " 12 pass" and " 1 fail" lines.
dp=$(grep -Eo '[0-9]+ passed' "$log/deno.txt" | tail -1 | grep -Eo '[0-9]+' || echo 0)
df=$(grep -Eo '[0-9]+ failed' "$log/deno.txt" | tail -1 | grep -Eo '[0-9]+' || echo 0)
bp=$(grep -E '^ *[0-9]+ pass$' "$log/bun.txt" | tail -1 | grep -Eo '[0-9]+' || echo 0)
bf=$(grep -E '^ *[0-9]+ fail$' "$log/bun.txt" | tail -1 | grep -Eo '[0-9]+' || echo 0)
# A runner that crashed before its summary counts as one failure.
[ "$deno_rc" -ne 0 ] && [ "$df" -eq 0 ] && df=1
[ "$bun_rc" -ne 0 ] && [ "$bf" -eq 0 ] && bf=1
echo "deno: $dp passed, $df failed; bun: $bp passed, $bf failed" >&2
rm -rf "$log"
echo "$((dp + bp)) passed, $((df + bf)) failed"
[ $((df + bf)) -eq 0 ]
