/**
 * polytensor: PyTorch-like tensors for Deno and Bun on CUDA, Vulkan, Metal, HIP or the CPU.
 *
 *     import * as pt from "./mod.ts";
 *     using a = pt.tensor([[1, 2], [3, 4]]);
 *     using b = a.matmul(a).relu();
 *     console.log(b.toArray());
 */
import "./src/kernels/renderers.ts";
import { Tensor, type TensorLike } from "./src/tensor/tensor.ts";
import type { DType } from "./src/base/dtype.ts";
import * as ew from "./src/tensor/elementwise.ts";
import * as mv from "./src/tensor/movement.ts";
import * as la from "./src/tensor/linalg.ts";

export { Tensor };
export type { IndexMode, NestedArray, Scalar, TensorLike } from "./src/tensor/tensor.ts";
export type { JsonValues } from "./src/tensor/transfer.ts";
export type { DType, HostArray } from "./src/base/dtype.ts";
export { promoteTypes } from "./src/base/dtype.ts";
export { TensorError } from "./src/base/errors.ts";
export { backends, defaultDevice, Device, device, devices, setDefaultDevice, withDevice } from "./src/runtime/device.ts";
export type { BackendInfo, DeviceInfo } from "./src/runtime/device.ts";
export { emptyCache, memoryStats } from "./src/runtime/memory.ts";
export type { MemoryStats } from "./src/runtime/memory.ts";
export { liveBytes } from "./src/runtime/native.ts";
export { collectGarbage, keep, tidy } from "./src/tensor/tidy.ts";
export { getCollectThreshold, setCollectThreshold } from "./src/runtime/ownership.ts";
export { Completion, currentQueue, defaultQueue, Queue, queue, withQueue } from "./src/runtime/queue.ts";
export { eager, lazyEnabled, setLazy } from "./src/lazy/deferred.ts";
export { capture } from "./src/tensor/capture.ts";
export { getMatmulPrecision, setMatmulPrecision } from "./src/tensor/linalg.ts";
export type { MatmulPrecision } from "./src/tensor/linalg.ts";
export { enableGrad, noGrad } from "./src/autograd/graph.ts";
export type { BackwardOptions } from "./src/autograd/graph.ts";
export { grad, valueAndGrad } from "./src/autograd/functional.ts";
export type { GradOptions } from "./src/autograd/functional.ts";
export { compareBackends } from "./src/tensor/compare.ts";
export type { BackendComparison, BackendDifference } from "./src/tensor/compare.ts";
export type { CapturedStep, CaptureOptions } from "./src/tensor/capture.ts";

/** Runs the pending fused kernels of the given tensors (lazy mode); returns them. */
export function materialize<T extends readonly Tensor[]>(...tensors: T): T {
  for (const t of tensors) t.materialize();
  return tensors;
}
export {
  arange,
  empty,
  emptyLike,
  eye,
  fromBuffer,
  full,
  fullLike,
  linspace,
  ones,
  onesLike,
  tensor,
  zeros,
  zerosLike,
} from "./src/tensor/creation.ts";
export type { CreateOptions, ShapeArg } from "./src/tensor/creation.ts";
export { getOffset, getSeed, manualSeed, rand, randint, randn, setOffset } from "./src/tensor/random.ts";
export { cat, stack } from "./src/tensor/movement.ts";
export { ellipsis, newAxis, Slice, slice } from "./src/tensor/subscript.ts";
export type { Index } from "./src/tensor/subscript.ts";
export {
  allclose,
  chunk,
  diag,
  diagonal,
  equal,
  isclose,
  meshgrid,
  movedim,
  outer,
  roll,
  split,
  tile,
  tril,
  triu,
  unbind,
} from "./src/tensor/structure.ts";

/** torch.tensor's alias for JS data. */
export { tensor as fromArray } from "./src/tensor/creation.ts";

// The functional forms of the elementwise ops. Like the Tensor methods they broadcast and promote as `resultType`; unlike them,
// the first operand of a binary op may be a JS scalar (`pt.sub(1, x)`), as long as one of the two is a tensor.

/**
 * `a + b` elementwise, broadcasting; a or b may be a JS scalar, and the dtype promotes as `resultType`. As `torch.add`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the tensors are on different devices.
 */
