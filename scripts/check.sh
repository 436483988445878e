#!/usr/bin/env bash
# Static checks that CI runs: types under Deno and under Bun's types (tsc), the API reference
# (deno doc --lint), the README's width, lint, format, and the cross-compile of the shim.
source "$(dirname "$0")/env.sh"
echo "== deno check" >&2
"$DENO" check mod.ts examples/ test/ bench/ >&2
echo "== neutrality check (shared code names no backend)" >&2
"$DENO" run --allow-read tools/check_neutral.ts
echo "== deno doc --lint mod.ts (every export and public method documented, public types only)" >&2
"$DENO" doc --lint mod.ts >/dev/null 2>"${TMPDIR:-/tmp}/pt-doclint.$$" || { grep -v "Warning\|^    at " "${TMPDIR:-/tmp}/pt-doclint.$$" >&2; exit 1; }
rm -f "${TMPDIR:-/tmp}/pt-doclint.$$"
echo "== README: no line over 160 characters outside code blocks, about 200 lines at most" >&2
awk '/^```/ { code = !code; next } !code && length > 160 { print "README.md:" FNR ": " length " characters"; bad = 1 }
  END { if (NR > 220) { print "README.md: " NR " lines"; bad = 1 } exit bad }' README.md >&2
echo "== deno lint" >&2
"$DENO" lint >&2
echo "== deno fmt --check" >&2
"$DENO" fmt --check >&2
echo "== tsc --noEmit (Bun's types)" >&2
node_modules/.bin/tsc --noEmit -p tsconfig.json >&2
echo "== zig build ring-test (the launch ring under ThreadSanitizer)" >&2
build_native ring-test
echo "== zig build cross (linux x64/arm64, macOS arm64/x64, Windows x64)" >&2
build_native cross
echo "checks passed" >&2
