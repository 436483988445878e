/** The Bun adapter: bun:ffi over the neutral symbol table. */
import { type ArgType, type NativeLibrary, type NativePointer, type ResultType, type RuntimeAdapter, symbols } from "./symbols.ts";

// The few parts of bun:ffi, Bun and node:process used here, declared locally so that the
// Deno type-check needs no Bun types.
export interface BunFfiModule {
  dlopen(path: string, defs: Record<string, { args: string[]; returns: string }>): { symbols: Record<string, unknown> };
  toArrayBuffer(pointer: number, offset: number, bytes: number): ArrayBuffer;
}
interface BunGlobal {
  /** False inside a Worker. */
  isMainThread?: boolean;
  gc(force: boolean): void;
  env: Record<string, string | undefined>;
  file(path: string): { size: number };
}
interface NodeFs {
  existsSync(path: string): boolean;
}
interface NodeProcess {
  on(event: "exit", fn: () => void): void;
}

const bunType: Record<ArgType | ResultType, string> = { i32: "i32", f64: "f64", buf: "ptr", ptr: "ptr" };

export function bunAdapter(ffi: BunFfiModule, bun: BunGlobal, fs: NodeFs, proc: NodeProcess): RuntimeAdapter {
  return {
    runtime: "bun",
    open(path) {
      const defs: Record<string, { args: string[]; returns: string }> = {};
      for (const [name, s] of Object.entries(symbols)) {
        defs[name] = { args: s.args.map((a) => bunType[a]), returns: bunType[s.result] };
      }
      return ffi.dlopen(path, defs).symbols as unknown as NativeLibrary;
    },
    view(pointer: NativePointer, bytes: number) {
      if (bytes === 0) return new ArrayBuffer(0);
      return ffi.toArrayBuffer(pointer as unknown as number, 0, bytes);
    },
    env: (name) => bun.env[name],
    exists: (path) => fs.existsSync(path),
    onExit(fn) {
      // A Worker's process "exit" fires when the Worker ends, but the devices it opened are
      // the process's (the main thread's too): only the main thread frees them at exit.
      if (bun.isMainThread === false) return;
      proc.on("exit", fn);
    },
    gc() {
      bun.gc(true);
      return true;
    },
  };
}
