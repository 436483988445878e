/**
 * Creation: from JS data, filled, ranges and identity. Fills and ranges run as one
 * elementwise kernel on the device (no host buffer of the tensor's size); JS data is
 * converted on the host once and uploaded. JS numbers default to float32, as in
 * TensorFlow.js, because a JS number carries no integer type; bigint data gives int64.
 */
import { differentiable } from "../autograd/graph.ts";
import { TensorError } from "../base/errors.ts";
import { type Device, device as resolveDevice } from "../runtime/device.ts";
import { check, native } from "../runtime/native.ts";
import {
  checkDType,
  checkFits,
  DEFAULT_FLOAT,
  type DType,
  dtypeOfArray,
  type HostArray,
  hostArrayFor,
  hostDType,
  isFloat,
} from "../base/dtype.ts";
import { checkShape, describeValue, fmtShape, numel } from "../base/shape.ts";
import { allocTensor, type NestedArray, type Scalar, Tensor, wrapBuffer } from "./tensor.ts";
import { castExpr, generate } from "./elementwise.ts";
import { upload } from "./transfer.ts";

/** The options every creation function takes: the result's dtype and device. */
export interface CreateOptions {
  /** The result's dtype; each function says what it infers or defaults to without it. An unknown name is a TensorError. */
  dtype?: DType;
  /** A Device, or a name as `pt.device` takes ("cpu", or a backend's name with an index); the default device without it. An unknown name is a TensorError. */
  device?: string | Device;
  /**
   * Make the result a leaf whose gradient backward() accumulates into `grad` (default false), as PyTorch's
   * `requires_grad=True`. Only floating-point tensors can; another dtype is a TensorError.
   */
  requiresGrad?: boolean;
}

/** t, marked as requiring gradients when opts asks (disposed if it cannot be). */
export function asLeaf(t: Tensor, opts: CreateOptions | undefined, op: string): Tensor {
  if (opts?.requiresGrad !== true) return t;
  if (!differentiable(t.dtype)) {
    t.dispose();
    throw new TensorError(op, `requiresGrad needs a floating-point dtype, and this tensor is ${t.dtype}`);
  }
  return t.requiresGrad_();
}

const dev = (o?: CreateOptions) => resolveDevice(o?.device);
const dtypeOr = (o: CreateOptions | undefined, d: DType, op: string) => (o?.dtype === undefined ? d : checkDType(o.dtype, op));

/**
 * A tensor from nested arrays, a typed array (1-D) or a scalar (0-d), copied. As `torch.tensor`. Without `opts.dtype` a typed array
 * keeps its dtype (`HostArray`: Uint8Array gives uint8), and JS data gives bool when every value is a boolean, int64 when any is a
 * bigint, else float32, integers included (PyTorch gives int64 for those). Values convert to the dtype: to an integer dtype by
 * truncation toward zero, to bool as `v != 0` (NaN is true).
 *
 * @example
 * using a = pt.tensor([[1, 2], [3, 4]]); // float32, shape [2, 2]
 * using b = pt.tensor([1n, 2n]); // int64
 * using c = pt.tensor(new Int32Array([1, 2, 3])); // int32, shape [3]
 * using d = pt.tensor([1.9, -1.9], { dtype: "int32" }); // [1, -1]
 * using e = pt.tensor(5); // float32, shape []
 * @throws {TensorError} when the nested arrays are ragged, a value is not a number, boolean or bigint, the typed array is of
 * another kind (Uint16Array, ...), or a value does not fit an integer dtype (out of its range, NaN or infinite: refused, never wrapped).
 */
export function tensor(data: NestedArray | HostArray, opts?: CreateOptions): Tensor {
  return asLeaf(tensorImpl(data, opts), opts, "tensor");
}

