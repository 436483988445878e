/**
 * Counting and searching: searchsorted (a branchless binary search, one gather and compare per halving step),
 * bincount and histc (scatterAdd of ones or weights into the bins), and unique (a stable sort, then the positions where
 * the sorted values change). All are compositions of the library's ops, so they run on every backend. Output sizes that
 * depend on the data (unique's count, bincount's length, histc's range when it is taken from the data) are read back
 * to the host, as nonzero and maskedSelect read theirs, so these cannot run inside pt.capture.
 */
import { TensorError } from "../base/errors.ts";
import { isFloat, isInt, promoteWithScalar } from "../base/dtype.ts";
import { describeValue, fmtShape, normalizeAxis } from "../base/shape.ts";
import { Tensor } from "./tensor.ts";
import { arange, full, ones, zeros } from "./creation.ts";
import { where } from "./elementwise.ts";
import { cat, stack } from "./movement.ts";
import { sort } from "./sort.ts";
import { toArray } from "./transfer.ts";
import { movedim } from "./structure.ts";
import { tidy } from "./tidy.ts";

function tensorArg(op: string, t: unknown, what: string): Tensor {
  if (!(t instanceof Tensor)) throw new TensorError(op, `${what} must be a Tensor, got ${describeValue(t)}`);
  return t;
}

function intArg(op: string, what: string, v: unknown, min: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
    throw new TensorError(op, `${what} must be an integer >= ${min}, got ${describeValue(v)}`);
  }
  return v;
}

/** Options of searchsorted, as torch.searchsorted's keywords. */
export interface SearchsortedOptions {
  /** Return the last position that keeps the order (after equal values) instead of the first (default false). */
  right?: boolean;
  /** "left" or "right", as `right` (they must agree when both are given). */
  side?: "left" | "right";
  /** int64 (or int32) indices that sort the innermost dim of an unsorted sequence. */
  sorter?: Tensor;
  /** int32 results instead of int64 (default false). */
  outInt32?: boolean;
}

/**
 * For each value, the index in the innermost dim of `sortedSequence` at which inserting it keeps that dim sorted:
 * the number of elements < the value (or <= it, with `right` or `side: "right"`), as `torch.searchsorted`. A 1-D sequence
 * serves values of any shape; otherwise the sequence's leading dims must equal the values'. `sorter` gives the order of
 * an unsorted sequence; the results index that order. int64 results of the values' shape (a JS number gives a 0-d one).
 *
 * @example
 * using i = pt.searchsorted(pt.tensor([1, 3, 5, 7]), pt.tensor([3, 6, 9])); // [1, 3, 4]
 * @throws {TensorError} when the sequence is 0-d, the leading dims differ, a number is searched in a sequence of more than
 * one dim, side is neither "left" nor "right" or disagrees with right, or sorter is not an integer tensor of the sequence's shape.
 */
export function searchsorted(sortedSequence: Tensor, values: Tensor | number, opts: SearchsortedOptions = {}): Tensor {
  const op = "searchsorted";
  const seq = tensorArg(op, sortedSequence, "sortedSequence");
  if (seq.ndim === 0) throw new TensorError(op, "sortedSequence must have at least one dim, got a 0-d tensor");
  const { side, sorter } = opts;
  if (side !== undefined && side !== "left" && side !== "right") {
    throw new TensorError(op, `side must be "left" or "right", got ${describeValue(side)}`);
  }
  if (side === "left" && opts.right === true) throw new TensorError(op, `side "left" contradicts right: true`);
  const right = opts.right === true || side === "right";
  if (typeof values === "number") {
    if (seq.ndim !== 1) throw new TensorError(op, `a number needs a 1-D sortedSequence, got shape ${fmtShape(seq.shape)}`);
  } else {
    tensorArg(op, values, "values");
    const lead = seq.shape.slice(0, -1), vlead = values.shape.slice(0, -1);
    if (seq.ndim > 1 && (values.ndim !== seq.ndim || lead.some((d, i) => d !== vlead[i]))) {
      throw new TensorError(
        op,
        `sortedSequence ${fmtShape(seq.shape)} and values ${fmtShape(values.shape)} must agree on every dim but the last`,
      );
    }
  }
  if (sorter !== undefined) {
    tensorArg(op, sorter, "sorter");
    if (
      sorter.dtype !== "int64" && sorter.dtype !== "int32" || sorter.ndim !== seq.ndim || sorter.shape.some((d, i) => d !== seq.shape[i])
    ) {
      throw new TensorError(
        op,
        `sorter must be an int64 tensor of sortedSequence's shape ${fmtShape(seq.shape)}, got ${sorter.dtype}${fmtShape(sorter.shape)}`,
      );
    }
  }
  const outType = opts.outInt32 === true ? "int32" as const : "int64" as const;
  return tidy(() => {
    const v = typeof values === "number" ? full([], values, { dtype: promoteWithScalar(seq.dtype, values), device: seq.device }) : values;
    const n = seq.shape[seq.ndim - 1], rows = seq.shape.slice(0, -1).reduce((a, b) => a * b, 1);
    const s = (sorter === undefined ? seq : seq.gather(-1, sorter)).reshape([rows, n]);
    const vs = v.reshape(seq.ndim === 1 ? [1, v.numel] : [rows, v.shape[v.ndim - 1]]);
    let pos = zeros(vs.shape as number[], { dtype: "int64", device: seq.device });
    if (vs.numel > 0 && n > 0) {
      // Branchless binary search: pos grows by each power of two, largest first, while the element before the new
      // position still goes before the value (torch's test: !(element >= value), or !(element > value) for right).
      for (let step = 2 ** Math.floor(Math.log2(n)); step >= 1; step /= 2) {
        const next = pos.add(step);
        const probe = s.gather(1, next.sub(1).clamp(undefined, n - 1).expand(vs.shape as number[]), "clamp");
        const before = (right ? probe.gt(vs) : probe.ge(vs)).logicalNot().logicalAnd(next.le(n));
        pos = where(before, next, pos);
      }
    }
    return pos.reshape(v.shape as number[]).cast(outType);
  });
}

