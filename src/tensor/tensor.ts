/**
 * Tensor: a typed, strided window on a device buffer. The class holds what every op needs
 * (device, dtype, shape, strides, offset, the owned buffer reference) and forwards each op
 * to its module, so each family of ops lives in one file. A tensor owns one native
 * reference to its buffer; views own one more on the same buffer, so a view keeps its
 * base's memory alive and disposing the base first is safe.
 */
import type { Device } from "../runtime/device.ts";
import { TensorError, withOp } from "../base/errors.ts";
import { allocBuffer, drop, type Held, heldNow, holdBuffer, release, track } from "../runtime/ownership.ts";
import { type Deferred, type DimMap, viewOfDeferred } from "../lazy/deferred.ts";
import { check, native } from "../runtime/native.ts";
import { type DType, DTYPES, type HostArray } from "../base/dtype.ts";
import { checkBytes, contiguousStrides, denseStrides, numel, sealed, type Shape } from "../base/shape.ts";
import * as ew from "./elementwise.ts";
import * as mv from "./movement.ts";
import * as st from "./structure.ts";
import * as math from "./math.ts";
import * as stats from "./stats.ts";
import * as counting from "./counting.ts";
import * as sampling from "./sampling.ts";
import * as sub from "./subscript.ts";
import * as red from "./reduce.ts";
import * as idx from "./indexing.ts";
import * as srt from "./sort.ts";
import * as la from "./linalg.ts";
import * as io from "./transfer.ts";
import { formatTensor } from "./format.ts";
import * as creation from "./creation.ts";
import { broadcastTo, inPlace, scaled } from "./inplace.ts";
import { backward, type BackwardOptions, differentiable, type GradNode } from "../autograd/graph.ts";

/**
 * A JS scalar operand: a number, a boolean or a bigint. When dtypes promote, an integer-valued number (`2.0` too) or a
 * bigint counts as an integer, any other number as a float, and a scalar never widens a tensor's dtype within its kind.
 */
export type Scalar = number | boolean | bigint;
/** An operand of an elementwise op: a tensor, or a JS {@link Scalar} (which broadcasts as 0-d and promotes below 0-d tensors). */
export type TensorLike = Tensor | Scalar;
/**
 * How index ops treat an index outside `[-size, size)`: `"error"` (the default, as in PyTorch) throws a TensorError,
 * `"clamp"` clamps the raw index to `[0, size - 1]` (so -1 becomes 0), `"wrap"` takes it modulo size (Python's `%`).
 * In `"error"` and `"wrap"` a negative index counts from the end. An axis of size 0 has no valid index in any mode.
 * In `"error"` the op waits for the device, which checks the indices.
 */
export type IndexMode = "error" | "clamp" | "wrap";
/** Values nested as the tensor's dims: what `toList()` returns and what `pt.tensor()` takes. A 0-d tensor is its value. */
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

/**
 * An n-dimensional array of one dtype on one device, as `torch.Tensor`; made by `pt.tensor`, `pt.zeros` and the other
 * creation functions. Ops never modify a tensor: each returns a new one (scatter, indexPut and maskedFill too, out of
 * place). A tensor holds native memory until it is disposed: `using`, `dispose()` or `pt.tidy`. Views (view, permute,
 * transpose, T, expand, squeeze, unsqueeze, slice, narrow, and reshape or flatten where the strides allow) share their
 * base's storage and keep it alive, so the base may be disposed first.
 *
 * Elementwise ops broadcast (shapes that cannot broadcast throw) and promote as `torch.result_type` (`pt.resultType`):
 * dimensioned tensors first, then 0-d tensors, then JS scalars, a later group changing the dtype only when of a higher
 * kind (bool < integer < float), so `int32[2] + 2.5` is float32 and `float16[2] + float32 0-d` float16. Every op throws
 * a TensorError when a tensor it uses was disposed or its device's context was lost, or when its tensors are on
 * different devices; the members below do not repeat these cases.
 *
 * @example
 * using a = pt.tensor([[1, 2], [3, 4]]);
 * using b = a.matmul(a).relu(); // float32 [[7, 10], [15, 22]]
 */
export class Tensor {
  /** The device that holds the data; `to(device)` copies to another. */
  readonly device: Device;
  /** The element type. */
  readonly dtype: DType;
  /** The size of each dim, as `torch.Tensor.shape`. Shared between tensors and not frozen (for speed): do not mutate it. */
  readonly shape: readonly number[];
  /** The step between neighbours along each dim, in elements (0 along broadcast dims), as `torch.Tensor.stride()`. */
  readonly strides: readonly number[];
  /** Where the first element sits in the buffer, in elements, as `torch.Tensor.storage_offset()`. */
  readonly offset: number;
  #buf: number;
  readonly #epoch: number;
  /** What this handle owns, as the registry keeps it once registered (ownership.ts); null before that and once disposed. */
  #held: Held | null;
  /** Host memory a wrapped buffer points into; kept alive as long as any view of it. */
  readonly #keep: object | undefined;
  /** The fused node this handle stands for until it needs memory (lazy/deferred.ts). */
  #deferred: Deferred | null;
  /** The recorded op that made this tensor, while gradients flow through it (autograd/graph.ts). */
  #gradFn: GradNode | null;
  #grad: Tensor | null;
  /** Set on a leaf by requiresGrad_(). */
  #wantsGrad: boolean;

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
    this.#gradFn = null;
    this.#grad = null;
    this.#wantsGrad = false;
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

  /**
   * The native buffer handle (for the C ABI); reading it runs a pending fused kernel first.
   *
   * @throws {TensorError} when this tensor was disposed, or its device's context was lost since it was made.
   */
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

  /** True once `dispose()` ran (dtype, shape and strides stay readable; every op on it throws). */
  get disposed(): boolean {
    return this.#buf === 0 && this.#deferred === null;
  }

  /** @internal The fused node while this tensor is deferred (lazy mode), else null. */
  get deferred(): Deferred | null {
    return this.#deferred;
  }

  /** True while this tensor's value is a recorded expression that has not run yet (lazy mode). */
  get isDeferred(): boolean {
    return this.#deferred !== null && this.#deferred.buffer === 0;
  }

  /** Runs this tensor's pending fused kernel now (if any); returns this tensor. Reads and non-elementwise ops do it anyway. */
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
  /** The number of dims, as `torch.Tensor.ndim`. */
  get ndim(): number {
    return this.shape.length;
  }
  /** The number of elements (a property here), as `torch.Tensor.numel()`. */
  get numel(): number {
    return numel(this.shape);
  }
  /**
   * The shape, or the size of dim `axis` (negative counts from the end), as `torch.Tensor.size`.
   *
   * @throws {TensorError} when axis is out of range.
   */
  size(axis?: number): number | readonly number[] {
    return axis === undefined ? this.shape : this.shape[mv.axisOf(this, axis, "size")];
  }
  /** Whether the elements lie in row-major order without gaps (size-1 dims ignored), as `torch.Tensor.is_contiguous`. */
  get isContiguous(): boolean {
    const c = contiguousStrides(this.shape);
    return this.shape.every((d, i) => d === 1 || c[i] === this.strides[i]);
  }