function tensorImpl(data: NestedArray | HostArray, opts?: CreateOptions): Tensor {
  if (ArrayBuffer.isView(data)) {
    const src = dtypeOfArray(data);
    if (!src) {
      throw new TensorError(
        "tensor",
        `${data.constructor.name} is not supported; use Float32Array, Float64Array, Int32Array, BigInt64Array, Int16Array, Int8Array or Uint8Array`,
      );
    }
    const dtype = dtypeOr(opts, src, "tensor");
    // A typed array already in the dtype's host type is uploaded as it is (upload copies it).
    const values = src === hostDType(dtype) ? data as HostArray : convert(data as HostArray, dtype);
    return upload(dev(opts), dtype, [data.length], values, "tensor");
  }
  if (!Array.isArray(data) && typeof data !== "number" && typeof data !== "boolean" && typeof data !== "bigint") {
    throw new TensorError("tensor", `expects nested arrays, a typed array, a number, a boolean or a bigint; got ${describeValue(data)}`);
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

/**
 * Host values as dtype's host array (integers truncate toward zero, bools are 0/1); a value an integer dtype cannot hold is an
 * error, not a wrap.
 */
function convert(values: ArrayLike<number | boolean | bigint>, dtype: DType): HostArray {
  const host = hostDType(dtype);
  const out = hostArrayFor(host, values.length);
  if (out instanceof BigInt64Array) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v === "bigint") {
        if (v < INT64_MIN || v > INT64_MAX) checkFits(v, dtype, "tensor");
        out[i] = v;
      } else {
        const n = Number(v);
        if (!(n >= -(2 ** 63) && n < 2 ** 63)) checkFits(n, dtype, "tensor");
        out[i] = BigInt(Math.trunc(n));
      }
    }
  } else if (host === "bool") {
    for (let i = 0; i < values.length; i++) out[i] = Number(values[i]) !== 0 || Number.isNaN(Number(values[i])) ? 1 : 0;
  } else if (isFloat(host) && ArrayBuffer.isView(values) && !(values instanceof BigInt64Array || values instanceof BigUint64Array)) {
    out.set(values as ArrayLike<number>); // the typed-array set converts as the loop below would, at memcpy-like speed
  } else if (isFloat(host)) {
    for (let i = 0; i < values.length; i++) out[i] = Number(values[i]);
  } else {
    const [lo, hi] = HOST_INT_RANGE[host as keyof typeof HOST_INT_RANGE];
    for (let i = 0; i < values.length; i++) {
      const v = values[i], n = Math.trunc(Number(v));
      if (!(n >= lo && n <= hi)) checkFits(typeof v === "bigint" ? v : Number(v), dtype, "tensor"); // NaN fails the test too
      out[i] = n;
    }
  }
  return out;
}

const INT64_MIN = -(2n ** 63n), INT64_MAX = 2n ** 63n - 1n;
const HOST_INT_RANGE = { int32: [-(2 ** 31), 2 ** 31 - 1], int16: [-32768, 32767], int8: [-128, 127], uint8: [0, 255] } as const;

/**
 * A shape: an array of sizes, or one size for a 1-D tensor (`pt.zeros(3)`, as `torch.zeros(3)`). Sizes are integers >= 0, at most
 * 8 of them; any other shape is a TensorError.
 */
export type ShapeArg = number | readonly number[];
const shapeOf = (shape: ShapeArg, op: string) => checkShape(typeof shape === "number" ? [shape] : shape, op);

/**
 * A tensor of `shape` filled with `value`. As `torch.full`. Without `opts.dtype` the dtype is bool for a boolean, int64 for a bigint
 * and float32 for a number, an integer one too (PyTorch gives int64); a number stored in an integer dtype truncates toward zero.
 * @throws {TensorError} when the shape is invalid (see `ShapeArg`), or the value does not fit an integer dtype (out of its range,
 * NaN or infinite).
 */
export function full(shape: ShapeArg, value: Scalar, opts?: CreateOptions): Tensor {
  return asLeaf(fullImpl(shape, value, opts), opts, "full");
}

function fullImpl(shape: ShapeArg, value: Scalar, opts?: CreateOptions): Tensor {
  return fill("full", shape, value, opts);
}

/** full(), reporting errors as `op`: the function the user called (zeros, scatter, ...). */
export function fill(op: string, shape: ShapeArg, value: number | boolean | bigint, opts?: CreateOptions): Tensor {
  const s = shapeOf(shape, op);
  if (typeof value !== "number" && typeof value !== "boolean" && typeof value !== "bigint") {
    throw new TensorError(op, `the fill value must be a number, a boolean or a bigint, got ${describeValue(value)}`);
  }
  const inferred: DType = typeof value === "boolean" ? "bool" : typeof value === "bigint" ? "int64" : DEFAULT_FLOAT;
  const dtype = dtypeOr(opts, inferred, op);
  checkFits(value, dtype, op);
  const device = dev(opts);
  if (typeof value === "bigint" && dtype === "int64" && (value > MAX_EXACT || value < -MAX_EXACT)) {
    // One constant slot (a double) cannot hold it: hi * 2^32 + lo from two exact halves, in int64.
    const hi = Number(value >> 32n), lo = Number(value & 0xffffffffn);
    return generate(device, op, dtype, s, (k) => ({
      k: "binary",
      op: "add",
      a: { k: "binary", op: "mul", a: k.constant(hi, "int64"), b: k.constant(2 ** 32, "int64"), dtype: "int64" },
      b: k.constant(lo, "int64"),
      dtype: "int64",
    }));
  }
  return generate(device, op, dtype, s, (k) => k.constant(Number(value), "float64"));
}

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A tensor of zeros (float32 unless `opts.dtype`). As `torch.zeros`.
 * @example
 * using v = pt.zeros(3); // shape [3]
 * using m = pt.zeros([2, 3], { dtype: "int32", device: "cpu" });
 * @throws {TensorError} when the shape is invalid (see `ShapeArg`).
 */
