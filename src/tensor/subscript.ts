/**
 * Python-style subscripts in a JavaScript form: `t.at(0, pt.slice(1, 3), pt.ellipsis, pt.newAxis, idx)` is PyTorch's
 * `t[0, 1:3, ..., None, idx]`, and `t.setAt([...], value)` its `t[...] = value`.
 *
 * Integers, slices, the ellipsis and new axes apply first, one dim at a time, and give a view (as PyTorch's basic
 * indexing does). Integer tensors, JS number arrays and bool masks are advanced indices: they broadcast together, and
 * the dims they index are gathered by indexGet into a copy; their broadcast dims stand where the first of them stood
 * when they are adjacent, else first (PyTorch's rule, with integers already applied, so `t[0, :, idx]` keeps idx's dim
 * last as in PyTorch, not first as in NumPy). A bool mask of k dims stands for the k int64 index tensors of its nonzero
 * positions, which reads the number of true elements back to the host.
 */
import { TensorError } from "../base/errors.ts";
import { broadcastShapes, describeValue, fmtShape } from "../base/shape.ts";
import { isInt } from "../base/dtype.ts";
import { Tensor, type TensorLike } from "./tensor.ts";
import * as mv from "./movement.ts";
import { indexGet, indexPut, nonzero } from "./indexing.ts";
import { movedim } from "./structure.ts";
import { broadcastTo, inPlace } from "./inplace.ts";
import { full, tensor } from "./creation.ts";
import { tidy } from "./tidy.ts";

/** A Python slice `start:end:step`; null or undefined bounds are open, as in Python. Made by `pt.slice`. */
export class Slice {
  /** The slice's bounds (null: open) and step, as `pt.slice` takes them. */
  constructor(readonly start: number | null = null, readonly end: number | null = null, readonly step: number = 1) {}
  /** Python's spelling, `slice(1:3)`, for messages. */
  toString(): string {
    return `slice(${this.start ?? ""}:${this.end ?? ""}${this.step === 1 ? "" : `:${this.step}`})`;
  }
}

/**
 * The slice `start:end:step` for `t.at` and `t.setAt`: `pt.slice(1, 3)` is Python's `1:3`, `pt.slice()` is `:`,
 * `pt.slice(null, null, 2)` is `::2`. Negative bounds count from the end; bounds are clamped as Python's are.
 */
export function slice(start: number | null = null, end: number | null = null, step = 1): Slice {
  return new Slice(start, end, step);
}

/** Python's `...` for `t.at` and `t.setAt`: as many full slices as the other indices leave dims. */
export const ellipsis = "...";
/** Python's `None` for `t.at` and `t.setAt`: a new dim of size 1 at that place. */
export const newAxis = null;

/** One subscript of `t.at` / `t.setAt`. */
export type Index = number | Slice | typeof ellipsis | null | Tensor | readonly number[] | readonly boolean[];

/** An advanced index applied to dim `dim` of the basic view. */
interface Advanced {
  dim: number;
  index: Tensor;
}

/** What the subscripts make of t: the basic view and the advanced indices over its dims. */
interface Plan {
  view: Tensor;
  advanced: Advanced[];
}

/** How many of t's dims the subscript takes (null none, an ellipsis is counted later). */
function consumes(op: string, ix: Index, pos: number): number {
  if (ix === null || ix === ellipsis) return 0;
  if (typeof ix === "number" || ix instanceof Slice) return 1;
  if (ix instanceof Tensor) return ix.dtype === "bool" ? ix.ndim : 1;
  if (Array.isArray(ix)) return 1;
  throw new TensorError(
    op,
    `index ${pos} must be an integer, pt.slice(...), pt.ellipsis, pt.newAxis (null), a tensor or an array of integers or bools, got ${
      describeValue(ix)
    }`,
  );
}

function intArg(op: string, what: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v)) throw new TensorError(op, `${what} must be an integer, got ${describeValue(v)}`);
  return v;
}

/** An array subscript as a tensor on t's device: int64 of numbers, bool of booleans. */
function arrayIndex(op: string, t: Tensor, ix: readonly unknown[], pos: number): Tensor {
  if (ix.length > 0 && ix.every((v) => typeof v === "boolean")) return tensor(ix as boolean[], { dtype: "bool", device: t.device });
  ix.forEach((v, i) => intArg(op, `index ${pos}[${i}]`, v));
  return tensor(ix as number[], { dtype: "int64", device: t.device });
}