  /** Frees this tensor's reference to its memory now; idempotent. Views made from it keep the memory alive. */
  dispose(): void {
    const buf = this.#buf, node = this.#deferred, held = this.#held;
    if (buf === 0 && node === null) return;
    if (this.#gradFn !== null) {
      const g = this.#gradFn;
      this.#gradFn = null;
      this.#wantsGrad = true; // still reads as requiring gradients: rules ask their operands
      g.unref();
    }
    if (this.#grad !== null) this.grad = null;
    this.#deferred = null;
    this.#buf = 0;
    this.#held = null;
    if (held !== null) drop(this, held);
    else release(this.device, this.#epoch, buf, node); // disposed in the task that made it: never registered
  }
  /** `dispose()`, for `using t = ...`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  // ----- autograd (autograd/graph.ts)
  /**
   * Whether gradients flow to this tensor, as `torch.Tensor.requires_grad`: set on a tensor the user made by
   * `requiresGrad_()` or the `{ requiresGrad: true }` creation option, and true for a result recorded from one.
   */
  get requiresGrad(): boolean {
    return this.#wantsGrad || this.#gradFn !== null;
  }
  /**
   * Marks this tensor as a leaf whose gradient backward() accumulates into `grad` (or unmarks it); returns this.
   * As `torch.Tensor.requires_grad_`.
   *
   * @throws {TensorError} for a tensor that is not floating-point, or a result recorded from others (use `detach()` first).
   */
  requiresGrad_(on = true): this {
    if (this.#gradFn !== null) {
      throw new TensorError(
        "requiresGrad_",
        "this tensor is the result of a recorded op; only leaves can change requiresGrad (detach() it)",
      );
    }
    if (on && !differentiable(this.dtype)) {
      throw new TensorError("requiresGrad_", `a ${this.dtype} tensor cannot require gradients: only floating-point tensors can`);
    }
    this.#wantsGrad = on;
    return this;
  }
  /** True for a tensor no recorded op made (what the user created, or a detached result), as `torch.Tensor.is_leaf`. */
  get isLeaf(): boolean {
    return this.#gradFn === null;
  }
  /**
   * The gradient backward() accumulated into this leaf, or null, as `torch.Tensor.grad`. The tensor owns it: setting
   * another (or null, as an optimizer's zeroGrad does) disposes the previous one, and so does disposing this tensor.
   */
  get grad(): Tensor | null {
    return this.#grad;
  }
  set grad(g: Tensor | null) {
    if (g !== null && !(g instanceof Tensor)) throw new TensorError("grad", "a gradient must be a Tensor or null");
    const had = this.#grad;
    this.#grad = g;
    if (had !== null && had !== g) had.dispose();
  }
  /** @internal The recorded op that made this tensor, or null for a leaf. */
  get gradFn(): GradNode | null {
    return this.#gradFn;
  }
  /** @internal Attaches the recorded op that made this tensor (autograd/graph.ts record()). */
  setGradFn(node: GradNode): void {
    this.#gradFn = node;
  }
  /**
   * Computes the gradient of this tensor with respect to every leaf it was computed from and adds it into each
   * leaf's `grad`, as `torch.Tensor.backward`. `grad` is the gradient of the final value with respect to this tensor;
   * it may be left out for a tensor of one element (a loss). The graph's saved tensors are freed afterwards unless
   * `{ retainGraph: true }`.
   *
   * @example
   * using w = pt.tensor([1, 2, 3], { requiresGrad: true });
   * using loss = w.mul(w).sum();
   * loss.backward();
   * w.grad!.toArray(); // Float32Array [2, 4, 6]
   * @throws {TensorError} for a tensor that does not require gradients or is not floating-point, a tensor of more than
   * one element without `grad`, a graph already run through without retainGraph, or a saved tensor modified in place.
   */
  backward(grad?: Tensor, opts?: BackwardOptions): void {
    backward(this, grad, opts);
  }
  /**
   * A tensor on the same storage that no gradient flows through (a leaf with requiresGrad false), as
   * `torch.Tensor.detach`. An in-place write to either is seen by the other.
   */
  detach(): Tensor {
    return aliasOf(this, "detach");
  }

  // ----- in-place writes (inplace.ts): the only ops that change a tensor's values
  /**
   * Overwrites this tensor's elements with src's, broadcast to this shape and cast to this dtype; returns this. Views
   * of this tensor see the new values. As `torch.Tensor.copy_`.
   *
   * @throws {TensorError} when src does not broadcast to this shape, or this or src requires gradients while
   * gradients are recorded (write under `pt.noGrad`, as optimizers do).
   */
  copy_(src: TensorLike): this {
    return inPlace(
      this,
      "copy_",
      () => (src instanceof Tensor
        ? broadcastTo(src, this.shape, "copy_")
        : creation.full(this.shape, src, { device: this.device, dtype: this.dtype })),
      src,
    );
  }
  /** Sets every element to 0; returns this. As `torch.Tensor.zero_`. */
  zero_(): this {
    return inPlace(this, "zero_", () => creation.full(this.shape, 0, { device: this.device, dtype: this.dtype }));
  }
  /**
   * Sets every element to value; returns this. As `torch.Tensor.fill_`.
   *
   * @throws {TensorError} when value does not fit an integer dtype.
   */
  fill_(value: Scalar): this {
    return inPlace(this, "fill_", () => creation.full(this.shape, value, { device: this.device, dtype: this.dtype }));
  }
  /**
   * this += other * alpha, in place; returns this. As `torch.Tensor.add_`.
   *
   * @throws {TensorError} when other does not broadcast to this shape or the sum's dtype cannot be stored in this one.
   */
  add_(other: TensorLike, alpha = 1): this {
    return inPlace(this, "add_", () => ew.binary("add", this, alpha === 1 ? other : scaled(other, alpha)), other);
  }
  /** this -= other * alpha, in place; returns this. As `torch.Tensor.sub_`. */
  sub_(other: TensorLike, alpha = 1): this {
    return inPlace(this, "sub_", () => ew.binary("sub", this, alpha === 1 ? other : scaled(other, alpha)), other);
  }
  /** this *= other, in place; returns this. As `torch.Tensor.mul_`. */
  mul_(other: TensorLike): this {
    return inPlace(this, "mul_", () => ew.binary("mul", this, other), other);
  }
  /** this /= other, in place (true division: this must be floating-point); returns this. As `torch.Tensor.div_`. */
  div_(other: TensorLike): this {
    return inPlace(this, "div_", () => ew.binary("div", this, other), other);
  }
  /**
   * this += (end - this) * weight, in place; returns this. As `torch.Tensor.lerp_` (optimizers' moving averages).
   */
  lerp_(end: TensorLike, weight: TensorLike): this {
    return inPlace(this, "lerp_", () => ew.lerp(this, end, weight), end, weight);
  }

  // ----- transfer and inspection (transfer.ts, format.ts)
  /**
   * The values in row-major order, copied to the host after the device is done (the thread waits). float16 and bfloat16
   * read back as Float32Array, int64 as BigInt64Array, int16 as Int16Array, int8 as Int8Array, bool and uint8 as Uint8Array,
   * the rest as their typed array.
   * As `torch.Tensor.numpy()`, but always a copy.
   *
   * @throws {TensorError} inside a step being captured (`pt.capture`), which cannot read values.
   */
  toArray(): HostArray {
    return io.toArray(this);
  }
  /**
   * `toArray()` without blocking the thread: resolves once the device has produced the values.
   *
   * @throws {TensorError} inside a step being captured (`pt.capture`).
   * @example
   * const values = await t.data(); // Float32Array for a float32 tensor
   */
  data(): Promise<HostArray> {
    return io.data(this);
  }
  /**
   * The one element as a JS value, as `torch.Tensor.item`: a bigint for int64 (so no value is rounded), 0 or 1 for bool,
   * a number otherwise.
   *
   * @throws {TensorError} when the tensor has not exactly one element, or inside a captured step.
   */
  item(): number | bigint {
    return io.item(this);
  }
  /**
   * The values as nested arrays, as `torch.Tensor.tolist`: booleans for bool, bigints for int64 (whatever their size),
   * numbers otherwise; a 0-d tensor gives its value.
   *
   * @throws {TensorError} inside a captured step.
   */
  toList(): NestedArray {
    return io.toList(this);
  }
  /**
   * What `JSON.stringify(t)` writes: `toList()`'s nested values, except int64, which is a number where exact
   * (|v| < 2^53) and a decimal string beyond; NaN and infinities become null, as JSON.stringify writes them.
   *
   * @example
   * JSON.stringify(pt.tensor([2n ** 60n, 3n])); // '["1152921504606846976",3]'
   */
  toJSON(): io.JsonValues {
    return io.toJSON(this);
  }
  /**
   * This tensor as another dtype, or on another device, as `torch.Tensor.to`. A string that names a dtype is a dtype,
   * any other a device name ("cpu", "cuda:0"). To the same dtype or device it returns a view sharing this storage;
   * to another device it copies through the host.
   *
   * @throws {TensorError} when the string is neither a dtype nor an available device, or (another device) in a captured step.
   * @example
   * using h = t.to("float16"); // a cast, as t.cast("float16")
   * using g = t.to("cuda"); // a copy on the first CUDA device; t.to(pt.device("vulkan:1")) names one
   */
  to(target: DType | Device | string): Tensor {
    return io.to(this, target);
  }
  /**
   * A new tensor of the values converted to `dtype`, as `torch.Tensor.to(dtype)`. Float to integer truncates toward zero
   * (NaN gives 0, values beyond the range saturate); storing into uint8, int8 or int16 keeps the low bits (int8 200 is -56),
   * a float first truncated to int64 (`300.7` to int8 is 44: C leaves an out-of-range float to int8 undefined, and PyTorch's CPU
   * gives the same); to bool tests nonzero (NaN is true).
   *
   * @throws {TensorError} when dtype is not a dtype name.
   */
  cast(dtype: DType): Tensor {
    return ew.cast(this, dtype);
  }
  /** A contiguous copy with its own storage, as `torch.Tensor.clone` (of a pending lazy result, another handle on it). */
  clone(): Tensor {
    return mv.clone(this);
  }
  /**
   * PyTorch's repr: `tensor([1.0000, 2.0000], dtype=float32, device=cpu:0)`; past 1000 elements the first and last 3 of
   * each dim. Never throws: a disposed tensor prints as `tensor(<disposed>, ...)`.
   */
  toString(): string {
    return formatTensor(this);
  }
  /** What Deno's `console.log` shows: `toString()`. */
  [Symbol.for("Deno.customInspect")](): string {
    return formatTensor(this);
  }
  /** What Bun's and Node's `console.log` show: `toString()`. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return formatTensor(this);
  }

  // ----- elementwise (elementwise.ts): operands broadcast, dtypes promote (see the class); shapes that do not broadcast throw
  /** this + o, as `torch.Tensor.add` (no alpha). bool + bool is logical or. */
  add(o: TensorLike): Tensor {
    return ew.binary("add", this, o);
  }
  /**
   * this - o, as `torch.Tensor.sub`.
   *
   * @throws {TensorError} when both operands are bool.
   */
  sub(o: TensorLike): Tensor {
    return ew.binary("sub", this, o);
  }
  /** this * o, as `torch.Tensor.mul`. Integers wrap on overflow. */
  mul(o: TensorLike): Tensor {
    return ew.binary("mul", this, o);
  }
  /** this / o, true division as `torch.Tensor.div`: integer and bool operands give float32. */
  div(o: TensorLike): Tensor {
    return ew.binary("div", this, o);
  }
  /**
   * this ** o, as `torch.Tensor.pow`. Integer powers stay integer; a negative integer tensor exponent truncates
   * (1 for base 1, 1 or -1 by parity for base -1, else 0).
   *
   * @throws {TensorError} for an integer tensor to a negative JS exponent, or when both operands are bool.
   */
  pow(o: TensorLike): Tensor {
    return ew.binary("pow", this, o);
  }
  /**
   * The remainder with the sign of the divisor (Python's `%`), as `torch.Tensor.remainder` (not `fmod`).
   *
   * @throws {TensorError} for an integer remainder by zero (integer mod runs at once, also in lazy mode), or two bools.
   */
  mod(o: TensorLike): Tensor {
    return ew.binary("mod", this, o);
  }
  /** The larger of this and o elementwise, NaN propagating, as `torch.maximum`. */
  maximum(o: TensorLike): Tensor {
    return ew.binary("maximum", this, o);
  }
  /** The smaller of this and o elementwise, NaN propagating, as `torch.minimum`. */
  minimum(o: TensorLike): Tensor {
    return ew.binary("minimum", this, o);
  }
  /** this == o as a bool tensor (compared in the promoted dtype), as `torch.Tensor.eq`. */
  eq(o: TensorLike): Tensor {
    return ew.binary("eq", this, o);
  }
  /** this != o as a bool tensor, as `torch.Tensor.ne`. */
  ne(o: TensorLike): Tensor {
    return ew.binary("ne", this, o);
  }
  /** this < o as a bool tensor, as `torch.Tensor.lt`. */
  lt(o: TensorLike): Tensor {
    return ew.binary("lt", this, o);
  }
  /** this <= o as a bool tensor, as `torch.Tensor.le`. */
  le(o: TensorLike): Tensor {
    return ew.binary("le", this, o);
  }
  /** this > o as a bool tensor, as `torch.Tensor.gt`. */
  gt(o: TensorLike): Tensor {
    return ew.binary("gt", this, o);
  }
  /** this >= o as a bool tensor, as `torch.Tensor.ge`. */
  ge(o: TensorLike): Tensor {
    return ew.binary("ge", this, o);
  }
  /** Both nonzero (NaN counts as nonzero), as a bool tensor; as `torch.Tensor.logical_and`. */
  logicalAnd(o: TensorLike): Tensor {
    return ew.binary("logicalAnd", this, o);
  }
  /** Either nonzero, as a bool tensor; as `torch.Tensor.logical_or`. */
  logicalOr(o: TensorLike): Tensor {
    return ew.binary("logicalOr", this, o);
  }
  /** Exactly one nonzero, as a bool tensor; as `torch.Tensor.logical_xor`. */
  logicalXor(o: TensorLike): Tensor {
    return ew.binary("logicalXor", this, o);
  }
  /** Whether each element is zero, as a bool tensor; as `torch.Tensor.logical_not`. */
  logicalNot(): Tensor {
    return ew.unary("logicalNot", this);
  }

  // Unary ops keep the dtype unless noted; the float functions (reciprocal to gelu) compute integer and bool input in float32.
  /**
   * -this, as `torch.Tensor.neg`; integers wrap.
   *
   * @throws {TensorError} for a bool tensor.
   */
  neg(): Tensor {
    return ew.unary("neg", this);
  }
  /**
   * |this|, as `torch.Tensor.abs`.
   *
   * @throws {TensorError} for a bool tensor.
   */
  abs(): Tensor {
    return ew.unary("abs", this);
  }
  /** -1, 0 or 1 by sign (NaN stays NaN; a bool tensor is returned as bool), as `torch.Tensor.sign`. */
  sign(): Tensor {
    return ew.unary("sign", this);
  }
  /** this * this, as `torch.Tensor.square`; bool gives int64. */
  square(): Tensor {
    return ew.unary("square", this);
  }
  /** 1 / this, as `torch.Tensor.reciprocal`. */
  reciprocal(): Tensor {
    return ew.unary("reciprocal", this);
  }
  /** e ** this, as `torch.Tensor.exp`. */
  exp(): Tensor {
    return ew.unary("exp", this);
  }
  /** 2 ** this, as `torch.Tensor.exp2`. */
  exp2(): Tensor {
    return ew.unary("exp2", this);
  }
  /** The natural logarithm, as `torch.Tensor.log`. */
  log(): Tensor {
    return ew.unary("log", this);
  }
  /** The base-2 logarithm, as `torch.Tensor.log2`. */
  log2(): Tensor {
    return ew.unary("log2", this);
  }
  /** log(1 + this), accurate near 0, as `torch.Tensor.log1p`. */
  log1p(): Tensor {
    return ew.unary("log1p", this);
  }
  /** The square root, as `torch.Tensor.sqrt`. */
  sqrt(): Tensor {
    return ew.unary("sqrt", this);
  }
  /** 1 / sqrt(this), as `torch.Tensor.rsqrt`. */
  rsqrt(): Tensor {
    return ew.unary("rsqrt", this);
  }
  /** The sine (radians), as `torch.Tensor.sin`. */
  sin(): Tensor {
    return ew.unary("sin", this);
  }
  /** The cosine (radians), as `torch.Tensor.cos`. */
  cos(): Tensor {
    return ew.unary("cos", this);
  }
  /** The tangent (radians), as `torch.Tensor.tan`. */
  tan(): Tensor {
    return ew.unary("tan", this);
  }
  /** The hyperbolic tangent, as `torch.Tensor.tanh`. */
  tanh(): Tensor {
    return ew.unary("tanh", this);
  }
  /** 1 / (1 + e ** -this), as `torch.Tensor.sigmoid`. */
  sigmoid(): Tensor {
    return ew.unary("sigmoid", this);
  }
  /**
   * max(this, 0), as `torch.Tensor.relu`; integers stay integer.
   *
   * @throws {TensorError} for a bool tensor.
   */
  relu(): Tensor {
    return ew.unary("relu", this);
  }
  /** GELU in its exact erf form, as `torch.nn.functional.gelu` (approximate="none"). */
  gelu(): Tensor {
    return ew.unary("gelu", this);
  }
  /** The error function, as `torch.Tensor.erf`. */
  erf(): Tensor {
    return math.erf(this);
  }
  /** 1 - erf(this), accurate where erf nears 1, as `torch.Tensor.erfc`. */
  erfc(): Tensor {
    return math.erfc(this);
  }
  /** e ** this - 1, accurate near 0, as `torch.Tensor.expm1`. */
  expm1(): Tensor {
    return math.expm1(this);
  }
  /** The base-10 logarithm, as `torch.Tensor.log10`. */
  log10(): Tensor {
    return math.log10(this);
  }
  /** The arcsine (radians), as `torch.Tensor.asin`. */
  asin(): Tensor {
    return math.asin(this);
  }
  /** The arccosine (radians), as `torch.Tensor.acos`. */
  acos(): Tensor {
    return math.acos(this);
  }
  /** The arctangent (radians), as `torch.Tensor.atan`. */
  atan(): Tensor {
    return math.atan(this);
  }
  /** The hyperbolic sine, as `torch.Tensor.sinh`. */
  sinh(): Tensor {
    return math.sinh(this);
  }
  /** The hyperbolic cosine, as `torch.Tensor.cosh`. */
  cosh(): Tensor {
    return math.cosh(this);
  }
  /** The inverse hyperbolic sine, as `torch.Tensor.asinh`. */
  asinh(): Tensor {
    return math.asinh(this);
  }
  /** The inverse hyperbolic cosine, as `torch.Tensor.acosh`. */
  acosh(): Tensor {
    return math.acosh(this);
  }
  /** The inverse hyperbolic tangent, as `torch.Tensor.atanh`. */
  atanh(): Tensor {
    return math.atanh(this);
  }
  /** Bitwise not of integers (logical not of bools), as `torch.Tensor.bitwise_not` (see `pt.bitwiseNot`). */
  bitwiseNot(): Tensor {
    return math.bitwiseNot(this);
  }
  /** The angle of (other, this) in radians, quadrant-aware, as `torch.Tensor.atan2` (see `pt.atan2`). */
  atan2(other: TensorLike): Tensor {
    return math.atan2(this, other);
  }
  /** sqrt(this ** 2 + other ** 2) without overflow, as `torch.Tensor.hypot` (see `pt.hypot`). */
  hypot(other: TensorLike): Tensor {
    return math.hypot(this, other);
  }
  /** The remainder with the sign of this (C's fmod), as `torch.Tensor.fmod` (see `pt.fmod`). */
  fmod(other: TensorLike): Tensor {
    return math.fmod(this, other);
  }
  /** floor(this / other), as `torch.Tensor.floor_divide` (see `pt.floorDivide`). */
  floorDivide(other: TensorLike): Tensor {
    return math.floorDivide(this, other);
  }
  /** Bitwise and of integers (logical and of bools), as `torch.Tensor.bitwise_and`. */
  bitwiseAnd(other: TensorLike): Tensor {
    return math.bitwiseAnd(this, other);
  }
  /** Bitwise or of integers (logical or of bools), as `torch.Tensor.bitwise_or`. */
  bitwiseOr(other: TensorLike): Tensor {
    return math.bitwiseOr(this, other);
  }
  /** Bitwise xor of integers (logical xor of bools), as `torch.Tensor.bitwise_xor`. */
  bitwiseXor(other: TensorLike): Tensor {
    return math.bitwiseXor(this, other);
  }
  /** this shifted left by other bits, as `torch.Tensor.bitwise_left_shift` (see `pt.bitwiseLeftShift`). */
  bitwiseLeftShift(other: TensorLike): Tensor {
    return math.bitwiseLeftShift(this, other);
  }
  /** this shifted right by other bits (arithmetic for signed), as `torch.Tensor.bitwise_right_shift`. */
  bitwiseRightShift(other: TensorLike): Tensor {
    return math.bitwiseRightShift(this, other);
  }
  /** Rounds down, as `torch.Tensor.floor`; integer and bool tensors come back unchanged (a copy). */
  floor(): Tensor {
    return ew.unary("floor", this);
  }
  /** Rounds up, as `torch.Tensor.ceil`; integer and bool tensors come back unchanged. */
  ceil(): Tensor {
    return ew.unary("ceil", this);
  }
  /** Rounds to the nearest integer, halves to even (2.5 gives 2), as `torch.Tensor.round`; integers come back unchanged. */
  round(): Tensor {
    return ew.unary("round", this);
  }
  /** Rounds toward zero, as `torch.Tensor.trunc`; integers come back unchanged. */
  trunc(): Tensor {
    return ew.unary("trunc", this);
  }
  /** Whether each element is NaN, as a bool tensor (all false for integers); as `torch.Tensor.isnan`. */
  isnan(): Tensor {
    return ew.unary("isnan", this);
  }
  /** Whether each element is +-infinity, as a bool tensor; as `torch.Tensor.isinf`. */
  isinf(): Tensor {
    return ew.unary("isinf", this);
  }
  /** Whether each element is neither NaN nor infinite, as a bool tensor; as `torch.Tensor.isfinite`. */
  isfinite(): Tensor {
    return ew.unary("isfinite", this);
  }
  /**
   * Each element limited to [min, max], as `torch.Tensor.clamp`; null or undefined leaves that side open. The dtype
   * promotes over this, min and max, as in PyTorch.
   *
   * @throws {TensorError} when neither bound is given, or the promoted dtype is bool.
   */
  clamp(min?: TensorLike | null, max?: TensorLike | null): Tensor {
    return ew.clamp(this, min ?? undefined, max ?? undefined);
  }
  /**
   * This where cond is nonzero, else other; as `torch.Tensor.where` (cond need not be bool here). cond, this and other
   * broadcast; the dtype promotes over this and other.
   *
   * @example
   * using y = x.where(x.gt(0), 0); // x's positive elements, 0 elsewhere
   */
  where(cond: Tensor, other: TensorLike): Tensor {
    return ew.where(cond, this, other);
  }
  /**
   * this + weight * (end - this), as `torch.Tensor.lerp`, but the operands promote (PyTorch wants one dtype).
   *
   * @throws {TensorError} when the promoted dtype is not floating-point.
   */
  lerp(end: TensorLike, weight: TensorLike): Tensor {
    return ew.lerp(this, end, weight);
  }
  /**
   * A copy of this with value where mask is true, as `torch.Tensor.masked_fill`: it keeps this dtype (value is cast
   * to it) and has the broadcast shape of this and mask.
   *
   * @param mask a bool tensor that broadcasts with this.
   * @param value a JS scalar or a 0-d tensor.
   * @throws {TensorError} when mask is not bool, value is a tensor that is not 0-d, or a JS value outside this integer dtype's range.
   */
  maskedFill(mask: Tensor, value: TensorLike): Tensor {
    return ew.maskedFill(this, mask, value);
  }

  // ----- reductions (reduce.ts): `axis` is one axis or several (negative count from the end), all when undefined;
  // keepdim keeps reduced dims as size 1. An axis out of range or repeated throws; a 0-d tensor takes axis 0 or -1.
  /**
   * The sum, as `torch.Tensor.sum`; integer and bool tensors sum in int64, floats keep their dtype. Empty: 0.
   *
   * @throws {TensorError} when an axis is out of range or repeated.
   */
  sum(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("sum", this, axis, keepdim);
  }
  /**
   * The mean, as `torch.Tensor.mean`. Empty: NaN.
   *
   * @throws {TensorError} for an integer or bool tensor (cast it first, as PyTorch asks too), or an axis out of range.
   */
  mean(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("mean", this, axis, keepdim);
  }
  /**
   * The product, as `torch.Tensor.prod`; integer and bool tensors multiply in int64. Empty: 1.
   *
   * @throws {TensorError} when an axis is out of range or repeated.
   */
  prod(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("prod", this, axis, keepdim);
  }
  /**
   * The largest value (NaN propagates), as `torch.Tensor.amax`: values only, argmax gives the indices.
   *
   * @throws {TensorError} when a reduced extent is empty, or an axis is out of range or repeated.
   */
  max(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("max", this, axis, keepdim);
  }
  /**
   * The smallest value (NaN propagates), as `torch.Tensor.amin`: values only, argmin gives the indices.
   *
   * @throws {TensorError} when a reduced extent is empty, or an axis is out of range or repeated.
   */
  min(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("min", this, axis, keepdim);
  }
  /**
   * The int64 index of the first largest value along axis (a NaN counts as largest), or into the flattened tensor when axis
   * is undefined; as `torch.Tensor.argmax`.
   *
   * @throws {TensorError} when a reduced extent is empty, or axis is out of range.
   */
  argmax(axis?: number, keepdim = false): Tensor {
    return red.reduce("argmax", this, axis, keepdim);
  }
  /**
   * The int64 index of the first smallest value (a NaN counts as smallest), as `torch.Tensor.argmin`.
   *
   * @throws {TensorError} when a reduced extent is empty, or axis is out of range.
   */
  argmin(axis?: number, keepdim = false): Tensor {
    return red.reduce("argmin", this, axis, keepdim);
  }
  /**
   * Whether any element is nonzero, as `torch.Tensor.any`: uint8 for a uint8 tensor, else bool.
   *
   * @throws {TensorError} when an axis is out of range or repeated.
   */
  any(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("any", this, axis, keepdim);
  }
  /**
   * Whether every element is nonzero, as `torch.Tensor.all`: uint8 for a uint8 tensor, else bool.
   *
   * @throws {TensorError} when an axis is out of range or repeated.
   */
  all(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("all", this, axis, keepdim);
  }
  /**
   * The number of nonzero elements (NaN counts) as int64, as `torch.Tensor.count_nonzero` (plus keepdim).
   *
   * @throws {TensorError} when an axis is out of range or repeated.
   */
  countNonzero(axis?: number | readonly number[], keepdim = false): Tensor {
    return red.reduce("countNonzero", this, axis, keepdim);
  }
  /**
   * The variance, dividing by n - correction (Bessel's correction, 1, by default), as `torch.Tensor.var`.
   *
   * @throws {TensorError} for an integer or bool tensor, a correction that is not finite, or an axis out of range.
   */
  var(axis?: number | readonly number[], keepdim = false, correction = 1): Tensor {
    return red.reduce("var", this, axis, keepdim, correction);
  }
  /**
   * The standard deviation, dividing by n - correction (1 by default), as `torch.Tensor.std`.
   *
   * @throws {TensorError} for an integer or bool tensor, a correction that is not finite, or an axis out of range.
   */
  std(axis?: number | readonly number[], keepdim = false, correction = 1): Tensor {
    return red.reduce("std", this, axis, keepdim, correction);
  }
  /**
   * Running sums along axis, as `torch.Tensor.cumsum`; integer and bool tensors give int64.
   *
   * @throws {TensorError} when axis is out of range.
   */
  cumsum(axis: number): Tensor {
    return red.scan("cumsum", this, axis);
  }
  /**
   * Running products along axis, as `torch.Tensor.cumprod`; integer and bool tensors give int64.
   *
   * @throws {TensorError} when axis is out of range.
   */
  cumprod(axis: number): Tensor {
    return red.scan("cumprod", this, axis);
  }

  // ----- linear algebra (linalg.ts)
  /**
   * The matrix product with torch.matmul's shape rules, as `torch.Tensor.matmul`: a 1-D operand gains a dim that the
   * result drops, batch dims broadcast. The dtypes promote (PyTorch wants one dtype).
   *
   * @throws {TensorError} for a 0-d operand, two bool operands, inner dims that differ, or batch dims that do not broadcast.
   */
  matmul(o: Tensor): Tensor {
    return la.matmul(this, o);
  }
  /**
   * The inner product of two 1-D tensors of one length, as a 0-d tensor; as `torch.Tensor.dot` (dtypes promote).
   *
   * @throws {TensorError} when either is not 1-D, the lengths differ, or both are bool.
   */
  dot(o: Tensor): Tensor {
    return la.dot(this, o);
  }

  // ----- movement (movement.ts): views share storage; the rest copy. Shapes are given as sizes or one array.
  /**
   * The elements in `shape` (one size may be -1), as `torch.Tensor.reshape`: a view when the strides allow one,
   * otherwise a copy.
   *
   * @throws {TensorError} when the element counts differ or more than one size is -1.
   */
  reshape(...shape: number[] | [readonly number[]]): Tensor {
    return mv.reshape(this, dims(shape));
  }
  /**
   * A view of the elements in `shape` (one size may be -1), sharing storage, as `torch.Tensor.view`.
   *
   * @throws {TensorError} when the element counts differ, or the strides admit no view (use reshape, which copies then).
   * @example
   * using v = x.view(2, -1); // x contiguous [6]: a [2, 3] view
   * using r = x.T.reshape(6); // x [2, 3]: x.T.view(6) throws, reshape copies
   */
  view(...shape: number[] | [readonly number[]]): Tensor {
    return mv.view(this, dims(shape));
  }
  /**
   * A view with the dims in the order `axes`, as `torch.Tensor.permute`.
   *
   * @throws {TensorError} when axes does not name each dim exactly once.
   */
  permute(...axes: number[] | [readonly number[]]): Tensor {
    return mv.permute(this, dims(axes));
  }
  /**
   * A view with dims a and b swapped, as `torch.Tensor.transpose`; by default the last two (as `mT`), where a tensor of
   * fewer than 2 dims comes back as a view unchanged.
   *
   * @throws {TensorError} when a or b is out of range.
   */
  transpose(a = -2, b = -1): Tensor {
    return mv.transpose(this, a, b);
  }
  /** A view with every dim reversed in order, as `torch.Tensor.T`. */
  get T(): Tensor {
    return mv.permute(this, [...Array(this.ndim).keys()].reverse());
  }
  /**
   * A view broadcast to `shape`, as `torch.Tensor.expand`: size-1 dims repeat without copying (stride 0), new dims come
   * first, and -1 keeps a size.
   *
   * @throws {TensorError} when shape has fewer dims or a dim of size other than 1 would change.
   * @example
   * using e = pt.tensor([[1], [2]]).expand(2, 3); // [[1, 1, 1], [2, 2, 2]], no copy
   */
  expand(...shape: number[] | [readonly number[]]): Tensor {
    return mv.expand(this, dims(shape));
  }
  /**
   * A view without the given size-1 dims (every size-1 dim when axis is undefined; other sizes stay), as
   * `torch.Tensor.squeeze`.
   *
   * @throws {TensorError} when an axis is out of range or repeated.
   */
  squeeze(axis?: number | readonly number[]): Tensor {
    return mv.squeeze(this, axis);
  }
  /**
   * A view with a size-1 dim inserted at axis (-1 appends one), as `torch.Tensor.unsqueeze`.
   *
   * @throws {TensorError} when axis is outside [-ndim - 1, ndim] or the rank would exceed 8.
   */
  unsqueeze(axis: number): Tensor {
    return mv.unsqueeze(this, axis);
  }
  /**
   * Dims start..end (inclusive) merged into one, as `torch.Tensor.flatten`: a view where reshape gives one. A 0-d tensor gives [1].
   *
   * @throws {TensorError} when start or end is out of range, or start comes after end.
   */
  flatten(start = 0, end = -1): Tensor {
    return mv.flatten(this, start, end);
  }
  /**
   * A view of the elements start, start + step, ... below end along axis, as PyTorch's `x[..., start:end:step]`: negative
   * start and end count from the end, and both are clamped to the axis as Python slices are.
   *
   * @throws {TensorError} when axis is out of range or step is not a positive integer.
   * @example
   * using s = pt.arange(10).slice(0, 1, 8, 3); // [1, 4, 7]
   * using t = x.slice(1, -2); // the last two columns of x
   */
  slice(axis: number, start = 0, end?: number, step = 1): Tensor {
    return mv.slice(this, axis, start, end, step);
  }
  /**
   * This tensor indexed as PyTorch's `t[...]`: integers, `pt.slice(start, end, step)`, `pt.ellipsis` and `pt.newAxis`
   * give a view; integer tensors, JS number arrays and bool masks index by value and give a copy (see `pt.slice`).
   *
   * @throws {TensorError} when there are more indices than dims, an integer is out of range, a mask's shape differs
   * from the dims it indexes, or an index tensor is not integer or bool.
   * @example
   * using row = x.at(0); // x[0]
   * using cols = x.at(pt.ellipsis, pt.slice(1, 3)); // x[..., 1:3]
   * using picked = x.at([2, 0], pt.newAxis); // x[[2, 0], None]
   */
  at(...indices: sub.Index[]): Tensor {
    return sub.at(this, indices);
  }
  /**
   * Writes value where `this.at(...indices)` points, as PyTorch's `t[...] = value`; returns this. value is a JS scalar
   * or a tensor that broadcasts to the indexed shape, cast to this dtype as `copy_` does. Views of this see the write.
   *
   * @throws {TensorError} for bad indices (as `at`), a value that does not broadcast, or while gradients are recorded
   * for this (write under `pt.noGrad`).
   * @example
   * x.setAt([pt.slice(), 0], 1); // x[:, 0] = 1
   */
  setAt(indices: readonly sub.Index[], value: TensorLike): this {
    return sub.setAt(this, indices, value);
  }
  /**
   * A view of `length` elements from start along axis (a negative start counts from the end), as `torch.Tensor.narrow`.
   *
   * @throws {TensorError} when axis is out of range or the range does not fit in the axis.
   */
  narrow(axis: number, start: number, length: number): Tensor {
    return mv.narrow(this, axis, start, length);
  }
  /** This tensor with row-major strides, as `torch.Tensor.contiguous`: a view if it has them already, else a copy. */
  contiguous(): Tensor {
    return mv.contiguous(this);
  }
  /**
   * A copy with the order of elements reversed along the given axes, as `torch.Tensor.flip` (a copy, as there).
   *
   * @throws {TensorError} when an axis is out of range or repeated.
   */
  flip(axes: number | readonly number[]): Tensor {
    return mv.flip(this, axes);
  }
  /** Views along axis of `size` elements each, or of the listed sizes, as `torch.Tensor.split` (see `pt.split`). */
  split(size: number | readonly number[], axis = 0): Tensor[] {
    return st.split(this, size, axis);
  }
  /** `chunks` views along axis, as `torch.Tensor.chunk` (see `pt.chunk`). */
  chunk(chunks: number, axis = 0): Tensor[] {
    return st.chunk(this, chunks, axis);
  }
  /** The slices along axis without that dim, as `torch.Tensor.unbind` (see `pt.unbind`). */
  unbind(axis = 0): Tensor[] {
    return st.unbind(this, axis);
  }
  /** The lower triangle of the last two dims, the rest zero, as `torch.Tensor.tril` (see `pt.tril`). */
  tril(diagonal = 0): Tensor {
    return st.tril(this, diagonal);
  }
  /** The upper triangle of the last two dims, the rest zero, as `torch.Tensor.triu` (see `pt.triu`). */
  triu(diagonal = 0): Tensor {
    return st.triu(this, diagonal);
  }
  /** Elements shifted along axes with wrap-around, as `torch.Tensor.roll` (see `pt.roll`). */
  roll(shifts: number | readonly number[], axes?: number | readonly number[]): Tensor {
    return st.roll(this, shifts, axes);
  }
  /** This tensor repeated reps[i] times along each dim (reps at least as long as the dims), as `torch.Tensor.repeat`. */
  repeat(...reps: number[]): Tensor {
    return st.repeat(this, reps);
  }
  /** This tensor repeated along each dim, leading 1s added to short reps, as `torch.Tensor.tile` (see `pt.tile`). */
  tile(...reps: number[]): Tensor {
    return st.tile(this, reps);
  }
  /** Elementwise closeness to other, as `torch.Tensor.isclose` (see `pt.isclose`). */
  isclose(other: Tensor, rtol = 1e-5, atol = 1e-8, equalNan = false): Tensor {
    return st.isclose(this, other, rtol, atol, equalNan);
  }
  /** Whether every element is close to other's, as `torch.Tensor.allclose` (see `pt.allclose`). */
  allclose(other: Tensor, rtol = 1e-5, atol = 1e-8, equalNan = false): boolean {
    return st.allclose(this, other, rtol, atol, equalNan);
  }
  /** Whether other has this shape and these elements, as `torch.Tensor.equal`. */
  equal(other: Tensor): boolean {
    return st.equal(this, other);
  }
  /** The diagonal of a matrix as a vector, or a vector as a diagonal matrix, as `torch.Tensor.diag` (see `pt.diag`). */
  diag(diagonal = 0): Tensor {
    return st.diag(this, diagonal);
  }
  /** A view of the diagonal of dims dim1 and dim2, appended as the last dim, as `torch.Tensor.diagonal`. */
  diagonal(offset = 0, dim1 = 0, dim2 = 1): Tensor {
    return st.diagonal(this, offset, dim1, dim2);
  }
  /** The outer product of this vector and another, as `torch.Tensor.outer` (see `pt.outer`). */
  outer(other: Tensor): Tensor {
    return st.outer(this, other);
  }
  /** A view with the dims at source moved to destination, as `torch.Tensor.movedim` (see `pt.movedim`). */
  movedim(source: number | readonly number[], destination: number | readonly number[]): Tensor {
    return st.movedim(this, source, destination);
  }

  // ----- statistics (stats.ts), counting (counting.ts) and sampling (sampling.ts): see the functions of the same name.
  /** The largest element over dim (all when left out), NaN-propagating, as `torch.Tensor.amax` (see `pt.amax`). */
  amax(dim?: number | readonly number[], keepdim = false): Tensor {
    return stats.amax(this, dim, keepdim);
  }
  /** The smallest element over dim (all when left out), NaN-propagating, as `torch.Tensor.amin` (see `pt.amin`). */
  amin(dim?: number | readonly number[], keepdim = false): Tensor {
    return stats.amin(this, dim, keepdim);
  }
  /** The sum over dim treating NaN as 0, as `torch.Tensor.nansum` (see `pt.nansum`). */
  nansum(dim?: number | readonly number[], keepdim = false): Tensor {
    return stats.nansum(this, dim, keepdim);
  }
  /** NaN and infinities replaced by finite values, as `torch.Tensor.nan_to_num` (see `pt.nanToNum`). */
  nanToNum(nan = 0, posinf?: number, neginf?: number): Tensor {
    return stats.nanToNum(this, nan, posinf, neginf);
  }
  /** The lower median of all elements, as `torch.Tensor.median()` (see `pt.median`). */
  median(): Tensor;
  /** The lower median along dim with its index, as `torch.Tensor.median(dim)` (see `pt.median`). */
  median(dim: number, keepdim?: boolean): stats.ValuesIndices;
  median(dim?: number, keepdim = false): Tensor | stats.ValuesIndices {
    return dim === undefined ? stats.median(this) : stats.median(this, dim, keepdim);
  }
  /** The k-th smallest element along dim with its index, as `torch.Tensor.kthvalue` (see `pt.kthvalue`). */
  kthvalue(k: number, dim = -1, keepdim = false): stats.ValuesIndices {
    return stats.kthvalue(this, k, dim, keepdim);
  }
  /** The q-th quantiles over dim (all elements when left out), as `torch.Tensor.quantile` (see `pt.quantile`). */
  quantile(
    q: number | readonly number[] | Tensor,
    dim?: number,
    keepdim = false,
    opts: { interpolation?: stats.QuantileInterpolation } = {},
  ): Tensor {
    return stats.quantile(this, q, dim, keepdim, opts);
  }
  /** The distinct elements in ascending order, as `torch.Tensor.unique` (see `pt.unique` for dim, inverse and counts). */
  unique(opts?: counting.UniqueOptions & { returnInverse?: false; returnCounts?: false }): Tensor;
  /** unique with returnInverse or returnCounts: `{ values, inverse, counts }` (see `pt.unique`). */
  unique(opts: counting.UniqueOptions): counting.UniqueResult;
  unique(opts: counting.UniqueOptions = {}): Tensor | counting.UniqueResult {
    return counting.unique(this, opts);
  }
  /** How often each value of this non-negative integer vector occurs, as `torch.Tensor.bincount` (see `pt.bincount`). */
  bincount(weights?: Tensor, minlength = 0): Tensor {
    return counting.bincount(this, weights, minlength);
  }
  /** A histogram of `bins` equal bins over [min, max], as `torch.Tensor.histc` (see `pt.histc`). */
  histc(bins = 100, min = 0, max = 0): Tensor {
    return counting.histc(this, bins, min, max);
  }
  /** 1 with probability this (or p), else 0, as `torch.Tensor.bernoulli` (see `pt.bernoulli`). */
  bernoulli(p?: number | Tensor): Tensor {
    return sampling.bernoulli(this, p);
  }
  /** numSamples indices drawn from each row of weights, as `torch.Tensor.multinomial` (see `pt.multinomial`). */
  multinomial(numSamples: number, replacement = false): Tensor {
    return sampling.multinomial(this, numSamples, replacement);
  }

  // ----- indexing (indexing.ts): index tensors are int32 or int64 (others throw), on this tensor's device. In mode "error"
  // an index outside [-size, size) throws (checked on the device, so the op waits for it); see IndexMode.
  /**
   * Picks along axis by index, as `torch.Tensor.gather`: `out[i][j] = this[i][index[i][j]]` for axis 1. The result has
   * index's shape.
   *
   * @param index int32 or int64, with as many dims as this, each no larger than this's except along axis.
   * @throws {TensorError} when index has another rank or is larger in a dim other than axis, or (mode "error") an index is out of range.
   * @example
   * pt.tensor([[1, 2], [3, 4]]).gather(1, pt.tensor([[0, 0], [1, 0]], { dtype: "int64" })); // [[1, 1], [4, 3]]
   */
  gather(axis: number, index: Tensor, mode: IndexMode = "error"): Tensor {
    return idx.gather(this, axis, index, mode);
  }
  /**
   * The slices at the positions of a 1-D (or 0-d) int32 or int64 index along axis, as `torch.Tensor.index_select`.
   *
   * @throws {TensorError} when index has more than 1 dim, or (mode "error") an index is out of range.
   */
  indexSelect(axis: number, index: Tensor, mode: IndexMode = "error"): Tensor {
    return idx.indexSelect(this, axis, index, mode);
  }
  /**
   * A copy of this with src written at index along axis, as `torch.Tensor.scatter` out of place:
   * `out[i][index[i][j]] = src[i][j]` for axis 1. Writes go in row-major order of index, so of repeated positions the
   * last wins. `reduce` combines with what is there instead: "add", or "max"/"min" (`scatter_reduce`'s "amax"/"amin", include_self).
   *
   * @param src a tensor (converted to this dtype; no smaller than index in any dim) or a JS scalar.
   * @throws {TensorError} when index's rank differs from this's or src's, index is larger than src, or than this outside axis,
   *   or (mode "error") an index is out of range.
   * @example
   * pt.zeros([3]).scatter(0, pt.tensor([0, 2], { dtype: "int64" }), pt.tensor([5, 6])); // [5, 0, 6]
   * pt.zeros([3]).scatter(0, pt.tensor([0, 0], { dtype: "int64" }), 1, { reduce: "add" }); // [2, 0, 0]
   */
  scatter(axis: number, index: Tensor, src: TensorLike, opts: { reduce?: "add" | "max" | "min"; mode?: IndexMode } = {}): Tensor {
    return idx.scatter(this, axis, index, src, opts.reduce, opts.mode ?? "error");
  }
  /**
   * `scatter(axis, index, src, { reduce: "add" })`, as `torch.Tensor.scatter_add` out of place; mode "error".
   *
   * @throws {TensorError} as scatter.
   */
  scatterAdd(axis: number, index: Tensor, src: TensorLike): Tensor {
    return idx.scatter(this, axis, index, src, "add", "error", "scatterAdd");
  }
  /**
   * A copy of this with `this[indices[0], indices[1], ...] = values`, as `torch.Tensor.index_put` out of place. The k
   * int32 or int64 index tensors index the leading k dims and broadcast together to B; values (converted to this dtype) broadcast to
   * B followed by the remaining dims. `accumulate` adds instead of writing.
   *
   * @throws {TensorError} when indices is empty or longer than ndim, indices or values do not broadcast, or (mode "error")
   *   an index is out of range.
   * @example
   * const i = pt.tensor([0, 1], { dtype: "int64" }), j = pt.tensor([2, 0], { dtype: "int64" });
   * pt.zeros([2, 3]).indexPut([i, j], 7); // [[0, 0, 7], [7, 0, 0]]
   */
  indexPut(indices: readonly Tensor[], values: TensorLike, opts: { accumulate?: boolean; mode?: IndexMode } = {}): Tensor {
    return idx.indexPut(this, indices, values, opts.accumulate ?? false, opts.mode ?? "error");
  }
  /**
   * Advanced indexing, PyTorch's `x[indices[0], indices[1], ...]` with tensor indices: k int32 or int64 tensors index the
   * leading k dims and broadcast together; the result's shape is theirs followed by the remaining dims.
   *
   * @throws {TensorError} when indices is empty or longer than ndim, the indices do not broadcast, or (mode "error") an
   *   index is out of range.
   * @example
   * using x = pt.arange(6).reshape(2, 3);
   * x.index([pt.tensor([1, 0], { dtype: "int64" })]); // rows 1, 0: [[3, 4, 5], [0, 1, 2]]
   * x.index([pt.tensor([1, 0], { dtype: "int64" }), pt.tensor([2, 2], { dtype: "int64" })]); // [5, 2]
   */
  index(indices: readonly Tensor[], mode: IndexMode = "error"): Tensor {
    return idx.indexGet(this, indices, mode);
  }
  /**
   * The elements where a bool mask (broadcast with this) is true, as a 1-D tensor in row-major order; as
   * `torch.Tensor.masked_select`. It reads the count back to the host, so it waits for the device.
   *
   * @throws {TensorError} when mask is not bool or does not broadcast, or inside a captured step.
   */
  maskedSelect(mask: Tensor): Tensor {
    return idx.maskedSelect(this, mask);
  }
  /**
   * The int64 coordinates of the nonzero elements, shape [count, ndim] in row-major order, as `torch.Tensor.nonzero`.
   * It reads the count back to the host.
   *
   * @throws {TensorError} inside a captured step.
   */
  nonzero(): Tensor {
    return idx.nonzero(this);
  }

  // ----- sorting (sort.ts): stable; NaN sorts above every number (last ascending, first descending)
  /**
   * The values sorted along axis and the int64 indices they came from, as `torch.Tensor.sort` with stable=true.
   *
   * @throws {TensorError} when axis is out of range.
   * @example
   * const { values, indices } = pt.tensor([3, NaN, 1]).sort(); // values [1, 3, NaN], indices [2, 0, 1]
   */
  sort(axis = -1, descending = false): { values: Tensor; indices: Tensor } {
    return srt.sort(this, axis, descending);
  }
  /**
   * The int64 indices that sort along axis (stable), as `torch.Tensor.argsort` with stable=true.
   *
   * @throws {TensorError} when axis is out of range.
   */
  argsort(axis = -1, descending = false): Tensor {
    return srt.argsort(this, axis, descending);
  }
  /**
   * The k largest (or, with largest false, smallest) elements along axis in sorted order, with their int64 indices;
   * as `torch.Tensor.topk`.
   *
   * @throws {TensorError} when axis is out of range or k is not an integer in [0, size of axis].
   * @example
   * const { values, indices } = pt.tensor([3, 1, 4, 1, 5]).topk(2); // values [5, 4], indices [4, 2]
   */
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

/** Another handle on t's storage (or pending node) with t's geometry: what autograd saves, and detach(). */
export function aliasOf(t: Tensor, op: string): Tensor {
  if (t.deferred !== null) return deferredTensor(t.deferred);
  return viewOf(t, t.shape, t.strides, t.offset, op);
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
