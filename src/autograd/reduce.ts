/**
 * Gradient rules of the reductions and scans (tensor/reduce.ts calls these on its results
 * when the input requires gradients), as PyTorch defines them. A reduction's gradient is
 * the output's gradient with the reduced dims put back (size 1) and expanded to the
 * input's shape, scaled as the op needs. Rules run with recording off.
 */
import type { ReduceOp } from "../tensor/reduce.ts";
import type { Tensor } from "../tensor/tensor.ts";
import { normalizeAxes } from "../tensor/shape.ts";
import { record } from "./graph.ts";

/** The reduced axes, as reduce() normalizes them (none for a 0-d input). */
function axesOf(t: Tensor, axis: number | readonly number[] | undefined, op: string): number[] {
  return t.ndim === 0 ? [] : normalizeAxes(axis, t.ndim, op);
}

/** g (the output's gradient) with the reduced axes back as size-1 dims, expanded to `shape`. */
export function expandBack(g: Tensor, shape: readonly number[], axes: readonly number[], keepdim: boolean): Tensor {
  const kept = keepdim ? g : g.reshape(shape.map((d, i) => (axes.includes(i) ? 1 : d)));
  return kept.expand(shape as number[]);
}

export function reduce(
  op: ReduceOp,
  t: Tensor,
  axis: number | readonly number[] | undefined,
  keepdim: boolean,
  _correction: number,
  out: Tensor,
): Tensor {
  const axes = axesOf(t, axis, op), shape = t.shape;
  const count = axes.reduce((n, a) => n * shape[a], 1);
  switch (op) {
    case "sum":
      return record(out, op, [t], [], (g) => [expandBack(g, shape, axes, keepdim)]);
    case "mean":
      return record(out, op, [t], [], (g) => [expandBack(g, shape, axes, keepdim).div(count)]);
    default: // argmax, argmin, any, all, countNonzero give integer or bool results; the rest come with their rules
      return out;
  }
}

export function scan(_op: "cumsum" | "cumprod", _t: Tensor, _axis: number, out: Tensor): Tensor {
  return out;
}