export function add(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("add", a, b);
}
/**
 * `a - b` elementwise, broadcasting (as `add`). As `torch.sub`.
 * @throws {TensorError} when both are bool, neither is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function sub(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("sub", a, b);
}
/**
 * `a * b` elementwise, broadcasting (as `add`). As `torch.mul`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function mul(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("mul", a, b);
}
/**
 * `a / b` elementwise, broadcasting: true division, so integer and bool operands give float32. As `torch.div`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function div(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("div", a, b);
}
/**
 * `a ** b` elementwise, broadcasting. Integer powers stay integer: a negative tensor exponent truncates (1 for base 1, 1 or -1 by
 * parity for base -1, else 0). As `torch.pow`.
 * @throws {TensorError} when an integer tensor is raised to a negative JS integer (cast to a float dtype first), both operands are
 * bool, neither is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function pow(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("pow", a, b);
}
/**
 * `a % b` elementwise, broadcasting, as Python's `%`: the result takes the divisor's sign (`-3 % 2` is 1). As `torch.remainder`.
 * @throws {TensorError} when an integer divisor is 0 (raised by this call: an integer mod runs at once, even in lazy mode), both
 * operands are bool, neither is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function mod(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("mod", a, b);
}
/**
 * The larger of `a` and `b` elementwise, broadcasting; NaN where either is NaN. As `torch.maximum`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function maximum(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("maximum", a, b);
}
/**
 * The smaller of `a` and `b` elementwise, broadcasting; NaN where either is NaN. As `torch.minimum`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function minimum(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("minimum", a, b);
}
/**
 * `a == b` elementwise as bool, broadcasting; compared in the promoted dtype. As `torch.eq`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function eq(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("eq", a, b);
}
/**
 * `a != b` elementwise as bool, broadcasting; compared in the promoted dtype. As `torch.ne`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function ne(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("ne", a, b);
}
/**
 * `a < b` elementwise as bool, broadcasting; compared in the promoted dtype. As `torch.lt`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function lt(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("lt", a, b);
}
/**
 * `a <= b` elementwise as bool, broadcasting; compared in the promoted dtype. As `torch.le`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function le(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("le", a, b);
}
/**
 * `a > b` elementwise as bool, broadcasting; compared in the promoted dtype. As `torch.gt`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function gt(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("gt", a, b);
}
/**
 * `a >= b` elementwise as bool, broadcasting; compared in the promoted dtype. As `torch.ge`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function ge(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("ge", a, b);
}
/**
 * `a && b` elementwise as bool, broadcasting; any dtype, a value counting as true when nonzero (NaN too). As `torch.logical_and`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function logicalAnd(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("logicalAnd", a, b);
}
/**
 * `a || b` elementwise as bool, broadcasting; any dtype, a value counting as true when nonzero (NaN too). As `torch.logical_or`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function logicalOr(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("logicalOr", a, b);
}
/**
 * Exclusive or elementwise as bool, broadcasting; any dtype, a value counting as true when nonzero (NaN too). As `torch.logical_xor`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function logicalXor(a: TensorLike, b: TensorLike): Tensor {
  return ew.binary("logicalXor", a, b);
}

/**
 * The dtype an op over these operands computes in, as `torch.result_type`: dimensioned tensors promote together, then 0-d tensors,
 * then JS scalars, and a later group changes the result only when of a higher kind (bool < integer < float). A JS number counts as
 * an integer when it is integer-valued (`2.0` too), a bigint as int64, a non-integer number as float32; no operands give float32.
 *
 * @example
 * using i = pt.tensor([1, 2], { dtype: "int32" }), h = pt.zeros([2], { dtype: "float16" }), d = pt.tensor(1, { dtype: "float64" });
 * pt.resultType(i, 2); // "int32": an integer scalar does not widen an integer tensor
 * pt.resultType(i, 2.5); // "float32": a float scalar is of a higher kind
 * pt.resultType(h, d); // "float16": a 0-d tensor of the same kind does not widen it either
 * @throws {TensorError} when an operand is neither a tensor nor a number, boolean or bigint.
 */
export function resultType(...operands: TensorLike[]): DType {
  return ew.resultType("resultType", operands);
}

/**
 * `a` where `cond` is true (nonzero), else `b`, broadcasting all three. a and b promote as `resultType` (cond's dtype takes no
 * part) and either or both may be JS scalars. As `torch.where`.
 *
 * @example
 * using x = pt.tensor([-1, 2, -3]);
 * using pos = pt.gt(x, 0);
 * using y = pt.where(pos, x, 0); // [0, 2, 0], float32
 * using flags = pt.where(pos, 1, 0); // [0, 1, 0], int64: two JS integers
 * @throws {TensorError} when cond is not a tensor, the shapes do not broadcast, or the tensors are on different devices.
 */
