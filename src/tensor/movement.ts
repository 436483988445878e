/**
 * Movement ops. view/permute/transpose/expand/squeeze/unsqueeze/slice/narrow return views
 * that share the buffer (each holds its own reference); reshape, flatten and contiguous do
 * so when the strides allow and copy otherwise; clone, flip, cat and stack always copy, with
 * the elementwise copy kernel. Each exported op records its gradient rule (autograd/movement.ts)
 * when an input requires gradients; the *Op functions are the ops themselves, which record
 * nothing: what the ops use inside (contiguousOp and cloneOp also for other modules' reads
 * and copies, which must not record).
 */
import { TensorError } from "../base/errors.ts";
import { allocTensor, deferredTensor, type Tensor, viewOf } from "./tensor.ts";
import {
  checkShape,
  contiguousStrides,
  fmtShape,
  MAX_RANK,
  normalizeAxes,
  normalizeAxis,
  numel,
  sameShape,
  type Shape,
} from "../base/shape.ts";
import { commonDevice, copyInto } from "./elementwise.ts";
import { promoteTypes } from "../base/dtype.ts";
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";
import * as grad from "../autograd/movement.ts";

export function axisOf(t: Tensor, axis: number, op: string): number {
  return normalizeAxis(axis, t.ndim, op);
}

function inferShape(t: Tensor, shape: readonly number[], op: string): number[] {
  const out = [...shape];
  const neg = out.findIndex((d) => d === -1);
  if (neg >= 0) {
    if (out.indexOf(-1, neg + 1) >= 0) throw new TensorError(op, `only one size may be -1 in ${fmtShape(shape)}`);
    out[neg] = 1;
    const known = numel(checkShape(out, op));
    if (known === 0 || t.numel % known !== 0) throw new TensorError(op, `cannot infer -1 in ${fmtShape(shape)} for ${t.numel} elements`);
    out[neg] = t.numel / known;
  }
  checkShape(out, op);
  if (numel(out) !== t.numel) {
    throw new TensorError(op, `shape ${fmtShape(shape)} is invalid for a tensor of shape ${fmtShape(t.shape)} (${t.numel} elements)`);
  }
  return out;
}

