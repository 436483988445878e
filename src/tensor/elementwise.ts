/**
 * Elementwise ops: result dtypes by PyTorch's promotion, then one kernel per op built from
 * an expression tree (kernels/ir.ts) over the broadcast operands. JS scalars become
 * constants in the argument block, so the compiled program serves every value.
 */
import { TensorError, underOp } from "../base/errors.ts";
import type { ViewRef } from "../kernels/block.ts";
import type { Device } from "../runtime/device.ts";
import { runElementwise, settle } from "../kernels/launch.ts";
import { type BinaryOp, type Expr, FLOAT_ONLY_UNARY, type UnaryOp } from "../kernels/ir.ts";
import {
  checkDType,
  checkFits,
  combineCategories,
  DEFAULT_FLOAT,
  type DType,
  DTYPES,
  isFloat,
  promoteTypes,
  promoteWithScalar,
  scalarDType,
} from "../base/dtype.ts";
import { broadcastPair, broadcastShapes, broadcastStrides, checkBytes, describeValue, fmtShape, sameShape } from "../base/shape.ts";
import { allocTensor, deferredTensor, type Scalar, Tensor, type TensorLike } from "./tensor.ts";
import { lazyEnabled } from "../lazy/deferred.ts";
import { record, recordStep, stepVia } from "../lazy/record.ts";
import type { Deferred } from "../lazy/deferred.ts";
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";
import * as grad from "../autograd/elementwise.ts";

const NO_SHAPES: readonly (readonly number[])[] = [];
/** Dtypes whose values kernels hold in wider registers (KernelBuilder.narrowed). */
const NARROW: ReadonlySet<DType> = new Set(["float16", "bfloat16", "uint8", "int8", "int16"]);
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A JS scalar as an operand of `op` computing in dtype: DTYPES' conversion (which wraps an
 * out-of-range integer, as PyTorch does), except that comparisons see the exact value, so
 * that uint8 `x < -1` is false (PyTorch wraps there too, a known bug: its issue 101653).
 */
function scalarAs(dtype: DType, v: number, op: string): number {
  return (COMPARE as ReadonlySet<string>).has(op) && DTYPES[dtype].category === 1 && Number.isFinite(v)
    ? Math.trunc(v)
    : DTYPES[dtype].scalar(v);
}

/** Collects the inputs and constants of one kernel while its tree is built. */
class KernelBuilder {
  readonly inputs: Tensor[] = [];
  readonly consts: number[] = [];
  /** Set for ops whose kernel can fail on its data: they run (and report) at once. */
  eagerOnly = false;
  /** Operands cast to float16, bfloat16 or uint8 before the op (narrowed()), as [source, cast] pairs; disposed by run(). */
  #narrow: Tensor[] | null = null;
  constructor(readonly op: string) {}

  operand(x: TensorLike, dtype: DType): Expr {
    if (x instanceof Tensor) {
      if (x.dtype !== dtype && NARROW.has(dtype) && x.dtype !== "bool" && this.op !== "cast") x = this.narrowed(x, dtype);
      let i = this.inputs.indexOf(x);
      if (i < 0) i = this.inputs.push(x) - 1;
      return castExpr({ k: "load", input: i, dtype: x.dtype }, dtype);
    }
    if (typeof x === "bigint" && dtype === "int64" && (x > MAX_EXACT || x < -MAX_EXACT)) return this.wide(x);
    let v;
    try {
      v = scalarValue(x, this.op);
    } catch (e) {
      this.dropNarrowed();
      throw e;
    }
    return this.constant(scalarAs(dtype, v, this.op), dtype);
  }

  /**
   * x cast to a narrow dtype by a kernel of its own. Kernels hold float16 and bfloat16
   * values in float32 registers and uint8 in 32-bit integers, where a cast neither rounds
   * nor wraps, but PyTorch casts every operand to the computation dtype before the op:
   * int32 1299062947 is inf as float16, float16 x compared with a float32 0-d 0.1 meets
   * float16(0.1), and uint8 x max int32 0-d -4 meets 252. Storing the cast rounds or wraps it.
   */
  narrowed(x: Tensor, dtype: DType): Tensor {
    const list = this.#narrow ??= [];
    for (let i = 0; i < list.length; i += 2) if (list[i] === x) return list[i + 1];
    const h = cast(x, dtype);
    list.push(x, h);
    return h;
  }

