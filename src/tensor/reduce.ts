/**
 * Reductions over any axes (with keepdim) and scans along one axis, through the "reduce"
 * and "scan" templates. The input is described as outer (kept) dims and inner (reduced)
 * dims with their own strides, so strided and permuted inputs need no copy.
 *
 * Transform-reduce: a reduction over the trailing axes of a deferred elementwise result
 * (lazy mode) runs as one "ewreduce" kernel that computes each value as it reduces it, so
 * the expression is never written to memory. Its rows are the rows the reduce template
 * would walk in the materialized result, in the same order, so the result is the same bits
 * as with lazy mode off. Other axes, results whose stored dtype rounds (float16, uint8...)
 * and devices without ewreduce programs materialize first.
 */
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";
import * as grad from "../autograd/reduce.ts";
import { TensorError } from "../base/errors.ts";
import { fusesReductions, runElementwiseReduce, runTemplate } from "../kernels/launch.ts";
import { type Deferred, lazyEnabled } from "../lazy/deferred.ts";
import { storesExactly } from "../lazy/record.ts";
import { type DType, isFloat } from "../base/dtype.ts";
import { contiguousStrides, fmtShape, normalizeAxes, normalizeAxis, numel } from "../base/shape.ts";
import { allocTensor, type Tensor } from "./tensor.ts";
import { cat, narrow, reshape } from "./movement.ts";
import { binary, cast } from "./elementwise.ts";

const REDUCE_OPS = {
  sum: 0,
  prod: 1,
  max: 2,
  min: 3,
  argmax: 4,
  argmin: 5,
  any: 6,
  all: 7,
  mean: 8,
  var: 9,
  std: 10,
  countNonzero: 11,
} as const;
export type ReduceOp = keyof typeof REDUCE_OPS;

function reduceDType(op: ReduceOp, dt: DType): DType {
  switch (op) {
    case "sum":
    case "prod":
      return isFloat(dt) ? dt : "int64";
    case "mean":
    case "var":
    case "std":
      return dt; // floating only (checked by reduce())
    case "argmax":
    case "argmin":
    case "countNonzero":
      return "int64";
    case "any":
    case "all":
      return dt === "uint8" ? "uint8" : "bool"; // as torch.any and torch.all
    default:
      return dt;
  }
}

const FLOAT_ONLY = new Set<ReduceOp>(["mean", "var", "std"]);

const NEEDS_ELEMENTS = new Set<ReduceOp>(["max", "min", "argmax", "argmin"]);

export function reduce(op: ReduceOp, t: Tensor, axis: number | readonly number[] | undefined, keepdim: boolean, correction = 1): Tensor {
  const out = reduceOp(op, t, axis, keepdim, correction);
  return gradEnabled && wantsGrad(t) ? grad.reduce(op, t, axis, keepdim, correction, out) : out;
}

function reduceOp(op: ReduceOp, t: Tensor, axis: number | readonly number[] | undefined, keepdim: boolean, correction: number): Tensor {
  if (FLOAT_ONLY.has(op) && !isFloat(t.dtype)) {
    // PyTorch refuses too: an integer mean has no integer result, and which float type to pick is the caller's choice.
    throw new TensorError(op, `needs a floating-point tensor, got ${t.dtype}; cast it first, e.g. x.cast("float32").${op}()`);
  }
  const axes = normalizeAxes(axis, t.ndim, op);
  // A 0-d tensor takes dim 0 or -1, as in PyTorch, and has no dim to walk: its one element is the reduction.
  if (t.ndim === 0) axes.length = 0;
  const inner = axes.map((a) => t.shape[a]);
  const outerAxes = [...t.shape.keys()].filter((a) => !axes.includes(a));
  const outer = outerAxes.map((a) => t.shape[a]);
  if (NEEDS_ELEMENTS.has(op) && numel(inner) === 0 && numel(outer) > 0) {
    throw new TensorError(op, `is undefined on an empty extent: shape ${fmtShape(t.shape)}, axes [${axes.join(", ")}]`);
  }
  if (!Number.isFinite(correction)) throw new TensorError(op, `correction must be a finite number, got ${correction}`);
  const outShape = keepdim ? t.shape.map((d, i) => (axes.includes(i) ? 1 : d)) : outer;
  const node = fusible(t, axes);
  if (outerAxes.length === 0 && t.numel >= SPLIT_MIN && op in SPLIT) return splitReduce(op, t, outShape, node);
  if (node) return launchFused(op, node, 0, numel(outer), numel(inner), outShape, reduceDType(op, t.dtype), correction);
  return launchReduce(op, t, axes, outerAxes, outShape, reduceDType(op, t.dtype), correction);
}

/** t's pending node when a reduction over `axes` can fuse it (see the top of this file). */
function fusible(t: Tensor, axes: readonly number[]): Deferred | null {
  const node = t.deferred;
  if (node === null || node.buffer !== 0 || !lazyEnabled() || !storesExactly(node) || !fusesReductions(t.device)) return null;
  if (node.shape.length !== t.ndim || node.shape.some((d, i) => d !== t.shape[i])) return null;
  return axes.every((a, i) => a === t.ndim - axes.length + i) ? node : null;
}

/** Rows [start / rowlen, ...) of node's values, rowlen each, reduced into a new contiguous tensor of outShape. */
function launchFused(
  op: ReduceOp,
  node: Deferred,
  start: number,
  rows: number,
  rowlen: number,
  outShape: readonly number[],
  dtype: DType,
  correction = 1,
): Tensor {
  const name = `${op} of ${node.ops}`;
  const out = allocTensor(node.device, dtype, outShape, name);
  if (out.numel === 0) return out;
  try {
    const r = { op: REDUCE_OPS[op], ddof: correction, start, rows, rowlen };
    runElementwiseReduce(node.device, name, node.expr, node.shape, node.leaves, node.consts, r, out, 1);
  } catch (e) {
    out.dispose();
    throw e;
  }
  return out;
}