/** Strides that view t's elements as `shape` without a copy, or undefined (PyTorch's computeStride). */
function viewStrides(t: Tensor, shape: readonly number[]): number[] | undefined {
  if (t.numel === 0 || t.isContiguous) return contiguousStrides(shape);
  const old = t.shape, os = t.strides, ns = new Array<number>(shape.length);
  let viewD = shape.length - 1, chunk = os[old.length - 1] ?? 1, tensorNumel = 1, viewNumel = 1;
  for (let d = old.length - 1; d >= 0; d--) {
    tensorNumel *= old[d];
    if (d === 0 || (old[d - 1] !== 1 && os[d - 1] !== tensorNumel * chunk)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || shape[viewD] === 1)) {
        ns[viewD] = viewNumel * chunk;
        viewNumel *= shape[viewD];
        viewD--;
      }
      if (viewNumel !== tensorNumel) return undefined;
      if (d > 0) {
        chunk = os[d - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  return viewD === -1 ? ns : undefined;
}

/** A deferred tensor seen with its own shape: another handle on the same node (an alias). */
function alias(t: Tensor, shape: readonly number[]): Tensor | undefined {
  const n = t.deferred;
  return n !== null && sameShape(shape, t.shape) ? deferredTensor(n) : undefined;
}

/** The target shape of view or reshape: t's own (sealed) shape when unchanged, which needs no checks. */
function targetShape(t: Tensor, shape: readonly number[], op: string): readonly number[] {
  return sameShape(shape, t.shape) ? t.shape : inferShape(t, shape, op);
}

function viewOp(t: Tensor, shape: readonly number[]): Tensor {
  const s = targetShape(t, shape, "view");
  const same = alias(t, s);
  if (same) return same;
  const strides = viewStrides(t, s);
  if (!strides) {
    throw new TensorError(
      "view",
      `a ${fmtShape(t.shape)} tensor with strides ${fmtShape(t.strides)} cannot be viewed as ${fmtShape(s)}; use reshape()`,
    );
  }
  return viewOf(t, s, strides, t.offset, "view");
}

function reshapeOp(t: Tensor, shape: readonly number[]): Tensor {
  const s = targetShape(t, shape, "reshape");
  const same = alias(t, s);
  if (same) return same;
  const strides = viewStrides(t, s);
  if (strides) return viewOf(t, s, strides, t.offset, "reshape");
  using c = contiguousOp(t);
  return viewOf(c, s, contiguousStrides(s), c.offset, "reshape");
}

function permuteOp(t: Tensor, axes: readonly number[]): Tensor {
  if (axes.length !== t.ndim) throw new TensorError("permute", `got ${axes.length} axes for a tensor of rank ${t.ndim}`);
  const p = axes.map((a) => normalizeAxis(a, t.ndim, "permute"));
  if (new Set(p).size !== p.length) throw new TensorError("permute", `axes [${axes.join(", ")}] repeat an axis`);
  const map = { from: p, step: p.map(() => 1), start: [] };
  return viewOf(t, p.map((a) => t.shape[a]), p.map((a) => t.strides[a]), t.offset, "permute", map);
}

function transposeOp(t: Tensor, a: number, b: number): Tensor {
  if (t.ndim < 2 && a === -2 && b === -1) return viewOf(t, t.shape, t.strides, t.offset, "transpose");
  const p = [...Array(t.ndim).keys()];
  const x = normalizeAxis(a, t.ndim, "transpose"), y = normalizeAxis(b, t.ndim, "transpose");
  [p[x], p[y]] = [p[y], p[x]];
  return permuteOp(t, p);
}

function expandOp(t: Tensor, shape: readonly number[]): Tensor {
  if (shape.length < t.ndim) throw new TensorError("expand", `cannot expand ${fmtShape(t.shape)} to fewer dims ${fmtShape(shape)}`);
  if (shape.length > MAX_RANK) throw new TensorError("expand", `rank ${shape.length} exceeds ${MAX_RANK}`);
  const lead = shape.length - t.ndim;
  const outShape: number[] = [], strides: number[] = [], from: number[] = [];
  for (let i = 0; i < shape.length; i++) {
    const src = i - lead, want = shape[i];
    const have = src >= 0 ? t.shape[src] : 1;
    const size = want === -1 ? have : want;
    if (!Number.isInteger(size) || size < 0 || (have !== 1 && have !== size) || (src < 0 && want === -1)) {
      throw new TensorError("expand", `cannot expand ${fmtShape(t.shape)} to ${fmtShape(shape)} (dim ${i}: ${have} to ${want})`);
    }
    outShape.push(size);
    strides.push(src >= 0 && have === size ? t.strides[src] : 0);
    from.push(src >= 0 && have === size ? src : -1);
  }
  return viewOf(t, outShape, strides, t.offset, "expand", { from, step: from.map(() => 1), start: [] });
}

function squeezeOp(t: Tensor, axis?: number | readonly number[]): Tensor {
  const drop = new Set(
    axis === undefined
      ? t.shape.flatMap((d, i) => (d === 1 ? [i] : []))
      : normalizeAxes(axis, t.ndim, "squeeze").filter((a) => t.shape[a] === 1),
  );
  const keep = [...t.shape.keys()].filter((i) => !drop.has(i));
  const map = { from: keep, step: keep.map(() => 1), start: [] };
  return viewOf(t, keep.map((i) => t.shape[i]), keep.map((i) => t.strides[i]), t.offset, "squeeze", map);
}

function unsqueezeOp(t: Tensor, axis: number): Tensor {
  const a = normalizeAxis(axis, t.ndim + 1, "unsqueeze");
  if (t.ndim + 1 > MAX_RANK) throw new TensorError("unsqueeze", `rank ${t.ndim + 1} exceeds ${MAX_RANK}`);
  const shape = [...t.shape], strides = [...t.strides];
  shape.splice(a, 0, 1);
  strides.splice(a, 0, a < t.ndim ? t.strides[a] * t.shape[a] : 1);
  const from = [...t.shape.keys()];
  from.splice(a, 0, -1);
  return viewOf(t, shape, strides, t.offset, "unsqueeze", { from, step: from.map(() => 1), start: [] });
}

function flattenOp(t: Tensor, start: number, end: number): Tensor {
  if (t.ndim === 0) return reshapeOp(t, [1]);
  const s = normalizeAxis(start, t.ndim, "flatten"), e = normalizeAxis(end, t.ndim, "flatten");
  if (s > e) throw new TensorError("flatten", `start axis ${start} comes after end axis ${end}`);
  const shape = [...t.shape.slice(0, s), numel(t.shape.slice(s, e + 1)), ...t.shape.slice(e + 1)];
  return reshapeOp(t, shape);
}

function sliceOp(t: Tensor, axis: number, start: number, end: number | undefined, step: number): Tensor {
  const a = axisOf(t, axis, "slice");
  if (!Number.isInteger(step) || step <= 0) throw new TensorError("slice", `step must be a positive integer, got ${step}`);
  const n = t.shape[a];
  const clampIdx = (i: number) => Math.min(Math.max(i < 0 ? i + n : i, 0), n);
  const s = clampIdx(start), e = clampIdx(end ?? n);
  const len = e > s ? Math.ceil((e - s) / step) : 0;
  const shape = [...t.shape], strides = [...t.strides];
  shape[a] = len;
  strides[a] = t.strides[a] * step;
  const from = [...t.shape.keys()];
  const map = { from, step: from.map((i) => (i === a ? step : 1)), start: from.map((i) => (i === a ? s : 0)) };
  return viewOf(t, shape, strides, t.offset + s * t.strides[a], "slice", map);
}

function narrowOp(t: Tensor, axis: number, start: number, length: number): Tensor {
  const a = axisOf(t, axis, "narrow");
  const n = t.shape[a], s = start < 0 ? start + n : start;
  if (!Number.isInteger(length) || length < 0 || s < 0 || s + length > n) {
    throw new TensorError("narrow", `start ${start} and length ${length} exceed axis ${a} of size ${n}`);
  }
  return sliceOp(t, a, s, s + length, 1);
}

export function contiguousOp(t: Tensor): Tensor {
  const same = alias(t, t.shape);
  if (same) return same.materialize();
  if (t.isContiguous) return viewOf(t, t.shape, t.strides, t.offset, "contiguous");
  return cloneOp(t, "contiguous");
}

/** clone without its rule; `op` names the op in errors. */
export function cloneOp(t: Tensor, op = "clone"): Tensor {
  const same = alias(t, t.shape);
  if (same) return same;
  const out = allocTensor(t.device, t.dtype, t.shape, op);
  try {
    copyInto(out, t, op);
  } catch (e) {
    out.dispose();
    throw e;
  }
  return out;
}

function flipOp(t: Tensor, axes: number | readonly number[]): Tensor {
  const list = normalizeAxes(axes, t.ndim, "flip");
  const strides = [...t.strides];
  let offset = t.offset;
  const from = [...t.shape.keys()], step = from.map(() => 1), start = from.map(() => 0);
  for (const a of list) {
    if (t.shape[a] > 0) offset += (t.shape[a] - 1) * t.strides[a];
    strides[a] = -t.strides[a];
    step[a] = -1;
    start[a] = Math.max(t.shape[a] - 1, 0);
  }
  // A negative-stride view exists only for this copy; tensors never expose one.
  using reversed = viewOf(t, t.shape, strides, offset, "flip", { from, step, start });
  return cloneOp(reversed);
}

/**
 * Joins tensors along an existing axis (default 0; negative counts from the end) into a new tensor. Their shapes must agree on
 * every other axis; their dtypes promote (`promoteTypes`). As `torch.cat`.
 *
 * @example
 * using a = pt.zeros([2, 3]), b = pt.ones([1, 3]);
 * using rows = pt.cat([a, b]); // shape [3, 3]
 * @throws {TensorError} when the list is empty, a tensor is 0-d (use `stack`), the ranks or the sizes off the axis differ, the
 * axis is out of range, or the tensors are on different devices.
 */
export function cat(tensors: readonly Tensor[], axis = 0): Tensor {
  const out = catOp(tensors, axis);
  return gradEnabled && tensors.some(wantsGrad) ? grad.cat(tensors, normalizeAxis(axis, tensors[0].ndim, "cat"), out) : out;
}

function catOp(tensors: readonly Tensor[], axis: number): Tensor {
  if (tensors.length === 0) throw new TensorError("cat", "needs at least one tensor");
  const device = commonDevice("cat", tensors);
  const scalarAt = tensors.findIndex((t) => t.ndim === 0);
  if (scalarAt >= 0) {
    throw new TensorError("cat", `a 0-d tensor (at position ${scalarAt}) cannot be concatenated; unsqueeze it or use stack`);
  }
  const first = tensors[0];
  const a = normalizeAxis(axis, first.ndim, "cat");
  let dtype = first.dtype, total = 0;
  for (const t of tensors) {
    if (t.ndim !== first.ndim || t.shape.some((d, i) => i !== a && d !== first.shape[i])) {
      throw new TensorError("cat", `shapes ${tensors.map((x) => fmtShape(x.shape)).join(", ")} differ outside axis ${a}`);
    }
    dtype = promoteTypes(dtype, t.dtype);
    total += t.shape[a];
  }
  const shape: Shape = first.shape.map((d, i) => (i === a ? total : d));
  const out = allocTensor(device, dtype, shape, "cat");
  try {
    let at = 0;
    for (const t of tensors) {
      using part = narrowOp(out, a, at, t.shape[a]);
      copyInto(part, t, "cat");
      at += t.shape[a];
    }
  } catch (e) {
    out.dispose();
    throw e;
  }
  return out;
}

/**
 * Joins tensors of one shape along a new axis (default 0; negative counts from the end of the result's axes) into a new tensor;
 * their dtypes promote (`promoteTypes`). As `torch.stack`.
 *
 * @example
 * using a = pt.tensor([1, 2]), b = pt.tensor([3, 4]);
 * using rows = pt.stack([a, b]); // [[1, 2], [3, 4]]
 * using cols = pt.stack([a, b], 1); // [[1, 3], [2, 4]]
 * @throws {TensorError} when the list is empty, the shapes differ, the axis is out of range, or the tensors are on different devices.
 */
export function stack(tensors: readonly Tensor[], axis = 0): Tensor {
  const out = stackOp(tensors, axis);
  return gradEnabled && tensors.some(wantsGrad) ? grad.stack(tensors, normalizeAxis(axis, tensors[0].ndim + 1, "stack"), out) : out;
}

function stackOp(tensors: readonly Tensor[], axis: number): Tensor {
  if (tensors.length === 0) throw new TensorError("stack", "needs at least one tensor");
  const first = tensors[0];
  for (const t of tensors) {
    if (t.ndim !== first.ndim || t.shape.some((d, i) => d !== first.shape[i])) {
      throw new TensorError("stack", `all tensors need one shape, got ${tensors.map((x) => fmtShape(x.shape)).join(", ")}`);
    }
  }
  const a = normalizeAxis(axis, first.ndim + 1, "stack");
  const parts = tensors.map((t) => unsqueezeOp(t, a));
  try {
    return catOp(parts, a);
  } finally {
    for (const p of parts) p.dispose();
  }
}

// ----- the front ends: each op, and its gradient rule when an input requires gradients (as PyTorch's ViewBackward & co.)

/** Whether `t`'s result is to record its rule. */
const recording = (t: Tensor) => gradEnabled && wantsGrad(t);

export function view(t: Tensor, shape: readonly number[]): Tensor {
  const out = viewOp(t, shape);
  return recording(t) ? grad.reshaped("view", t, out) : out;
}

export function reshape(t: Tensor, shape: readonly number[]): Tensor {
  const out = reshapeOp(t, shape);
  return recording(t) ? grad.reshaped("reshape", t, out) : out;
}

export function permute(t: Tensor, axes: readonly number[]): Tensor {
  const out = permuteOp(t, axes);
  return recording(t) ? grad.permute(t, axes.map((a) => normalizeAxis(a, t.ndim, "permute")), out) : out;
}

export function transpose(t: Tensor, a: number, b: number): Tensor {
  const out = transposeOp(t, a, b);
  return recording(t) ? grad.transpose(t, a, b, out) : out;
}

export function expand(t: Tensor, shape: readonly number[]): Tensor {
  const out = expandOp(t, shape);
  return recording(t) ? grad.expand(t, out) : out;
}

export function squeeze(t: Tensor, axis?: number | readonly number[]): Tensor {
  const out = squeezeOp(t, axis);
  return recording(t) ? grad.reshaped("squeeze", t, out) : out;
}

export function unsqueeze(t: Tensor, axis: number): Tensor {
  const out = unsqueezeOp(t, axis);
  return recording(t) ? grad.reshaped("unsqueeze", t, out) : out;
}

export function flatten(t: Tensor, start: number, end: number): Tensor {
  const out = flattenOp(t, start, end);
  return recording(t) ? grad.reshaped("flatten", t, out) : out;
}

export function slice(t: Tensor, axis: number, start: number, end: number | undefined, step: number): Tensor {
  const out = sliceOp(t, axis, start, end, step);
  return recording(t) ? grad.slice(t, axis, start, end, step, out) : out;
}

export function narrow(t: Tensor, axis: number, start: number, length: number): Tensor {
  const out = narrowOp(t, axis, start, length);
  return recording(t) ? grad.narrow(t, axis, start, length, out) : out;
}

export function contiguous(t: Tensor): Tensor {
  const out = contiguousOp(t);
  return recording(t) ? grad.identity("contiguous", t, out) : out;
}

/** A copy; of a deferred tensor, an alias (tensors are immutable, so one result serves both). */
export function clone(t: Tensor): Tensor {
  const out = cloneOp(t);
  return recording(t) ? grad.identity("clone", t, out) : out;
}

export function flip(t: Tensor, axes: number | readonly number[]): Tensor {
  const out = flipOp(t, axes);
  return recording(t) ? grad.flip(t, axes, out) : out;
}