  dropNarrowed(): void {
    const list = this.#narrow;
    if (list === null) return;
    this.#narrow = null;
    for (let i = 1; i < list.length; i += 2) list[i].dispose();
  }

  constant(v: number, dtype: DType): Expr {
    this.consts.push(v);
    return { k: "const", index: this.consts.length - 1, dtype };
  }

  /**
   * An int64 constant beyond 2^53, which one constant slot (a double) cannot hold exactly:
   * hi * 2^32 + lo from two exact halves, computed in int64.
   */
  wide(v: bigint): Expr {
    const hi = this.constant(Number(v >> 32n), "int64"), lo = this.constant(Number(v & 0xffffffffn), "int64");
    const scaled: Expr = { k: "binary", op: "mul", a: hi, b: this.constant(2 ** 32, "int64"), dtype: "int64" };
    return { k: "binary", op: "add", a: scaled, b: lo, dtype: "int64" };
  }

  /** Broadcasts the inputs, then records the op (lazy mode) or allocates and launches. */
  run(expr: Expr, extraShapes: readonly (readonly number[])[] = NO_SHAPES): Tensor {
    if (this.#narrow === null) return this.#run(expr, extraShapes);
    try { // the recorded node or the queued launch holds its own reference to each cast operand
      return this.#run(expr, extraShapes);
    } finally {
      this.dropNarrowed();
    }
  }

  #run(expr: Expr, extraShapes: readonly (readonly number[])[]): Tensor {
    const device = commonDevice(this.op, this.inputs);
    let shape: readonly number[];
    if (extraShapes.length === 0 && sameShapes(this.inputs)) {
      shape = this.inputs[0].shape; // no broadcast: the (sealed) input shape is the result's, shared as it is
    } else if (extraShapes.length === 0 && this.inputs.length === 2) {
      shape = broadcastPair(this.op, this.inputs[0].shape, this.inputs[1].shape);
      checkBytes(shape, DTYPES[expr.dtype].size, expr.dtype, this.op);
    } else {
      shape = broadcastShapes(this.op, ...this.inputs.map((t) => t.shape), ...extraShapes);
      // A broadcast can ask for more than any buffer holds: say so now, in the op's terms, not when a deferred result is run.
      checkBytes(shape, DTYPES[expr.dtype].size, expr.dtype, this.op);
    }
    if (lazyEnabled() && !this.eagerOnly && noHostMemory(this.inputs)) {
      let node;
      try { // not withOp: no closure on the path every recorded op takes
        node = record(device, this.op, expr, this.inputs, this.consts, shape);
      } catch (e) {
        throw underOp(this.op, e);
      }
      if (node) return deferredTensor(node);
    }
    const out = allocTensor(device, expr.dtype, shape, this.op);
    try {
      const views: ViewRef[] = [];
      for (const t of this.inputs) {
        views.push({ buf: t.buf, dtype: t.dtype, offset: t.offset, strides: broadcastStrides(t.shape, t.strides, shape) });
      }
      if (out.numel > 0) runElementwise(device, this.op, expr, shape, out, views, this.consts);
    } catch (e) {
      out.dispose();
      throw underOp(this.op, e);
    }
    return out;
  }
}

/** Whether no input wraps host memory: an op over such an input runs at once, not when the host array may have changed. */
function noHostMemory(ts: readonly Tensor[]): boolean {
  for (let i = 0; i < ts.length; i++) if (ts[i].hostOwner !== undefined) return false;
  return true;
}

function sameShapes(ts: readonly Tensor[]): boolean {
  for (let k = 1; k < ts.length; k++) if (!sameShape(ts[k].shape, ts[0].shape)) return false;
  return true;
}

/**
 * How an op over one tensor x and constants is recorded as a step of x's chain (record.ts
 * stepVia), or undefined when it takes KernelBuilder's general path: lazy mode off, x wraps
 * host memory, or x's node cannot be inlined. The fast path skips the builder's operand
 * gathering and record()'s rewrite on the path of x.mul(2).add(1)...
 */
