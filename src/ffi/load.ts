/**
 * Finds and opens the native shim once per process (per Worker): PT_LIBRARY first, then
 * the build output next to this checkout. Everything above imports `native` from here.
 */
import type { NativeLibrary, RuntimeAdapter } from "./symbols.ts";
import { denoAdapter } from "./deno.ts";
import { bunAdapter, type BunFfiModule } from "./bun.ts";

type Platform = "linux" | "darwin" | "windows";

async function makeAdapter(): Promise<{ adapter: RuntimeAdapter; platform: Platform }> {
  const g = globalThis as Record<string, unknown>;
  if (g.Bun !== undefined) {
    // Non-literal specifiers keep Deno's type-checker from resolving Bun's modules.
    const spec = { ffi: "bun:ffi", fs: "node:fs", proc: "node:process" };
    const ffi = await import(spec.ffi) as BunFfiModule;
    const fs = await import(spec.fs);
    const proc = (await import(spec.proc)).default;
    const p = proc.platform as string;
    const platform: Platform = p === "win32" ? "windows" : p === "darwin" ? "darwin" : "linux";
    return { adapter: bunAdapter(ffi, g.Bun as never, fs, proc), platform };
  }
  if (g.Deno !== undefined) {
    const deno = g.Deno as { build: { os: string } };
    const os = deno.build.os;
    const platform: Platform = os === "windows" ? "windows" : os === "darwin" ? "darwin" : "linux";
    return { adapter: denoAdapter(g.Deno as never), platform };
  }
  throw new Error("polytensor runs under Deno or Bun; this runtime has neither Deno.dlopen nor bun:ffi");
}

function libraryName(platform: Platform): string {
  return platform === "windows" ? "bin/polytensor.dll" : platform === "darwin" ? "lib/libpolytensor.dylib" : "lib/libpolytensor.so";
}

function toPath(url: URL, platform: Platform): string {
  const p = decodeURIComponent(url.pathname);
  return platform === "windows" ? p.replace(/^\/([A-Za-z]:)/, "$1") : p;
}

const { adapter, platform } = await makeAdapter();

function findLibrary(): string {
  const explicit = adapter.env("PT_LIBRARY");
  if (explicit) {
    if (!adapter.exists(explicit)) throw new Error(`polytensor: PT_LIBRARY=${explicit} does not exist`);
    return explicit;
  }
  const built = toPath(new URL(`../../native/zig-out/${libraryName(platform)}`, import.meta.url), platform);
  if (adapter.exists(built)) return built;
  throw new Error(
    `polytensor: the native library was not found (looked at PT_LIBRARY, then ${built}). ` +
      "Build it with `bash scripts/build.sh` (or `zig build` with Zig 0.15) from the repository root.",
  );
}

export const libraryPath: string = findLibrary();
export const native: NativeLibrary = adapter.open(libraryPath);
export const runtime: RuntimeAdapter = adapter;
