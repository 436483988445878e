/**
 * Creation: from JS data, filled, ranges and identity. Fills and ranges run as one
 * elementwise kernel on the device (no host buffer of the tensor's size); JS data is
 * converted on the host once and uploaded. JS numbers default to float32, as in
 * TensorFlow.js, because a JS number carries no integer type; bigint data gives int64.
 */
import { TensorError } from "../runtime/errors.ts";
import { type Device, device as resolveDevice } from "../runtime/device.ts";
import { check, native } from "../runtime/native.ts";
import { checkDType, DEFAULT_FLOAT, type DType, dtypeOfArray, type HostArray, hostArrayFor, hostDType, isFloat } from "./dtype.ts";
import { checkShape, fmtShape, numel } from "./shape.ts";
import { allocTensor, type NestedArray, type Tensor, wrapBuffer } from "./tensor.ts";
import { castExpr, generate } from "./elementwise.ts";
import { upload } from "./transfer.ts";

export interface CreateOptions {
  dtype?: DType;
  device?: string | Device;
}

const dev = (o?: CreateOptions) => resolveDevice(o?.device);
const dtypeOr = (o: CreateOptions | undefined, d: DType, op: string) => (o?.dtype === undefined ? d : checkDType(o.dtype, op));

type TypedData = Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array;

/** A tensor from nested arrays, a typed array or a scalar. */
export function tensor(data: NestedArray | TypedData, opts?: CreateOptions): Tensor {
  if (ArrayBuffer.isView(data)) {
    const src = dtypeOfArray(data);
    if (!src) throw new TensorError("tensor", `unsupported typed array ${data.constructor.name}`);
    const dtype = dtypeOr(opts, src, "tensor");
    // A typed array already in the dtype's host type is uploaded as it is (upload copies it).
    const values = src === hostDType(dtype) ? data as HostArray : convert(data as HostArray, dtype);
    return upload(dev(opts), dtype, [data.length], values, "tensor");
  }
  const shape: number[] = [];
  for (let v: unknown = data; Array.isArray(v); v = v[0]) shape.push(v.length);
  checkShape(shape, "tensor");
  const flat: (number | boolean | bigint)[] = [];
  const walk = (v: unknown, dim: number) => {
    if (dim === shape.length) {
      if (typeof v !== "number" && typeof v !== "boolean" && typeof v !== "bigint") {
        throw new TensorError("tensor", `element ${flat.length} is ${v === null ? "null" : typeof v}, not a number, boolean or bigint`);
      }
      flat.push(v);
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[dim]) {
      throw new TensorError("tensor", `ragged nested array: expected ${shape[dim]} items at depth ${dim} (shape ${fmtShape(shape)})`);
    }
    for (const x of v) walk(x, dim + 1);
  };
  walk(data, 0);
  const inferred: DType = flat.length > 0 && flat.every((x) => typeof x === "boolean")
    ? "bool"
    : flat.some((x) => typeof x === "bigint")
    ? "int64"
    : DEFAULT_FLOAT;
  const dtype = dtypeOr(opts, inferred, "tensor");
  return upload(dev(opts), dtype, shape, convert(flat, dtype), "tensor");
}

/** Host values as dtype's host array (integers truncate toward zero, bools are 0/1). */
function convert(values: ArrayLike<number | boolean | bigint>, dtype: DType): HostArray {
  const host = hostDType(dtype);
  const out = hostArrayFor(host, values.length);
  if (out instanceof BigInt64Array) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v === "bigint") out[i] = v;
      else {
        const n = Number(v);
        if (!Number.isFinite(n)) throw new TensorError("tensor", `${n} cannot be stored in ${dtype}`);
        out[i] = BigInt(Math.trunc(n));
      }
    }
  } else if (host === "bool") {
    for (let i = 0; i < values.length; i++) out[i] = Number(values[i]) !== 0 || Number.isNaN(Number(values[i])) ? 1 : 0;
  } else if (isFloat(host) && ArrayBuffer.isView(values) && !(values instanceof BigInt64Array || values instanceof BigUint64Array)) {
    out.set(values as ArrayLike<number>); // the typed-array set converts as the loop below would, at memcpy-like speed
  } else {
    const f = isFloat(host);
    for (let i = 0; i < values.length; i++) {
      const n = Number(values[i]);
      if (!f && !Number.isFinite(n)) throw new TensorError("tensor", `${n} cannot be stored in ${dtype}`);
      out[i] = n;
    }
  }
  return out;
}

