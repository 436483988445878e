/**
 * Statistics over dims, as compositions of the library's ops so that they run on every backend and take their gradients
 * from the ops' rules: amax and amin (the max and min reductions, whose rule shares the gradient evenly among ties),
 * nansum and nanToNum (maskedFill), and the order statistics median, kthvalue and quantile (a stable sort along the dim,
 * then gather or narrow: the gradient goes back to the elements picked). Errors name the function the user called.
 */
import { TensorError } from "../base/errors.ts";
import { type DType, isFloat } from "../base/dtype.ts";
import { describeValue, fmtShape, normalizeAxes, normalizeAxis } from "../base/shape.ts";
import { Tensor } from "./tensor.ts";
import { full, tensor } from "./creation.ts";
import { binary, lerp, where } from "./elementwise.ts";
import { reduce } from "./reduce.ts";
import { sort } from "./sort.ts";
import { toArray } from "./transfer.ts";
import { movedim } from "./structure.ts";
import { tidy } from "./tidy.ts";

function tensorArg(op: string, t: unknown, what = "input"): Tensor {
  if (!(t instanceof Tensor)) throw new TensorError(op, `${what} must be a Tensor, got ${describeValue(t)}`);
  return t;
}

type Dims = number | readonly number[] | undefined;

/** dim as the reductions take it, checked in op's name; an empty list means every dim, as torch's `dim=()`. */
function dimsArg(op: string, t: Tensor, dim: Dims): number[] | undefined {
  if (dim === undefined || (typeof dim !== "number" && dim.length === 0)) return undefined;
  return normalizeAxes(dim, t.ndim, op);
}

function extreme(op: "amax" | "amin", t: Tensor, dim: Dims, keepdim: boolean): Tensor {
  tensorArg(op, t);
  const axes = dimsArg(op, t, dim), reduced = axes ?? [...t.shape.keys()];
  const size = (dims: number[]) => dims.reduce((n, a) => n * t.shape[a], 1);
  const inner = size(reduced), outer = size([...t.shape.keys()].filter((a) => !reduced.includes(a)));
  if (inner === 0 && outer > 0) {
    throw new TensorError(op, `is undefined on an empty extent: shape ${fmtShape(t.shape)}, dims [${reduced.join(", ")}]`);
  }
  return reduce(op === "amax" ? "max" : "min", t, axes, keepdim);
}

/**
 * The largest element over the dims `dim` (one, several, or all when left out or empty), NaN where a NaN is among them,
 * as `torch.amax`. Its gradient is shared evenly among the elements equal to the result.
 * @throws {TensorError} when a dim is out of range or repeated, or a reduced extent is empty.
 */
export function amax(t: Tensor, dim?: number | readonly number[], keepdim = false): Tensor {
  return extreme("amax", t, dim, keepdim);
}

/**
 * The smallest element over the dims `dim` (one, several, or all when left out or empty), NaN where a NaN is among them,
 * as `torch.amin`. Its gradient is shared evenly among the elements equal to the result.
 * @throws {TensorError} when a dim is out of range or repeated, or a reduced extent is empty.
 */
export function amin(t: Tensor, dim?: number | readonly number[], keepdim = false): Tensor {
  return extreme("amin", t, dim, keepdim);
}

/**
 * The sum over the dims `dim` (all when left out) with NaNs counted as 0, as `torch.nansum`; the dtype is sum's (int64 for
 * integer and bool tensors). NaN elements get no gradient.
 * @throws {TensorError} when a dim is out of range or repeated.
 */
export function nansum(t: Tensor, dim?: number | readonly number[], keepdim = false): Tensor {
  const op = "nansum";
  tensorArg(op, t);
  const axes = dimsArg(op, t, dim);
  if (!isFloat(t.dtype)) return t.sum(axes, keepdim);
  return tidy(() => t.maskedFill(t.isnan(), 0).sum(axes, keepdim));
}

/** The largest finite value of each float dtype: nanToNum's default for +infinity (its negation for -infinity). */
const FINITE_MAX: Partial<Record<DType, number>> = {
  float16: 65504,
  bfloat16: 3.3895313892515355e38,
  float32: 3.4028234663852886e38,
  float64: Number.MAX_VALUE,
};

/**
 * t with NaN replaced by `nan` (0), +infinity by `posinf` and -infinity by `neginf` (by default the dtype's largest and
 * lowest finite values), as `torch.nan_to_num`. An integer or bool tensor comes back as a copy. The gradient is g where t
 * is finite and 0 where it was replaced.
 * @throws {TensorError} when a replacement is not a number.
 */
