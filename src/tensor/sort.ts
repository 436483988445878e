/**
 * sort / argsort / topk over the native "sort" template (native/src/core/blocks.h): one stable sort per
 * row along `axis`, the outer dims being every other dim. NaN sorts above every number
 * (last ascending, first descending), as in PyTorch. Indices are int64.
 */
import { TensorError } from "../base/errors.ts";
import { runTemplate } from "../kernels/launch.ts";
import { fmtShape, normalizeAxis } from "../base/shape.ts";
import { allocTensor, Tensor } from "./tensor.ts";
import { clone, narrow } from "./movement.ts";
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";
import { sorted } from "../autograd/indexing.ts";

function checkInput(t: unknown, op: string): Tensor {
  if (!(t instanceof Tensor)) throw new TensorError(op, `expects a tensor, got ${t === null ? "null" : typeof t}`);
  return t;
}

const without = <T>(xs: readonly T[], a: number): T[] => xs.filter((_, i) => i !== a);

export function sort(t: Tensor, axis = -1, descending = false): { values: Tensor; indices: Tensor } {
  const out = sortOp(t, axis, descending, "sort");
  if (gradEnabled && wantsGrad(t)) sorted(t, axis, out.values, out.indices, "sort");
  return out;
}

function sortOp(t: Tensor, axis: number, descending: boolean, op: string): { values: Tensor; indices: Tensor } {
  checkInput(t, op);
  const a = normalizeAxis(axis, t.ndim, op);
  const values = allocTensor(t.device, t.dtype, t.shape, op);
  let indices: Tensor;
  try {
    indices = allocTensor(t.device, "int64", t.shape, op);
  } catch (e) {
    values.dispose();
    throw e;
  }
  try {
    if (t.numel > 0) {
      const scalar = t.ndim === 0;
      const outer = scalar ? [] : without(t.shape, a);
      const n = scalar ? 1 : t.shape[a];
      const axisStride = (x: Tensor) => (scalar ? 0 : x.strides[a]);
      const outerStrides = (x: Tensor) => (scalar ? [] : without(x.strides, a));
      const idx = indices;
      runTemplate(t.device, "sort", op, (b) =>
        b.fill("sort", {
          descending: descending ? 1 : 0,
          oshape: outer,
          n,
          in: [t, outerStrides(t)],
          in_stride: axisStride(t),
          vals: [values, outerStrides(values)],
          vals_stride: axisStride(values),
          idx: [idx, outerStrides(idx)],
          idx_stride: axisStride(idx),
        }));
    }
  } catch (e) {
    values.dispose();
    indices.dispose();
    throw e;
  }
  return { values, indices };
}

export function argsort(t: Tensor, axis = -1, descending = false): Tensor {
  const { values, indices } = sortOp(t, axis, descending, "argsort");
  values.dispose();
  return indices;
}

/** The k largest (or smallest) elements along axis, in sorted order, with their indices. */
export function topk(t: Tensor, k: number, axis = -1, largest = true): { values: Tensor; indices: Tensor } {
  const out = topkOp(t, k, axis, largest);
  if (gradEnabled && wantsGrad(t)) sorted(t, axis, out.values, out.indices, "topk");
  return out;
}

function topkOp(t: Tensor, k: number, axis: number, largest: boolean): { values: Tensor; indices: Tensor } {
  const op = "topk";
  checkInput(t, op);
  const a = normalizeAxis(axis, t.ndim, op);
  const n = t.ndim === 0 ? 1 : t.shape[a];
  if (!Number.isInteger(k) || k < 0 || k > n) {
    throw new TensorError(op, `k = ${k} is out of range for axis ${a} of size ${n} (shape ${fmtShape(t.shape)})`);
  }
  const full = sortOp(t, a, largest, op);
  if (k === n) return full;
  using values = full.values, indices = full.indices;
  using vk = narrow(values, a, 0, k), ik = narrow(indices, a, 0, k);
  const outValues = clone(vk);
  try {
    return { values: outValues, indices: clone(ik) };
  } catch (e) {
    outValues.dispose();
    throw e;
  }
}
