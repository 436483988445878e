/**
 * Moving data between a tensor and the host or another device. Reads make the tensor
 * contiguous (and widen float16/bfloat16 to float32) on its device first, then copy once.
 */
import { TensorError, withOp } from "../runtime/errors.ts";
import { check, native } from "../runtime/native.ts";
import { type Device, device as resolveDevice } from "../runtime/device.ts";
import { hostQueue, queueFailure, whenWritten } from "../runtime/queue.ts";
import { checkDType, type DType, DTYPES, type HostArray, hostArrayFor, hostDType } from "./dtype.ts";
import { fmtShape, numel } from "./shape.ts";
import { allocTensor, type NestedArray, type Tensor, viewOf } from "./tensor.ts";
import { cast } from "./elementwise.ts";
import { contiguous } from "./movement.ts";

export function toArray(t: Tensor): HostArray {
  withOp("toArray", () => t.buf);
  const host = hostDType(t.dtype);
  if (host !== t.dtype) {
    using wide = cast(t, host);
    return toArray(wide);
  }
  const c = contiguous(t);
  try { // not `using`: under Deno (V8) a using scope costs about 0.3 us, and reads are frequent
    const out = hostArrayFor(host, t.numel);
    // An empty read still waits for the queue, so it reports a failure queued before it.
    const offset = out.byteLength > 0 ? c.offset * DTYPES[host].size : 0;
    const q = hostQueue(c.device, c.buf, "toArray");
    const st = native.pt_buffer_read(q, c.buf, offset, out, out.byteLength);
    if (st < 0) queueFailure(q, st, "toArray"); // a kernel failure it reports also fails the queue's next completion
    return out;
  } finally {
    c.dispose();
  }
}

/** Resolves with the values once the device has produced them; the thread is not blocked while it waits. */
export async function data(t: Tensor): Promise<HostArray> {
  await whenWritten(t.device, withOp("data", () => t.buf), "data");
  return toArray(t);
}

export function item(t: Tensor): number {
  if (t.numel !== 1) throw new TensorError("item", `needs a tensor with exactly one element, got shape ${fmtShape(t.shape)}`);
  const v = toArray(t)[0];
  return typeof v === "bigint" ? Number(v) : v;
}

export function toList(t: Tensor): NestedArray {
  const flat = toArray(t);
  const at = (i: number): number | boolean => {
    const v = flat[i];
    return t.dtype === "bool" ? v !== 0 : typeof v === "bigint" ? Number(v) : v;
  };
  if (t.ndim === 0) return at(0);
  let pos = 0;
  const build = (dim: number): NestedArray[] => {
    const n = t.shape[dim];
    const out: NestedArray[] = [];
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
  const t = allocTensor(device, dtype, shape, op);
  if (values.byteLength > 0) {
    try {
      check(native.pt_buffer_write(hostQueue(device, t.buf, op), t.buf, 0, values, values.byteLength), op);
      device.queued();
    } catch (e) {
      t.dispose();
      throw e;
    }
  }
  return t;
}

const isDType = (s: string): s is DType => s in DTYPES;

export function to(t: Tensor, target: DType | Device | string): Tensor {
  if (typeof target === "string" && isDType(target)) {
    return target === t.dtype ? viewOf(t, t.shape, t.strides, t.offset, "to") : cast(t, checkDType(target, "to"));
  }
  const dev = resolveDevice(target as string | Device);
  if (dev === t.device) return viewOf(t, t.shape, t.strides, t.offset, "to");
  void t.buf; // a disposed source fails here, naming the tensor rather than the copy
  return upload(dev, t.dtype, t.shape, toArray(t), "to");
}
