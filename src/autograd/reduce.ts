/**
 * Gradient rules of the reductions and scans (tensor/reduce.ts calls these on its results
 * when the input requires gradients), as PyTorch defines them (derivatives.yaml). A
 * reduction's gradient is the output's gradient with the reduced dims put back (size 1) and
 * expanded to the input's shape, scaled as the op needs. Rules run with recording off and
 * branch on no data: where PyTorch picks a formula by the values (prod and cumprod with
 * zeros), both are computed and selected elementwise.
 */
import type { ReduceOp } from "../tensor/reduce.ts";
import type { Tensor } from "../tensor/tensor.ts";
import { full } from "../tensor/creation.ts";
import { normalizeAxes, normalizeAxis } from "../base/shape.ts";
import { record } from "./graph.ts";

/** The reduced axes, as reduce() normalizes them (none for a 0-d input). */
function axesOf(t: Tensor, axis: number | readonly number[] | undefined, op: string): number[] {
  return t.ndim === 0 ? [] : normalizeAxes(axis, t.ndim, op);
}

/** g (the output's gradient) with the reduced axes back as size-1 dims, expanded to `shape`. */
export function expandBack(g: Tensor, shape: readonly number[], axes: readonly number[], keepdim: boolean): Tensor {
  return keptDims(g, shape, axes, keepdim).expand(shape as number[]);
}

/** g with the reduced axes back as size-1 dims (the keepdim shape). */
function keptDims(g: Tensor, shape: readonly number[], axes: readonly number[], keepdim: boolean): Tensor {
  return keepdim ? g : g.reshape(shape.map((d, i) => (axes.includes(i) ? 1 : d)));
}

export function reduce(
  op: ReduceOp,
  t: Tensor,
  axis: number | readonly number[] | undefined,
  keepdim: boolean,
  correction: number,
  out: Tensor,
): Tensor {
  const axes = axesOf(t, axis, op), shape = t.shape;
  const count = axes.reduce((n, a) => n * shape[a], 1), all = axis === undefined || t.ndim === 0;
  const back = (g: Tensor) => expandBack(g, shape, axes, keepdim);
  switch (op) {
    case "sum":
      return record(out, op, [t], [], (g) => [back(g)]);
    case "mean":
      return record(out, op, [t], [], (g) => [back(g).div(count)]);
    case "prod": // each element's gradient is the product of the others (prod_backward)
      return record(out, op, [t], [t], (g, [x]) => [axes.length === 0 ? back(g) : back(g).mul(othersProduct(x, axes))]);
    case "max":
    case "min": // amax/amin: the gradient is shared evenly among the elements equal to the result
      return record(out, op, [t], [t, out], (g, [x, y]) => {
        const hit = x.eq(keptDims(y, shape, axes, keepdim));
        return [back(g.div(hit.sum(axes, keepdim))).mul(hit)];
      });
    case "var":
      return record(out, op, [t], [t], (g, [x]) => [varBackward(back(g), x, axes, count - correction, all)]);
    case "std": // d std = d var / (2 std), 0 where std is 0
      return record(out, op, [t], [t, out], (g, [x, y]) => {
        const gv = g.div(y.mul(2)).maskedFill(y.eq(0), 0);
        return [varBackward(back(gv), x, axes, count - correction, all)];
      });
    default: // argmax, argmin, any, all, countNonzero give integer or bool results
      return out;
  }
}

/**
 * The product of the other elements of each element's reduction: prod / x where the
 * reduction has no zero, the product of the nonzero elements at its one zero (0 elsewhere),
 * 0 throughout where it has two or more zeros.
 */
function othersProduct(x: Tensor, axes: readonly number[]): Tensor {
  const zero = x.eq(0), safe = x.maskedFill(zero, 1);
  const p = safe.prod(axes, true), zeros = zero.sum(axes, true);
  const none = p.div(safe).where(zeros.eq(0), 0);
  return none.add(p.where(zero.logicalAnd(zeros.eq(1)), 0));
}

/**
 * var_backward: g * 2 (x - mean) / (n - correction). With n - correction <= 0 over the whole
 * tensor PyTorch gives NaN where x is the mean and infinity elsewhere (times g).
 */
function varBackward(g: Tensor, x: Tensor, axes: readonly number[], dof: number, all: boolean): Tensor {
  const centered = x.sub(x.mean(axes, true));
  if (all && dof <= 0) return g.mul(full([], Infinity, { device: x.device, dtype: x.dtype }).where(centered.ne(0), NaN));
  return g.mul(centered).mul(2 / dof);
}

export function scan(op: "cumsum" | "cumprod", t: Tensor, axis: number, out: Tensor): Tensor {
  if (t.ndim === 0) return record(out, op, [t], [], (g) => [g]); // one element: its own sum and product
  const a = normalizeAxis(axis, t.ndim, op);
  const rev = (g: Tensor) => g.flip(a).cumsum(a).flip(a); // sum over i >= k along a
  if (op === "cumsum") return record(out, op, [t], [], (g) => [rev(g)]);
  // cumprod_backward. Before the first zero of a row: sum_{i>=k} g_i y_i / x_k. At the first
  // zero z: sum_{i>=z} g_i prod_{j<=i, j!=z} x_j, the cumprod of x with x_z set to 1. After it: 0.
  return record(out, op, [t], [t, out], (g, [x, y]) => {
    const zero = x.eq(0), seen = zero.cumsum(a), before = seen.eq(0), first = zero.logicalAnd(seen.eq(1));
    const early = rev(g.mul(y)).div(x.maskedFill(zero, 1)).where(before, 0);
    const atZero = rev(g.mul(x.maskedFill(first, 1).cumprod(a))).where(first, 0);
    return [early.add(atZero)];
  });
}