function launchReduce(
  op: ReduceOp,
  t: Tensor,
  axes: readonly number[],
  outerAxes: readonly number[],
  outShape: readonly number[],
  dtype: DType,
  correction = 1,
): Tensor {
  const inner = axes.map((a) => t.shape[a]), outer = outerAxes.map((a) => t.shape[a]);
  const out = allocTensor(t.device, dtype, outShape, op);
  if (out.numel === 0) return out;
  try {
    runTemplate(
      t.device,
      "reduce",
      op,
      (b) =>
        b.fill("reduce", {
          op: REDUCE_OPS[op],
          ddof: correction,
          oshape: outer,
          ishape: inner,
          in: [t, outerAxes.map((a) => t.strides[a])],
          in_inner: axes.map((a) => t.strides[a]),
          out: [out, contiguousStrides(outer)],
        }),
    );
  } catch (e) {
    out.dispose();
    throw e;
  }
  return out;
}

/**
 * A whole-tensor reduction of many elements runs in two stages: `chunks` rows of partial
 * results (up to 1024 rows of at least 4096 elements, enough rows for every compute unit of
 * a large GPU), then one row over the partials. The decomposition depends only on the
 * element count, never on the device, so backends still agree; partial
 * sums of floats are kept in float64 (in float32 on a device without it, whose reduce
 * kernels then accumulate as precisely as they can).
 */
const SPLIT_MIN = 1 << 16;
const SPLIT: Partial<Record<ReduceOp, { partial: ReduceOp; combine: ReduceOp }>> = {
  sum: { partial: "sum", combine: "sum" },
  mean: { partial: "sum", combine: "sum" },
  prod: { partial: "prod", combine: "prod" },
  max: { partial: "max", combine: "max" },
  min: { partial: "min", combine: "min" },
  any: { partial: "any", combine: "any" },
  all: { partial: "all", combine: "all" },
  countNonzero: { partial: "countNonzero", combine: "sum" },
};

function splitReduce(op: ReduceOp, t: Tensor, outShape: readonly number[], node: Deferred | null): Tensor {
  const { partial, combine } = SPLIT[op]!;
  const n = t.numel;
  const chunks = Math.min(1024, Math.max(2, Math.floor(n / 4096)));
  const m = Math.floor(n / chunks), tail = n - chunks * m;
  const partialType: DType = partial === "sum" || partial === "prod"
    ? (isFloat(t.dtype) ? (t.device.info.float64 ? "float64" : "float32") : "int64")
    : reduceDType(partial, t.dtype);
  using parts = node ? launchFused(partial, node, 0, chunks, m, [chunks], partialType) : rowPartials(partial, t, chunks, m, partialType);
  using restPart = tail === 0
    ? undefined
    : node
    ? launchFused(partial, node, chunks * m, 1, tail, [1], partialType)
    : tailPartial(partial, t, chunks * m, tail, partialType);
  using all = restPart ? cat([parts, restPart]) : undefined;
  const list = all ?? parts;
  if (op !== "mean") return launchReduce(combine, list, [0], [], outShape, reduceDType(op, t.dtype));
  using total = launchReduce("sum", list, [0], [], outShape, partialType);
  using avg = binary("div", total, n);
  return cast(avg, reduceDType(op, t.dtype));
}

/** The partials of the first chunks * m elements, m to a row. */
function rowPartials(op: ReduceOp, t: Tensor, chunks: number, m: number, dtype: DType): Tensor {
  using flat = reshape(t, [t.numel]);
  using body = narrow(flat, 0, 0, chunks * m);
  using rows = reshape(body, [chunks, m]);
  return launchReduce(op, rows, [1], [0], [chunks], dtype);
}

/** The partial of the last `tail` elements, from element `start`. */
function tailPartial(op: ReduceOp, t: Tensor, start: number, tail: number, dtype: DType): Tensor {
  using flat = reshape(t, [t.numel]);
  using rest = narrow(flat, 0, start, tail);
  return launchReduce(op, rest, [0], [], [1], dtype);
}

export function scan(op: "cumsum" | "cumprod", t: Tensor, axis: number): Tensor {
  const out = scanOp(op, t, axis);
  return gradEnabled && wantsGrad(t) ? grad.scan(op, t, axis, out) : out;
}

function scanOp(op: "cumsum" | "cumprod", t: Tensor, axis: number): Tensor {
  const a = normalizeAxis(axis, t.ndim, op);
  const dtype = isFloat(t.dtype) ? t.dtype : "int64";
  const out = allocTensor(t.device, dtype, t.shape, op);
  if (out.numel === 0) return out;
  const outerAxes = [...t.shape.keys()].filter((i) => i !== a);
  const n = t.ndim === 0 ? 1 : t.shape[a];
  try {
    runTemplate(
      t.device,
      "scan",
      op,
      (b) =>
        b.fill("scan", {
          op: op === "cumsum" ? 0 : 1,
          oshape: outerAxes.map((i) => t.shape[i]),
          n,
          in: [t, outerAxes.map((i) => t.strides[i])],
          in_stride: t.ndim === 0 ? 0 : t.strides[a],
          out: [out, outerAxes.map((i) => out.strides[i])],
          out_stride: t.ndim === 0 ? 0 : out.strides[a],
        }),
    );
  } catch (e) {
    out.dispose();
    throw e;
  }
  return out;
}
