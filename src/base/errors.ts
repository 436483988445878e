/** TensorError: every failure a user can cause or meet comes out as one of these. */
const PT_ELOST = -8, PT_EKERNEL = -6;
/** How the shim prefixes a kernel's report: the call that saw it, the device, the kernel (and the Vulkan device's name). */
const KERNEL_PREFIX = /^pt_\w+ on (\w+) device (\d+): \w+(?: on \w+ \((?:[^()]|\([^()]*\))*\))?: /;
let lostHook: (() => void) | null = null;

/** device.ts: called whenever a failure says a device's context was lost (PT_ELOST). */
export function onContextLost(hook: () => void): void {
  lostHook = hook;
}

/**
 * An op's name, or a fused node that builds its name ("add, mul (fused)") when asked: hot
 * paths pass the node, so that only an error pays for the string.
 */
export type OpName = string | { readonly ops: string };
export function opName(op: OpName): string {
  return typeof op === "string" ? op : op.ops;
}

/**
 * The one error type of the library: every failure a user can cause or meet (bad shapes, dtypes, axes, indices,
 * disposed tensors, unknown devices, out of memory, kernel faults, a lost device) is a TensorError whose message
 * starts with the operation's name and says what was wrong. It stands for PyTorch's RuntimeError, ValueError,
 * IndexError and TypeError alike.
 *
 * @example
 * try {
 *   pt.ones([2, 3]).matmul(pt.ones([2, 3]));
 * } catch (e) {
 *   if (e instanceof pt.TensorError) console.log(e.op, e.message); // "matmul", "matmul: ..."
 * }
 */
export class TensorError extends Error {
  /** The operation that failed, e.g. "add" or "buffer_alloc". */
  readonly op: string;
  /** The native status code when the failure came from the shim, else 0. */
  readonly status: number;
  /**
   * @internal Made by the library.
   * @param op the failing operation (its name, or a fused node that names its ops)
   * @param message what was wrong, without the operation's name
   * @param status the shim's status code, or 0
   */
  constructor(op: OpName, message: string, status = 0) {
    const name = opName(op);
    if (status === PT_EKERNEL) { // say what was wrong in the user's terms, not which shim call and kernel saw it
      const m = KERNEL_PREFIX.exec(message);
      if (m !== null) message = `${message.slice(m[0].length)} (on ${m[1]}:${m[2]})`;
    }
    super(`${name}: ${message}`);
    this.name = "TensorError";
    this.op = name;
    this.status = status;
    if (status === PT_ELOST) lostHook?.();
  }
}

/**
 * Runs fn, renaming a TensorError raised by a tensor's own liveness check (op "tensor")
 * to the operation that used the tensor, so "add: this tensor was disposed" names add.
 */
export function withOp<T>(op: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw underOp(op, e);
  }
}

/** e, renamed to `op` as withOp does (for hot paths that catch without a closure). */
export function underOp(op: OpName, e: unknown): unknown {
  if (e instanceof TensorError && e.op === "tensor" && opName(op) !== "tensor") {
    return new TensorError(op, e.message.slice("tensor: ".length), e.status);
  }
  return e;
}
