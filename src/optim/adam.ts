/**
 * Adam and AdamW, as torch.optim.Adam and torch.optim.AdamW (their single-tensor
 * implementation): moving averages m and v of the gradient and its square, bias-corrected by
 * 1 - β1^t and 1 - β2^t, optionally with AMSGrad's running maximum of v; Adam adds weight
 * decay to the gradient, AdamW decays the parameter itself (p <- p·(1 - lr·λ)).
 *
 * Device state per parameter: m, v (and AMSGrad's maximum), and a 3-element tensor
 * [t, 1 - β1^t, 1 - β2^t] that each step advances in place by one kernel: t + 1, and each
 * correction c by the recurrence c + (1 - β)(1 - c) (= 1 - β^(t+1)), whose terms are all
 * positive, so the corrections keep float32's precision where 1 - β^t computed in float32
 * would lose it to cancellation (1 - float32(0.999) is off by 1.3e-5 relative). Kernels per
 * parameter and step: the counters, m, v, (AMSGrad: the maximum) and p, each writing in place.
 */
import { TensorError } from "../base/errors.ts";
import { tensor, zeros } from "../tensor/creation.ts";
import { Tensor } from "../tensor/tensor.ts";
import type { DType } from "../base/dtype.ts";
import {
  type Algorithm,
  assign,
  checkBoolean,
  checkedTensor,
  checkNumber,
  describe,
  type GroupOptions,
  opDType,
  Optimizer,
  owned,
  type ParamsInit,
  restoreInto,
  up,
} from "./optimizer.ts";

