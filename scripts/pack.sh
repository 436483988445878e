#!/usr/bin/env bash
# Builds every npm package of polytensor as an `npm pack` tarball in OUT (default dist/):
#   polytensor-<version>.tgz                   the main package: mod.ts and src/ for Bun, the same
#                                              compiled to JS by tsc for Deno (which runs no
#                                              TypeScript from npm packages), types/*.d.ts
#   polytensor-<platform>-<version>.tgz        the prebuilt shim in lib/, one per platform:
#                                              linux-x64 linux-arm64 (glibc) darwin-arm64 darwin-x64 win32-x64
# The main package names the platform packages as optionalDependencies (written into its
# packed package.json only, so that `npm install` in this checkout never looks for them), and
# npm, Bun and Deno install the one whose "os"/"cpu"/"libc" match. Each package is laid out
# in npm/<name>/ first (generated, git-ignored; PT_STAGE=DIR puts them elsewhere).
#   bash scripts/pack.sh [OUT]
set -euo pipefail
abs() { mkdir -p "$1" && (cd "$1" && pwd); }
OUT=$(abs "${1:-$(dirname "$0")/../dist}")
STAGE=$(abs "${PT_STAGE:-$(dirname "$0")/../npm}")
source "$(dirname "$0")/env.sh"
VERSION=$(node -p 'require("./package.json").version')

echo "== zig build cross (the shim for every platform, baseline CPU)" >&2
build_native cross

# platform  zig triple  os  cpu  library file
PLATFORMS=(
  "linux-x64    x86_64-linux-gnu    linux  x64   libpolytensor.so"
  "linux-arm64  aarch64-linux-gnu   linux  arm64 libpolytensor.so"
  "darwin-arm64 aarch64-macos       darwin arm64 libpolytensor.dylib"
  "darwin-x64   x86_64-macos        darwin x64   libpolytensor.dylib"
  "win32-x64    x86_64-windows-gnu  win32  x64   polytensor.dll"
)

pack() { # pack DIR: npm pack into OUT, echo the tarball's name
  (cd "$1" && npm pack --silent --pack-destination "$OUT") | tail -1
}

optional=()
for row in "${PLATFORMS[@]}"; do
  read -r plat triple os cpu file <<<"$row"
  name="polytensor-$plat" dir="$STAGE/polytensor-$plat"
  rm -rf "$dir" && mkdir -p "$dir/lib"
  cp "native/zig-out/cross/$triple/$file" "$dir/lib/"
  NAME=$name OS=$os CPU=$cpu FILE=$file VERSION=$VERSION node -e '
    const { NAME, OS, CPU, FILE, VERSION } = process.env;
    const pkg = {
      name: NAME,
      version: VERSION,
      description: `The polytensor native shim for ${OS} ${CPU}${OS === "linux" ? " (glibc)" : ""}: lib/${FILE}`,
      license: "MIT",
      os: [OS],
      cpu: [CPU],
      ...(OS === "linux" ? { libc: ["glibc"] } : {}),
      files: ["lib/"],
      preferUnplugged: true,
    };
    require("fs").writeFileSync(process.argv[1], JSON.stringify(pkg, null, 2) + "\n");
  ' "$dir/package.json"
  printf '# %s\n\nThe prebuilt native shim of [polytensor](https://www.npmjs.com/package/polytensor) for %s %s, built by `zig build cross`.\nInstall `polytensor`, not this package: it is an optional dependency of polytensor.\n' \
    "$name" "$os" "$cpu" >"$dir/README.md"
  echo "packed $(pack "$dir")" >&2
  optional+=("$name")
done

# The main package, staged in npm/polytensor: sources, README, package.json plus
# optionalDependencies, and tsc's JS next to each .ts (so relative paths in src/ffi/load.ts
# hold for both) with declarations in types/.
stage=$STAGE/polytensor
rm -rf "$stage" && mkdir -p "$stage"
cp -r mod.ts src README.md "$stage/"
OPTIONAL="${optional[*]}" VERSION=$VERSION node -e '
  const pkg = require("./package.json");
  pkg.optionalDependencies = Object.fromEntries(process.env.OPTIONAL.split(" ").map((n) => [n, process.env.VERSION]));
  require("fs").writeFileSync(process.argv[1], JSON.stringify(pkg, null, 2) + "\n");
' "$stage/package.json"
cat >"$stage/tsconfig.json" <<EOF
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "bundler",
    "lib": ["ESNext"],
    "typeRoots": ["$ROOT/node_modules/@types"],
    "types": ["bun"],
    "strict": true,
    "skipLibCheck": true,
    "rewriteRelativeImportExtensions": true,
    "declaration": true,
    "declarationDir": "types"
  },
  "files": ["mod.ts"]
}
EOF
echo "== tsc: JS and declarations for the main package" >&2
node_modules/.bin/tsc -p "$stage/tsconfig.json" >&2
rm "$stage/tsconfig.json"
# Declarations import each other by their .ts names; name the .js instead, which TypeScript
# maps to the .d.ts beside it (a .ts name would pull in the sources).
find "$stage/types" -name '*.d.ts' -exec sed -i -E '/^ *\*/!s#(from |import\()"(\.\.?/[^"]*)\.ts"#\1"\2.js"#g' {} +
echo "packed $(pack "$stage")" >&2
ls -l "$OUT"/*.tgz >&2