export function zeros(shape: ShapeArg, opts?: CreateOptions): Tensor {
  return asLeaf(zerosImpl(shape, opts), opts, "zeros");
}

function zerosImpl(shape: ShapeArg, opts?: CreateOptions): Tensor {
  return fill("zeros", shape, 0, { dtype: DEFAULT_FLOAT, ...opts });
}
/**
 * A tensor of ones (float32 unless `opts.dtype`). As `torch.ones`.
 * @throws {TensorError} when the shape is invalid (see `ShapeArg`).
 */
export function ones(shape: ShapeArg, opts?: CreateOptions): Tensor {
  return asLeaf(onesImpl(shape, opts), opts, "ones");
}

function onesImpl(shape: ShapeArg, opts?: CreateOptions): Tensor {
  return fill("ones", shape, 1, { dtype: DEFAULT_FLOAT, ...opts });
}

/**
 * A tensor of the given shape whose memory is not initialised: its values are whatever the memory held (float32 unless
 * `opts.dtype`). As `torch.empty`.
 * @throws {TensorError} when the shape is invalid (see `ShapeArg`).
 */
export function empty(shape: ShapeArg, opts?: CreateOptions): Tensor {
  return asLeaf(emptyImpl(shape, opts), opts, "empty");
}

function emptyImpl(shape: ShapeArg, opts?: CreateOptions): Tensor {
  return emptyAs("empty", shape, opts);
}

function emptyAs(op: string, shape: ShapeArg, opts?: CreateOptions): Tensor {
  const s = shapeOf(shape, op);
  return allocTensor(dev(opts), dtypeOr(opts, DEFAULT_FLOAT, op), s, op);
}

function like(t: Tensor, opts: CreateOptions | undefined, op: string): CreateOptions {
  if (!(t instanceof Tensor)) throw new TensorError(op, `expects a tensor, got ${describeValue(t)}`);
  return { dtype: t.dtype, device: t.device, ...opts };
}
/**
 * Zeros of t's shape, dtype and device (`opts` may change the last two). As `torch.zeros_like`.
 * @throws {TensorError} when t is not a tensor.
 */
export function zerosLike(t: Tensor, opts?: CreateOptions): Tensor {
  return asLeaf(zerosLikeImpl(t, opts), opts, "zerosLike");
}

function zerosLikeImpl(t: Tensor, opts?: CreateOptions): Tensor {
  return fill("zerosLike", t?.shape, 0, like(t, opts, "zerosLike"));
}
/**
 * Ones of t's shape, dtype and device (`opts` may change the last two). As `torch.ones_like`.
 * @throws {TensorError} when t is not a tensor.
 */
export function onesLike(t: Tensor, opts?: CreateOptions): Tensor {
  return asLeaf(onesLikeImpl(t, opts), opts, "onesLike");
}

function onesLikeImpl(t: Tensor, opts?: CreateOptions): Tensor {
  return fill("onesLike", t?.shape, 1, like(t, opts, "onesLike"));
}
/**
 * Uninitialised memory of t's shape, dtype and device (`opts` may change the last two), as `empty`. As `torch.empty_like`.
 * @throws {TensorError} when t is not a tensor.
 */
export function emptyLike(t: Tensor, opts?: CreateOptions): Tensor {
  return asLeaf(emptyLikeImpl(t, opts), opts, "emptyLike");
}

function emptyLikeImpl(t: Tensor, opts?: CreateOptions): Tensor {
  return emptyAs("emptyLike", t?.shape, like(t, opts, "emptyLike"));
}
/**
 * `value` in t's shape, dtype and device (`opts` may change the last two): the value is stored in t's dtype, so an int32 t with
 * 2.7 gives 2s. As `torch.full_like`.
 * @throws {TensorError} when t is not a tensor, or the value does not fit an integer dtype (out of its range, NaN or infinite).
 */
export function fullLike(t: Tensor, value: Scalar, opts?: CreateOptions): Tensor {
  return asLeaf(fullLikeImpl(t, value, opts), opts, "fullLike");
}

function fullLikeImpl(t: Tensor, value: Scalar, opts?: CreateOptions): Tensor {
  return fill("fullLike", t?.shape, value, like(t, opts, "fullLike"));
}

