/**
 * In-place writes: a tensor's own storage overwritten with new values, so that every view
 * of it sees them (as PyTorch's `copy_`, `add_`, ... and its optimizers' updates do).
 * Every op elsewhere makes a new tensor; these are the only writes into an existing one.
 *
 * Ordering. A pending (lazy) result that reads the storage was recorded to see the old
 * values, so it is launched before the write (lazy/deferred.ts runReadersOf); the write is
 * then queued after it, in program order. A pending value is written by its own fused
 * kernel straight into the target when it reads the target only elementwise at the same
 * place (p - lr * g into p, say); otherwise it is computed first and copied. Each write
 * bumps its storage's version, which the autograd graph compares with the version it saved.
 */
import { TensorError, withOp } from "../base/errors.ts";
import { runReadersOf } from "../lazy/deferred.ts";
import { sameShape } from "../base/shape.ts";
import { Tensor, type TensorLike } from "./tensor.ts";
import { DTYPES } from "../base/dtype.ts";
import * as ew from "./elementwise.ts";
import * as mv from "./movement.ts";
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";

/** In-place writes per buffer handle; a handle not in the map was never written in place. */
const versions = new Map<number, number>();

/** How many in-place writes buffer `buf` has had. */
export function bufferVersion(buf: number): number {
  return versions.get(buf) ?? 0;
}

/** Whether a pending value's kernel may write dst while reading it: every leaf on dst's buffer is dst's own view. */
function writesSafely(dst: Tensor, value: Tensor): boolean {
  const node = value.deferred!;
  if (node.handles !== 1 || node.dtype !== dst.dtype || !sameShape(node.shape, dst.shape)) return false;
  for (const l of node.leaves) {
    if (l.buf !== dst.buf) continue;
    if (l.offset !== dst.offset || l.dtype !== dst.dtype || l.strides.some((s, i) => s !== dst.strides[i] && dst.shape[i] !== 1)) {
      return false;
    }
  }
  return true;
}

/**
 * Overwrites dst's elements with value's (same shape; value is cast to dst's dtype) and
 * disposes value when `owned`. Pending readers of dst's storage run first.
 */
export function writeInto(dst: Tensor, value: Tensor, op: string, owned: boolean): void {
  try {
    if (!sameShape(dst.shape, value.shape)) {
      throw new TensorError(op, `cannot write a tensor of shape [${value.shape}] into one of shape [${dst.shape}]`);
    }
    if (dst.device !== value.device) throw new TensorError(op, `the value is on ${value.device.id}, the tensor on ${dst.device.id}`);
    const pending = dst.deferred;
    if (pending !== null && pending.buffer === 0 && (pending.viewOf !== null || pending.hasPendingViews)) {
      throw new TensorError(
        op,
        "this tensor is a view of a pending (lazy) result, or has pending views, which do not share its memory until it runs; " +
          "call materialize() on the result before making the views you write through",
      );
    }
    const buf = dst.buf; // materializes a pending dst first
    const node = value.isDeferred ? value.deferred! : null;
    runReadersOf(buf, node);
    if (node !== null && owned && writesSafely(dst, value)) node.runInto(dst, op);
    else ew.copyInto(dst, value, op);
    versions.set(buf, bufferVersion(buf) + 1);
  } finally {
    if (owned) value.dispose();
  }
}

/** src broadcast to shape (a view), or a TensorError in op's terms. */
export function broadcastTo(src: Tensor, shape: readonly number[], op: string): Tensor {
  try {
    return mv.expand(src, shape);
  } catch {
    throw new TensorError(op, `a tensor of shape [${src.shape}] does not broadcast to this tensor's shape [${shape}]`);
  }
}

/** other * alpha for add_/sub_ (a JS scalar stays a scalar). */
export function scaled(other: TensorLike, alpha: number): TensorLike {
  if (other instanceof Tensor) return ew.binary("mul", other, alpha);
  return Number(other) * alpha;
}

/**
 * Writes value() into t: refused while gradients are recorded for t or an operand (autograd does not track in-place
 * changes; optimizers write under noGrad); the value must keep t's dtype kind (a float sum is not stored into an int).
 */
export function inPlace<T extends Tensor>(t: T, op: string, value: () => Tensor, ...operands: unknown[]): T {
  if (gradEnabled && (t.requiresGrad || operands.some(wantsGrad))) {
    throw new TensorError(
      op,
      "an in-place write to a tensor that requires gradients is not recorded by autograd; write under pt.noGrad(() => ...) " +
        "(as optimizers do), or use the out-of-place op",
    );
  }
  const v = withOp(op, value);
  if (DTYPES[v.dtype].category > DTYPES[t.dtype].category) {
    v.dispose();
    throw new TensorError(op, `the result is ${v.dtype} and cannot be stored in this ${t.dtype} tensor`);
  }
  writeInto(t, v, op, true);
  return t;
}
