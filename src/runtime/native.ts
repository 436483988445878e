/**
 * Thin checked access to the shim: status codes become TensorErrors carrying the shim's
 * own message (backend, device, handle, driver code). Scratch buffers are reused because
 * every call here is synchronous and none keeps a pointer after it returns.
 */
import { native, runtime } from "../ffi/load.ts";
import { type OpName, TensorError } from "../base/errors.ts";

export { native, runtime };

const messageBuf = new Uint8Array(4096);
const decoder = new TextDecoder();
const encoder = new TextEncoder();

export const statusName: Record<number, string> = {
  [-1]: "invalid argument",
  [-2]: "bad handle",
  [-3]: "unavailable",
  [-4]: "out of memory",
  [-5]: "driver error",
  [-6]: "kernel error",
  [-7]: "unsupported",
  [-8]: "context lost",
};

export function lastError(): string {
  const n = native.pt_last_error(messageBuf, messageBuf.length);
  return decoder.decode(messageBuf.subarray(0, Math.min(n, messageBuf.length)));
}

/** Returns a non-negative result, or throws the shim's error for `op`. */
export function check(result: number, op: OpName): number {
  if (result >= 0) return result;
  const msg = lastError() || statusName[result] || `status ${result}`;
  throw new TensorError(op, msg, result);
}

export function utf8(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Calls a native function that copies a string into a buffer and returns its length. */
export function readString(call: (buf: Uint8Array, cap: number) => number): string {
  const n = call(messageBuf, messageBuf.length);
  if (n < 0) return "";
  return decoder.decode(messageBuf.subarray(0, Math.min(n, messageBuf.length)));
}

/**
 * Exact bytes of every live buffer on every device (what memoryStats().inUse counts rounded up to the allocator's
 * buckets); a leak shows as a number that keeps growing. No device is opened.
 */
export function liveBytes(): number {
  return native.pt_live_bytes();
}