/**
 * `start, start + step, ...` up to and excluding `end`; `arange(n)` counts 0 .. n-1. Element i is `start + i * step`, computed in
 * float64 and stored as float32 unless `opts.dtype`, integer arguments too (PyTorch gives int64 for those). As `torch.arange`.
 *
 * @example
 * using a = pt.arange(4); // [0, 1, 2, 3], float32
 * using b = pt.arange(0, 1, 0.25); // [0, 0.25, 0.5, 0.75]
 * using c = pt.arange(10, 0, -3, { dtype: "int32" }); // [10, 7, 4, 1]
 * using d = pt.arange(4, undefined, 1, { dtype: "int64" }); // options come after end and step
 * @throws {TensorError} when start, end or step is not finite, or step is 0.
 */
export function arange(start: number, end?: number, step = 1, opts?: CreateOptions): Tensor {
  return asLeaf(arangeImpl(start, end, step, opts), opts, "arange");
}

function arangeImpl(start: number, end?: number, step = 1, opts?: CreateOptions): Tensor {
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

/**
 * `steps` evenly spaced values from start to end, both included (float32 unless `opts.dtype`). As `torch.linspace`, whose second
 * half it also computes back from end, so that the last value is end exactly.
 *
 * @example
 * using x = pt.linspace(0, 1, 5); // [0, 0.25, 0.5, 0.75, 1]
 * @throws {TensorError} when steps is not an integer >= 0.
 */
export function linspace(start: number, end: number, steps: number, opts?: CreateOptions): Tensor {
  return asLeaf(linspaceImpl(start, end, steps, opts), opts, "linspace");
}

function linspaceImpl(start: number, end: number, steps: number, opts?: CreateOptions): Tensor {
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

/**
 * The n x m identity matrix: ones on the diagonal, zeros elsewhere (float32 unless `opts.dtype`). m defaults to n: pass
 * `pt.eye(n, n, opts)` for a square one with options. As `torch.eye`.
 * @throws {TensorError} when n or m is not an integer >= 0.
 */
export function eye(n: number, m = n, opts?: CreateOptions): Tensor {
  return asLeaf(eyeImpl(n, m, opts), opts, "eye");
}

function eyeImpl(n: number, m = n, opts?: CreateOptions): Tensor {
  for (const [name, v] of [["n", n], ["m", m]] as const) {
    if (!Number.isInteger(v) || v < 0) throw new TensorError("eye", `${name} must be an integer >= 0, got ${describeValue(v)}`);
  }
  const dtype = dtypeOr(opts, DEFAULT_FLOAT, "eye");
  // Flat element i is on the diagonal when i % (m + 1) == 0 and i < min(n, m) * (m + 1).
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
 * A tensor over existing host memory, as `torch.frombuffer`: the bytes are read as `opts.dtype` (the typed array's own dtype
 * without it, float32 for an ArrayBuffer), reinterpreted, not converted. On a device that addresses host memory (capability
 * "host_wrap": the CPU) nothing is copied: the tensor is that memory and keeps its ArrayBuffer alive, and each op reads the values
 * the array holds when the op is called (ops on it are never deferred). On other devices the bytes are copied. Under Bun, build the
 * array over an explicit ArrayBuffer, so that its address is fixed (docs/architecture.md, FFI boundary).
 *
 * @param data an ArrayBuffer, or a typed array (its bytes from byteOffset, byteLength of them)
 * @param opts dtype and device as `CreateOptions`, and `shape`: by default 1-D, as many elements as the bytes hold
 * @example
 * const host = new Float32Array(new ArrayBuffer(16));
 * host.set([1, 2, 3, 4]);
 * using t = pt.fromBuffer(host, { shape: [2, 2], device: "cpu" });
 * host[0] = 10; // t's first element is 10 now: on the CPU, t is host's memory
 * @throws {TensorError} when the dtype is float16 or bfloat16 (no host type: make float32 and cast), the bytes are not a whole
 * number of elements, or the shape is invalid or does not hold exactly the bytes.
 */
export function fromBuffer(data: ArrayBuffer | HostArray, opts: CreateOptions & { shape?: readonly number[] } = {}): Tensor {
  return asLeaf(fromBufferImpl(data, opts), opts, "fromBuffer");
}

function fromBufferImpl(data: ArrayBuffer | HostArray, opts: CreateOptions & { shape?: readonly number[] } = {}): Tensor {
  const view = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const src = data instanceof ArrayBuffer ? undefined : dtypeOfArray(data);
  const dtype = dtypeOr(opts, src ?? DEFAULT_FLOAT, "fromBuffer");
  const size = hostArrayFor(hostDType(dtype), 0).BYTES_PER_ELEMENT;
  if (hostDType(dtype) !== dtype) throw new TensorError("fromBuffer", `${dtype} has no host array type; upload float32 and cast`);
  const count = view.byteLength / size;
  if (opts.shape === undefined && !Number.isInteger(count)) {
    throw new TensorError("fromBuffer", `${view.byteLength} bytes are not a whole number of ${dtype} elements (${size} bytes each)`);
  }
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
