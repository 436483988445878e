/**
 * pt.grad and pt.valueAndGrad: gradients of a function of tensors, in the functional style
 * of JAX and jax-js, on top of the tape (graph.ts). Each call differentiates with respect to
 * fresh leaves on the arguments' storage, so the arguments themselves gain no `grad` and the
 * graph is freed before the call returns.
 */
import { TensorError } from "../base/errors.ts";
import { aliasOf, Tensor } from "../tensor/tensor.ts";
import { zerosLike } from "../tensor/creation.ts";
import { differentiable, enableGrad } from "./graph.ts";

/** Options of pt.grad and pt.valueAndGrad. */
export interface GradOptions {
  /** Which arguments to differentiate with respect to: one index (the gradient alone) or a list (an array); default 0. */
  argnums?: number | readonly number[];
}

function run(
  op: string,
  fn: (...args: Tensor[]) => Tensor,
  args: readonly Tensor[],
  opts: GradOptions,
): { value: Tensor; grads: Tensor[] } {
  const nums = opts.argnums ?? 0;
  const list = typeof nums === "number" ? [nums] : [...nums];
  for (const i of list) {
    if (!Number.isInteger(i) || i < 0 || i >= args.length) {
      throw new TensorError(op, `argnums ${i} is out of range for ${args.length} argument(s)`);
    }
    if (!(args[i] instanceof Tensor) || !differentiable(args[i].dtype)) {
      throw new TensorError(op, `argument ${i} must be a floating-point tensor to be differentiated`);
    }
  }
  const leaves = new Map<number, Tensor>();
  for (const i of list) if (!leaves.has(i)) leaves.set(i, aliasOf(args[i], op).requiresGrad_());
  try {
    const out = enableGrad(() => fn(...args.map((a, i) => leaves.get(i) ?? a)));
    if (!(out instanceof Tensor) || out.numel !== 1) {
      if (out instanceof Tensor) out.dispose();
      throw new TensorError(op, "the function must return a tensor of one element (a loss)");
    }
    try {
      if (out.requiresGrad) out.backward();
      const grads = list.map((i) => {
        const l = leaves.get(i)!;
        return l.grad === null ? zerosLike(l) : aliasOf(l.grad, op);
      });
      return { value: aliasOf(out, op), grads };
    } finally {
      out.dispose();
    }
  } finally {
    for (const l of leaves.values()) l.dispose();
  }
}

/**
 * A function that returns the gradient of fn (which returns a one-element tensor) with respect to its argument
 * `argnums` (default 0), or an array of gradients when argnums is a list. As `jax.grad`.
 *
 * @example
 * const df = pt.grad((x: pt.Tensor) => x.mul(x).sum());
 * df(pt.tensor([1, 2, 3])).toArray(); // Float32Array [2, 4, 6]
 * @throws {TensorError} when fn returns something other than a one-element tensor, or an argument to differentiate is
 * not a floating-point tensor.
 */
export function grad<A extends Tensor[]>(fn: (...args: A) => Tensor, opts: GradOptions = {}): (...args: A) => Tensor | Tensor[] {
  return (...args: A) => {
    const { value, grads } = run("grad", fn as (...a: Tensor[]) => Tensor, args, opts);
    value.dispose();
    return typeof (opts.argnums ?? 0) === "number" ? grads[0] : grads;
  };
}

/**
 * Like pt.grad, but the function returns fn's value with the gradient(s): `{ value, grad }`. As `jax.value_and_grad`.
 *
 * @example
 * const vg = pt.valueAndGrad((w: pt.Tensor, x: pt.Tensor) => x.matmul(w).square().mean());
 * const { value, grad } = vg(w, x); // grad has w's shape
 */
export function valueAndGrad<A extends Tensor[]>(
  fn: (...args: A) => Tensor,
  opts: GradOptions = {},
): (...args: A) => { value: Tensor; grad: Tensor | Tensor[] } {
  return (...args: A) => {
    const { value, grads } = run("valueAndGrad", fn as (...a: Tensor[]) => Tensor, args, opts);
    return { value, grad: typeof (opts.argnums ?? 0) === "number" ? grads[0] : grads };
  };
}