export function where(cond: Tensor, a: TensorLike, b: TensorLike): Tensor {
  return ew.where(cond, a, b);
}
/**
 * `x` limited to [min, max] elementwise; either bound may be left out (undefined) and each may be a tensor (broadcasting) or a JS
 * scalar. The dtype promotes over x and the bounds, as in `torch.clamp`: an int32 x with min 0.5 gives float32. Where min > max,
 * the result is max.
 *
 * @example
 * using x = pt.tensor([-2, 0.5, 3]);
 * using unit = pt.clamp(x, 0, 1); // [0, 0.5, 1]
 * using nonpos = pt.clamp(x, undefined, 0); // [-2, 0, 0]
 * @throws {TensorError} when both bounds are left out, x and the bounds are all bool, the shapes do not broadcast, or the devices differ.
 */
export function clamp(x: Tensor, min?: TensorLike, max?: TensorLike): Tensor {
  return ew.clamp(x, min, max);
}
/**
 * `start + weight * (end - start)` elementwise, broadcasting. The three operands promote together (PyTorch requires one dtype),
 * and the result must be a float dtype. As `torch.lerp`.
 * @throws {TensorError} when the promoted dtype is not a float dtype, the shapes do not broadcast, or the devices differ.
 */
export function lerp(start: Tensor, end: TensorLike, weight: TensorLike): Tensor {
  return ew.lerp(start, end, weight);
}
/**
 * The matrix product, with `torch.matmul`'s shape rules: a 1-D operand is a vector (its added dim is dropped from the result) and
 * the leading (batch) dims broadcast. The dtypes promote (PyTorch requires one dtype). As `torch.matmul`.
 * @throws {TensorError} when the inner sizes differ, the batch dims do not broadcast, an operand is 0-d, the promoted dtype is bool,
 * or the tensors are on different devices.
 */
export function matmul(a: Tensor, b: Tensor): Tensor {
  return la.matmul(a, b);
}
/**
 * The inner product of two 1-D tensors of one length, as a 0-d tensor; the dtypes promote (PyTorch requires one). As `torch.dot`.
 * @throws {TensorError} when an operand is not 1-D, the lengths differ, both are bool, or the tensors are on different devices.
 */
export function dot(a: Tensor, b: Tensor): Tensor {
  return la.dot(a, b);
}
/**
 * A copy of `x` with the order of its elements reversed along `axes` (one axis or several; negative ones count from the end).
 * As `torch.flip`.
 * @throws {TensorError} when an axis is out of range or repeated.
 */
export function flip(x: Tensor, axes: number | readonly number[]): Tensor {
  return mv.flip(x, axes);
}

/**
 * `-x` elementwise. As `torch.neg`.
 * @throws {TensorError} for a bool tensor (cast to an integer dtype first).
 */
export function neg(x: Tensor): Tensor {
  return ew.unary("neg", x);
}
/**
 * `|x|` elementwise. As `torch.abs`.
 * @throws {TensorError} for a bool tensor (cast to an integer dtype first).
 */
export function abs(x: Tensor): Tensor {
  return ew.unary("abs", x);
}
/** -1, 0 or 1 by the sign of each element (NaN stays NaN), in x's dtype; a bool tensor gives itself. As `torch.sign`. */
export function sign(x: Tensor): Tensor {
  return ew.unary("sign", x);
}
/** `x * x` elementwise, in x's dtype; a bool tensor gives int64 (PyTorch's `pow(x, 2)`). As `torch.square`. */
export function square(x: Tensor): Tensor {
  return ew.unary("square", x);
}
/** `1 / x` elementwise (float32 for an integer or bool x). As `torch.reciprocal`. */
export function reciprocal(x: Tensor): Tensor {
  return ew.unary("reciprocal", x);
}
/** `e ** x` elementwise (float32 for an integer or bool x). As `torch.exp`. */
export function exp(x: Tensor): Tensor {
  return ew.unary("exp", x);
}
/** `2 ** x` elementwise (float32 for an integer or bool x). As `torch.exp2`. */
export function exp2(x: Tensor): Tensor {
  return ew.unary("exp2", x);
}
/** The natural logarithm elementwise (float32 for an integer or bool x). As `torch.log`. */
export function log(x: Tensor): Tensor {
  return ew.unary("log", x);
}
/** The base-2 logarithm elementwise (float32 for an integer or bool x). As `torch.log2`. */
export function log2(x: Tensor): Tensor {
  return ew.unary("log2", x);
}
/** `log(1 + x)` elementwise, accurate for small x (float32 for an integer or bool x). As `torch.log1p`. */
export function log1p(x: Tensor): Tensor {
  return ew.unary("log1p", x);
}
/** The square root elementwise (float32 for an integer or bool x). As `torch.sqrt`. */
export function sqrt(x: Tensor): Tensor {
  return ew.unary("sqrt", x);
}
/** `1 / sqrt(x)` elementwise (float32 for an integer or bool x). As `torch.rsqrt`. */
export function rsqrt(x: Tensor): Tensor {
  return ew.unary("rsqrt", x);
}
/** The sine (radians) elementwise (float32 for an integer or bool x). As `torch.sin`. */
export function sin(x: Tensor): Tensor {
  return ew.unary("sin", x);
}
/** The cosine (radians) elementwise (float32 for an integer or bool x). As `torch.cos`. */
export function cos(x: Tensor): Tensor {
  return ew.unary("cos", x);
}
/** The tangent (radians) elementwise (float32 for an integer or bool x). As `torch.tan`. */
export function tan(x: Tensor): Tensor {
  return ew.unary("tan", x);
}
/** The hyperbolic tangent elementwise (float32 for an integer or bool x). As `torch.tanh`. */
export function tanh(x: Tensor): Tensor {
  return ew.unary("tanh", x);
}
/** `1 / (1 + exp(-x))` elementwise (float32 for an integer or bool x). As `torch.sigmoid`. */
export function sigmoid(x: Tensor): Tensor {
  return ew.unary("sigmoid", x);
}
/**
 * `max(x, 0)` elementwise, in x's dtype. As `torch.relu`.
 * @throws {TensorError} for a bool tensor (cast to an integer dtype first).
 */
