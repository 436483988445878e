#!/usr/bin/env bash
# The demo command: builds the shim if needed, then runs examples/kmeans.ts under Deno
# (PT_RUNTIME=bun runs it under Bun).
source "$(dirname "$0")/env.sh"
build_native
if [ "${PT_RUNTIME:-deno}" = bun ]; then exec "$BUN" examples/kmeans.ts; fi
exec "$DENO" run --allow-all examples/kmeans.ts
