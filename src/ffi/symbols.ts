/**
 * The one FFI symbol table, declared in neutral types and adapted to Deno.dlopen and
 * bun:ffi by deno.ts and bun.ts. It mirrors native/include/polytensor.h line for line:
 * the two must change together. Only 32-bit integers, doubles and buffers cross the
 * boundary: a JS number in a 64-bit slot is many times slower to pass (docs/architecture.md, FFI boundary).
 */
export type ArgType = "i32" | "f64" | "buf" | "ptr";
export type ResultType = "i32" | "f64" | "ptr";

function fn<const A extends readonly ArgType[], const R extends ResultType>(args: A, result: R) {
  return { args, result };
}

export const symbols = {
  pt_abi_version: fn([], "i32"),
  pt_last_error: fn(["buf", "i32"], "i32"),
  pt_backend_count: fn([], "i32"),
  pt_backend_name: fn(["i32", "buf", "i32"], "i32"),
  pt_device_count: fn(["i32"], "i32"),
  pt_device_name: fn(["i32", "i32", "buf", "i32"], "i32"),
  pt_device_info: fn(["i32", "i32", "buf"], "i32"),
  pt_device_language: fn(["i32", "i32", "buf", "i32"], "i32"),
  pt_device_open: fn(["i32", "i32"], "i32"),
  pt_device_close: fn(["i32"], "i32"),
  pt_device_queue: fn(["i32"], "i32"),
  pt_device_sync: fn(["i32"], "i32"),
  pt_device_has: fn(["i32", "buf", "i32"], "i32"),
  pt_device_lost: fn(["i32"], "i32"),
  pt_buffer_alloc: fn(["i32", "f64"], "i32"),
  pt_buffer_wrap: fn(["i32", "buf", "f64"], "i32"),
  pt_buffer_retain: fn(["i32"], "i32"),
  pt_buffer_release: fn(["i32"], "i32"),
  pt_buffer_size: fn(["i32"], "f64"),
  pt_buffer_host: fn(["i32"], "ptr"),
  pt_buffer_write: fn(["i32", "i32", "f64", "buf", "f64"], "i32"),
  pt_buffer_read: fn(["i32", "i32", "f64", "buf", "f64"], "i32"),
  pt_buffer_copy: fn(["i32", "i32", "f64", "i32", "f64", "f64"], "i32"),
  pt_memory_stats: fn(["i32", "buf"], "i32"),
  pt_memory_trim: fn(["i32"], "i32"),
  pt_live_bytes: fn([], "f64"),
  pt_live_handles: fn([], "i32"),
  pt_program_create: fn(["i32", "buf", "i32", "buf", "i32"], "i32"),
  pt_program_create_layout: fn(["i32", "buf", "i32", "buf", "i32", "i32"], "i32"),
  pt_program_free: fn(["i32"], "i32"),
  pt_launch: fn(["i32", "i32", "buf", "i32"], "i32"),
  pt_capture_begin: fn(["i32"], "i32"),
  pt_capture_end: fn(["i32"], "i32"),
  pt_graph_launch: fn(["i32", "i32"], "i32"),
  pt_graph_free: fn(["i32"], "i32"),
  pt_queue_create: fn(["i32"], "i32"),
  pt_queue_flush: fn(["i32"], "i32"),
  pt_queue_free: fn(["i32"], "i32"),
  pt_queue_wait_fence: fn(["i32", "i32"], "i32"),
  pt_queue_wait_buffer: fn(["i32", "i32"], "i32"),
  pt_fence_record: fn(["i32"], "i32"),
  pt_fence_query: fn(["i32"], "i32"),
  pt_fence_wait: fn(["i32"], "i32"),
  pt_fence_elapsed_ms: fn(["i32", "i32"], "f64"),
  pt_fence_free: fn(["i32"], "i32"),
} as const;

export type Symbols = typeof symbols;

/** An address returned by native code; opaque to everything but the adapter that made it. */
export type NativePointer = { readonly __nativePointer: unique symbol } | null;

type ArgValue<T extends ArgType> = T extends "buf" ? ArrayBufferView
  : T extends "ptr" ? NativePointer
  : number;
type ResultValue<T extends ResultType> = T extends "ptr" ? NativePointer : number;
type Args<A extends readonly ArgType[]> = { [K in keyof A]: ArgValue<A[K]> };

/** The bound library: one typed function per symbol. */
export type NativeLibrary = {
  [K in keyof Symbols]: (...args: Args<Symbols[K]["args"]>) => ResultValue<Symbols[K]["result"]>;
};

/** What each runtime adapter provides besides the functions. */
export interface RuntimeAdapter {
  readonly runtime: "deno" | "bun";
  open(path: string): NativeLibrary;
  /** An ArrayBuffer over native memory, without a copy; valid while the memory lives. */
  view(pointer: NativePointer, bytes: number): ArrayBuffer;
  env(name: string): string | undefined;
  exists(path: string): boolean;
  onExit(fn: () => void): void;
  /** Forces a full garbage collection where the runtime allows it (tests only). */
  gc(): boolean;
}
