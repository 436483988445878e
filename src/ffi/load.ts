/**
 * Finds and opens the native shim once per process (per Worker), trying in order:
 *   1. PT_LIBRARY, the path of a shim built elsewhere;
 *   2. native/zig-out, what `zig build` made in this checkout;
 *   3. the prebuilt platform package (polytensor-<os>-<cpu>, an optional dependency of the npm
 *      package) installed beside this one: node_modules/ or Deno's npm cache.
 * Everything above imports `native` from here.
 */
import type { NativeLibrary, RuntimeAdapter } from "./symbols.ts";
import { denoAdapter } from "./deno.ts";
import { bunAdapter, type BunFfiModule } from "./bun.ts";

type Platform = "linux" | "darwin" | "windows";

async function makeAdapter(): Promise<{ adapter: RuntimeAdapter; platform: Platform; arch: string }> {
  const g = globalThis as Record<string, unknown>;
  if (g.Bun !== undefined) {
    // Non-literal specifiers keep Deno's type-checker from resolving Bun's modules.
    const spec = { ffi: "bun:ffi", fs: "node:fs", proc: "node:process" };
    const ffi = await import(spec.ffi) as BunFfiModule;
    const fs = await import(spec.fs);
    const proc = (await import(spec.proc)).default;
    const p = proc.platform as string;
    const platform: Platform = p === "win32" ? "windows" : p === "darwin" ? "darwin" : "linux";
    return { adapter: bunAdapter(ffi, g.Bun as never, fs, proc), platform, arch: proc.arch as string };
  }
  if (g.Deno !== undefined) {
    const deno = g.Deno as { build: { os: string; arch: string } };
    const { os, arch } = deno.build;
    const platform: Platform = os === "windows" ? "windows" : os === "darwin" ? "darwin" : "linux";
    return { adapter: denoAdapter(g.Deno as never), platform, arch: arch === "x86_64" ? "x64" : arch === "aarch64" ? "arm64" : arch };
  }
  throw new Error("polytensor runs under Deno or Bun; this runtime has neither Deno.dlopen nor bun:ffi");
}

const { adapter, platform, arch } = await makeAdapter();

const npmOs = platform === "windows" ? "win32" : platform; // npm's name for the OS, as in package.json "os"
const fileName = platform === "windows" ? "polytensor.dll" : platform === "darwin" ? "libpolytensor.dylib" : "libpolytensor.so";
const builtFile = `native/zig-out/${platform === "windows" ? "bin" : "lib"}/${fileName}`; // zig build puts a DLL in bin/
/** The prebuilt shim for this machine, e.g. polytensor-linux-x64, holding lib/<fileName>. */
const platformPackage = `polytensor-${npmOs}-${arch}`;

/** A path relative to this module (<package>/src/ffi/), as the runtime's file functions want it. */
function here(relative: string): string {
  const p = decodeURIComponent(new URL(relative, import.meta.url).pathname);
  return platform === "windows" ? p.replace(/^\/([A-Za-z]:)/, "$1") : p;
}

function findLibrary(): string {
  const explicit = adapter.env("PT_LIBRARY");
  if (explicit) {
    if (!adapter.exists(explicit)) throw new Error(`polytensor: PT_LIBRARY=${explicit} does not exist`);
    return explicit;
  }
  const built = here(`../../${builtFile}`);
  if (adapter.exists(built)) return built;
  const version = here("../..").split("/").filter(Boolean).pop(); // the platform package's too
  const installed = [
    here(`../../../${platformPackage}/lib/${fileName}`), // node_modules/polytensor beside node_modules/<pkg>
    here(`../../node_modules/${platformPackage}/lib/${fileName}`), // nested in polytensor/node_modules
    here(`../../../../${platformPackage}/${version}/lib/${fileName}`), // Deno's npm cache: <registry>/<name>/<version>/
  ];
  const found = installed.find((p) => adapter.exists(p));
  if (found) return found;
  throw new Error(
    `polytensor: no native library for ${npmOs} ${arch}. Looked at PT_LIBRARY (unset), then ${built}, then for the platform ` +
      `package ${platformPackage} for ${npmOs} ${arch} (${installed.join(", ")}). Prebuilt packages exist for linux-x64 and ` +
      "linux-arm64 (glibc), darwin-arm64, darwin-x64 and win32-x64, as optional dependencies of polytensor (an install with " +
      "--omit=optional skips them). To build from source, with Zig 0.15.2: `zig build` in a polytensor checkout (or " +
      `\`bash scripts/build.sh\`, which fetches Zig from PyPI), then set PT_LIBRARY=<checkout>/${builtFile}.`,
  );
}

export const libraryPath: string = findLibrary();
export const native: NativeLibrary = adapter.open(libraryPath);
export const runtime: RuntimeAdapter = adapter;
