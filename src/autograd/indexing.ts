/**
 * Gradient rules of the indexing and sorting ops (tensor/indexing.ts and tensor/sort.ts call
 * these on their results when an input requires gradients), as PyTorch defines them (its
 * derivatives.yaml). What an op read at some indices, its backward adds back at the same
 * indices (scatter with reduce "add", indexPut with accumulate), so repeated indices
 * accumulate. The backward passes the forward's mode, so "clamp" and "wrap" reach the same
 * positions; after mode "error" the indices are known to be in range, where "wrap" normalizes
 * them the same way without waiting for the device to check them again. Index tensors and
 * masks are saved; integer results (indices, argsort, nonzero) have no rule.
 */
import { type IndexMode, type Scalar, Tensor, type TensorLike } from "../tensor/tensor.ts";
import { full, zeros } from "../tensor/creation.ts";
import { cat } from "../tensor/movement.ts";
import { broadcastShapes, normalizeAxis } from "../base/shape.ts";
import { record } from "./graph.ts";
import { unbroadcast } from "./elementwise.ts";

/** The mode of the backward's scatter, gather and index ops (see the header). */
const again = (mode: IndexMode): IndexMode => (mode === "error" ? "wrap" : mode);

/** Zeros of `shape` with g's dtype and device. */
const zerosAs = (shape: readonly number[], g: Tensor): Tensor => zeros(shape as number[], { device: g.device, dtype: g.dtype });

const needs = (x: unknown): boolean => x instanceof Tensor && x.requiresGrad;

/** g (index's shape) padded with zeros to `shape` (src may be larger than index in any dim). */
function padTo(g: Tensor, shape: readonly number[]): Tensor {
  let p = g;
  for (let d = 0; d < shape.length; d++) {
    if (p.shape[d] < shape[d]) p = cat([p, zerosAs(p.shape.map((n, i) => (i === d ? shape[d] - n : n)), g)], d);
  }
  return p;
}

/** The leading block of x of `shape` (the part of src that index covers). */
function cropTo(x: Tensor, shape: readonly number[]): Tensor {
  let c = x;
  for (let d = 0; d < shape.length; d++) if (c.shape[d] > shape[d]) c = c.narrow(d, 0, shape[d]);
  return c;
}

/** gather: d/dt = zeros.scatterAdd(axis, index, g). */
export function gather(t: Tensor, axis: number, index: Tensor, mode: IndexMode, out: Tensor): Tensor {
  const shape = t.shape, m = again(mode);
  return record(out, "gather", [t], [index], (g, [i]) => [zerosAs(shape, g).scatter(axis, i, g, { reduce: "add", mode: m })]);
}

/** indexSelect: d/dt = zeros.scatterAdd(axis, index along axis, g); a 0-d t gets the sum. */
export function indexSelect(t: Tensor, axis: number, index: Tensor, mode: IndexMode, out: Tensor): Tensor {
  const shape = t.shape, m = again(mode);
  return record(out, "indexSelect", [t], [index], (g, [i]) => {
    if (shape.length === 0) return [g.sum()]; // every index picks the one element
    const a = normalizeAxis(axis, shape.length, "indexSelect");
    const along = i.reshape(shape.map((_, d) => (d === a ? i.numel : 1))).expand(g.shape);
    return [zerosAs(shape, g).scatter(a, along, g, { reduce: "add", mode: m })];
  });
}

/**
 * scatter and scatterAdd. No reduce: d/dt = g with the written positions zeroed, d/dsrc =
 * g.gather(axis, index) (as PyTorch: with repeated indices every duplicate gets the
 * position's gradient, though only the last write reaches the result). "add": d/dt = g, d/dsrc
 * the same gather. "max"/"min" (amax/amin with self included): the gradient of each result
 * position is split evenly among the values equal to it, self's own among them. Where src is
 * larger than index, the elements it did not write get zeros.
 */
export function scatter(
  t: Tensor,
  axis: number,
  index: Tensor,
  src: TensorLike,
  reduce: "add" | "max" | "min" | undefined,
  mode: IndexMode,
  op: string,
  out: Tensor,
): Tensor {
  const m = again(mode), wantT = needs(t), wantSrc = needs(src), srcShape = src instanceof Tensor ? src.shape : [];
  if (reduce === "max" || reduce === "min") {
    const saved = src instanceof Tensor ? [index, t, out, src] : [index, t, out];
    return record(out, op, [t, src], saved, (g, [i, self, y, s]) => {
      const v = y.gather(axis, i, m); // the result at each written position
      const given = s === undefined ? full([], src as Scalar, { device: y.device, dtype: y.dtype }) : cropTo(s, i.shape).to(y.dtype);
      const selfWins = self.eq(y), srcWins = given.eq(v);
      const count = selfWins.to(g.dtype).scatter(axis, i, srcWins.to(g.dtype), { reduce: "add", mode: m });
      const share = g.div(count);
      return [
        wantT ? share.where(selfWins, 0) : null,
        wantSrc ? padTo(share.gather(axis, i, m).where(srcWins, 0), srcShape) : null,
      ];
    });
  }
  return record(out, op, [t, src], [index], (g, [i]) => [
    wantT ? (reduce === "add" ? g : g.scatter(axis, i, 0, { mode: m })) : null,
    wantSrc ? padTo(g.gather(axis, i, m), srcShape) : null,
  ]);
}

/**
 * indexPut: d/dt = g, with the written positions zeroed unless accumulate; d/dvalues =
 * g.index(indices) summed back to values' shape (as PyTorch, with repeated indices and no
 * accumulate each duplicate gets the position's gradient).
 */
export function indexPut(
  t: Tensor,
  indices: readonly Tensor[],
  values: TensorLike,
  accumulate: boolean,
  mode: IndexMode,
  out: Tensor,
): Tensor {
  const m = again(mode), wantT = needs(t), wantV = needs(values), vShape = values instanceof Tensor ? values.shape : [];
  const op = accumulate ? "indexPut(accumulate)" : "indexPut";
  return record(out, op, [t, values], [...indices], (g, is) => [
    wantT ? (accumulate ? g : g.indexPut(is, 0, { mode: m })) : null,
    wantV ? unbroadcast(g.index(is, m), vShape) : null,
  ]);
}

/** index (advanced indexing): d/dt = zeros.indexPut(indices, g, { accumulate: true }). */
export function indexGet(t: Tensor, indices: readonly Tensor[], mode: IndexMode, out: Tensor): Tensor {
  const shape = t.shape, m = again(mode);
  return record(out, "index", [t], [...indices], (g, is) => [zerosAs(shape, g).indexPut(is, g, { accumulate: true, mode: m })]);
}

/** maskedSelect: g back at the mask's true positions (row-major, as selected) of t and mask broadcast, summed to t's shape. */
export function maskedSelect(t: Tensor, mask: Tensor, out: Tensor): Tensor {
  const shape = t.shape, both = broadcastShapes("maskedSelect", t.shape, mask.shape);
  const n = both.reduce((a, b) => a * b, 1);
  return record(out, "maskedSelect", [t], [mask], (g, [mk]) => {
    const at = mk.expand(both).reshape([n]).nonzero().reshape([g.numel]);
    return [unbroadcast(zerosAs([n], g).indexPut([at], g).reshape(both), shape)];
  });
}

/** sort's and topk's values: g back at the positions they came from. */
export function sorted(t: Tensor, axis: number, values: Tensor, indices: Tensor, op: string): void {
  const shape = t.shape;
  record(values, op, [t], [indices], (g, [i]) => [zerosAs(shape, g).scatter(axis, i, g, { mode: "wrap" })]);
}
