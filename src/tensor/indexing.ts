/**
 * Indexing ops over the native templates "gather", "scatter", "index_put", "index_get",
 * "nonzero" and "masked_select" (block layouts: native/src/core/blocks.h).
 * Index tensors are int32 or int64; the kernels normalize each index as int64 by the mode
 * (error: negative counts from the end, outside [-size, size) fails; clamp; wrap).
 * Writes are out of place: the input is copied into storage of its own (copyOf) and the template writes into the copy.
 * Decisions: scatter/indexPut convert src/values to the input's dtype (PyTorch requires
 * equal dtypes); bool index tensors are rejected (use maskedSelect / maskedFill).
 */
import { TensorError } from "../base/errors.ts";
import { check, native } from "../runtime/native.ts";
import type { Device } from "../runtime/device.ts";
import { queueFor } from "../runtime/queue.ts";
import { runTemplate, settle } from "../kernels/launch.ts";
import type { ViewRef } from "../kernels/block.ts";
import { type DType, DTYPES } from "../base/dtype.ts";
import {
  broadcastShapes,
  broadcastStrides,
  contiguousStrides,
  describeValue,
  fmtShape,
  MAX_RANK,
  normalizeAxis,
  numel,
  sameShape,
  type Shape,
} from "../base/shape.ts";
import { allocTensor, type IndexMode, Tensor, type TensorLike } from "./tensor.ts";
import { commonDevice, copyInto } from "./elementwise.ts";
import { fill } from "./creation.ts";
import { noHostAccess } from "./transfer.ts";
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";
import * as grad from "../autograd/indexing.ts";

const MODES: Record<IndexMode, number> = { error: 0, clamp: 1, wrap: 2 };
const REDUCE = { add: 1, max: 2, min: 3 } as const;

function modeCode(mode: IndexMode, op: string): number {
  const m = MODES[mode];
  if (m === undefined) throw new TensorError(op, `mode must be "error", "clamp" or "wrap", got ${JSON.stringify(mode)}`);
  return m;
}

function checkTensor(x: unknown, what: string, op: string): Tensor {
  if (!(x instanceof Tensor)) throw new TensorError(op, `${what} must be a tensor, got ${x === null ? "null" : typeof x}`);
  return x;
}

function checkIndex(x: unknown, op: string, what = "index"): Tensor {
  const t = checkTensor(x, what, op);
  if (t.dtype !== "int32" && t.dtype !== "int64") {
    throw new TensorError(
      op,
      `${what} must be int32 or int64, got ${t.dtype}${t.dtype === "bool" ? " (use maskedSelect or maskedFill for masks)" : ""}`,
    );
  }
  return t;
}

/** Runs fn on a fresh output, disposing it if fn throws. */
function filling(out: Tensor, fn: (out: Tensor) => void): Tensor {
  try {
    fn(out);
  } catch (e) {
    out.dispose();
    throw e;
  }
  return out;
}

/** A 0-d tensor holding a JS scalar cast to `dtype` on `device` (one the dtype cannot hold is an error, as in full()). */
function scalarTensor(device: Device, value: TensorLike, dtype: DType, op: string): Tensor {
  if (typeof value !== "number" && typeof value !== "boolean" && typeof value !== "bigint") {
    throw new TensorError(op, `expected a tensor, a number, a boolean or a bigint, got ${describeValue(value)}`);
  }
  return fill(op, [], value, { dtype, device });
}

/**
 * A copy of t in a buffer of its own, for scatter and indexPut to write into. Not clone(): the
 * clone of a pending (lazy) tensor is another handle on its node, and writing into it would
 * change t and every other handle on that node.
 */
function copyOf(t: Tensor, op: string): Tensor {
  return filling(allocTensor(t.device, t.dtype, t.shape, op), (out) => copyInto(out, t, op));
}

// ----- gather / indexSelect / scatter

function axisSize(t: Tensor, a: number): number {
  return t.ndim === 0 ? 1 : t.shape[a];
}