export function nanToNum(t: Tensor, nan = 0, posinf?: number, neginf?: number): Tensor {
  const op = "nanToNum";
  tensorArg(op, t);
  for (const [what, v] of [["nan", nan], ["posinf", posinf], ["neginf", neginf]] as const) {
    if (v !== undefined && typeof v !== "number") throw new TensorError(op, `${what} must be a number, got ${describeValue(v)}`);
  }
  if (!isFloat(t.dtype)) return t.clone();
  const big = FINITE_MAX[t.dtype]!;
  return tidy(() => t.maskedFill(t.isnan(), nan).maskedFill(t.eq(Infinity), posinf ?? big).maskedFill(t.eq(-Infinity), neginf ?? -big));
}

/** Values and int64 indices, as torch's named tuples of median and kthvalue. */
export interface ValuesIndices {
  /** The values picked, in the input's dtype. */
  values: Tensor;
  /** Where each value lies along the dim (int64). */
  indices: Tensor;
}

/** f applied to t with dim d, a 0-d t being seen as one element along dim 0 (as torch treats it) and its results as 0-d. */
function alongDim(op: string, t: Tensor, dim: number, f: (x: Tensor, d: number) => ValuesIndices): ValuesIndices {
  const d = normalizeAxis(dim, t.ndim, op);
  if (t.ndim > 0) return f(t, d);
  return tidy(() => {
    const r = f(t.reshape([1]), 0);
    return { values: r.values.reshape([]), indices: r.indices.reshape([]) };
  });
}

/** The lower median along d (the element at (n - 1) >> 1 in sorted order), or the first NaN of a row that has one. */
function medianAlong(x: Tensor, d: number, keepdim: boolean): ValuesIndices {
  const n = x.shape[d];
  if (n === 0) throw new TensorError("median", `dim ${d} of shape ${fmtShape(x.shape)} is empty: an empty row has no median`);
  return tidy(() => {
    const { values, indices } = sort(x, d);
    const mid = (n - 1) >> 1;
    // NaN sorts last, stably, so a row's first NaN sits at n - (its NaN count).
    const nans = isFloat(x.dtype) ? x.isnan() : null;
    const at = nans === null ? null : where(nans.any(d, true), binary("sub", n, nans.sum(d, true)), mid);
    const pick = (s: Tensor) => (at === null ? s.narrow(d, mid, 1) : s.gather(d, at));
    const v = pick(values), i = pick(indices);
    return keepdim ? { values: v, indices: i } : { values: v.squeeze(d), indices: i.squeeze(d) };
  });
}

/**
 * The median: without dim, of all elements as a 0-d tensor; with dim, along it, with the int64 index of each in its row
 * (`{ values, indices }`). As `torch.median`, the lower of the two middle values for an even count, and NaN where the
 * elements (the row) hold a NaN, with that NaN's index. Of equal values, the index of the one a stable sort puts in the
 * middle. The gradient goes to the element picked. An empty float tensor's median (without dim) is NaN.
 * @throws {TensorError} when dim is out of range, the row along dim is empty, or an integer tensor without dim is empty.
 */
export function median(t: Tensor): Tensor;
/** The median along dim, with the index of each: see the form without dim. */
export function median(t: Tensor, dim: number, keepdim?: boolean): ValuesIndices;
export function median(t: Tensor, dim?: number, keepdim = false): Tensor | ValuesIndices {
  const op = "median";
  tensorArg(op, t);
  if (dim !== undefined) return alongDim(op, t, dim, (x, d) => medianAlong(x, d, keepdim));
  if (t.numel === 0) {
    if (!isFloat(t.dtype)) throw new TensorError(op, `an empty ${t.dtype} tensor has no median`);
    return full([], NaN, { dtype: t.dtype, device: t.device });
  }
  return tidy(() => medianAlong(t.reshape([t.numel]), 0, false).values);
}

/**
 * The k-th smallest element (k from 1) along dim (default -1) with its int64 index, as `torch.kthvalue`; NaN counts as
 * larger than every number. The gradient goes to the element picked.
 * @throws {TensorError} when dim is out of range or k is not an integer in [1, size of dim].
 */
export function kthvalue(t: Tensor, k: number, dim = -1, keepdim = false): ValuesIndices {
  const op = "kthvalue";
  tensorArg(op, t);
  return alongDim(op, t, dim, (x, d) => {
    const n = x.shape[d];
    if (!Number.isInteger(k) || k < 1 || k > n) {
      throw new TensorError(op, `k must be an integer in [1, ${n}] (the size of dim ${d}), got ${describeValue(k)}`);
    }
    return tidy(() => {
      const { values, indices } = sort(x, d);
      const v = values.narrow(d, k - 1, 1), i = indices.narrow(d, k - 1, 1);
      return keepdim ? { values: v, indices: i } : { values: v.squeeze(d), indices: i.squeeze(d) };
    });
  });
}

/** How quantile picks a value between the two elements around its rank, as torch's `interpolation`. */
export type QuantileInterpolation = "linear" | "lower" | "higher" | "midpoint" | "nearest";

