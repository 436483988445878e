/**
 * Stochastic gradient descent, optionally with momentum, as torch.optim.SGD (its
 * single-tensor implementation: the gradient negated first under maximize, then weight
 * decay, then the momentum buffer, initialised to the first step's gradient).
 *
 * Kernels per parameter and step: one that writes the parameter (p - lr * d), and with
 * momentum one before it that writes the buffer. The buffer is made (zeros) with the
 * optimizer; a 0-d "started" flag on the device says whether it holds a gradient yet, so a
 * first step recorded by pt.capture still initialises the buffer only once when replayed.
 */
import { TensorError } from "../base/errors.ts";
import { zeros } from "../tensor/creation.ts";
import { where } from "../tensor/elementwise.ts";
import type { Tensor } from "../tensor/tensor.ts";
import {
  type Algorithm,
  assign,
  checkBoolean,
  checkedTensor,
  checkNumber,
  describe,
  deviceScalar,
  type GroupOptions,
  opDType,
  Optimizer,
  owned,
  type ParamsInit,
  restoreInto,
  up,
} from "./optimizer.ts";

/** The options of `SGD` (and of each of its parameter groups). */
export interface SGDOptions extends GroupOptions {
  /** The learning rate (required: no default). */
  lr: number;
  /** The momentum factor μ (default 0: no momentum buffer). */
  momentum: number;
  /** The dampening τ of the momentum: the buffer adds (1 - τ) times the gradient (default 0). */
  dampening: number;
  /** Nesterov momentum (default false; needs momentum > 0 and dampening 0). */
  nesterov: boolean;
  /** The L2 penalty λ added to the gradient as λ·p (default 0). */
  weightDecay: number;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

interface SGDState {
  /** The momentum buffer (null without momentum). */
  buf: Tensor | null;
  /** 0-d: 1 once the buffer holds a gradient (null without momentum). */
  started: Tensor | null;
  /** Whether JS knows the flag is 1: set by the first update (or a replay of it) and by loading a buffer. */
  known: boolean;
}

const NAME = "SGD";

const sgd: Algorithm<SGDOptions, SGDState> = {
  name: NAME,
  defaults: { lr: undefined, momentum: 0, dampening: 0, nesterov: false, weightDecay: 0, maximize: false },
  check(o, op) {
    checkNumber(op, "learning rate", o.lr);
    checkNumber(op, "momentum", o.momentum);
    if (typeof o.dampening !== "number" || !Number.isFinite(o.dampening)) {
      throw new TensorError(op, `invalid dampening: ${describe(o.dampening)} (must be a finite number)`);
    }
    checkNumber(op, "weight decay", o.weightDecay);
    checkBoolean(op, "nesterov", o.nesterov);
    checkBoolean(op, "maximize", o.maximize);
    if (o.nesterov && (o.momentum <= 0 || o.dampening !== 0)) {
      throw new TensorError(
        op,
        `Nesterov momentum requires a momentum > 0 and zero dampening (got momentum ${o.momentum}, dampening ${o.dampening})`,
      );
    }
    return { ...o };
  },
  init(p, o) {
    if (o.momentum === 0) return { buf: null, started: null, known: false };
    const buf = owned(zeros(p.shape, { device: p.device, dtype: p.dtype }));
    return { buf, started: deviceScalar(0, p.device, opDType(p)), known: false };
  },
  update(p, g, s, group) {
    const o = group.options, dt = opDType(p), lr = group.lrOf(p), op = `${NAME}.step`;
    // The direction d, rebuilt inside each write (a pending expression of p left alive would be launched on its own
    // before p is written).
    const dir = (): Tensor => {
      let d = up(g, dt);
      if (o.maximize) d = d.neg();
      return o.weightDecay !== 0 ? d.add(up(p, dt).mul(o.weightDecay)) : d;
    };
    if (o.momentum === 0) return assign(p, op, () => up(p, dt).sub(lr.mul(dir())));
    const buf = s.buf, started = s.started;
    if (buf === null || started === null) throw new TensorError(op, "no momentum buffer: the momentum was 0 when the optimizer was made");
    // b <- μ b + (1 - τ) d, computed as b + ((1 - τ) d - (1 - μ) b) so that one kernel writes b in place; on the first
    // step (the flag still 0) b <- 0 + d. Only a step before which JS does not know the flag is 1 can find it 0, and a
    // replay of such a step (recorded with the flag's test) finds the 1 its recording wrote.
    const first = !s.known;
    assign(buf, op, () => {
      const d = dir(), b = up(buf, dt);
      const inc = (o.dampening === 0 ? d : d.mul(1 - o.dampening)).sub(b.mul(1 - o.momentum));
      return b.add(first ? where(started, inc, d) : inc);
    });
    if (first) assign(started, op, () => started.maximum(1)); // 1 (fill_ would allocate its value, then copy it)
    s.known = true;
    assign(p, op, () => up(p, dt).sub(lr.mul(o.nesterov ? dir().add(up(buf, dt).mul(o.momentum)) : up(buf, dt))));
  },
  save(s, o) {
    return s.buf === null || o.momentum === 0 ? null : { momentumBuffer: s.buf.clone() };
  },
  load(p, s, saved, o, where) {
    const b = saved?.momentumBuffer;
    if (o.momentum === 0) return () => {}; // PyTorch keeps no buffer then either
    const from = b === undefined ? null : checkedTensor(b, p, "momentumBuffer", where);
    return () => {
      if (s.buf === null || s.started === null) { // the dict turns momentum on
        s.buf = owned(zeros(p.shape, { device: p.device, dtype: p.dtype }));
        s.started = deviceScalar(0, p.device, opDType(p));
      }
      if (from === null) {
        s.buf.zero_();
        s.started.fill_(0);
      } else {
        restoreInto(s.buf, from);
        s.started.fill_(1);
      }
      s.known = from !== null;
    };
  },
  free(s) {
    s.buf?.dispose();
    s.started?.dispose();
  },
};

/**
 * Stochastic gradient descent, optionally with momentum, as `torch.optim.SGD` (foreach=False). Each step, with g the
 * gradient: g <- -g under maximize; g <- g + λp with weight decay λ; with momentum μ, the buffer b <- g on the first step,
 * else b <- μb + (1 - τ)g, and g <- g + μb (Nesterov) or g <- b; then p <- p - lr·g.
 *
 * @example
 * using w = pt.randn([3], { requiresGrad: true });
 * using opt = new pt.optim.SGD([w], { lr: 0.1, momentum: 0.9 });
 * for (let i = 0; i < 100; i++) {
 *   pt.tidy(() => {
 *     w.sub(1).square().sum().backward();
 *     opt.step();
 *     opt.zeroGrad();
 *   });
 * }
 */
export class SGD extends Optimizer<SGDOptions> {
  /**
   * An optimizer over `params` (tensors that require gradients, or parameter groups `{ params, lr?, momentum?, ... }`
   * whose options override those given here).
   *
   * @param params the parameters: floating-point leaf tensors that require gradients, each in one group only.
   * @param opts the options; `lr` is required (here or in every group).
   * @throws {TensorError} for an empty parameter list; a parameter that is not a floating-point leaf tensor requiring
   * gradients, is disposed or is given twice; an unknown option; a missing, negative or non-finite lr, momentum or
   * weightDecay; a non-finite dampening; nesterov without momentum > 0 and zero dampening.
   */
  constructor(params: ParamsInit<SGDOptions>, opts?: Partial<SGDOptions>) {
    super(sgd as Algorithm<SGDOptions, unknown>, params, opts);
  }
}