/** Reads two int64 or float values back (min and max of t), in one transfer. */
function range(t: Tensor, op: string): [number, number] {
  return tidy(() => {
    const both = stack([t.min(), t.max()]);
    const host = toArray(isFloat(both.dtype) ? both : both.cast("int64"), op);
    return [Number(host[0]), Number(host[1])];
  });
}

/**
 * The count of each value 0, 1, ... max(input) in a 1-D tensor of non-negative integers (int64), or the sum of the
 * weights at each value, with at least `minlength` bins, as `torch.bincount`. Weighted counts are float32 for float32
 * weights and float64 otherwise (as torch; float32 on a device without float64). Reads the input's range back to size
 * the result.
 * @throws {TensorError} when input is not a 1-D integer tensor, holds a negative value, weights is not of its shape, or
 * minlength is not an integer >= 0.
 */
export function bincount(input: Tensor, weights?: Tensor, minlength = 0): Tensor {
  const op = "bincount";
  tensorArg(op, input, "input");
  if (input.ndim !== 1 || !isInt(input.dtype)) {
    throw new TensorError(op, `input must be a 1-D integer tensor, got ${input.dtype}${fmtShape(input.shape)}`);
  }
  if (weights !== undefined) {
    tensorArg(op, weights, "weights");
    if (weights.ndim !== 1 || weights.shape[0] !== input.shape[0]) {
      throw new TensorError(op, `weights must have input's shape ${fmtShape(input.shape)}, got ${fmtShape(weights.shape)}`);
    }
  }
  intArg(op, "minlength", minlength, 0);
  const dtype = weights === undefined ? "int64" : weights.dtype === "float32" || !input.device.info.float64 ? "float32" : "float64";
  const dev = { dtype, device: input.device } as const;
  if (input.numel === 0) return zeros([minlength], dev);
  const [lo, hi] = range(input, op);
  if (lo < 0) throw new TensorError(op, `input must be non-negative, got ${lo}`);
  return tidy(() => {
    const src = weights === undefined ? ones([input.numel], dev) : weights.cast(dtype);
    return zeros([Math.max(hi + 1, minlength)], dev).scatterAdd(0, input.cast("int64"), src);
  });
}

/**
 * A histogram of `bins` equal-width bins over [min, max] (elements outside it, and NaN, are not counted; max falls in
 * the last bin), in the input's dtype, as `torch.histc`. min = max (both 0 by default) uses the data's smallest and
 * largest elements, widened by 1 on each side when they are equal (reading them back).
 * @throws {TensorError} when input is not of a float dtype, bins is not an integer >= 1, min or max is not finite or
 * min > max, or the data's range is not finite.
 */