/** The options of `Adam` and `AdamW` (and of each of their parameter groups). */
export interface AdamOptions extends GroupOptions {
  /** The learning rate (default 1e-3). */
  lr: number;
  /** The decay rates (β1, β2) of the moving averages of the gradient and of its square, each in [0, 1) (default [0.9, 0.999]). */
  betas: readonly [number, number];
  /** Added to the denominator for numerical stability (default 1e-8). */
  eps: number;
  /** The weight decay λ (Adam: L2 penalty added to the gradient, default 0; AdamW: decoupled, default 1e-2). */
  weightDecay: number;
  /** Use AMSGrad: divide by the running maximum of the second moment (default false). */
  amsgrad: boolean;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

interface AdamState {
  /** [t, 1 - β1^t, 1 - β2^t] in the compute dtype. */
  readonly counters: Tensor;
  readonly bc1: Tensor;
  readonly bc2: Tensor;
  /** Rows [0, β1 - 1, β2 - 1] and [1, 1 - β1, 1 - β2]: counters += counters * a + b advances them. */
  readonly coef: Tensor;
  readonly a: Tensor;
  readonly b: Tensor;
  readonly m: Tensor;
  readonly v: Tensor;
  /** AMSGrad's maximum of v (made when the optimizer is, or by a loadStateDict that turns AMSGrad on). */
  vmax: Tensor | null;
}

/** s's AMSGrad maximum, made (zeros) if it has none yet. */
function maxOf(p: Tensor, s: AdamState): Tensor {
  return s.vmax ??= owned(zeros(p.shape, { device: p.device, dtype: p.dtype }));
}

/** Element i of t as a 0-d view the optimizer owns; the narrow view between them is freed at once (it would hold t's buffer). */
function element(t: Tensor, i: number): Tensor {
  using row = t.narrow(0, i, 1);
  return owned(row.squeeze(0));
}

/** A function that makes a tensor of these values on p's device (in a tidy scope of the caller's). */
function tensorOf(p: Tensor, dtype: DType, values: number[] | number[][]): () => Tensor {
  return () => tensor(values, { device: p.device, dtype });
}

function coefValues(o: AdamOptions): number[] {
  const [b1, b2] = o.betas;
  return [0, b1 - 1, b2 - 1, 1, 1 - b1, 1 - b2];
}

function adam(name: string, decoupled: boolean): Algorithm<AdamOptions, AdamState> {
  return {
    name,
    defaults: { lr: 1e-3, betas: [0.9, 0.999], eps: 1e-8, weightDecay: decoupled ? 1e-2 : 0, amsgrad: false, maximize: false },
    check(o, op) {
      checkNumber(op, "learning rate", o.lr);
      checkNumber(op, "epsilon", o.eps);
      checkNumber(op, "weight decay", o.weightDecay);
      checkBoolean(op, "amsgrad", o.amsgrad);
      checkBoolean(op, "maximize", o.maximize);
      const betas = o.betas as unknown;
      if (!Array.isArray(betas) || betas.length !== 2) {
        throw new TensorError(op, `invalid betas: ${describe(betas)} (must be two numbers in [0, 1))`);
      }
      betas.forEach((b, i) => {
        if (typeof b !== "number" || !(b >= 0 && b < 1)) {
          throw new TensorError(op, `invalid beta parameter at index ${i}: ${describe(b)} (must be in [0, 1))`);
        }
      });
      return { ...o, betas: Object.freeze([betas[0], betas[1]]) as readonly [number, number] };
    },
    init(p, o) {
      const dt = opDType(p), dev = p.device;
      const counters = owned(zeros([3], { device: dev, dtype: dt }));
      const coef = owned(tensor([coefValues(o).slice(0, 3), coefValues(o).slice(3)], { device: dev, dtype: dt }));
      const like = () => owned(zeros(p.shape, { device: dev, dtype: p.dtype }));
      return {
        counters,
        bc1: element(counters, 1),
        bc2: element(counters, 2),
        coef,
        a: element(coef, 0),
        b: element(coef, 1),
        m: like(),
        v: like(),
        vmax: o.amsgrad ? like() : null,
      };
    },
    update(p, g, s, group) {
      const o = group.options, dt = opDType(p), [b1, b2] = o.betas, lr = group.lrOf(p), op = `${name}.step`;
      assign(s.counters, op, () => s.counters.add(s.counters.mul(s.a).add(s.b))); // t + 1, and 1 - β^(t+1) for each β
      // The gradient term, rebuilt inside each write (a pending expression of p left alive would be launched on its own
      // before p is written).
      const grad = (): Tensor => {
        let d = up(g, dt);
        if (o.maximize) d = d.neg();
        return !decoupled && o.weightDecay !== 0 ? d.add(up(p, dt).mul(o.weightDecay)) : d;
      };
      // m <- lerp(m, d, 1 - β1) and v <- lerp(v, d², 1 - β2) (= β2 v + (1 - β2) d²), each one kernel writing in place
      assign(s.m, op, () => up(s.m, dt).add(grad().sub(up(s.m, dt)).mul(1 - b1)));
      assign(s.v, op, () => up(s.v, dt).add(grad().square().sub(up(s.v, dt)).mul(1 - b2)));
      let second = s.v;
      if (o.amsgrad) {
        const vmax = s.vmax;
        if (vmax === null) throw new TensorError(op, "no AMSGrad maximum: amsgrad was off when the optimizer was made");
        assign(vmax, op, () => vmax.maximum(s.v));
        second = vmax;
      }
      // p <- p - lr · m / bc1 / (sqrt(v / bc2) + eps), AdamW also decaying p by lr·λ, in one kernel. The 0-d operands
      // (lr, the corrections) are read as they are: an op on them alone would be a kernel of its own.
      assign(p, op, () => {
        const denom = up(second, dt).div(s.bc2).sqrt().add(o.eps);
        const delta = up(s.m, dt).mul(lr).div(s.bc1).div(denom);
        const pp = up(p, dt);
        return pp.sub(decoupled && o.weightDecay !== 0 ? delta.add(pp.mul(lr).mul(o.weightDecay)) : delta);
      });
    },
    save(s) {
      const [t, c1, c2] = Array.from(s.counters.toArray() as ArrayLike<number>);
      const out: Record<string, Tensor | number> = { step: t, expAvg: s.m.clone(), expAvgSq: s.v.clone() };
      if (s.vmax !== null) out.maxExpAvgSq = s.vmax.clone();
      out.biasCorrection1 = c1;
      out.biasCorrection2 = c2;
      return out;
    },
    load(p, s, saved, o, where) {
      const coef = tensorOf(p, s.coef.dtype, [coefValues(o).slice(0, 3), coefValues(o).slice(3)]);
      if (saved === undefined) {
        return () => {
          s.coef.copy_(coef());
          s.counters.zero_();
          s.m.zero_();
          s.v.zero_();
          if (o.amsgrad) maxOf(p, s).zero_();
        };
      }
      const num = (k: string): number | undefined => {
        const x = saved[k];
        if (x === undefined) return undefined;
        const v = x instanceof Tensor && x.numel === 1 ? Number(x.item()) : x;
        if (typeof v !== "number" || !Number.isFinite(v)) throw new TensorError(where, `${k} is ${describe(x)}, not a finite number`);
        return v;
      };
      const t = num("step");
      if (t === undefined || !Number.isInteger(t) || t < 0) {
        throw new TensorError(where, `step is ${describe(saved.step)}, not an integer >= 0`);
      }
      const [b1, b2] = o.betas;
      const c1 = num("biasCorrection1") ?? 1 - b1 ** t, c2 = num("biasCorrection2") ?? 1 - b2 ** t;
      const m = checkedTensor(saved.expAvg, p, "expAvg", where), v = checkedTensor(saved.expAvgSq, p, "expAvgSq", where);
      // A dict saved without AMSGrad starts the maximum from the second moment, as PyTorch's zeros would after one step.
      const vmax = o.amsgrad ? checkedTensor(saved.maxExpAvgSq ?? saved.expAvgSq, p, "maxExpAvgSq", where) : null;
      const counters = tensorOf(p, s.counters.dtype, [t, c1, c2]);
      return () => {
        s.coef.copy_(coef());
        s.counters.copy_(counters());
        restoreInto(s.m, m);
        restoreInto(s.v, v);
        if (vmax !== null) restoreInto(maxOf(p, s), vmax);
      };
    },
    free(s) {
      for (const t of [s.bc1, s.bc2, s.a, s.b, s.counters, s.coef, s.m, s.v, s.vmax]) t?.dispose();
    },
  };
}

/**
 * Adam, as `torch.optim.Adam` (foreach=False, capturable or not: the same values). Each step t, with g the gradient:
 * g <- -g under maximize; g <- g + λp with weight decay λ; m <- β1·m + (1 - β1)·g; v <- β2·v + (1 - β2)·g²; with
 * AMSGrad v̂ <- max(v̂, v) replaces v below; p <- p - lr/(1 - β1^t) · m / (sqrt(v) / sqrt(1 - β2^t) + eps).
 * The state dict keeps, per parameter, `step`, `expAvg`, `expAvgSq` (and `maxExpAvgSq`) as PyTorch's, and the bias
 * corrections `biasCorrection1` and `biasCorrection2` as the device holds them (so a restored optimizer continues bit for
 * bit; computed from step when a dict lacks them).
 *
 * @example
 * using w = pt.randn([4, 2], { requiresGrad: true });
 * using opt = new pt.optim.Adam([w], { lr: 1e-2 });
 * for (let i = 0; i < 100; i++) {
 *   pt.tidy(() => {
 *     x.mul(w).sum().sub(y).square().mean().backward();
 *     opt.step();
 *     opt.zeroGrad();
 *   });
 * }
 */
export class Adam extends Optimizer<AdamOptions> {
  /**
   * An optimizer over `params` (tensors that require gradients, or parameter groups `{ params, lr?, betas?, ... }`
   * whose options override those given here).
   *
   * @param params the parameters: floating-point leaf tensors that require gradients, each in one group only.
   * @param opts the options: lr 1e-3, betas [0.9, 0.999], eps 1e-8, weightDecay 0, amsgrad and maximize false by default.
   * @throws {TensorError} for an empty parameter list; a parameter that is not a floating-point leaf tensor requiring
   * gradients, is disposed or is given twice; an unknown option; a negative or non-finite lr, eps or weightDecay; betas
   * that are not two numbers in [0, 1).
   */
  constructor(params: ParamsInit<AdamOptions>, opts?: Partial<AdamOptions>) {
    super(adam("Adam", false) as Algorithm<AdamOptions, unknown>, params, opts);
  }
}

/**
 * AdamW, as `torch.optim.AdamW` (foreach=False): Adam with decoupled weight decay. Each step first decays the parameter,
 * p <- p·(1 - lr·λ), then updates it as Adam without weight decay; λ defaults to 1e-2. The state dict is Adam's.
 *
 * @example
 * using opt = new pt.optim.AdamW([w, b], { lr: 1e-3, weightDecay: 0.05 });
 * pt.tidy(() => {
 *   model(x).sub(y).square().mean().backward();
 *   opt.step();
 *   opt.zeroGrad();
 * });
 */
export class AdamW extends Optimizer<AdamOptions> {
  /**
   * An optimizer over `params` (tensors that require gradients, or parameter groups `{ params, lr?, betas?, ... }`
   * whose options override those given here).
   *
   * @param params the parameters: floating-point leaf tensors that require gradients, each in one group only.
   * @param opts the options: lr 1e-3, betas [0.9, 0.999], eps 1e-8, weightDecay 1e-2, amsgrad and maximize false by default.
   * @throws {TensorError} as `Adam`'s constructor, naming AdamW.
   */
  constructor(params: ParamsInit<AdamOptions>, opts?: Partial<AdamOptions>) {
    super(adam("AdamW", true) as Algorithm<AdamOptions, unknown>, params, opts);
  }
}