function stepOf(x: Tensor): Deferred | null | undefined {
  return lazyEnabled() && x.hostOwner === undefined ? stepVia(x) : undefined;
}

/** x read as dtype by a step through `via`: its node's tree, or load 0 of its memory. */
function stepInput(x: Tensor, via: Deferred | null, dtype: DType): Expr {
  return castExpr(via === null ? { k: "load", input: 0, dtype: x.dtype } : via.expr, dtype);
}

/** The index of a step's constant k: after the inlined node's own. */
function stepConst(via: Deferred | null, k: number, dtype: DType): Expr {
  return { k: "const", index: (via === null ? 0 : via.consts.length) + k, dtype };
}

/**
 * The step recorded (record.ts recordStep), or undefined when its program would be too big
 * to fuse. expr reads x through stepInput(x, via, dtype), and the op adds `grow` nodes and
 * `rise` levels above that input; casting x to dtype (castExpr) adds one of each.
 */
function recordedStep(
  op: string,
  expr: Expr,
  x: Tensor,
  via: Deferred | null,
  dtype: DType,
  consts: readonly number[],
  grow: number,
  rise: number,
): Tensor | undefined {
  const cast = x.dtype === dtype ? 0 : 1;
  let node;
  try {
    node = recordStep(x.device, op, expr, x, via, consts, grow + cast, rise + cast);
  } catch (e) {
    throw underOp(op, e);
  }
  return node === undefined ? undefined : deferredTensor(node);
}

function scalarValue(x: unknown, op: string): number {
  if (typeof x === "number") return x;
  if (typeof x === "boolean") return x ? 1 : 0;
  if (typeof x === "bigint") return Number(x);
  throw new TensorError(op, `expected a tensor, a number, a boolean or a bigint, got ${describeValue(x)}`);
}

export function castExpr(e: Expr, to: DType): Expr {
  if (e.dtype === to) return e;
  if (to === "bool") return { k: "unary", op: "nonzero", a: e, dtype: "bool" };
  return { k: "cast", a: e, dtype: to };
}

export function commonDevice(op: string, tensors: readonly Tensor[]): Device {
  if (tensors.length === 0) throw new TensorError(op, "needs at least one tensor operand");
  const d = tensors[0].device;
  for (const t of tensors) {
    if (t.device !== d) throw new TensorError(op, `operands are on different devices (${d.id} and ${t.device.id}); move one with .to()`);
  }
  return d;
}

/**
 * The dtype all operands compute in, as torch.result_type: dimensioned tensors promote
 * together, then 0-d tensors, then JS scalars, and each later group changes the result
 * only when of a higher kind (dtype.ts combineCategories).
 */
export function resultType(op: string, operands: readonly TensorLike[]): DType {
  let dim: DType | undefined, zero: DType | undefined, scalar: DType | undefined;
  for (const x of operands) {
    if (x instanceof Tensor) {
      if (x.shape.length > 0) dim = dim === undefined ? x.dtype : promoteTypes(dim, x.dtype);
      else zero = zero === undefined ? x.dtype : promoteTypes(zero, x.dtype);
      continue;
    }
    if (typeof x !== "number" && typeof x !== "boolean" && typeof x !== "bigint") scalarValue(x, op);
    const s = scalarDType(x as Scalar);
    scalar = scalar === undefined ? s : promoteTypes(scalar, s);
  }
  return combineCategories(dim, combineCategories(zero, scalar)) ?? DEFAULT_FLOAT;
}

/** resultType of two operands, without the array (binary ops are the hot path). */
export function pairType(op: string, a: TensorLike, b: TensorLike): DType {
  const at = a instanceof Tensor, bt = b instanceof Tensor;
  if (at && bt) {
    const ad = a.shape.length > 0, bd = b.shape.length > 0;
    if (ad === bd) return promoteTypes(a.dtype, b.dtype);
    return ad ? combineCategories(a.dtype, b.dtype)! : combineCategories(b.dtype, a.dtype)!;
  }
  if (at && (typeof b === "number" || typeof b === "boolean" || typeof b === "bigint")) return promoteWithScalar(a.dtype, b);
  if (bt && (typeof a === "number" || typeof a === "boolean" || typeof a === "bigint")) return promoteWithScalar(b.dtype, a);
  return resultType(op, [a, b]);
}

