#!/usr/bin/env bash
# The test command: builds the shim, then runs the one suite under Deno and under Bun and
# prints the total of both as its last line: "N passed, N failed".
#   bash scripts/test.sh [test files...]      (default: every test/*.test.ts)
# The suite runs on the default device: PT_DEVICE=cuda runs it on CUDA, and PT_REQUIRE=cuda
# makes a missing CUDA a failure instead of a fallback.
# PT_ALSO_DEVICES="vulkan" adds a second pass of everything on that device (CI runs it on lavapipe).
# PT_CHECK_COUNTS=1 (CI) fails a pass in which Deno and Bun ran different numbers of tests, or
# in which a file registered another number of tests than test/declared.txt declares for it
# (a file that stopped loading, or a loop that registered nothing, is caught that way).
# PT_WRITE_DECLARED=1 rewrites test/declared.txt from this run's CPU pass: do it when you add
# or remove tests, and review the diff.
# Files named *.isolated.test.ts run in a process of their own: they drive the raw C ABI
# (closing devices behind the TypeScript layer's back), which would disturb other files.
# Files whose header says @host-only run nothing on PT_DEVICE (renderers checked with g++, the
# neutrality lint): the device passes skip them, and so does a pass with PT_SKIP_HOST_ONLY=1.
source "$(dirname "$0")/env.sh"
build_native
case " ${PT_ALSO_DEVICES:-} " in *" vulkan "*) ensure_lavapipe ;; esac
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(test/*.test.ts)
shared=() isolated=()
for f in "${files[@]}"; do
  case "$f" in *.isolated.test.ts) isolated+=("$f") ;; *) shared+=("$f") ;; esac
done
log=$(mktemp -d)
passed=0 failed=0 skipped=0

# Tests each runtime ran in each device pass ("deno:" and "bun:" for the CPU, "deno:vulkan-" ...),
# compared at the end when PT_CHECK_COUNTS=1: a runtime that ran fewer tests than the other lost some.
declare -A ran=()
pass_tag=""

# tally RUNNER LOG: "file count" per test file the runner reported (Deno: its lines "running N
# tests from ./test/x.test.ts"; Bun: the <testsuite> elements of its JUnit report LOG.xml, since
# its console lines of one file can come out among another's).
tally() {
  if [ "$1" = deno ]; then
    sed 's/\x1b\[[0-9;]*m//g' "$2.txt" | awk '/^running [0-9]+ tests? from / { f = $NF; sub(/^\.\//, "", f); n[f] += $2 }
      END { for (f in n) print f, n[f] }'
  elif [ -f "$2.xml" ]; then
    grep -o '<testsuite name="[^"]*" file="[^"]*" tests="[0-9]*"' "$2.xml" | sed 's/.* file="\([^"]*\)" tests="\([0-9]*\)"/\1 \2/'
  fi
}

# count RUNNER LOGFILE RC: adds the runner's pass/fail counts to the totals. A runner that
# exits non-zero without reporting a failure (a crash) counts as one failure, and so does one
# that printed no summary at all (a test that called process.exit(0), say), whatever its status.
count() {
  local p f s
  if [ "$1" = deno ]; then
    p=$(grep -Eo '[0-9]+ passed' "$2" | tail -1 | grep -Eo '[0-9]+' || true)
    f=$(grep -Eo '[0-9]+ failed' "$2" | tail -1 | grep -Eo '[0-9]+' || true)
    s=$(grep -Eo '[0-9]+ ignored' "$2" | tail -1 | grep -Eo '[0-9]+' || true)
  else
    p=$(grep -E '^ *[0-9]+ pass$' "$2" | tail -1 | grep -Eo '[0-9]+' || true)
    f=$(grep -E '^ *[0-9]+ fail$' "$2" | tail -1 | grep -Eo '[0-9]+' || true)
    s=$(grep -E '^ *[0-9]+ skip$' "$2" | tail -1 | grep -Eo '[0-9]+' || true)
  fi
  if [ -z "$p" ] && [ -z "$f" ]; then
    echo "$1 $(basename "$2" .txt): no summary line: the runner ended before reporting (exit $3)" >&2
    f=1
  fi
  p=${p:-0} f=${f:-0} s=${s:-0}
  [ "$3" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  ran["$1:$pass_tag"]=$((${ran["$1:$pass_tag"]:-0} + p + f + s))
  skipped=$((skipped + s))
  echo "$1 $(basename "$2" .txt): $p passed, $f failed, $s skipped" >&2
  passed=$((passed + p)) failed=$((failed + f))
}

run() { # run RUNNER NAME FILES...
  local runner=$1 name=$2 rc
  shift 2
  echo "== $runner test $*" >&2
  set +e
  if [ "$runner" = deno ]; then
    "$DENO" test --allow-all --v8-flags=--expose-gc ${PT_DENO_FLAGS:-} "$@" 2>&1 | tee "$log/$name.txt"
  else
    "$BUN" test --timeout 120000 --reporter=junit --reporter-outfile="$log/$name.xml" "$@" 2>&1 | tee "$log/$name.txt"
  fi
  rc=${PIPESTATUS[0]}
  set -e
  count "$runner" "$log/$name.txt" "$rc"
  tally "$runner" "$log/$name" >>"$log/files-$runner-$pass_tag"
}

# PT_RUNTIMES="bun" (or "deno") limits the runs, e.g. where only one runtime exists.
host_only() { grep -q '@host-only' "$1"; }
suite() { # suite TAG [device]: every file under each runtime; a device pass leaves out @host-only files
  pass_tag=$1
  local sh=() iso=() f
  for f in "${shared[@]}"; do { [ -n "${2:-}" ] && host_only "$f"; } || sh+=("$f"); done
  for f in "${isolated[@]}"; do { [ -n "${2:-}" ] && host_only "$f"; } || iso+=("$f"); done
  for runner in ${PT_RUNTIMES:-deno bun}; do
    [ ${#sh[@]} -gt 0 ] && run "$runner" "$runner-$1suite" "${sh[@]}"
    for f in "${iso[@]}"; do run "$runner" "$runner-$1$(basename "$f" .test.ts)" "$f"; done
  done
}
suite "" $([ "${PT_SKIP_HOST_ONLY:-0}" = 1 ] && echo device)
# PT_ALSO_DEVICES="vulkan" runs the whole suite again on each of those devices, required
# (CI: lavapipe), and counts it in the same total.
for dev in ${PT_ALSO_DEVICES:-}; do
  echo "== the suite again with PT_DEVICE=$dev PT_REQUIRE=$dev" >&2
  export PT_DEVICE=$dev PT_REQUIRE=$dev
  suite "$dev-" device
done
if [ "${PT_WRITE_DECLARED:-0}" = 1 ]; then
  runner=${PT_RUNTIMES:-deno}; runner=${runner%% *}
  { echo "# Tests each file registers, checked by scripts/test.sh under PT_CHECK_COUNTS=1; rewrite with PT_WRITE_DECLARED=1."
    sort "$log/files-$runner-"; } >test/declared.txt
  echo "wrote test/declared.txt from the $runner CPU pass" >&2
fi
if [ "${PT_CHECK_COUNTS:-0}" = 1 ]; then
  for f in "$log"/files-*; do
    [ -e "$f" ] || continue
    what=${f#"$log"/files-}; what=${what%-}
    # Every file that ran must have the count test/declared.txt gives it.
    bad=$(awk 'NR == FNR { if ($1 !~ /^#/) want[$1] = $2; next }
      { if (!($1 in want)) print $1 ": " $2 " tests, not declared"; else if (want[$1] != $2) print $1 ": " $2 " tests, " want[$1] " declared" }' \
      test/declared.txt "$f")
    if [ -n "$bad" ]; then
      echo "counts ($what pass): files that ran another number of tests than test/declared.txt declares:" >&2
      echo "$bad" >&2
      failed=$((failed + 1))
    fi
    # ... and every declared file among those asked for must have run.
    for t in "${files[@]}"; do
      if [ "${what#*-}" != "$what" ] || [ "${PT_SKIP_HOST_ONLY:-0}" = 1 ]; then host_only "$t" && continue; fi
      if ! grep -q "^$t " "$f" && grep -q "^$t " test/declared.txt; then
        echo "counts ($what pass): $t ran no test" >&2
        failed=$((failed + 1))
      fi
    done
  done
fi
rm -rf "$log"
if [ "${PT_CHECK_COUNTS:-0}" = 1 ]; then
  declare -A tags=()
  for key in "${!ran[@]}"; do tags["x${key#*:}"]=1; done
  for t in "${!tags[@]}"; do
    tag=${t#x}
    d=${ran["deno:$tag"]:-0} b=${ran["bun:$tag"]:-0}
    echo "counts: the ${tag:-cpu-}pass ran $d tests under Deno and $b under Bun" >&2
    if [ "$d" -ne "$b" ] || [ "$d" -eq 0 ]; then
      echo "counts: each runtime must run the whole suite" >&2
      failed=$((failed + 1))
    fi
  done
fi
# Skips (harness.ts skip: a test that cannot run here) are counted apart; the last line stays
# "N passed, N failed", the form CI reads.
echo "$skipped skipped (the reasons are printed as \"skip: <test>: <reason>\")"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