/** Applies the basic subscripts to t (inside a tidy: the intermediate views are freed) and collects the advanced ones. */
function plan(op: string, t: Tensor, idx: readonly Index[]): Plan {
  if (!(t instanceof Tensor)) throw new TensorError(op, `expects a Tensor, got ${describeValue(t)}`);
  if (!Array.isArray(idx)) throw new TensorError(op, `expects a list of indices, got ${describeValue(idx)}`);
  const ellipses = idx.filter((ix) => ix === ellipsis).length;
  if (ellipses > 1) throw new TensorError(op, `takes at most one pt.ellipsis, got ${ellipses}`);
  const taken = idx.reduce<number>((n, ix, i) => n + consumes(op, ix, i), 0);
  if (taken > t.ndim) throw new TensorError(op, `${taken} indices for a tensor of ${t.ndim} dims (shape ${fmtShape(t.shape)})`);
  const full: Index[] = [];
  for (const ix of idx) {
    if (ix === ellipsis) { for (let i = 0; i < t.ndim - taken; i++) full.push(new Slice()); }
    else full.push(ix);
  }
  let view = t, d = 0;
  const advanced: Advanced[] = [];
  full.forEach((ix, pos) => {
    if (ix === null) view = mv.unsqueeze(view, d++);
    else if (typeof ix === "number") {
      const size = view.shape[d];
      intArg(op, `index ${pos}`, ix);
      if (ix < -size || ix >= size) throw new TensorError(op, `index ${ix} is out of range for dim ${d} of size ${size}`);
      const i = ix < 0 ? ix + size : ix;
      view = mv.squeeze(mv.slice(view, d, i, i + 1, 1), d);
    } else if (ix instanceof Slice) {
      const start = ix.start ?? 0, end = ix.end ?? undefined, step = intArg(op, `the step of index ${pos}`, ix.step);
      intArg(op, `the start of index ${pos}`, start);
      if (end !== undefined) intArg(op, `the end of index ${pos}`, end);
      if (step < 1) throw new TensorError(op, `the step of index ${pos} must be positive (as in PyTorch), got ${step}`);
      view = mv.slice(view, d++, start, end, step);
    } else {
      const index = ix instanceof Tensor ? ix : arrayIndex(op, t, ix as readonly unknown[], pos);
      if (index.device !== t.device) {
        throw new TensorError(op, `index ${pos} is on ${index.device.id}, the tensor on ${t.device.id}`);
      }
      if (index.dtype === "bool") {
        const k = index.ndim, dims = view.shape.slice(d, d + k);
        if (k === 0) throw new TensorError(op, `index ${pos} is a 0-d bool tensor, which is not supported; index with a 1-D mask`);
        if (dims.length !== k || dims.some((s, i) => s !== index.shape[i])) {
          throw new TensorError(op, `the mask of index ${pos} has shape ${fmtShape(index.shape)}, the dims it indexes ${fmtShape(dims)}`);
        }
        const nz = nonzero(index);
        for (let j = 0; j < k; j++) advanced.push({ dim: d + j, index: mv.squeeze(mv.slice(nz, 1, j, j + 1, 1), 1) });
        d += k;
      } else {
        if (!isInt(index.dtype)) throw new TensorError(op, `index ${pos} must be an integer or bool tensor, got ${index.dtype}`);
        advanced.push({ dim: d++, index: index.dtype === "int32" || index.dtype === "int64" ? index : index.cast("int64") });
      }
    }
  });
  return { view, advanced };
}

/** fn's TensorErrors under the name the user called (the index kernels name themselves "index" and "indexPut"). */
function asOp<T>(op: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof TensorError) || e.op === op) throw e;
    throw new TensorError(op, e.message.startsWith(`${e.op}: `) ? e.message.slice(e.op.length + 2) : e.message, e.status);
  }
}

/** The advanced dims first, then the rest, in order. */
const frontOrder = (
  ndim: number,
  dims: readonly number[],
): number[] => [...dims, ...[...Array(ndim).keys()].filter((i) => !dims.includes(i))];

/** Where the broadcast dims of the advanced indices stand in the result: at the first when they are adjacent, else 0. */
function batchAt(dims: readonly number[]): number {
  return dims.every((d, i) => i === 0 || d === dims[i - 1] + 1) ? dims[0] : 0;
}

/**
 * t indexed by subscripts, as PyTorch's `t[...]` (see this file's header): a view when every subscript is an integer, a
 * slice, the ellipsis or a new axis, else a copy. Differentiable.
 */
export function at(t: Tensor, idx: readonly Index[]): Tensor {
  const op = "at";
  return tidy(() => {
    const { view, advanced } = plan(op, t, idx);
    if (advanced.length === 0) return view === t ? mv.view(t, t.shape) : view;
    const dims = advanced.map((a) => a.dim),
      got = asOp(op, () => indexGet(mv.permute(view, frontOrder(view.ndim, dims)), advanced.map((a) => a.index)));
    const nb = got.ndim - (view.ndim - dims.length), to = batchAt(dims);
    if (to === 0 || nb === 0) return got;
    const batch = [...Array(nb).keys()];
    return movedim(got, batch, batch.map((i) => i + to));
  });
}

/**
 * Writes value into the elements `t.at(...idx)` names, as PyTorch's `t[...] = value`; returns t. value (a JS scalar or
 * a tensor that broadcasts to the indexed shape) is cast to t's dtype as copy_ casts. With advanced indices the
 * indexed dims are rewritten whole (an indexPut into a copy, then copied back). Where an advanced index repeats an
 * element, which write wins is unspecified, as in PyTorch.
 */
export function setAt<T extends Tensor>(t: T, idx: readonly Index[], value: TensorLike): T {
  const op = "setAt";
  if (t instanceof Tensor) t.materialize(); // views of a pending result do not share its memory until it runs
  tidy(() => {
    const { view, advanced } = plan(op, t, idx);
    if (advanced.length === 0) {
      inPlace(
        view,
        op,
        () => value instanceof Tensor ? broadcastTo(value, view.shape, op) : full(view.shape, value, { device: t.device, dtype: t.dtype }),
        value,
      );
      return;
    }
    const dims = advanced.map((a) => a.dim), front = mv.permute(view, frontOrder(view.ndim, dims));
    let vals: TensorLike = value;
    if (value instanceof Tensor) {
      // value broadcasts to the shape at() gives; indexPut wants the broadcast dims first.
      const batch = broadcastShapes(op, ...advanced.map((a) => a.index.shape));
      const rest = frontOrder(view.ndim, dims).slice(dims.length).map((d) => view.shape[d]), to = batchAt(dims);
      const shown = [...rest.slice(0, to), ...batch, ...rest.slice(to)];
      vals = broadcastTo(value, shown, op);
      if (to !== 0 && batch.length > 0) vals = movedim(vals, batch.map((_, i) => i + to), batch.map((_, i) => i));
    }
    inPlace(front, op, () => asOp(op, () => indexPut(front, advanced.map((a) => a.index), vals)), value);
  });
  return t;
}