const COMPARE = new Set<BinaryOp>(["eq", "ne", "lt", "le", "gt", "ge"]);
const LOGIC = new Set<BinaryOp>(["logicalAnd", "logicalOr", "logicalXor"]);
const BOOL_OK = new Set<BinaryOp>(["add", "mul", "maximum", "minimum"]);

export function binary(op: BinaryOp, a: TensorLike, b: TensorLike): Tensor {
  const out = binaryOp(op, a, b);
  return gradEnabled && (wantsGrad(a) || wantsGrad(b)) ? grad.binary(op, a, b, out) : out;
}

function binaryOp(op: BinaryOp, a: TensorLike, b: TensorLike): Tensor {
  if (!(a instanceof Tensor) && !(b instanceof Tensor)) throw new TensorError(op, "needs at least one tensor operand");
  if (LOGIC.has(op)) {
    const k = new KernelBuilder(op);
    return k.run({ k: "binary", op, a: k.operand(a, "bool"), b: k.operand(b, "bool"), dtype: "bool" });
  }
  let ct = pairType(op, a, b);
  if (op === "div" && !isFloat(ct)) ct = DEFAULT_FLOAT; // true division, as torch.div: bool / bool too
  if (ct === "bool" && !COMPARE.has(op) && !BOOL_OK.has(op)) {
    throw new TensorError(op, "is not supported for two bool operands; cast one to an integer dtype first");
  }
  if (op === "pow" && !isFloat(ct) && a instanceof Tensor && (typeof b === "number" || typeof b === "bigint") && b < 0) {
    // As PyTorch; a tensor exponent computes (powi: 1, -1 by parity, else 0).
    throw new TensorError(
      op,
      `an ${ct} tensor to the negative integer power ${b} is not allowed; cast to a float dtype or pass the exponent as a tensor`,
    );
  }
  return binaryKernel(op, a, b, ct, COMPARE.has(op) ? "bool" : ct);
}

/** Integer ops that fail on a zero divisor inside the kernel. */
const CAN_FAIL = new Set<BinaryOp>(["mod", "fmod", "floorDivide"]);

/**
 * Binary op over a and b computing in ct, giving dtype out: the kernel the front ends
 * share (math.ts's too), after they chose ct and checked the operands. No gradient here.
 * `name` is the op's name in errors when it differs from op (bitwiseNot's XOR).
 */
export function binaryKernel(op: BinaryOp, a: TensorLike, b: TensorLike, ct: DType, out: DType, name: string = op): Tensor {
  const eagerOnly = CAN_FAIL.has(op) && !isFloat(ct);
  const via = !eagerOnly && a instanceof Tensor && typeof b === "number" ? stepOf(a) : undefined;
  if (via !== undefined) {
    const x = a as Tensor;
    const expr: Expr = { k: "binary", op, a: stepInput(x, via, ct), b: stepConst(via, 0, ct), dtype: out };
    const step = recordedStep(name, expr, x, via, ct, [scalarAs(ct, b as number, op)], 2, 1); // the op and its constant, one level
    if (step !== undefined) return step;
  }
  const k = new KernelBuilder(name);
  k.eagerOnly = eagerOnly;
  const result = k.run({ k: "binary", op, a: k.operand(a, ct), b: k.operand(b, ct), dtype: out });
  // Integer division or modulo by zero fails inside the kernel.
  if (eagerOnly) {
    try {
      settle(result.device, name);
    } catch (e) {
      result.dispose();
      throw e;
    }
  }
  return result;
}

const ROUNDING = new Set<UnaryOp>(["floor", "ceil", "round", "trunc"]);
const PREDICATE = new Set<UnaryOp>(["isnan", "isinf", "isfinite"]);

export function unary(op: UnaryOp, x: Tensor): Tensor {
  const out = unaryOp(op, x);
  return gradEnabled && wantsGrad(x) ? grad.unary(op, x, out) : out;
}

