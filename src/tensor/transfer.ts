/**
 * Moving data between a tensor and the host or another device. Reads make the tensor
 * contiguous (and widen float16/bfloat16 to float32) on its device first, then copy once.
 */
import { TensorError, withOp } from "../base/errors.ts";
import { check, native } from "../runtime/native.ts";
import { type Device, device as resolveDevice } from "../runtime/device.ts";
import { queueFailure, queueFor, whenWritten } from "../runtime/queue.ts";
import { checkDType, type DType, DTYPES, type HostArray, hostArrayFor, hostDType } from "../base/dtype.ts";
import { fmtShape, numel } from "../base/shape.ts";
import { allocTensor, type NestedArray, type Tensor, viewOf } from "./tensor.ts";
import { cast } from "./elementwise.ts";
import { contiguousOp } from "./movement.ts";
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";
import * as grad from "../autograd/movement.ts";

/**
 * Throws when `device` is capturing a step (pt.capture): a step records device work only, so
 * a read or write of host values inside it can never be replayed.
 */
export function noHostAccess(device: Device, op: string, what: "reads" | "writes", why = ""): void {
  if (device.capturing === 0) return;
  const does = what === "reads" ? `reads values back to the host${why}` : "copies host values to the device";
  const fix = what === "reads"
    ? "read the step's results after it returns instead"
    : "make the tensor before the step and pass it in as an input";
  throw new TensorError(op, `${does}, which pt.capture() cannot record (${device.id} is capturing a step); ${fix}`);
}

/** The values as the dtype's host array; `op` is the function the user called (item, toList, ...). */
export function toArray(t: Tensor, op = "toArray"): HostArray {
  withOp(op, () => t.buf);
  noHostAccess(t.device, op, "reads");
  const host = hostDType(t.dtype);
  if (host !== t.dtype) {
    using wide = cast(t, host);
    return toArray(wide, op);
  }
  const c = contiguousOp(t); // a read records no gradient
  try { // not `using`: under Deno (V8) a using scope costs more than a small read's own work
    const out = hostArrayFor(host, t.numel);
    // An empty read still waits for the queue, so it reports a failure queued before it.
    const offset = out.byteLength > 0 ? c.offset * DTYPES[host].size : 0;
    const q = queueFor(c.device);
    const st = native.pt_buffer_read(q, c.buf, offset, out, out.byteLength);
    if (st < 0) queueFailure(q, st, op); // a kernel failure it reports also fails the queue's next completion
    return out;
  } finally {
    c.dispose();
  }
}

/** Resolves with the values once the device has produced them; the thread is not blocked while it waits. */
export async function data(t: Tensor): Promise<HostArray> {
  const buf = withOp("data", () => t.buf);
  noHostAccess(t.device, "data", "reads");
  await whenWritten(t.device, buf, "data");
  return toArray(t, "data");
}

/**
 * The one value: a number, or for int64 a bigint, whatever its size (as toArray's
 * BigInt64Array), so the JS type follows the dtype and no value is rounded.
 */
export function item(t: Tensor): number | bigint {
  if (t.numel !== 1) throw new TensorError("item", `needs a tensor with exactly one element, got shape ${fmtShape(t.shape)}`);
  return toArray(t, "item")[0];
}

/** Values for JSON: nested arrays of JS values, int64 as numbers where exact and as decimal strings beyond 2^53. */
export type JsonValues = number | boolean | string | JsonValues[];

/** Nested arrays of the values: booleans for bool, bigints for int64, numbers otherwise. */
export function toList(t: Tensor): NestedArray {
  const flat = toArray(t, "toList");
  return nest<number | bigint | boolean>(t, t.dtype === "bool" ? (i) => flat[i] !== 0 : (i) => flat[i]);
}

/**
 * JSON.stringify(t): the values as toList() gives them, except int64, which JSON cannot
 * hold as bigint: a number where it is exact (|v| < 2^53), else its decimal string, so no
 * value is silently rounded. float NaN and infinities become null, as JSON.stringify writes
 * any non-finite number.
 */
export function toJSON(t: Tensor): JsonValues {
  const flat = toArray(t, "toJSON");
  if (flat instanceof BigInt64Array) {
    return nest(t, (i) => {
      const v = flat[i];
      return v <= SAFE && v >= -SAFE ? Number(v) : v.toString();
    });
  }
  return nest<number | boolean>(t, t.dtype === "bool" ? (i) => flat[i] !== 0 : (i) => flat[i] as number);
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

type Nested<V> = V | Nested<V>[];

/** The row-major values at(0), at(1), ... nested by t's shape (a 0-d tensor gives the value itself). */
function nest<V>(t: Tensor, at: (i: number) => V): Nested<V> {
  if (t.ndim === 0) return at(0);
  let pos = 0;
  const build = (dim: number): Nested<V>[] => {
    const n = t.shape[dim];
    const out: Nested<V>[] = [];
    for (let i = 0; i < n; i++) out.push(dim === t.ndim - 1 ? at(pos++) : build(dim + 1));
    return out;
  };
  return build(0);
}

/** Uploads host values of `dtype`'s host type into a new tensor on device. */
export function upload(device: Device, dtype: DType, shape: readonly number[], values: HostArray, op: string): Tensor {
  const host = hostDType(dtype);
  if (host !== dtype) {
    using wide = upload(device, host, shape, values, op);
    return cast(wide, dtype);
  }
  if (values.length !== numel(shape)) throw new TensorError(op, `${values.length} values do not fill shape ${fmtShape(shape)}`);
  if (values.byteLength > 0) noHostAccess(device, op, "writes");
  const t = allocTensor(device, dtype, shape, op);
  if (values.byteLength > 0) {
    try {
      check(native.pt_buffer_write(queueFor(device), t.buf, 0, values, values.byteLength), op);
      device.queued();
    } catch (e) {
      t.dispose();
      throw e;
    }
  }
  return t;
}

const isDType = (s: string): s is DType => s in DTYPES;

/** To another dtype it is a cast, which records its own rule; to the same dtype or device an identity, to another device a copy. */
export function to(t: Tensor, target: DType | Device | string): Tensor {
  const record = gradEnabled && wantsGrad(t);
  if (typeof target === "string" && isDType(target)) {
    if (target !== t.dtype) return cast(t, checkDType(target, "to"));
    const same = viewOf(t, t.shape, t.strides, t.offset, "to");
    return record ? grad.identity("to", t, same) : same;
  }
  const dev = resolveDevice(target as string | Device);
  if (dev === t.device) {
    const same = viewOf(t, t.shape, t.strides, t.offset, "to");
    return record ? grad.identity("to", t, same) : same;
  }
  void t.buf; // a disposed source fails here, naming the tensor rather than the copy
  const out = upload(dev, t.dtype, t.shape, toArray(t), "to");
  return record ? grad.toDevice(t, out) : out;
}
