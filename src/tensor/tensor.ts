/**
 * Tensor: a typed, strided window on a device buffer. The class holds what every op needs
 * (device, dtype, shape, strides, offset, the owned buffer reference) and forwards each op
 * to its module, so each family of ops lives in one file. A tensor owns one native
 * reference to its buffer; views own one more on the same buffer, so a view keeps its
 * base's memory alive and disposing the base first is safe.
 */
import type { Device } from "../runtime/device.ts";
import { TensorError, withOp } from "../runtime/errors.ts";
import { allocBuffer, drop, type Held, heldNow, holdBuffer, release, track } from "../runtime/ownership.ts";
import { type Deferred, type DimMap, viewOfDeferred } from "../lazy/deferred.ts";
import { check, native } from "../runtime/native.ts";
import type { ViewRef } from "../kernels/block.ts";
import { type DType, DTYPES, type HostArray } from "./dtype.ts";
import { checkBytes, contiguousStrides, denseStrides, numel, sealed, type Shape } from "./shape.ts";
import * as ew from "./elementwise.ts";
import * as mv from "./movement.ts";
import * as red from "./reduce.ts";
import * as idx from "./indexing.ts";
import * as srt from "./sort.ts";
import * as la from "./linalg.ts";
import * as io from "./transfer.ts";
import { formatTensor } from "./format.ts";

export type Scalar = number | boolean | bigint;
export type TensorLike = Tensor | Scalar;
export type IndexMode = "error" | "clamp" | "wrap";
export type NestedArray = number | boolean | bigint | readonly NestedArray[];

const creating = Symbol("polytensor.internal");
/** As `creating`, from a caller whose shape and strides are sealed already (a deferred handle's). */
const creatingSealed = Symbol("polytensor.internal.sealed");

/** The dims of `view(2, 3)` or `view([2, 3])`, without flat()'s copy in the common forms. */
function dims(args: number[] | [readonly number[]]): readonly number[] {
  if (args.length === 1 && typeof args[0] !== "number") return args[0];
  for (let i = 0; i < args.length; i++) if (typeof args[i] !== "number") return (args as (number | readonly number[])[]).flat();
  return args as number[];
}

export class Tensor implements ViewRef {
  readonly device: Device;
  readonly dtype: DType;
  /** Read-only: tensors share shape and stride arrays (not frozen, for speed; see shape.ts sealed()). */
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
  #buf: number;
  readonly #epoch: number;
  /** What this handle owns, as the registry keeps it once registered (ownership.ts); null before that and once disposed. */
  #held: Held | null;
  /** Host memory a wrapped buffer points into; kept alive as long as any view of it. */
  readonly #keep: object | undefined;
  /** The fused node this handle stands for until it needs memory (lazy/deferred.ts). */
  #deferred: Deferred | null;

  /** @internal Use the creation functions (pt.zeros, pt.tensor, ...) instead. */
  constructor(
    token: symbol,
    device: Device,
    buf: number,
    dtype: DType,
    shape: Shape,
    strides: readonly number[],
    offset: number,
    keep?: object,
    deferred?: Deferred,
  ) {
    if (token !== creating && token !== creatingSealed) {
      throw new TensorError("Tensor", "use pt.tensor(), pt.zeros() and friends to make tensors");
    }
    this.device = device;
    this.dtype = dtype;
    // Sealed arrays are shared as they are: a copy per tensor would cost more than the rest of a small op.
    this.shape = token === creatingSealed ? shape : sealed(shape);
    this.strides = token === creatingSealed ? strides : sealed(strides);
    this.offset = offset;
    this.#buf = buf;
    this.#epoch = device.epoch;
    this.#keep = keep;
    this.#held = null;
    this.#deferred = deferred ?? null;
    if (deferred) deferred.attach();
    track(this);
  }