const INTERPOLATIONS: readonly QuantileInterpolation[] = ["linear", "lower", "higher", "midpoint", "nearest"];

/** Rounds half to even, as torch's round() of the ranks for "nearest". */
const roundHalfEven = (v: number) => {
  const r = Math.round(v);
  return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
};

/** The q values as JS numbers, checked to lie in [0, 1], and whether q is a scalar (no q dim in the result). */
function quantiles(op: string, q: unknown): { qs: number[]; scalar: boolean } {
  let qs: number[], scalar: boolean;
  if (typeof q === "number") [qs, scalar] = [[q], true];
  else if (Array.isArray(q)) [qs, scalar] = [[...q], false];
  else if (q instanceof Tensor) {
    if (q.ndim > 1) throw new TensorError(op, `q must be a scalar or 1-D, got shape ${fmtShape(q.shape)}`);
    if (!isFloat(q.dtype)) throw new TensorError(op, `q must be a floating-point tensor, got ${q.dtype}`);
    [qs, scalar] = [Array.from(toArray(q, op) as ArrayLike<number>), q.ndim === 0];
  } else throw new TensorError(op, `q must be a number, an array of numbers or a tensor, got ${describeValue(q)}`);
  for (const v of qs) {
    if (typeof v !== "number" || !(v >= 0 && v <= 1)) throw new TensorError(op, `q must lie in [0, 1], got ${describeValue(v)}`);
  }
  return { qs, scalar };
}

/**
 * The q-th quantiles (q a number, an array or a tensor of values in [0, 1]) over dim, or over all elements when dim is
 * left out, as `torch.quantile`: the element at rank q * (n - 1) of the sorted values, between ranks by `interpolation`
 * ("linear", the default; "lower", "higher", "midpoint" or "nearest", which rounds the rank half to even). A 1-D q
 * puts its dim first in the result. A row holding a NaN gives NaN, an empty one NaN. Differentiable through the elements
 * picked (and linear's weights).
 * @throws {TensorError} when t is not of a float dtype, a q lies outside [0, 1], q has more than one dim, dim is out of
 * range, or interpolation is not one of the five.
 */
export function quantile(
  t: Tensor,
  q: number | readonly number[] | Tensor,
  dim?: number,
  keepdim = false,
  opts: { interpolation?: QuantileInterpolation } = {},
): Tensor {
  const op = "quantile";
  tensorArg(op, t);
  if (!isFloat(t.dtype)) throw new TensorError(op, `needs a floating-point tensor, got ${t.dtype}; cast it first`);
  const how = opts.interpolation ?? "linear";
  if (!INTERPOLATIONS.includes(how)) {
    throw new TensorError(op, `interpolation must be one of ${INTERPOLATIONS.join(", ")}, got ${describeValue(how)}`);
  }
  const { qs, scalar } = quantiles(op, q);
  const d = dim === undefined ? undefined : normalizeAxis(dim, t.ndim, op);
  const kept = t.shape.map((s, i) => (d === undefined || i === d ? 1 : s));
  const rest = d === undefined ? [] : t.shape.filter((_, i) => i !== d);
  const outShape = [...(scalar ? [] : [qs.length]), ...(keepdim ? kept : rest)];
  return tidy(() => {
    // The values to rank as rows along the last dim: [...rest, n].
    const rows = d === undefined || t.ndim === 0 ? t.reshape([...rest, t.ndim === 0 ? 1 : t.numel]) : movedim(t, d, -1);
    const n = rows.shape[rows.ndim - 1];
    if (n === 0 || qs.length === 0) return full(outShape, NaN, { dtype: t.dtype, device: t.device });
    const sorted = sort(rows, -1).values;
    const ranks = qs.map((v) => v * (n - 1));
    const lo = ranks.map((r) => (how === "nearest" ? roundHalfEven(r) : how === "higher" ? Math.ceil(r) : Math.floor(r)));
    const hi = ranks.map(Math.ceil);
    // NaN sorts last: a row ending in NaN has one, and ranks it at n - 1, where the NaN lies.
    const hasNan = sorted.narrow(-1, n - 1, 1).isnan();
    const opts64 = { dtype: "int64" as const, device: t.device };
    const at = (ix: number[]) => where(hasNan, n - 1, tensor(ix, opts64)).expand([...rest, qs.length]).contiguous();
    const below = sorted.gather(-1, at(lo));
    let r: Tensor = below;
    if (how === "linear" || how === "midpoint") {
      const above = sorted.gather(-1, at(hi));
      const w = how === "midpoint" ? 0.5 : tensor(ranks.map((v, i) => v - lo[i]), { dtype: t.dtype, device: t.device });
      r = lerp(below, above, w);
    }
    return (scalar ? r.squeeze(-1) : movedim(r, -1, 0)).reshape(outShape);
  });
}
