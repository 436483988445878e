/** The argument check pt.nn's functions share (not part of pt.nn's API). */
import { Tensor } from "../tensor/tensor.ts";
import { TensorError } from "../base/errors.ts";
import { isFloat } from "../base/dtype.ts";
import { describeValue } from "../base/shape.ts";

/** x itself when it is a floating-point tensor, else a TensorError of op naming the argument. */
export function floatTensor(op: string, what: string, x: unknown): Tensor {
  if (!(x instanceof Tensor)) throw new TensorError(op, `${what} must be a Tensor, got ${describeValue(x)}`);
  if (!isFloat(x.dtype)) throw new TensorError(op, `${what} must be a floating-point tensor, got ${x.dtype}; cast it first`);
  return x;
}

/** v when it is a number in [lo, hi], else a TensorError of op naming the argument. */
export function finite(op: string, what: string, v: unknown, lo = -Infinity, hi = Infinity): number {
  if (typeof v !== "number" || !(v >= lo && v <= hi)) {
    throw new TensorError(op, `${what} must be a number in [${lo}, ${hi}], got ${describeValue(v)}`);
  }
  return v;
}