export function relu(x: Tensor): Tensor {
  return ew.unary("relu", x);
}
/** `x * Φ(x)` elementwise, the exact (erf) form (float32 for an integer or bool x). As `torch.nn.functional.gelu`'s default. */
export function gelu(x: Tensor): Tensor {
  return ew.unary("gelu", x);
}
/** Rounds down to an integer value elementwise; an integer or bool tensor comes back unchanged (a new tensor). As `torch.floor`. */
export function floor(x: Tensor): Tensor {
  return ew.unary("floor", x);
}
/** Rounds up to an integer value elementwise; an integer or bool tensor comes back unchanged (a new tensor). As `torch.ceil`. */
export function ceil(x: Tensor): Tensor {
  return ew.unary("ceil", x);
}
/**
 * Rounds to the nearest integer value elementwise, ties to even (0.5 to 0, 1.5 to 2); an integer or bool tensor comes back
 * unchanged (a new tensor). As `torch.round`.
 */
export function round(x: Tensor): Tensor {
  return ew.unary("round", x);
}
/** Rounds toward zero elementwise; an integer or bool tensor comes back unchanged (a new tensor). As `torch.trunc`. */
export function trunc(x: Tensor): Tensor {
  return ew.unary("trunc", x);
}
/** Where x is NaN, as bool (all false for an integer or bool x). As `torch.isnan`. */
export function isnan(x: Tensor): Tensor {
  return ew.unary("isnan", x);
}
/** Where x is +-infinity, as bool (all false for an integer or bool x). As `torch.isinf`. */
export function isinf(x: Tensor): Tensor {
  return ew.unary("isinf", x);
}
/** Where x is neither NaN nor infinite, as bool (all true for an integer or bool x). As `torch.isfinite`. */
export function isfinite(x: Tensor): Tensor {
  return ew.unary("isfinite", x);
}
/** `!x` elementwise as bool: true where x is 0 (any dtype; NaN counts as nonzero). As `torch.logical_not`. */
export function logicalNot(x: Tensor): Tensor {
  return ew.unary("logicalNot", x);
}

export {
  acos,
  acosh,
  asin,
  asinh,
  atan,
  atan2,
  atanh,
  bitwiseAnd,
  bitwiseLeftShift,
  bitwiseNot,
  bitwiseOr,
  bitwiseRightShift,
  bitwiseXor,
  cosh,
  erf,
  erfc,
  expm1,
  floorDivide,
  fmod,
  hypot,
  log10,
  sinh,
} from "./src/tensor/math.ts";

/** Optimizers (SGD, Adam, AdamW) and learning-rate schedulers (StepLR, CosineAnnealingLR), as `torch.optim`. */
export * as optim from "./src/optim/mod.ts";
/** Neural-network functions (softmax, losses, activations, dropout, embedding, norms, attention), as `torch.nn.functional`. */
export * as nn from "./src/nn/mod.ts";
export { amax, amin, kthvalue, median, nansum, nanToNum, quantile } from "./src/tensor/stats.ts";
export type { QuantileInterpolation, ValuesIndices } from "./src/tensor/stats.ts";
export { einsum } from "./src/tensor/einsum.ts";
export { bincount, histc, searchsorted, unique } from "./src/tensor/counting.ts";
export type { SearchsortedOptions, UniqueOptions, UniqueResult } from "./src/tensor/counting.ts";
export { bernoulli, multinomial, normal, randperm } from "./src/tensor/sampling.ts";