/** Gathers from src (t, or a stand-in for it: emptyChecked) along a, whose size is `size`, into a new tensor of shape. */
function runGather(
  t: Tensor,
  a: number,
  index: Tensor,
  idxStrides: readonly number[],
  shape: Shape,
  mode: number,
  op: string,
  src: ViewRef = t,
  size = axisSize(t, a),
): Tensor {
  return filling(allocTensor(t.device, t.dtype, shape, op), (out) => {
    if (out.numel === 0) return;
    runTemplate(
      t.device,
      "gather",
      op,
      (b) => b.fill("gather", { shape, axis: a, size, mode, in: src, idx: [index, idxStrides], out }),
    );
    if (mode === MODES.error) settle(t.device, op);
  });
}

/**
 * The empty result of an indexSelect whose index is not empty (another dim of t is 0): as in
 * PyTorch, every index must still be in range for the axis. A gather of one element per index
 * from a one-element stand-in for t (zero strides) checks them on the device, as a real
 * gather would, without a host read.
 */
function emptyChecked(t: Tensor, a: number, index: Tensor, idxStrides: readonly number[], shape: Shape, mode: number, op: string): Tensor {
  using one = allocTensor(t.device, t.dtype, [1], op);
  const src: ViewRef = { buf: one.buf, dtype: t.dtype, offset: 0, strides: t.shape.map(() => 0) };
  runGather(t, a, index, idxStrides, t.shape.map((_, i) => (i === a ? shape[a] : 1)), mode, op, src, t.shape[a]).dispose();
  return allocTensor(t.device, t.dtype, shape, op);
}

export function gather(t: Tensor, axis: number, index: Tensor, mode: IndexMode = "error"): Tensor {
  const out = gatherOp(t, axis, index, mode);
  return gradEnabled && wantsGrad(t) ? grad.gather(t, axis, index, mode, out) : out;
}

function gatherOp(t: Tensor, axis: number, index: Tensor, mode: IndexMode): Tensor {
  const op = "gather";
  checkTensor(t, "input", op);
  checkIndex(index, op);
  commonDevice(op, [t, index]);
  const m = modeCode(mode, op);
  const a = normalizeAxis(axis, t.ndim, op);
  if (index.ndim !== t.ndim) {
    throw new TensorError(op, `index ${fmtShape(index.shape)} must have as many dims as the input ${fmtShape(t.shape)}`);
  }
  for (let d = 0; d < t.ndim; d++) {
    if (d !== a && index.shape[d] > t.shape[d]) {
      throw new TensorError(op, `index ${fmtShape(index.shape)} is larger than the input ${fmtShape(t.shape)} in dim ${d} (axis is ${a})`);
    }
  }
  return runGather(t, a, index, index.strides, index.shape, m, op);
}

export function indexSelect(t: Tensor, axis: number, index: Tensor, mode: IndexMode = "error"): Tensor {
  const out = indexSelectOp(t, axis, index, mode);
  return gradEnabled && wantsGrad(t) ? grad.indexSelect(t, axis, index, mode, out) : out;
}

function indexSelectOp(t: Tensor, axis: number, index: Tensor, mode: IndexMode): Tensor {
  const op = "indexSelect";
  checkTensor(t, "input", op);
  checkIndex(index, op);
  commonDevice(op, [t, index]);
  const m = modeCode(mode, op);
  const a = normalizeAxis(axis, t.ndim, op);
  if (index.ndim > 1) throw new TensorError(op, `index must be 1-D, got shape ${fmtShape(index.shape)}`);
  const len = index.ndim === 0 ? 1 : index.shape[0];
  if (t.ndim === 0) {
    const shape = index.ndim === 0 ? [] : [len];
    return runGather(t, 0, index, index.ndim === 0 ? [0] : [index.strides[0]], shape, m, op);
  }
  const shape = t.shape.map((d, i) => (i === a ? len : d));
  const idxStrides = t.shape.map((_, i) => (i === a && index.ndim === 1 ? index.strides[0] : 0));
  if (len > 0 && numel(shape) === 0) return emptyChecked(t, a, index, idxStrides, shape, m, op);
  return runGather(t, a, index, idxStrides, shape, m, op);
}