const RANGES: Partial<Record<DType, [number, number]>> = {
  int32: [-2147483648, 2147483647],
  int64: [-9223372036854775808, 9223372036854775807],
  uint8: [0, 255],
};

export function full(shape: readonly number[], value: number | boolean | bigint, opts?: CreateOptions): Tensor {
  const s = checkShape(shape, "full");
  const inferred: DType = typeof value === "boolean" ? "bool" : typeof value === "bigint" ? "int64" : DEFAULT_FLOAT;
  const dtype = dtypeOr(opts, inferred, "full");
  const v = Number(value);
  if (!isFloat(dtype) && dtype !== "bool") {
    const [lo, hi] = RANGES[dtype]!;
    if (!Number.isFinite(v)) throw new TensorError("full", `${v} cannot be stored in ${dtype}`);
    if (v < lo || v > hi) throw new TensorError("full", `${value} is outside the range of ${dtype} [${lo}, ${hi}]`);
  }
  return generate(dev(opts), "full", dtype, s, (k) => k.constant(v, "float64"));
}

export const zeros = (shape: readonly number[], opts?: CreateOptions): Tensor => full(shape, 0, { dtype: DEFAULT_FLOAT, ...opts });
export const ones = (shape: readonly number[], opts?: CreateOptions): Tensor => full(shape, 1, { dtype: DEFAULT_FLOAT, ...opts });

/** Uninitialised memory of the given shape. */
export function empty(shape: readonly number[], opts?: CreateOptions): Tensor {
  return allocTensor(dev(opts), dtypeOr(opts, DEFAULT_FLOAT, "empty"), checkShape(shape, "empty"), "empty");
}

const like = (t: Tensor, opts?: CreateOptions): CreateOptions => ({ dtype: t.dtype, device: t.device, ...opts });
export const zerosLike = (t: Tensor, opts?: CreateOptions): Tensor => zeros(t.shape, like(t, opts));
export const onesLike = (t: Tensor, opts?: CreateOptions): Tensor => ones(t.shape, like(t, opts));
export const emptyLike = (t: Tensor, opts?: CreateOptions): Tensor => empty(t.shape, like(t, opts));
export const fullLike = (t: Tensor, value: number | boolean | bigint, opts?: CreateOptions): Tensor => full(t.shape, value, like(t, opts));

/** start, start+step, ... below end; arange(n) counts from 0. */
export function arange(start: number, end?: number, step = 1, opts?: CreateOptions): Tensor {
  if (end === undefined) [start, end] = [0, start];
  if (![start, end, step].every(Number.isFinite) || step === 0) {
    throw new TensorError("arange", `needs finite start, end and a nonzero step, got (${start}, ${end}, ${step})`);
  }
  const n = Math.max(0, Math.ceil((end - start) / step));
  const dtype = dtypeOr(opts, DEFAULT_FLOAT, "arange");
  return generate(dev(opts), "arange", dtype, [n], (k) => ({
    k: "binary",
    op: "add",
    a: k.constant(start, "float64"),
    b: { k: "binary", op: "mul", a: k.index, b: k.constant(step, "float64"), dtype: "float64" },
    dtype: "float64",
  }));
}

