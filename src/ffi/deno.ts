/** The Deno adapter: Deno.dlopen over the neutral symbol table. */
import { type ArgType, type NativeLibrary, type NativePointer, type ResultType, type RuntimeAdapter, symbols } from "./symbols.ts";

// Declared locally so that the Bun-typed `tsc` pass needs no Deno types.
interface DenoFfi {
  dlopen(path: string, defs: Record<string, { parameters: string[]; result: string }>): { symbols: Record<string, unknown> };
  UnsafePointerView: { getArrayBuffer(pointer: unknown, bytes: number): ArrayBuffer };
  env: { get(name: string): string | undefined };
  statSync(path: string): unknown;
  addSignalListener?: unknown;
}

const denoType: Record<ArgType | ResultType, string> = { i32: "i32", f64: "f64", buf: "buffer", ptr: "pointer" };

export function denoAdapter(deno: DenoFfi): RuntimeAdapter {
  return {
    runtime: "deno",
    open(path) {
      const defs: Record<string, { parameters: string[]; result: string }> = {};
      for (const [name, s] of Object.entries(symbols)) {
        defs[name] = { parameters: s.args.map((a) => denoType[a]), result: denoType[s.result] };
      }
      return deno.dlopen(path, defs).symbols as unknown as NativeLibrary;
    },
    view(pointer: NativePointer, bytes: number) {
      if (bytes === 0) return new ArrayBuffer(0);
      return deno.UnsafePointerView.getArrayBuffer(pointer, bytes);
    },
    env(name) {
      try {
        return deno.env.get(name);
      } catch {
        return undefined; // no --allow-env: behave as if unset
      }
    },
    exists(path) {
      try {
        deno.statSync(path);
        return true;
      } catch {
        return false;
      }
    },
    onExit(fn) {
      globalThis.addEventListener("unload", fn);
    },
    gc() {
      const g = (globalThis as { gc?: () => void }).gc;
      if (!g) return false;
      g();
      return true;
    },
  };
}
