# Sourced by the other scripts: finds or installs what the project needs (Deno and Bun
# from npm, Zig 0.15.2 from PATH or from PyPI's ziglang package) and exports ZIG, DENO, BUN.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
ZIG_VERSION=0.15.2

# PT_SKIP_SETUP=1 (the GPU machine: no network, no Zig) uses the runtimes on PATH and the
# shim already built in native/zig-out.
if [ "${PT_SKIP_SETUP:-0}" = 1 ]; then
  DENO=$(command -v deno || true) BUN=$(command -v bun || true)
  export DENO BUN ROOT
  build_native() { :; }
  ensure_lavapipe() { :; }
  return 0
fi

# Every devDependency of package.json must be installed (the examples' image codecs too).
missing=0
for dep in $(sed -n '/"devDependencies"/,/}/s/^ *"\([^"]*\)": "[^"]*",*$/\1/p' package.json); do
  [ -d "node_modules/$dep" ] || missing=1
done
if [ "$missing" = 1 ] || [ ! -x node_modules/.bin/deno ] || [ ! -x node_modules/.bin/bun ]; then
  echo "setup: npm install (Deno, Bun, TypeScript, tinybench, the examples' image codecs)" >&2
  npm install --no-audit --no-fund --loglevel=error >&2
fi
DENO="$ROOT/node_modules/.bin/deno"
BUN="$ROOT/node_modules/.bin/bun"

find_zig() {
  if command -v zig >/dev/null 2>&1 && [ "$(zig version 2>/dev/null)" = "$ZIG_VERSION" ]; then
    ZIG=(zig); return 0
  fi
  if python3 -m ziglang version 2>/dev/null | grep -qx "$ZIG_VERSION"; then
    ZIG=(python3 -m ziglang); return 0
  fi
  return 1
}
if ! find_zig; then
  if command -v zig >/dev/null 2>&1; then
    echo "setup: found zig $(zig version) on PATH, but polytensor pins Zig $ZIG_VERSION; installing ziglang==$ZIG_VERSION from PyPI" >&2
  else
    echo "setup: installing Zig $ZIG_VERSION (PyPI package ziglang)" >&2
  fi
  python3 -m pip install --quiet "ziglang==$ZIG_VERSION" 2>/dev/null ||
    python3 -m pip install --quiet --user --break-system-packages "ziglang==$ZIG_VERSION" >&2
  find_zig || { echo "setup: could not install Zig $ZIG_VERSION" >&2; exit 1; }
fi
export DENO BUN ROOT

build_native() {
  "${ZIG[@]}" build "$@" >&2
}

# Vulkan on the CPU for CI: Debian's lavapipe (mesa-vulkan-drivers), the
# loader, and a GLSL compiler (libshaderc1; Debian 12's fails to load, so glslang-tools too).
ensure_lavapipe() {
  if ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 && command -v glslangValidator >/dev/null 2>&1; then return 0; fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
  if ! command -v apt-get >/dev/null 2>&1; then echo "setup: no apt-get: install lavapipe and glslang yourself" >&2; return 1; fi
  echo "setup: apt-get install mesa-vulkan-drivers libvulkan1 libshaderc1 glslang-tools (lavapipe)" >&2
  $sudo apt-get update -qq >&2 || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq mesa-vulkan-drivers libvulkan1 libshaderc1 glslang-tools >&2
}

