#!/usr/bin/env bash
# Static checks that CI runs: types under Deno and under Bun's types (tsc), lint, format,
# and the cross-compile of the shim for the other platforms.
source "$(dirname "$0")/env.sh"
echo "== deno check" >&2
"$DENO" check mod.ts examples/ test/ bench/ >&2
echo "== neutrality check (DESIGN.md section 2)" >&2
"$DENO" run --allow-read tools/check_neutral.ts
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
