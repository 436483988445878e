#!/usr/bin/env bash
# Builds the native shim into native/zig-out (installing Zig and the npm tools if missing).
source "$(dirname "$0")/env.sh"
build_native "$@"
echo "built: $(ls native/zig-out/lib/ 2>/dev/null | tr '\n' ' ')"