  /** @internal The registry's record of what this handle owns, made when it registers (ownership.ts). */
  [heldNow](): Held | null {
    if (this.#buf === 0 && this.#deferred === null) return null;
    return this.#held = { buf: this.#buf, device: this.device, epoch: this.#epoch, keep: this.#keep, node: this.#deferred };
  }

  /** @internal The host memory this tensor's buffer wraps, if any. */
  get hostOwner(): object | undefined {
    return this.#keep;
  }

  /** The native buffer handle; throws if this tensor was disposed or its device closed. */
  get buf(): number {
    if (this.#deferred !== null) this.#materialize();
    if (this.#buf === 0) throw new TensorError("tensor", `this ${this.dtype}${fmt(this.shape)} tensor was disposed and cannot be used`);
    if (this.#epoch !== this.device.epoch) {
      throw new TensorError(
        "tensor",
        `this tensor belongs to ${this.device.id} from before ${this.device.endedBy(this.#epoch)}; its memory is gone`,
      );
    }
    return this.#buf;
  }

  get disposed(): boolean {
    return this.#buf === 0 && this.#deferred === null;
  }

  /** The fused node while this tensor is deferred (lazy mode), else null. */
  get deferred(): Deferred | null {
    return this.#deferred;
  }

  /** True while this tensor's value is a recorded expression that has not run yet. */
  get isDeferred(): boolean {
    return this.#deferred !== null && this.#deferred.buffer === 0;
  }

  /** Runs this tensor's pending fused kernel now (if any); returns this tensor. */
  materialize(): this {
    if (this.#deferred !== null) this.#materialize();
    return this;
  }

  #materialize(): void {
    const buf = this.#deferred!.take(); // detaches this handle and gives it one reference
    this.#deferred = null;
    this.#buf = buf;
    if (this.#held !== null) holdBuffer(this.#held, buf);
  }
  get ndim(): number {
    return this.shape.length;
  }
  get numel(): number {
    return numel(this.shape);
  }
  size(axis?: number): number | readonly number[] {
    return axis === undefined ? this.shape : this.shape[mv.axisOf(this, axis, "size")];
  }
  get isContiguous(): boolean {
    const c = contiguousStrides(this.shape);
    return this.shape.every((d, i) => d === 1 || c[i] === this.strides[i]);
  }

  /** Frees this tensor's reference now; idempotent. */
  dispose(): void {
    const buf = this.#buf, node = this.#deferred, held = this.#held;
    if (buf === 0 && node === null) return;
    this.#deferred = null;
    this.#buf = 0;
    this.#held = null;
    if (held !== null) drop(this, held);
    else release(this.device, this.#epoch, buf, node); // disposed in the task that made it: never registered
  }
  [Symbol.dispose](): void {
    this.dispose();
  }

  // ----- transfer and inspection (transfer.ts, format.ts)
  toArray(): HostArray {
    return io.toArray(this);
  }
  data(): Promise<HostArray> {
    return io.data(this);
  }
  item(): number | bigint {
    return io.item(this);
  }
  toList(): NestedArray {
    return io.toList(this);
  }
  /** What JSON.stringify writes: the values as nested lists (int64 beyond 2^53 as decimal strings; transfer.ts). */
  toJSON(): io.JsonValues {
    return io.toJSON(this);
  }
  to(target: DType | Device | string): Tensor {
    return io.to(this, target);
  }
  cast(dtype: DType): Tensor {
    return ew.cast(this, dtype);
  }
  clone(): Tensor {
    return mv.clone(this);
  }
  toString(): string {
    return formatTensor(this);
  }
  [Symbol.for("Deno.customInspect")](): string {
    return formatTensor(this);
  }
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return formatTensor(this);
  }

  // ----- elementwise (elementwise.ts)
  add(o: TensorLike): Tensor {
    return ew.binary("add", this, o);
  }
  sub(o: TensorLike): Tensor {
    return ew.binary("sub", this, o);
  }
  mul(o: TensorLike): Tensor {
    return ew.binary("mul", this, o);
  }
  div(o: TensorLike): Tensor {
    return ew.binary("div", this, o);
  }
  pow(o: TensorLike): Tensor {
    return ew.binary("pow", this, o);
  }
  mod(o: TensorLike): Tensor {
    return ew.binary("mod", this, o);
  }
  maximum(o: TensorLike): Tensor {
    return ew.binary("maximum", this, o);
  }
  minimum(o: TensorLike): Tensor {
    return ew.binary("minimum", this, o);
  }
  eq(o: TensorLike): Tensor {
    return ew.binary("eq", this, o);
  }
  ne(o: TensorLike): Tensor {
    return ew.binary("ne", this, o);
  }
  lt(o: TensorLike): Tensor {
    return ew.binary("lt", this, o);
  }
  le(o: TensorLike): Tensor {
    return ew.binary("le", this, o);
  }
  gt(o: TensorLike): Tensor {
    return ew.binary("gt", this, o);
  }
  ge(o: TensorLike): Tensor {
    return ew.binary("ge", this, o);
  }
  logicalAnd(o: TensorLike): Tensor {
    return ew.binary("logicalAnd", this, o);
  }
  logicalOr(o: TensorLike): Tensor {
    return ew.binary("logicalOr", this, o);
  }
  logicalXor(o: TensorLike): Tensor {
    return ew.binary("logicalXor", this, o);
  }
  logicalNot(): Tensor {
    return ew.unary("logicalNot", this);
  }
  neg(): Tensor {
    return ew.unary("neg", this);
  }
  abs(): Tensor {
    return ew.unary("abs", this);
  }
  sign(): Tensor {
    return ew.unary("sign", this);
  }
  square(): Tensor {
    return ew.unary("square", this);
  }
  reciprocal(): Tensor {
    return ew.unary("reciprocal", this);
  }
  exp(): Tensor {
    return ew.unary("exp", this);
  }
  exp2(): Tensor {
    return ew.unary("exp2", this);
  }
  log(): Tensor {
    return ew.unary("log", this);
  }
  log2(): Tensor {
    return ew.unary("log2", this);
  }
  log1p(): Tensor {
    return ew.unary("log1p", this);
  }
  sqrt(): Tensor {
    return ew.unary("sqrt", this);
  }
  rsqrt(): Tensor {
    return ew.unary("rsqrt", this);
  }
  sin(): Tensor {
    return ew.unary("sin", this);
  }
  cos(): Tensor {
    return ew.unary("cos", this);
  }
  tan(): Tensor {
    return ew.unary("tan", this);
  }
  tanh(): Tensor {
    return ew.unary("tanh", this);
  }
  sigmoid(): Tensor {
    return ew.unary("sigmoid", this);
  }
  relu(): Tensor {
    return ew.unary("relu", this);
  }
  gelu(): Tensor {
    return ew.unary("gelu", this);
  }
  floor(): Tensor {
    return ew.unary("floor", this);
  }
  ceil(): Tensor {
    return ew.unary("ceil", this);
  }
  round(): Tensor {
    return ew.unary("round", this);
  }
  trunc(): Tensor {
    return ew.unary("trunc", this);
  }
  isnan(): Tensor {
    return ew.unary("isnan", this);
  }
  isinf(): Tensor {
    return ew.unary("isinf", this);
  }
  isfinite(): Tensor {
    return ew.unary("isfinite", this);
  }
  clamp(min?: TensorLike | null, max?: TensorLike | null): Tensor {
    return ew.clamp(this, min ?? undefined, max ?? undefined);
  }
  /** where(cond, this, other), as torch.Tensor.where. */
  where(cond: Tensor, other: TensorLike): Tensor {
    return ew.where(cond, this, other);
  }
  lerp(end: TensorLike, weight: TensorLike): Tensor {
    return ew.lerp(this, end, weight);
  }
  maskedFill(mask: Tensor, value: TensorLike): Tensor {
    return ew.maskedFill(this, mask, value);
  }

  // ----- reductions (reduce.ts)
  sum(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("sum", this, axis, keepdim);
  }
  mean(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("mean", this, axis, keepdim);
  }
  prod(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("prod", this, axis, keepdim);
  }
  max(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("max", this, axis, keepdim);
  }
  min(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("min", this, axis, keepdim);
  }
  argmax(axis?: number, keepdim = false): Tensor {
    return red.reduce("argmax", this, axis, keepdim);
  }
  argmin(axis?: number, keepdim = false): Tensor {
    return red.reduce("argmin", this, axis, keepdim);
  }
  any(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("any", this, axis, keepdim);
  }
  all(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("all", this, axis, keepdim);
  }
  countNonzero(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("countNonzero", this, axis, keepdim);
  }
  /** Variance with Bessel's correction by default (correction = 1), as torch.var. */
  var(axis?: number | readonly number[], keepdim = false, correction = 1): Tensor {
    return red.reduce("var", this, axis, keepdim, correction);
  }
  std(axis?: number | readonly number[], keepdim = false, correction = 1): Tensor {
    return red.reduce("std", this, axis, keepdim, correction);
  }
  cumsum(axis: number): Tensor {
    return red.scan("cumsum", this, axis);
  }
  cumprod(axis: number): Tensor {
    return red.scan("cumprod", this, axis);
  }

  // ----- linear algebra (linalg.ts)
  matmul(o: Tensor): Tensor {
    return la.matmul(this, o);
  }
  dot(o: Tensor): Tensor {
    return la.dot(this, o);
  }

  // ----- movement (movement.ts): views share storage; the rest copy
  reshape(...shape: number[] | [readonly number[]]): Tensor {
    return mv.reshape(this, dims(shape));
  }
  view(...shape: number[] | [readonly number[]]): Tensor {
    return mv.view(this, dims(shape));
  }
  permute(...axes: number[] | [readonly number[]]): Tensor {
    return mv.permute(this, dims(axes));
  }
  transpose(a = -2, b = -1): Tensor {
    return mv.transpose(this, a, b);
  }
  get T(): Tensor {
    return mv.permute(this, [...Array(this.ndim).keys()].reverse());
  }
  expand(...shape: number[] | [readonly number[]]): Tensor {
    return mv.expand(this, dims(shape));
  }
  squeeze(axis?: number | readonly number[]): Tensor {
    return mv.squeeze(this, axis);
  }
  unsqueeze(axis: number): Tensor {
    return mv.unsqueeze(this, axis);
  }
  flatten(start = 0, end = -1): Tensor {
    return mv.flatten(this, start, end);
  }
  /** Elements start, start+step, ... below end along axis (negative start/end count from the end). */
  slice(axis: number, start = 0, end?: number, step = 1): Tensor {
    return mv.slice(this, axis, start, end, step);
  }
  narrow(axis: number, start: number, length: number): Tensor {
    return mv.narrow(this, axis, start, length);
  }
  contiguous(): Tensor {
    return mv.contiguous(this);
  }
  flip(axes: number | readonly number[]): Tensor {
    return mv.flip(this, axes);
  }

  // ----- indexing (indexing.ts)
  gather(axis: number, index: Tensor, mode: IndexMode = "error"): Tensor {
    return idx.gather(this, axis, index, mode);
  }
  indexSelect(axis: number, index: Tensor, mode: IndexMode = "error"): Tensor {
    return idx.indexSelect(this, axis, index, mode);
  }
  /** Out-of-place scatter: a copy of this with src written at index along axis. */
  scatter(axis: number, index: Tensor, src: TensorLike, opts: { reduce?: "add" | "max" | "min"; mode?: IndexMode } = {}): Tensor {
    return idx.scatter(this, axis, index, src, opts.reduce, opts.mode ?? "error");
  }
  scatterAdd(axis: number, index: Tensor, src: TensorLike): Tensor {
    return idx.scatter(this, axis, index, src, "add", "error", "scatterAdd");
  }
  /** Out-of-place index_put: indices index the leading dims and broadcast together. */
  indexPut(indices: readonly Tensor[], values: TensorLike, opts: { accumulate?: boolean; mode?: IndexMode } = {}): Tensor {
    return idx.indexPut(this, indices, values, opts.accumulate ?? false, opts.mode ?? "error");
  }
  /** Advanced indexing: this[indices[0], indices[1], ...] over the leading dims. */
  index(indices: readonly Tensor[], mode: IndexMode = "error"): Tensor {
    return idx.indexGet(this, indices, mode);
  }
  maskedSelect(mask: Tensor): Tensor {
    return idx.maskedSelect(this, mask);
  }
  nonzero(): Tensor {
    return idx.nonzero(this);
  }

  // ----- sorting (sort.ts)
  sort(axis = -1, descending = false): { values: Tensor; indices: Tensor } {
    return srt.sort(this, axis, descending);
  }
  argsort(axis = -1, descending = false): Tensor {
    return srt.argsort(this, axis, descending);
  }
  topk(k: number, axis = -1, largest = true): { values: Tensor; indices: Tensor } {
    return srt.topk(this, k, axis, largest);
  }
}

function fmt(s: Shape): string {
  return `[${s.join(", ")}]`;
}

/** Wraps a buffer reference the caller already owns (one native reference) as a tensor. */
export function wrapBuffer(
  device: Device,
  buf: number,
  dtype: DType,
  shape: Shape,
  strides?: readonly number[],
  offset = 0,
  keep?: object,
): Tensor {
  return new Tensor(creating, device, buf, dtype, shape, strides ?? denseStrides(shape), offset, keep);
}

/** A handle on a deferred node (its result or an alias of it). */
export function deferredTensor(node: Deferred): Tensor {
  // A node's shape is sealed (record.ts), and so are the dense strides of a sealed shape.
  return new Tensor(creatingSealed, node.device, 0, node.dtype, node.shape, node.strides, 0, undefined, node);
}

/** Sees every tensor an op allocates, with the op's name (pt.compareBackends sets it). */
export let allocTracer: ((t: Tensor, op: string) => void) | null = null;
export function setAllocTracer(f: ((t: Tensor, op: string) => void) | null): void {
  allocTracer = f;
}

/** A new contiguous tensor with uninitialised contents. */
export function allocTensor(device: Device, dtype: DType, shape: Shape, op: string): Tensor {
  const bytes = numel(shape) * DTYPES[dtype].size;
  if (bytes > 2 ** 53) checkBytes(shape, DTYPES[dtype].size, dtype, op); // the message in the caller's terms
  const buf = allocBuffer(device, bytes, op);
  const t = wrapBuffer(device, buf, dtype, shape);
  if (allocTracer !== null) allocTracer(t, op);
  return t;
}

/**
 * A view on base's buffer with new geometry; it holds its own reference. A deferred base
 * whose view can be described dim by dim (`map`) stays deferred: the view re-strides the
 * pending kernel's inputs instead of launching it.
 */
export function viewOf(base: Tensor, shape: Shape, strides: readonly number[], offset: number, op: string, map?: DimMap): Tensor {
  if (map && base.isDeferred) return deferredTensor(withOp(op, () => viewOfDeferred(base.deferred!, shape, map)));
  const buf = withOp(op, () => base.buf);
  check(native.pt_buffer_retain(buf), op);
  return wrapBuffer(base.device, buf, base.dtype, shape, strides, offset, base.hostOwner);
}