export function histc(input: Tensor, bins = 100, min = 0, max = 0): Tensor {
  const op = "histc";
  tensorArg(op, input, "input");
  if (!isFloat(input.dtype)) throw new TensorError(op, `needs a floating-point tensor, got ${input.dtype}; cast it first`);
  intArg(op, "bins", bins, 1);
  if (typeof min !== "number" || typeof max !== "number" || !Number.isFinite(min) || !Number.isFinite(max)) {
    throw new TensorError(op, `min and max must be finite numbers, got ${describeValue(min)} and ${describeValue(max)}`);
  }
  if (min > max) throw new TensorError(op, `max must be larger than min, got min ${min} and max ${max}`);
  let [lo, hi] = [min, max];
  if (lo === hi && input.numel > 0) {
    [lo, hi] = range(input, op);
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw new TensorError(op, `the data's range [${lo}, ${hi}] is not finite`);
  }
  if (lo === hi) [lo, hi] = [lo - 1, hi + 1];
  const dev = { dtype: input.dtype, device: input.device };
  if (input.numel === 0) return zeros([bins], dev);
  return tidy(() => {
    const x = input.reshape([input.numel]);
    const counted = x.ge(lo).logicalAnd(x.le(hi));
    // torch's bin: (x - min) * bins / (max - min), truncated; max itself goes to the last bin.
    const at = x.sub(lo).mul(bins).div(hi - lo).floor().clamp(0, bins - 1).cast("int64");
    return zeros([bins], dev).scatterAdd(0, at.where(counted, 0), counted.cast(input.dtype));
  });
}

/** Options of unique, as torch.unique's keywords. */
export interface UniqueOptions {
  /** Accepted for torch's signature; the values always come back in ascending order (which torch permits). */
  sorted?: boolean;
  /** Also return, for each element (or slice), the index of its value in the result. */
  returnInverse?: boolean;
  /** Also return how many times each value (or slice) occurs. */
  returnCounts?: boolean;
  /** The dim whose slices are compared whole; without it, the flattened elements. */
  dim?: number;
}

/** unique's result when inverse or counts are asked for. */
export interface UniqueResult {
  /** The distinct values (or slices), in the input's dtype. */
  values: Tensor;
  /** int64: of the input's shape without dim, else [size of dim]. */
  inverse?: Tensor;
  /** int64, one per value. */
  counts?: Tensor;
}

/**
 * The distinct elements in ascending order (NaNs each distinct, last), or with `dim` the distinct slices along it in
 * lexicographic order, as `torch.unique`; with returnInverse or returnCounts a `{ values, inverse, counts }` object.
 * Reads the number of distinct values back to size the result.
 * @throws {TensorError} when dim is out of range.
 */
export function unique(t: Tensor, opts?: UniqueOptions & { returnInverse?: false; returnCounts?: false }): Tensor;
/** unique with returnInverse or returnCounts: `{ values, inverse, counts }` with what was asked for (see the first form). */
export function unique(t: Tensor, opts: UniqueOptions): UniqueResult;
export function unique(t: Tensor, opts: UniqueOptions = {}): Tensor | UniqueResult {
  const op = "unique";
  tensorArg(op, t, "input");
  const d = opts.dim === undefined ? undefined : normalizeAxis(opts.dim, t.ndim, op);
  const r = tidy(() => {
    // rows: [N, M], each row one element (M = 1) or one slice along dim, compared whole.
    const whole = d === undefined || t.ndim === 0;
    const moved = whole ? t : movedim(t, d, 0), slice = whole ? [] : moved.shape.slice(1);
    const rows = whole ? t.reshape([t.numel, 1]) : moved.reshape([moved.shape[0], slice.reduce((a, b) => a * b, 1)]);
    const n = rows.shape[0], opts64 = { dtype: "int64" as const, device: t.device };
    let perm = arange(n, undefined, 1, opts64);
    // Lexicographic order: stable sorts by each column, last to first.
    for (let c = rows.shape[1] - 1; c >= 0; c--) {
      perm = perm.indexSelect(0, sort(rows.narrow(1, c, 1).reshape([n]).indexSelect(0, perm), 0).indices);
    }
    const s = rows.indexSelect(0, perm);
    const changes = n === 0 ? s.ne(s).any(1) : s.narrow(0, 1, n - 1).ne(s.narrow(0, 0, n - 1)).any(1);
    const first = cat([full([Math.min(n, 1)], true, { dtype: "bool", device: t.device }), changes]);
    const starts = first.nonzero().reshape([-1]);
    const k = starts.shape[0];
    const picked = s.indexSelect(0, starts);
    const values = whole ? picked.reshape([k]) : movedim(picked.reshape([k, ...slice]), 0, d!);
    const group = first.cumsum(0).sub(1);
    const inverse = zeros([n], opts64).scatter(0, perm, group).reshape(d === undefined ? [...t.shape] : [n]);
    const counts = zeros([k], opts64).scatterAdd(0, group, ones([n], opts64));
    return { values, inverse, counts };
  });
  if (!opts.returnInverse && !opts.returnCounts) {
    r.inverse.dispose();
    r.counts.dispose();
    return r.values;
  }
  const out: UniqueResult = { values: r.values };
  if (opts.returnInverse) out.inverse = r.inverse;
  else r.inverse.dispose();
  if (opts.returnCounts) out.counts = r.counts;
  else r.counts.dispose();
  return out;
}