export function scatter(
  t: Tensor,
  axis: number,
  index: Tensor,
  src: TensorLike,
  reduce: "add" | "max" | "min" | undefined,
  mode: IndexMode = "error",
  name?: string,
): Tensor {
  const op = name ?? (reduce ? `scatter(${reduce})` : "scatter");
  const out = scatterOp(t, axis, index, src, reduce, mode, op);
  return gradEnabled && (wantsGrad(t) || wantsGrad(src)) ? grad.scatter(t, axis, index, src, reduce, mode, op, out) : out;
}

function scatterOp(
  t: Tensor,
  axis: number,
  index: Tensor,
  src: TensorLike,
  reduce: "add" | "max" | "min" | undefined,
  mode: IndexMode,
  op: string,
): Tensor {
  checkTensor(t, "input", op);
  checkIndex(index, op);
  const m = modeCode(mode, op);
  const r = reduce === undefined ? 0 : REDUCE[reduce];
  if (r === undefined) throw new TensorError(op, `reduce must be "add", "max", "min" or undefined, got ${JSON.stringify(reduce)}`);
  const a = normalizeAxis(axis, t.ndim, op);
  if (index.ndim !== t.ndim) {
    throw new TensorError(op, `index ${fmtShape(index.shape)} must have as many dims as the input ${fmtShape(t.shape)}`);
  }
  for (let d = 0; d < t.ndim; d++) {
    if (d !== a && index.shape[d] > t.shape[d]) {
      throw new TensorError(op, `index ${fmtShape(index.shape)} is larger than the input ${fmtShape(t.shape)} in dim ${d} (axis is ${a})`);
    }
  }
  if (src instanceof Tensor) {
    commonDevice(op, [t, index, src]);
    if (src.ndim !== index.ndim || index.shape.some((d, i) => d > src.shape[i])) {
      throw new TensorError(
        op,
        `index ${fmtShape(index.shape)} must not be larger than src ${fmtShape(src.shape)} in any dim (and both need ${t.ndim} dims)`,
      );
    }
  } else commonDevice(op, [t, index]);
  using scalar = src instanceof Tensor ? undefined : scalarTensor(t.device, src, t.dtype, op);
  const s = src instanceof Tensor ? src : scalar!;
  const srcStrides = src instanceof Tensor ? src.strides : index.shape.map(() => 0);
  return filling(copyOf(t, op), (out) => {
    if (index.numel === 0) return;
    runTemplate(
      t.device,
      "scatter",
      op,
      (b) =>
        b.fill("scatter", { shape: index.shape, axis: a, size: axisSize(t, a), mode: m, reduce: r, out, idx: index, src: [s, srcStrides] }),
    );
    if (m === MODES.error) settle(t.device, op);
  });
}

// ----- indexPut / indexGet

interface IndexPlan {
  k: number;
  bshape: number[];
  rest: number[];
  idxStrides: (readonly number[])[];
}

function planIndices(t: Tensor, indices: readonly Tensor[], op: string): IndexPlan {
  if (!Array.isArray(indices)) throw new TensorError(op, "indices must be an array of index tensors");
  const k = indices.length;
  if (k === 0) throw new TensorError(op, "needs at least one index tensor");
  if (k > t.ndim) throw new TensorError(op, `${k} index tensors are too many for a tensor of shape ${fmtShape(t.shape)}`);
  indices.forEach((x, i) => checkIndex(x, op, `indices[${i}]`));
  commonDevice(op, [t, ...indices]);
  const bshape = broadcastShapes(op, ...indices.map((x) => x.shape));
  if (bshape.length > MAX_RANK) throw new TensorError(op, `indices broadcast to rank ${bshape.length}, above ${MAX_RANK}`);
  const rest = t.shape.slice(k);
  return { k, bshape, rest, idxStrides: indices.map((x) => broadcastStrides(x.shape, x.strides, bshape)) };
}