function unaryOp(op: UnaryOp, x: Tensor): Tensor {
  const k = new KernelBuilder(op);
  if (!(x instanceof Tensor)) throw new TensorError(op, "expects a tensor");
  if (op === "logicalNot") return k.run({ k: "unary", op, a: k.operand(x, x.dtype), dtype: "bool" });
  if (PREDICATE.has(op)) {
    const ct = isFloat(x.dtype) ? x.dtype : DEFAULT_FLOAT;
    return k.run({ k: "unary", op, a: k.operand(x, ct), dtype: "bool" });
  }
  if (FLOAT_ONLY_UNARY.has(op)) {
    const ct = isFloat(x.dtype) ? x.dtype : DEFAULT_FLOAT;
    return k.run({ k: "unary", op, a: k.operand(x, ct), dtype: ct });
  }
  if (ROUNDING.has(op) && !isFloat(x.dtype)) return k.run(k.operand(x, x.dtype));
  if (x.dtype === "bool") {
    // As PyTorch: the sign of a bool is itself, and square is pow(x, 2), which promotes bool to int64.
    if (op === "sign") return k.run(k.operand(x, "bool"));
    if (op === "square") return k.run({ k: "unary", op, a: k.operand(x, "int64"), dtype: "int64" });
    throw new TensorError(op, "is not supported for bool tensors; cast to an integer dtype first");
  }
  return k.run({ k: "unary", op, a: k.operand(x, x.dtype), dtype: x.dtype });
}

export function cast(x: Tensor, dtype: DType): Tensor {
  const k = new KernelBuilder("cast");
  const out = k.run(k.operand(x, checkDType(dtype, "cast")));
  return gradEnabled && wantsGrad(x) ? grad.cast(x, out) : out;
}

export function clamp(x: Tensor, lo?: TensorLike, hi?: TensorLike): Tensor {
  const out = clampOp(x, lo, hi);
  return gradEnabled && (wantsGrad(x) || wantsGrad(lo) || wantsGrad(hi)) ? grad.clamp(x, lo, hi, out) : out;
}

function clampOp(x: Tensor, lo?: TensorLike, hi?: TensorLike): Tensor {
  if (lo === undefined && hi === undefined) throw new TensorError("clamp", "needs a min, a max or both");
  const ops: TensorLike[] = [x]; // pushes, not spreads: clamp(0, 1) ends many lazy chains
  if (lo !== undefined) ops.push(lo);
  if (hi !== undefined) ops.push(hi);
  const dt = resultType("clamp", ops);
  if (dt === "bool") throw new TensorError("clamp", "is not supported for bool tensors");
  const via = typeof lo === "number" && typeof hi === "number" && x instanceof Tensor ? stepOf(x) : undefined;
  if (via !== undefined) {
    const lower: Expr = { k: "binary", op: "maximum", a: stepInput(x, via, dt), b: stepConst(via, 0, dt), dtype: dt };
    const expr: Expr = { k: "binary", op: "minimum", a: lower, b: stepConst(via, 1, dt), dtype: dt };
    const round = DTYPES[dt].scalar;
    const step = recordedStep("clamp", expr, x, via, dt, [round(lo as number), round(hi as number)], 4, 2); // two ops and constants, two levels
    if (step !== undefined) return step;
  }
  const k = new KernelBuilder("clamp");
  let e = k.operand(x, dt);
  if (lo !== undefined) e = { k: "binary", op: "maximum", a: e, b: k.operand(lo, dt), dtype: dt };
  if (hi !== undefined) e = { k: "binary", op: "minimum", a: e, b: k.operand(hi, dt), dtype: dt };
  return k.run(e);
}

export function where(cond: Tensor, a: TensorLike, b: TensorLike): Tensor {
  const out = whereOp(cond, a, b);
  return gradEnabled && (wantsGrad(a) || wantsGrad(b)) ? grad.where(cond, a, b, out) : out;
}

function whereOp(cond: Tensor, a: TensorLike, b: TensorLike): Tensor {
  if (!(cond instanceof Tensor)) throw new TensorError("where", "condition must be a tensor");
  const dt = resultType("where", [a, b]);
  const k = new KernelBuilder("where");
  const c = k.operand(cond, "bool");
  return k.run({ k: "where", c, a: k.operand(a, dt), b: k.operand(b, dt), dtype: dt });
}

