#!/usr/bin/env bash
# The packaging check (issue #8), run by CI; all output goes to stderr. In a temporary folder
# outside the checkout, with no Zig reachable (PATH holds only node, npm, bun, deno, and `zig`
# and `python3` stubs that fail):
#   1. scripts/pack.sh packs every package (the main one and all five platforms);
#   2. npm installs the main and the linux-x64 tarballs into a fresh project; a script imports
#      polytensor, computes tensor([1,2,3]).add(1) on the CPU and checks [2,3,4] and that the shim
#      came from node_modules/polytensor-linux-x64: under Bun (`polytensor`) and under Deno
#      (`npm:polytensor` over node_modules); without the platform package, the error names it;
#   3. the same from a local registry serving the tarballs, as users install it: `bun add
#      polytensor`, then `npm:polytensor` under Deno from its own npm cache (no node_modules).
# Leaves nothing in the checkout but the zig build cache.
source "$(dirname "$0")/env.sh"
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || { echo "package test: runs on linux x64 only" >&2; exit 1; }
tmp=$(mktemp -d)
registry_pid=
cleanup() {
  [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
exec 1>&2 # everything to stderr
start=$SECONDS

echo "== package test: pack" >&2
PT_STAGE="$tmp/stage" bash scripts/pack.sh "$tmp/dist"
version=$(node -p 'require("./package.json").version')
for p in polytensor polytensor-{linux-x64,linux-arm64,darwin-arm64,darwin-x64,win32-x64}; do
  [ -f "$tmp/dist/$p-$version.tgz" ] || { echo "FAIL: no tarball for $p" >&2; exit 1; }
done

# A PATH without Zig: the tools we need, and stubs that fail if anything tries to build.
mkdir -p "$tmp/bin"
ln -s "$(command -v node)" "$tmp/bin/node"
ln -s "$(command -v npm)" "$tmp/bin/npm"
ln -s "$BUN" "$tmp/bin/bun"
ln -s "$DENO" "$tmp/bin/deno"
for stub in zig python3; do
  printf '#!/bin/sh\necho "package test: %s was called; an installed polytensor must not build anything" >&2\nexit 97\n' "$stub" >"$tmp/bin/$stub"
  chmod +x "$tmp/bin/$stub"
done
isolated() { # runs a command with no Zig, no PT_LIBRARY, the CPU device and caches in $tmp
  env -u PT_LIBRARY PATH="$tmp/bin:/usr/bin:/bin" HOME="$tmp/home" PT_DEVICE=cpu DENO_DIR="$tmp/deno" \
    BUN_INSTALL_CACHE_DIR="$tmp/bun-cache" npm_config_cache="$tmp/npm-cache" npm_config_update_notifier=false "$@"
}
if isolated sh -c 'zig version' >/dev/null 2>&1; then echo "FAIL: zig is reachable" >&2; exit 1; fi

# check.ts SPECIFIER: the script both runtimes run.
check_script() {
  cat <<EOF
import * as pt from "$1";
import { readFileSync } from "node:fs";
const x = pt.tensor([1, 2, 3]).add(1);
const got = Array.from(x.toArray() as Float32Array);
const shim = readFileSync("/proc/self/maps", "utf8").split("\n").map((l) => l.split(/\s+/)[5]).find((p) => p?.endsWith("/libpolytensor.so"));
console.log(\`polytensor \${got.join(",")} on \${x.device} from \${shim}\`);
if (got.join(",") !== "2,3,4") throw new Error(\`tensor([1,2,3]).add(1) gave [\${got}]\`);
if (String(x.device) !== "cpu:0") throw new Error(\`ran on \${x.device}, not the CPU\`);
if (!shim?.includes("/polytensor-linux-x64/")) throw new Error(\`the shim came from \${shim}, not the platform package\`);
EOF
}

echo "== package test: npm install of the two tarballs, run under Bun and Deno" >&2
proj="$tmp/project"
mkdir -p "$proj" "$tmp/home"
echo '{ "name": "polytensor-package-test", "private": true, "type": "module" }' >"$proj/package.json"
check_script polytensor >"$proj/check.ts"
check_script npm:polytensor >"$proj/check_deno.ts"
(cd "$proj" && isolated npm install --offline --no-audit --no-fund --loglevel=error \
  "$tmp/dist/polytensor-$version.tgz" "$tmp/dist/polytensor-linux-x64-$version.tgz")
(cd "$proj" && isolated bun run check.ts)
(cd "$proj" && isolated deno run --allow-all --node-modules-dir=manual check_deno.ts)

echo "== package test: without the platform package, the error names it" >&2
mv "$proj/node_modules/polytensor-linux-x64" "$tmp/hidden"
set +e
(cd "$proj" && isolated deno run --allow-all --node-modules-dir=manual check_deno.ts) >"$tmp/err.txt" 2>&1
rc=$?
set -e
mv "$tmp/hidden" "$proj/node_modules/polytensor-linux-x64"
if [ "$rc" -eq 0 ] || ! grep -q "polytensor-linux-x64 for linux x64" "$tmp/err.txt" || ! grep -q "zig build" "$tmp/err.txt"; then
  echo "FAIL: expected an error naming polytensor-linux-x64 for linux x64 and zig build; got (rc $rc):" >&2
  cat "$tmp/err.txt" >&2
  exit 1
fi
echo "error as expected: $(grep -o 'no native library for linux x64' "$tmp/err.txt" | head -1)" >&2

echo "== package test: from a local registry: bun add polytensor; deno run npm:polytensor" >&2
node scripts/local_registry.mjs "$tmp/dist" >"$tmp/registry.url" &
registry_pid=$!
for _ in $(seq 50); do [ -s "$tmp/registry.url" ] && break; sleep 0.1; done
registry=$(cat "$tmp/registry.url")
[ -n "$registry" ] || { echo "FAIL: the local registry did not start" >&2; exit 1; }
mkdir -p "$tmp/bun-project" "$tmp/deno-project"
echo '{ "name": "polytensor-bun-add", "private": true, "type": "module" }' >"$tmp/bun-project/package.json"
check_script polytensor >"$tmp/bun-project/check.ts"
(cd "$tmp/bun-project" && isolated env NPM_CONFIG_REGISTRY="$registry" bun add polytensor)
[ ! -e "$tmp/bun-project/node_modules/polytensor-darwin-arm64" ] || { echo "FAIL: bun installed another platform's package" >&2; exit 1; }
(cd "$tmp/bun-project" && isolated bun run check.ts)
check_script npm:polytensor >"$tmp/deno-project/check.ts"
(cd "$tmp/deno-project" && isolated env NPM_CONFIG_REGISTRY="$registry" deno run --allow-all check.ts)

echo "package test passed in $((SECONDS - start))s: packed main + 5 platforms; ran under Bun and Deno without Zig" >&2