/** What the index kernels index: a tensor, or a stand-in for one (checkedAlone). */
interface Indexed extends ViewRef {
  readonly device: Device;
  readonly shape: readonly number[];
}

/** The shared index_put / index_get block: `src` indexed, `vals` over B + rest. */
function runIndexKernel(
  kind: "index_put" | "index_get",
  op: string,
  t: Indexed,
  indices: readonly Tensor[],
  p: IndexPlan,
  vals: Tensor,
  valStrides: readonly number[],
  mode: number,
  accumulate: boolean,
): void {
  const br = p.bshape.length;
  runTemplate(t.device, kind, op, (b) =>
    b.fill("index", {
      k: p.k,
      bshape: p.bshape,
      rshape: p.rest,
      mode,
      accumulate: accumulate ? 1 : 0,
      dims: t.shape.slice(0, p.k),
      out: [t, t.strides.slice(0, p.k)],
      out_rest: t.strides.slice(p.k),
      idx: indices.map((x, i) => [x, p.idxStrides[i]] as const),
      vals: [vals, valStrides.slice(0, br)],
      vals_rest: valStrides.slice(br),
    }));
  if (mode === MODES.error) settle(t.device, op);
}

export function indexPut(t: Tensor, indices: readonly Tensor[], values: TensorLike, accumulate = false, mode: IndexMode = "error"): Tensor {
  const out = indexPutOp(t, indices, values, accumulate, mode);
  return gradEnabled && (wantsGrad(t) || wantsGrad(values)) ? grad.indexPut(t, indices, values, accumulate, mode, out) : out;
}

function indexPutOp(t: Tensor, indices: readonly Tensor[], values: TensorLike, accumulate: boolean, mode: IndexMode): Tensor {
  const op = accumulate ? "indexPut(accumulate)" : "indexPut";
  checkTensor(t, "input", op);
  const m = modeCode(mode, op);
  const p = planIndices(t, indices, op);
  const target = [...p.bshape, ...p.rest];
  let valStrides: readonly number[];
  if (values instanceof Tensor) {
    commonDevice(op, [t, values]);
    const bs = broadcastShapes(op, values.shape, target);
    if (!sameShape(bs, target)) {
      throw new TensorError(op, `values ${fmtShape(values.shape)} cannot be broadcast to the indexed shape ${fmtShape(target)}`);
    }
    valStrides = broadcastStrides(values.shape, values.strides, target);
  } else valStrides = target.map(() => 0);
  using scalar = values instanceof Tensor ? undefined : scalarTensor(t.device, values, t.dtype, op);
  const vals = values instanceof Tensor ? values : scalar!;
  return filling(copyOf(t, op), (out) => {
    if (target.some((d, i) => d === 0 && i < p.bshape.length)) return;
    if (numel(p.rest) === 0) checkedAlone(t, indices, p, m, op);
    else runIndexKernel("index_put", op, out, indices, p, vals, valStrides, m, accumulate);
  });
}

/**
 * The indices of an index or indexPut whose rest dims are empty: there is nothing to read or
 * write, yet as in PyTorch every index must be in range, and a device launches no work for
 * an empty result. An index_get of one element per index position, from a one-element
 * stand-in for t (zero strides, t's indexed sizes), checks them on the device.
 */
function checkedAlone(t: Tensor, indices: readonly Tensor[], p: IndexPlan, mode: number, op: string): void {
  using one = allocTensor(t.device, t.dtype, [1], op);
  using out = allocTensor(t.device, t.dtype, p.bshape, op);
  const shape = t.shape.slice(0, p.k);
  const stand: Indexed = { device: t.device, shape, buf: one.buf, dtype: t.dtype, offset: 0, strides: shape.map(() => 0) };
  runIndexKernel("index_get", op, stand, indices, { ...p, rest: [] }, out, contiguousStrides(p.bshape), mode, false);
}