/** `steps` evenly spaced values from start to end inclusive; the second half counts back from end, as PyTorch does. */
export function linspace(start: number, end: number, steps: number, opts?: CreateOptions): Tensor {
  if (!Number.isInteger(steps) || steps < 0) throw new TensorError("linspace", `steps must be an integer >= 0, got ${steps}`);
  const dtype = dtypeOr(opts, DEFAULT_FLOAT, "linspace");
  const step = steps > 1 ? (end - start) / (steps - 1) : 0;
  const half = steps === 1 ? 1 : Math.floor(steps / 2);
  return generate(dev(opts), "linspace", dtype, [steps], (k) => {
    const i = k.index;
    const fromStart = {
      k: "binary",
      op: "add",
      a: k.constant(start, "float64"),
      b: { k: "binary", op: "mul", a: i, b: k.constant(step, "float64"), dtype: "float64" },
      dtype: "float64",
    } as const;
    const back = { k: "binary", op: "sub", a: k.constant(steps - 1, "float64"), b: i, dtype: "float64" } as const;
    const fromEnd = {
      k: "binary",
      op: "sub",
      a: k.constant(end, "float64"),
      b: { k: "binary", op: "mul", a: back, b: k.constant(step, "float64"), dtype: "float64" },
      dtype: "float64",
    } as const;
    return {
      k: "where",
      c: { k: "binary", op: "lt", a: i, b: k.constant(half, "float64"), dtype: "bool" },
      a: fromStart,
      b: fromEnd,
      dtype: "float64",
    };
  });
}

/** The n x m identity: element i is on the diagonal when i % (m+1) == 0 and i < min(n,m)*(m+1). */
export function eye(n: number, m = n, opts?: CreateOptions): Tensor {
  checkShape([n, m], "eye");
  const dtype = dtypeOr(opts, DEFAULT_FLOAT, "eye");
  return generate(dev(opts), "eye", dtype, [n, m], (k) => {
    const onStride = {
      k: "binary",
      op: "eq",
      a: { k: "binary", op: "mod", a: k.index, b: k.constant(m + 1, "float64"), dtype: "float64" },
      b: k.constant(0, "float64"),
      dtype: "bool",
    } as const;
    const inRange = { k: "binary", op: "lt", a: k.index, b: k.constant(Math.min(n, m) * (m + 1), "float64"), dtype: "bool" } as const;
    return castExpr({ k: "binary", op: "logicalAnd", a: onStride, b: inRange, dtype: "bool" }, "float64");
  });
}

/**
 * A tensor over existing host memory. On a device whose memory the host addresses
 * ("host_wrap") nothing is copied: the tensor keeps the ArrayBuffer alive and writes
 * through to it. Elsewhere the data is uploaded. (Bun: build the array over an explicit
 * ArrayBuffer so its address is fixed; DESIGN.md section 8.)
 */
export function fromBuffer(data: ArrayBuffer | TypedData, opts: CreateOptions & { shape?: readonly number[] } = {}): Tensor {
  const view = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const src = data instanceof ArrayBuffer ? undefined : dtypeOfArray(data);
  const dtype = dtypeOr(opts, src ?? DEFAULT_FLOAT, "fromBuffer");
  const size = hostArrayFor(hostDType(dtype), 0).BYTES_PER_ELEMENT;
  if (hostDType(dtype) !== dtype) throw new TensorError("fromBuffer", `${dtype} has no host array type; upload float32 and cast`);
  const count = view.byteLength / size;
  const shape = checkShape(opts.shape ?? [count], "fromBuffer");
  if (numel(shape) * size !== view.byteLength) {
    throw new TensorError("fromBuffer", `${view.byteLength} bytes do not hold a ${dtype} tensor of shape ${fmtShape(shape)}`);
  }
  const device = dev(opts);
  if (device.has("host_wrap") && view.byteLength > 0) {
    const buf = check(native.pt_buffer_wrap(device.handle, view, view.byteLength), "fromBuffer");
    return wrapBuffer(device, buf, dtype, shape, undefined, 0, view.buffer);
  }
  const typed = hostArrayFor(dtype, numel(shape));
  new Uint8Array(typed.buffer).set(view);
  return upload(device, dtype, shape, typed, "fromBuffer");
}