/**
 * self with value where mask is true, as torch.masked_fill: the result keeps self's dtype
 * (the value is cast to it, as PyTorch casts it), its shape is self's and mask's broadcast,
 * and a tensor value must be 0-d.
 */
export function maskedFill(self: Tensor, mask: Tensor, value: TensorLike): Tensor {
  const out = maskedFillOp(self, mask, value);
  return gradEnabled && (wantsGrad(self) || wantsGrad(value)) ? grad.maskedFill(self, mask, value, out) : out;
}

function maskedFillOp(self: Tensor, mask: Tensor, value: TensorLike): Tensor {
  const op = "maskedFill";
  if (!(self instanceof Tensor)) throw new TensorError(op, "expects a tensor");
  if (!(mask instanceof Tensor)) throw new TensorError(op, `mask must be a tensor, got ${describeValue(mask)}`);
  if (value instanceof Tensor) {
    if (value.ndim !== 0) {
      throw new TensorError(op, `a tensor value must be 0-d, got shape ${fmtShape(value.shape)} (use where() to fill from a tensor)`);
    }
  } else {
    scalarValue(value, op);
    checkFits(value as Scalar, self.dtype, op);
  }
  if (mask.dtype !== "bool") throw new TensorError(op, `mask must be bool, got ${mask.dtype} (compare it, e.g. mask.ne(0))`);
  const dt = self.dtype;
  const k = new KernelBuilder(op);
  const c = k.operand(mask, "bool");
  return k.run({ k: "where", c, a: k.operand(value, dt), b: k.operand(self, dt), dtype: dt });
}

/** start + weight * (end - start), in floating point. */
export function lerp(start: Tensor, end: TensorLike, weight: TensorLike): Tensor {
  const out = lerpOp(start, end, weight);
  return gradEnabled && (wantsGrad(start) || wantsGrad(end) || wantsGrad(weight)) ? grad.lerp(start, end, weight, out) : out;
}

function lerpOp(start: Tensor, end: TensorLike, weight: TensorLike): Tensor {
  const dt = resultType("lerp", [start, end, weight]);
  if (!isFloat(dt)) throw new TensorError("lerp", `needs floating-point operands, got ${dt}`);
  const k = new KernelBuilder("lerp");
  const s = k.operand(start, dt), e = k.operand(end, dt), w = k.operand(weight, dt);
  const diff: Expr = { k: "binary", op: "sub", a: e, b: s, dtype: dt };
  const scaled: Expr = { k: "binary", op: "mul", a: w, b: diff, dtype: dt };
  return k.run({ k: "binary", op: "add", a: s, b: scaled, dtype: dt });
}

/** A tensor of `shape` filled from an expression of the output index and constants. */
export function generate(
  device: Device,
  op: string,
  dtype: DType,
  shape: readonly number[],
  build: (k: { index: Expr; constant(v: number, dt: DType): Expr }) => Expr,
): Tensor {
  const consts: number[] = [];
  const index: Expr = { k: "index", dtype: "float64" };
  const expr = castExpr(
    build({ index, constant: (v, dt) => (consts.push(v), { k: "const", index: consts.length - 1, dtype: dt }) }),
    dtype,
  );
  const out = allocTensor(device, dtype, shape, op);
  try {
    if (out.numel > 0) runElementwise(device, op, expr, shape, out, [], consts);
  } catch (e) {
    out.dispose();
    throw e;
  }
  return out;
}

/** Copies src into dst (same shape, any dtypes), e.g. for contiguous() and cat(). */
export function copyInto(dst: Tensor, src: Tensor, op: string): void {
  if (dst.shape.length !== src.shape.length || dst.shape.some((d, i) => d !== src.shape[i])) {
    throw new TensorError(op, `cannot copy ${fmtShape(src.shape)} into ${fmtShape(dst.shape)}`);
  }
  commonDevice(op, [dst, src]);
  if (dst.numel === 0) return;
  const expr = castExpr({ k: "load", input: 0, dtype: src.dtype }, dst.dtype);
  runElementwise(dst.device, op, expr, dst.shape, dst, [src], []);
}
