/**
 * Gradient checks for the autograd tests: a rule's gradient against central finite
 * differences of the function itself. The reference is computed on the CPU in float64 (the
 * function evaluated at x ± eps, read back to JS); the library's gradient is checked twice:
 * in float64 on the CPU (tight: rtol 1e-6, atol 1e-8 beyond the differences' own error) and
 * in float32 on the test device (rtol 2e-3, atol 2e-4: float32 rounding of the forward and
 * backward kernels). A non-scalar output is contracted with fixed random weights first, so
 * every element of the Jacobian takes part.
 */
import * as pt from "../mod.ts";
import { assertClose, rng } from "./harness.ts";

/** An input: its values (row-major) and shape. */
export interface GradInput {
  values: readonly number[];
  shape: readonly number[];
}

export interface GradCheckOptions {
  /** Finite-difference step (default 1e-6, in float64). */
  eps?: number;
  /** Which inputs to differentiate (default: all). */
  wrt?: readonly number[];
  /** Tolerances of the float32 check on the test device (default rtol 2e-3, atol 2e-4). */
  rtol32?: number;
  atol32?: number;
  /** Skip the float32 device check (for ops the device cannot run in float32 accurately enough). */
  only64?: boolean;
}

const cpu = () => pt.device("cpu");

/** Random values in [-1, 1) (or [lo, hi)) for an input of this shape. */
export function randomInput(shape: readonly number[], seed: number, lo = -1, hi = 1): GradInput {
  const r = rng(seed), n = shape.reduce((a, b) => a * b, 1);
  return { values: Array.from({ length: n }, () => lo + (hi - lo) * r()), shape };
}

function make(x: GradInput, dtype: pt.DType, device: pt.Device, grad: boolean): pt.Tensor {
  const flat = pt.tensor(Float64Array.from(x.values), { device, dtype: "float64" });
  const shaped = flat.reshape(x.shape as number[]);
  const t = shaped.to(dtype).contiguous();
  if (t !== shaped) shaped.dispose();
  if (t !== flat) flat.dispose();
  return grad ? t.requiresGrad_() : t;
}

/** sum(f(xs) * w), with w fixed random weights of f's output shape (made once per check). */
function contracted(
  f: (...xs: pt.Tensor[]) => pt.Tensor,
  xs: pt.Tensor[],
  weights: number[] | null,
): { loss: pt.Tensor; weights: number[] } {
  const y = f(...xs);
  const n = y.numel;
  const w = weights ?? Array.from({ length: n }, (_, i) => 0.5 + ((i * 7919) % 13) / 13);
  const wt = pt.tensor(Float64Array.from(w), { device: y.device, dtype: "float64" }).reshape(y.shape as number[]).to(y.dtype);
  return { loss: y.mul(wt).sum(), weights: w };
}

function readAll(t: pt.Tensor): number[] {
  return Array.from(t.to("float64").toArray() as Float64Array);
}

/**
 * Checks every gradient of f at inputs: float64 on the CPU against central differences, then
 * float32 on the test device against the same reference. Throws an AssertionError naming the
 * input and element that differ.
 */
export function gradcheck(
  name: string,
  f: (...xs: pt.Tensor[]) => pt.Tensor,
  inputs: readonly GradInput[],
  opts: GradCheckOptions = {},
): void {
  const eps = opts.eps ?? 1e-6, wrt = opts.wrt ?? inputs.map((_, i) => i);
  // The reference: central differences of the contracted output in float64 on the CPU.
  let weights: number[] | null = null;
  const value = (vals: GradInput[]): number =>
    pt.tidy(() => {
      const r = contracted(f, vals.map((x) => make(x, "float64", cpu(), false)), weights);
      weights = r.weights;
      return Number(r.loss.item());
    });
  value([...inputs]);
  const numeric = wrt.map((i) =>
    inputs[i].values.map((_, j) => {
      const at = (d: number) => inputs.map((x, k) => (k !== i ? x : { ...x, values: x.values.map((v, m) => (m === j ? v + d : v)) }));
      return (value(at(eps)) - value(at(-eps))) / (2 * eps);
    })
  );
  const analytic = (dtype: pt.DType, device: pt.Device): number[][] =>
    pt.tidy(() => {
      const xs = inputs.map((x, k) => make(x, dtype, device, wrt.includes(k)));
      contracted(f, xs, weights).loss.backward();
      const out = wrt.map((i) => (xs[i].grad === null ? inputs[i].values.map(() => 0) : readAll(xs[i].grad!)));
      for (const x of xs) x.dispose();
      return out;
    });
  const a64 = analytic("float64", cpu());
  wrt.forEach((i, k) => assertClose(a64[k], numeric[k], 1e-5, 1e-7, `${name}: d/d(input ${i}) in float64 on the CPU`));
  if (opts.only64) return;
  const dev = pt.defaultDevice();
  const a32 = analytic("float32", dev);
  wrt.forEach((i, k) =>
    assertClose(a32[k], numeric[k], opts.rtol32 ?? 2e-3, opts.atol32 ?? 2e-4, `${name}: d/d(input ${i}) in float32 on ${dev.id}`)
  );
}