export function indexGet(t: Tensor, indices: readonly Tensor[], mode: IndexMode = "error"): Tensor {
  const out = indexGetOp(t, indices, mode);
  return gradEnabled && wantsGrad(t) ? grad.indexGet(t, indices, mode, out) : out;
}

function indexGetOp(t: Tensor, indices: readonly Tensor[], mode: IndexMode): Tensor {
  const op = "index";
  checkTensor(t, "input", op);
  const m = modeCode(mode, op);
  const p = planIndices(t, indices, op);
  const shape = [...p.bshape, ...p.rest];
  if (shape.length > MAX_RANK) throw new TensorError(op, `result shape ${fmtShape(shape)} exceeds rank ${MAX_RANK}`);
  return filling(allocTensor(t.device, t.dtype, shape, op), (out) => {
    if (p.bshape.some((d) => d === 0)) return;
    if (numel(p.rest) === 0) checkedAlone(t, indices, p, m, op);
    else runIndexKernel("index_get", op, t, indices, p, out, contiguousStrides(shape), m, false);
  });
}

// ----- counting, maskedSelect, nonzero

/** Number of nonzero elements of t viewed with `strides` over `shape` (reduce template, op 11). */
function countNonzero(t: Tensor, shape: Shape, strides: readonly number[], op: string): number {
  if (shape.some((d) => d === 0)) return 0;
  noHostAccess(t.device, op, "reads", " (the result's size is the number of nonzero elements)");
  using out = allocTensor(t.device, "int64", [], op);
  runTemplate(
    t.device,
    "reduce",
    op,
    (b) =>
      b.fill("reduce", {
        op: 11, /* count_nonzero (blocks.h) */
        ddof: 0,
        oshape: [],
        ishape: shape,
        in: [t, []],
        in_inner: strides,
        out: [out, []],
      }),
  );
  const host = new BigInt64Array(1);
  check(native.pt_buffer_read(queueFor(t.device), out.buf, out.offset * DTYPES.int64.size, host, 8), op);
  return Number(host[0]);
}

export function maskedSelect(t: Tensor, mask: Tensor): Tensor {
  const out = maskedSelectOp(t, mask);
  return gradEnabled && wantsGrad(t) ? grad.maskedSelect(t, mask, out) : out;
}

function maskedSelectOp(t: Tensor, mask: Tensor): Tensor {
  const op = "maskedSelect";
  checkTensor(t, "input", op);
  checkTensor(mask, "mask", op);
  if (mask.dtype !== "bool") throw new TensorError(op, `mask must be bool, got ${mask.dtype} (compare it, e.g. mask.ne(0))`);
  const device = commonDevice(op, [t, mask]);
  const shape = broadcastShapes(op, t.shape, mask.shape);
  const inStrides = broadcastStrides(t.shape, t.strides, shape);
  const maskStrides = broadcastStrides(mask.shape, mask.strides, shape);
  const count = countNonzero(mask, shape, maskStrides, op);
  return filling(allocTensor(device, t.dtype, [count], op), (out) => {
    if (count === 0) return;
    runTemplate(
      device,
      "masked_select",
      op,
      (b) => b.fill("masked_select", { shape, in: [t, inStrides], mask: [mask, maskStrides], out: [out, [1]], count }),
    );
  });
}

export function nonzero(t: Tensor): Tensor {
  const op = "nonzero";
  checkTensor(t, "input", op);
  const count = countNonzero(t, t.shape, t.strides, op);
  return filling(allocTensor(t.device, "int64", [count, t.ndim], op), (out) => {
    if (count === 0 || t.ndim === 0) return;
    runTemplate(t.device, "nonzero", op, (b) => b.fill("nonzero", { shape: t.shape, in: t, out: out.buf, count }));
  });
}
