/**
 * pt.optim: SGD, Adam and AdamW against plain JS loops of PyTorch's update formulas (float32 arithmetic, rounded at
 * each op as PyTorch's kernels round), zeroGrad, skipped parameters, parameter groups, the state dict round trip (bit
 * for bit), the schedulers' rates and the device rate that follows them, flat memory over a 2000-step training loop,
 * updates seen through views, one fused in-place kernel per write, a captured training step replayed against uncaptured
 * steps, and bad input. Runs on the default device (PT_DEVICE).
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, rng, test, testUnless } from "./harness.ts";

const f = Math.fround;
const dev = pt.defaultDevice();

function values(t: pt.Tensor): number[] {
  return Array.from(t.toArray() as ArrayLike<number>, Number);
}

/** n values in [-scale, scale) from seed. */
function data(seed: number, n: number, scale = 1): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => f((r() * 2 - 1) * scale));
}

/** The parameters' values after each update must be within 1e-6 relative (1e-7 absolute for values that cancel to ~0). */
function close(actual: pt.Tensor, expected: number[], what: string): void {
  assertClose(values(actual), expected, 1e-6, 1e-7, what);
}

// ---------------------------------------------------------------- the reference loops (PyTorch's single-tensor code)

interface SGDRef {
  lr: number;
  momentum?: number;
  dampening?: number;
  nesterov?: boolean;
  weightDecay?: number;
  maximize?: boolean;
}

/** torch.optim.SGD (_single_tensor_sgd) in float32: p after each gradient of `grads` in turn. */
function sgdRef(p0: number[], grads: number[][], o: SGDRef): number[] {
  const p = p0.map(f), mom = o.momentum ?? 0, damp = o.dampening ?? 0, wd = o.weightDecay ?? 0;
  let buf: number[] | null = null;
  for (const g of grads) {
    const d = p.map((pi, i) => {
      let x = f(g[i]);
      if (o.maximize) x = -x;
      if (wd !== 0) x = f(x + f(f(wd) * pi)); // grad.add(param, alpha=weight_decay)
      return x;
    });
    let dir = d;
    if (mom !== 0) {
      const b: number[] = buf === null ? [...d] : buf.map((bi, i) => f(f(f(mom) * bi) + f(f(1 - damp) * d[i])));
      buf = b;
      dir = o.nesterov ? d.map((di, i) => f(di + f(f(mom) * b[i]))) : b;
    }
    for (let i = 0; i < p.length; i++) p[i] = f(p[i] + f(f(-o.lr) * dir[i])); // param.add_(d_p, alpha=-lr)
  }
  return p;
}

interface AdamRef {
  lr?: number;
  betas?: [number, number];
  eps?: number;
  weightDecay?: number;
  amsgrad?: boolean;
  maximize?: boolean;
}

/** torch.optim.Adam / AdamW (_single_tensor_adam, decoupled_weight_decay for AdamW) in float32. */
function adamRef(p0: number[], grads: number[][], o: AdamRef, decoupled: boolean): number[] {
  const lr = o.lr ?? 1e-3, [b1, b2] = o.betas ?? [0.9, 0.999], eps = o.eps ?? 1e-8;
  const wd = o.weightDecay ?? (decoupled ? 1e-2 : 0);
  const p = p0.map(f), m = p.map(() => 0), v = p.map(() => 0), vmax = p.map(() => 0);
  grads.forEach((g, t0) => {
    const t = t0 + 1;
    const bc1 = 1 - b1 ** t, bc2 = 1 - b2 ** t, stepSize = lr / bc1, bc2Sqrt = Math.sqrt(bc2); // Python floats
    for (let i = 0; i < p.length; i++) {
      let d = f(g[i]);
      if (o.maximize) d = -d;
      if (decoupled) p[i] = f(p[i] * f(1 - lr * wd)); // param.mul_(1 - lr * weight_decay)
      else if (wd !== 0) d = f(d + f(f(wd) * p[i])); // grad.add(param, alpha=weight_decay)
      m[i] = f(m[i] + f(f(1 - b1) * f(d - m[i]))); // exp_avg.lerp_(grad, 1 - beta1)
      v[i] = f(f(f(b2) * v[i]) + f(f(f(1 - b2) * d) * d)); // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
      let second = v[i];
      if (o.amsgrad) second = vmax[i] = Math.max(vmax[i], v[i]);
      const denom = f(f(f(Math.sqrt(second)) / f(bc2Sqrt)) + f(eps)); // (sqrt(v) / bias_correction2_sqrt).add_(eps)
      p[i] = f(p[i] + f(f(-stepSize) * f(m[i] / denom))); // param.addcdiv_(exp_avg, denom, value=-step_size)
    }
  });
  return p;
}

// ---------------------------------------------------------------- helpers

const W0 = data(1, 6), B0 = data(2, 3);
const GW = [0, 1, 2, 3, 4].map((t) => data(10 + t, 6, 2)), GB = [0, 1, 2, 3, 4].map((t) => data(20 + t, 3, 2));

interface Model {
  w: pt.Tensor; // [2, 3]
  b: pt.Tensor; // [3]
  dispose(): void;
}

function model(w0 = W0, b0 = B0): Model {
  const w = pt.keep(pt.tensor([w0.slice(0, 3), w0.slice(3, 6)], { requiresGrad: true }));
  const b = pt.keep(pt.tensor(b0, { requiresGrad: true }));
  return { w, b, dispose: () => (w.dispose(), b.dispose()) };
}

/** Sets the fixed gradients of step t and steps. */
function stepWith(opt: pt.optim.Optimizer, m: Model, t: number): void {
  m.w.grad = pt.tensor(GW[t]).reshape([2, 3]);
  m.b.grad = pt.tensor(GB[t]);
  opt.step();
  opt.zeroGrad();
}

// ---------------------------------------------------------------- the update formulas

const SGD_CASES: [string, SGDRef][] = [
  ["plain", { lr: 0.1 }],
  ["momentum", { lr: 0.05, momentum: 0.9 }],
  ["momentum with dampening", { lr: 0.05, momentum: 0.9, dampening: 0.3 }],
  ["nesterov", { lr: 0.05, momentum: 0.8, nesterov: true }],
  ["weight decay", { lr: 0.1, weightDecay: 0.1 }],
  ["momentum, weight decay and maximize", { lr: 0.05, momentum: 0.9, weightDecay: 0.05, maximize: true }],
  ["nesterov, weight decay and maximize", { lr: 0.02, momentum: 0.5, nesterov: true, weightDecay: 0.2, maximize: true }],
];

test("SGD: 5 steps with fixed gradients match PyTorch's formulas (plain, momentum, dampening, nesterov, weight decay, maximize)", () => {
  for (const [name, o] of SGD_CASES) {
    const m = model();
    const opt = new pt.optim.SGD([m.w, m.b], o);
    for (let t = 0; t < 5; t++) {
      pt.tidy(() => stepWith(opt, m, t));
      close(m.w, sgdRef(W0, GW.slice(0, t + 1), o), `${name}, w after step ${t + 1}`);
      close(m.b, sgdRef(B0, GB.slice(0, t + 1), o), `${name}, b after step ${t + 1}`);
    }
    opt.dispose();
    m.dispose();
  }
});

const ADAM_CASES: [string, AdamRef][] = [
  ["defaults", {}],
  ["lr 0.1 and betas (0.8, 0.99)", { lr: 0.1, betas: [0.8, 0.99] }],
  ["weight decay", { lr: 0.05, weightDecay: 0.1 }],
  ["amsgrad", { lr: 0.05, amsgrad: true }],
  ["amsgrad, weight decay, maximize, eps 1e-3", { lr: 0.02, amsgrad: true, weightDecay: 0.05, maximize: true, eps: 1e-3 }],
  ["beta1 0 (no momentum)", { lr: 0.01, betas: [0, 0.9] }],
];

for (const [cls, decoupled] of [["Adam", false], ["AdamW", true]] as const) {
  test(`${cls}: 5 steps with fixed gradients match PyTorch's formulas (defaults, betas, weight decay, amsgrad, maximize)`, () => {
    for (const [name, o] of ADAM_CASES) {
      const m = model();
      const opt = new pt.optim[cls]([m.w, m.b], o);
      for (let t = 0; t < 5; t++) {
        pt.tidy(() => stepWith(opt, m, t));
        close(m.w, adamRef(W0, GW.slice(0, t + 1), o, decoupled), `${name}, w after step ${t + 1}`);
        close(m.b, adamRef(B0, GB.slice(0, t + 1), o, decoupled), `${name}, b after step ${t + 1}`);
      }
      opt.dispose();
      m.dispose();
    }
  });
}

test("a quadratic loss through backward: SGD with momentum, Adam and AdamW follow the reference with its analytic gradient", () => {
  const a = data(30, 6, 1).map((x) => f(Math.abs(x) + 0.5)), c = data(31, 6, 2);
  // loss = sum(a * (p - c)^2): the gradient is 2 a (p - c), computed here in float32 as the library's rules do
  const grad = (p: number[]) => p.map((pi, i) => f(f(a[i] * f(pi - c[i])) * 2));
  const makers: [string, (ps: pt.Tensor[]) => pt.optim.Optimizer, (grads: (p: number[]) => number[]) => number[]][] = [
    [
      "SGD",
      (ps) => new pt.optim.SGD(ps, { lr: 0.05, momentum: 0.9 }),
      (g) => refLoop(g, (p, gs) => sgdRef(p, gs, { lr: 0.05, momentum: 0.9 })),
    ],
    ["Adam", (ps) => new pt.optim.Adam(ps, { lr: 0.1 }), (g) => refLoop(g, (p, gs) => adamRef(p, gs, { lr: 0.1 }, false))],
    ["AdamW", (ps) => new pt.optim.AdamW(ps, { lr: 0.1 }), (g) => refLoop(g, (p, gs) => adamRef(p, gs, { lr: 0.1 }, true))],
  ];
  // The reference re-runs the formulas from the start over the gradients seen so far (each depends on the parameters).
  function refLoop(g: (p: number[]) => number[], run: (p0: number[], grads: number[][]) => number[]): number[] {
    const grads: number[][] = [];
    let p = W0;
    for (let t = 0; t < 5; t++) {
      grads.push(g(p));
      p = run(W0, grads);
    }
    return p;
  }
  for (const [name, make, ref] of makers) {
    const p = pt.keep(pt.tensor(W0, { requiresGrad: true }));
    const opt = make([p]);
    using at = pt.tensor(a), ct = pt.tensor(c);
    for (let t = 0; t < 5; t++) {
      pt.tidy(() => {
        p.sub(ct).square().mul(at).sum().backward();
        opt.step();
        opt.zeroGrad();
      });
    }
    close(p, ref(grad), `${name} after 5 steps`);
    opt.dispose();
    p.dispose();
  }
});

testUnless(
  dev.info.float64 ? null : `${dev.id} has no float64`,
  "float64 parameters update in float64 (Adam and SGD against the double-precision formulas)",
  () => {
    const id = (x: number) => x;
    const o = { lr: 0.1, weightDecay: 0.1, amsgrad: true };
    using p = pt.tensor(W0, { requiresGrad: true, dtype: "float64" });
    using q = pt.tensor(W0, { requiresGrad: true, dtype: "float64" });
    using opt = new pt.optim.Adam([p], o);
    using sgd = new pt.optim.SGD([q], { lr: 0.1, momentum: 0.9 });
    const grads = GW.map((g) => g.map((x) => x + 1e-9)); // not representable in float32
    for (let t = 0; t < 5; t++) {
      pt.tidy(() => {
        p.grad = pt.tensor(grads[t], { dtype: "float64" });
        q.grad = pt.tensor(grads[t], { dtype: "float64" });
        opt.step();
        sgd.step();
      });
    }
    // the same formulas in double: f is the identity
    const adam64 = (() => {
      const [b1, b2] = [0.9, 0.999], pv = [...W0], m = pv.map(() => 0), v = pv.map(() => 0), vm = pv.map(() => 0);
      grads.forEach((g, t0) => {
        const t = t0 + 1, bc1 = 1 - b1 ** t, bc2 = 1 - b2 ** t;
        for (let i = 0; i < pv.length; i++) {
          const d = id(g[i] + 0.1 * pv[i]);
          m[i] += (1 - b1) * (d - m[i]);
          v[i] = b2 * v[i] + (1 - b2) * d * d;
          vm[i] = Math.max(vm[i], v[i]);
          pv[i] -= (o.lr / bc1) * m[i] / (Math.sqrt(vm[i]) / Math.sqrt(bc2) + 1e-8);
        }
      });
      return pv;
    })();
    assertClose(values(p), adam64, 1e-12, 1e-13, "Adam float64");
    const sgd64 = (() => {
      const pv = [...W0];
      let buf: number[] | null = null;
      for (const g of grads) {
        buf = buf === null ? [...g] : buf.map((b, i) => 0.9 * b + g[i]);
        for (let i = 0; i < pv.length; i++) pv[i] -= 0.1 * buf[i];
      }
      return pv;
    })();
    assertClose(values(q), sgd64, 1e-12, 1e-13, "SGD float64");
  },
);

test("float16 and bfloat16 parameters: the update is computed in float32 and stored in the parameter's dtype", () => {
  for (const dtype of ["float16", "bfloat16"] as const) {
    using p = pt.tensor(W0, { requiresGrad: true, dtype });
    using opt = new pt.optim.Adam([p], { lr: 0.01 });
    const p0 = values(p); // W0 rounded to the dtype
    for (let t = 0; t < 3; t++) {
      pt.tidy(() => {
        p.grad = pt.tensor(GW[t], { dtype });
        opt.step();
      });
    }
    assert.equal(p.dtype, dtype);
    const want = adamRef(p0, GW.slice(0, 3).map((g) => pt.tidy(() => values(pt.tensor(g, { dtype })))), { lr: 0.01 }, false);
    assertClose(values(p), want, dtype === "float16" ? 2e-3 : 1.6e-2, 1e-3, dtype);
  }
});

// ---------------------------------------------------------------- gradients, groups, state

test("zeroGrad sets every gradient to null, disposing it; zeroGrad(false) fills them with zeros", () => {
  const m = model();
  using opt = new pt.optim.SGD([m.w, m.b], { lr: 0.1 });
  const gw = pt.tensor(GW[0]).reshape([2, 3]), gb = pt.tensor(GB[0]);
  m.w.grad = gw;
  m.b.grad = gb;
  opt.zeroGrad(false);
  assert.equal(m.w.grad, gw);
  assert.deepEqual(values(gw), [0, 0, 0, 0, 0, 0]);
  opt.zeroGrad();
  assert.equal(m.w.grad, null);
  assert.equal(m.b.grad, null);
  assert.ok(gw.disposed && gb.disposed, "the old gradients were disposed");
  opt.step(); // no gradients: nothing changes
  assert.deepEqual(values(m.b), B0);
  m.dispose();
});

test("parameters without a gradient are skipped: their values and state stay, and their step count does not advance", () => {
  const m = model();
  using opt = new pt.optim.Adam([m.w, m.b], { lr: 0.1 });
  for (let t = 0; t < 3; t++) {
    pt.tidy(() => {
      m.w.grad = pt.tensor(GW[t]).reshape([2, 3]);
      if (t !== 1) m.b.grad = pt.tensor(GB[t]); // b has no gradient at step 2
      opt.step();
      opt.zeroGrad();
    });
  }
  close(m.w, adamRef(W0, GW.slice(0, 3), { lr: 0.1 }, false), "w: three steps");
  close(m.b, adamRef(B0, [GB[0], GB[2]], { lr: 0.1 }, false), "b: two steps, as PyTorch counts them per parameter");
  pt.tidy(() => {
    const sd = opt.stateDict();
    assert.equal(sd.state[0].step, 3);
    assert.equal(sd.state[1].step, 2);
  });
  m.dispose();
});

test("parameter groups: each group's options override the defaults; lr is read and set per group and for all", () => {
  const m = model();
  using opt = new pt.optim.SGD([{ params: [m.w] }, { params: [m.b], lr: 0.5, momentum: 0.9 }], { lr: 0.1 });
  assert.equal(opt.paramGroups.length, 2);
  assert.equal(opt.paramGroups[0].lr, 0.1);
  assert.equal(opt.paramGroups[1].lr, 0.5);
  assert.equal(opt.paramGroups[0].options.momentum, 0);
  assert.equal(opt.paramGroups[1].options.momentum, 0.9);
  assert.equal(opt.lr, 0.1);
  for (let t = 0; t < 2; t++) pt.tidy(() => stepWith(opt, m, t));
  opt.paramGroups[1].lr = 0.25;
  for (let t = 2; t < 4; t++) pt.tidy(() => stepWith(opt, m, t));
  close(m.w, sgdRef(W0, GW.slice(0, 4), { lr: 0.1 }), "group 0");
  // group 1: two steps at 0.5, then two at 0.25, with one momentum buffer
  const bRef = (() => {
    let p = B0.map(f), buf: number[] | null = null;
    GB.slice(0, 4).forEach((g, t) => {
      const lr = t < 2 ? 0.5 : 0.25;
      const b: number[] = buf === null ? g.map(f) : buf.map((x, i) => f(f(f(0.9) * x) + f(g[i])));
      buf = b;
      p = p.map((pi, i) => f(pi + f(f(-lr) * b[i])));
    });
    return p;
  })();
  close(m.b, bRef, "group 1");
  opt.lr = 0.01;
  assert.deepEqual(opt.paramGroups.map((g) => g.lr), [0.01, 0.01]);
  m.dispose();
});

/** The state-dict round trip of one optimizer kind: identical bits. */
function roundTrip(name: string, make: (ps: pt.Tensor[]) => pt.optim.Optimizer): void {
  const a = model();
  const optA = make([a.w, a.b]);
  for (let t = 0; t < 3; t++) pt.tidy(() => stepWith(optA, a, t));
  const saved = optA.stateDict();
  const snapshot = () => Object.values(saved.state).map((s) => Object.values(s).map((v) => (v instanceof pt.Tensor ? values(v) : v)));
  const at3 = snapshot();
  const w3 = values(a.w), b3 = values(a.b);
  for (let t = 3; t < 5; t++) pt.tidy(() => stepWith(optA, a, t));
  // a fresh optimizer over copies of the parameters after step 3
  const b = model(w3, b3);
  const optB = make([b.w, b.b]);
  optB.loadStateDict(saved);
  for (let t = 3; t < 5; t++) pt.tidy(() => stepWith(optB, b, t));
  assert.deepEqual(values(b.w), values(a.w), `${name}: w bit for bit`);
  assert.deepEqual(values(b.b), values(a.b), `${name}: b bit for bit`);
  assert.deepEqual(snapshot(), at3, `${name}: the saved dict is a copy, which training on and loading left as it was`);
  for (const s of Object.values(saved.state)) for (const v of Object.values(s)) if (v instanceof pt.Tensor) v.dispose();
  for (const o of [optA, optB]) o.dispose();
  a.dispose();
  b.dispose();
}

test("stateDict round trip: 3 steps, save, 2 more equals a fresh optimizer over copied parameters, loaded, 2 steps: identical bits", () => {
  roundTrip("SGD nesterov", (ps) => new pt.optim.SGD(ps, { lr: 0.05, momentum: 0.9, nesterov: true, weightDecay: 0.01 }));
  roundTrip("SGD dampening", (ps) => new pt.optim.SGD(ps, { lr: 0.05, momentum: 0.9, dampening: 0.5 }));
  roundTrip("Adam amsgrad", (ps) => new pt.optim.Adam(ps, { lr: 0.05, amsgrad: true, weightDecay: 0.1 }));
  roundTrip("AdamW", (ps) => new pt.optim.AdamW(ps, { lr: 0.05 }));
  roundTrip(
    "Adam, two groups",
    (ps) => new pt.optim.Adam([{ params: [ps[0]], lr: 0.01 }, { params: [ps[1]], betas: [0.5, 0.9] }], { lr: 0.1 }),
  );
});

test("stateDict holds copies of the state tensors, the step counts and each group's options (PyTorch's layout)", () => {
  const m = model();
  using opt = new pt.optim.Adam([m.w, m.b], { lr: 0.05, amsgrad: true });
  pt.tidy(() => {
    assert.deepEqual(opt.stateDict().state, {}, "no state before the first step");
    for (let t = 0; t < 2; t++) stepWith(opt, m, t);
    const sd = opt.stateDict();
    assert.deepEqual(Object.keys(sd.state), ["0", "1"]);
    const s = sd.state[0];
    assert.equal(s.step, 2);
    assert.deepEqual(Object.keys(s).sort(), ["biasCorrection1", "biasCorrection2", "expAvg", "expAvgSq", "maxExpAvgSq", "step"]);
    assertClose([s.biasCorrection1 as number, s.biasCorrection2 as number], [1 - 0.9 ** 2, 1 - 0.999 ** 2], 1e-6, 0);
    const expAvg = s.expAvg as pt.Tensor;
    assert.deepEqual(expAvg.shape, [2, 3]);
    // m after two steps: 0.1 g1 (lerp from 0), then lerp toward g2
    const m1 = GW[0].map((g) => f(f(0.1) * g)), m2 = m1.map((x, i) => f(x + f(f(0.1) * f(GW[1][i] - x))));
    assertClose(values(expAvg), m2, 1e-6, 1e-8, "expAvg");
    const before = values(expAvg);
    stepWith(opt, m, 2);
    assert.deepEqual(values(expAvg), before, "a copy: a later step does not change it");
    assert.deepEqual(sd.paramGroups, [{
      params: [0, 1],
      lr: 0.05,
      betas: [0.9, 0.999],
      eps: 1e-8,
      weightDecay: 0,
      amsgrad: true,
      maximize: false,
    }]);
  });
  pt.tidy(() => {
    using sgd = new pt.optim.SGD([m.w], { lr: 0.1 });
    stepWith(sgd, m, 0);
    assert.deepEqual(sgd.stateDict().state, {}, "SGD without momentum has no state");
  });
  m.dispose();
});

test("loadStateDict restores the groups' options and resets parameters the dict has no state for; it refuses dicts that do not fit", () => {
  const m = model();
  using opt = new pt.optim.SGD([m.w, m.b], { lr: 0.1, momentum: 0.9 });
  pt.tidy(() => stepWith(opt, m, 0));
  const sd = pt.tidy(() => opt.stateDict());
  using other = new pt.optim.SGD([m.w, m.b], { lr: 0.3, momentum: 0.5 });
  other.loadStateDict(sd);
  assert.equal(other.lr, 0.1);
  assert.equal(other.paramGroups[0].options.momentum, 0.9);
  assertTensorError(
    () => other.loadStateDict({ state: {}, paramGroups: [] }),
    /^SGD\.loadStateDict: /,
    /the dict has 0 parameter groups, this optimizer 1/,
  );
  assertTensorError(
    () => other.loadStateDict({ state: {}, paramGroups: [{ params: [0], lr: 0.1 }] }),
    /SGD\.loadStateDict/,
    /1 parameters, this optimizer's 2/,
  );
  assertTensorError(
    () => other.loadStateDict({ state: {}, paramGroups: [{ ...sd.paramGroups[0], lr: -1 }] }),
    /SGD\.loadStateDict: invalid learning rate: -1/,
  );
  pt.tidy(() => {
    const bad = { state: { 0: { momentumBuffer: pt.zeros([3]) } }, paramGroups: sd.paramGroups };
    assertTensorError(
      () => other.loadStateDict(bad),
      /SGD\.loadStateDict: parameter 0/,
      /momentumBuffer has shape \[3\], the parameter \[2, 3\]/,
    );
  });
  using adam = new pt.optim.Adam([m.w, m.b]);
  assertTensorError(() => adam.loadStateDict(sd), /Adam\.loadStateDict/, /unknown option "momentum"/);
  // A dict that turns momentum (or AMSGrad) on gives this optimizer the state it lacked: it continues as the saved one.
  const c = model(values(m.w), values(m.b));
  using plain = new pt.optim.SGD([c.w, c.b], { lr: 1 });
  plain.loadStateDict(sd);
  pt.tidy(() => stepWith(plain, c, 1));
  pt.tidy(() => stepWith(opt, m, 1));
  assert.deepEqual(values(c.w), values(m.w), "loaded into an optimizer made without momentum");
  const ams = pt.tidy(() => {
    using src = new pt.optim.Adam([c.w, c.b], { amsgrad: true });
    stepWith(src, c, 0);
    return src.stateDict();
  });
  using noAms = new pt.optim.Adam([m.w, m.b]);
  noAms.loadStateDict(ams);
  assert.equal(noAms.paramGroups[0].options.amsgrad, true);
  pt.tidy(() => stepWith(noAms, m, 2));
  c.dispose();
  m.dispose();
});

test("parameters on two devices (the CPU and the default device) in one group: each reads its own device's rate and state", () => {
  using cpuP = pt.tensor(W0, { requiresGrad: true, device: "cpu" });
  using devP = pt.tensor(W0, { requiresGrad: true });
  using opt = new pt.optim.Adam([cpuP, devP], { lr: 0.1, amsgrad: true });
  for (let t = 0; t < 3; t++) {
    pt.tidy(() => {
      cpuP.grad = pt.tensor(GW[t], { device: "cpu" });
      devP.grad = pt.tensor(GW[t]);
      opt.step();
    });
    opt.lr = 0.1 / (t + 2);
  }
  const want = (() => {
    // three steps at lr 0.1, 0.05, 0.1/3: the reference run step by step with each rate
    let p = W0;
    const lrs = [0.1, 0.05, 0.1 / 3];
    const ms = W0.map(() => 0), vs = W0.map(() => 0), vm = W0.map(() => 0);
    lrs.forEach((lr, t0) => {
      const t = t0 + 1, bc1 = 1 - 0.9 ** t, bc2 = 1 - 0.999 ** t;
      p = p.map((pi, i) => {
        const d = f(GW[t0][i]);
        ms[i] = f(ms[i] + f(f(0.1) * f(d - ms[i])));
        vs[i] = f(f(f(0.999) * vs[i]) + f(f(f(1 - 0.999) * d) * d));
        vm[i] = Math.max(vm[i], vs[i]);
        const denom = f(f(f(Math.sqrt(vm[i])) / f(Math.sqrt(bc2))) + f(1e-8));
        return f(pi + f(f(-lr / bc1) * f(ms[i] / denom)));
      });
    });
    return p;
  })();
  close(cpuP, want, "the CPU parameter");
  close(devP, want, `the ${dev.id} parameter`);
});

// ---------------------------------------------------------------- schedulers

test("StepLR: the rates are base·gamma^floor(epoch/stepSize), and the device rate the update reads follows them", () => {
  using p = pt.tensor([0, 0], { requiresGrad: true });
  using q = pt.tensor([0], { requiresGrad: true });
  using opt = new pt.optim.SGD([{ params: [p] }, { params: [q], lr: 0.3 }], { lr: 0.1 });
  const sched = new pt.optim.StepLR(opt, { stepSize: 3, gamma: 0.5 });
  assert.deepEqual(sched.lastLr, [0.1, 0.3]);
  let want = 0;
  for (let e = 0; e < 10; e++) {
    const lr = 0.1 * 0.5 ** Math.floor(e / 3);
    assertClose(sched.lastLr, [lr, 0.3 * 0.5 ** Math.floor(e / 3)], 1e-15, 0, `epoch ${e}`);
    assert.equal(opt.paramGroups[0].lr, sched.lastLr[0]);
    pt.tidy(() => {
      p.grad = pt.ones([2]); // p -= lr each step, as the device holds lr (float32)
      opt.step();
    });
    want = f(want - f(lr));
    assert.deepEqual(values(p), [want, want], `epoch ${e}: p moved by the scheduled rate`);
    sched.step();
  }
  assert.equal(sched.lastEpoch, 10);
  assert.equal(new pt.optim.StepLR(opt, { stepSize: 1 }).gamma, 0.1);
});

test("CosineAnnealingLR: the rates are etaMin + (base - etaMin)(1 + cos(π·epoch/tMax))/2, past tMax too", () => {
  using p = pt.tensor([0], { requiresGrad: true });
  using q = pt.tensor([0], { requiresGrad: true });
  using opt = new pt.optim.Adam([{ params: [p], lr: 0.01 }, { params: [q], lr: 0.2 }]);
  const sched = new pt.optim.CosineAnnealingLR(opt, { tMax: 7, etaMin: 0.001 });
  for (let e = 0; e <= 20; e++) {
    const want = [0.01, 0.2].map((b) => (e === 0 ? b : 0.001 + (b - 0.001) * (1 + Math.cos(Math.PI * e / 7)) / 2));
    assertClose(sched.lastLr, want, 1e-14, 0, `epoch ${e}`);
    assert.deepEqual(opt.paramGroups.map((g) => g.lr), sched.lastLr);
    sched.step();
  }
  const s = sched.stateDict();
  const again = new pt.optim.CosineAnnealingLR(opt, { tMax: 7, etaMin: 0.001 });
  again.loadStateDict(s);
  assert.deepEqual(again.lastLr, sched.lastLr);
  assertClose(new pt.optim.CosineAnnealingLR(opt, { tMax: 4 }).baseLrs as number[], sched.lastLr, 0, 0);
});

// ---------------------------------------------------------------- memory, views, kernels

test("a 2000-step training loop (linear regression, Adam, inside pt.tidy) keeps the device memory in use flat", () => {
  const r = rng(7);
  const N = 64, D = 4, trueW = [0.5, -1, 2, 0.25];
  const xs = Array.from({ length: N * D }, () => r() * 2 - 1);
  const ys = Array.from({ length: N }, (_, i) => trueW.reduce((s, w, j) => s + w * xs[i * D + j], 0) + 0.3);
  using x = pt.tensor(xs).reshape([N, D]);
  using y = pt.tensor(ys);
  using w = pt.zeros([D], { requiresGrad: true });
  using b = pt.zeros([], { requiresGrad: true });
  using opt = new pt.optim.Adam([w, b], { lr: 0.02 });
  const sched = new pt.optim.CosineAnnealingLR(opt, { tMax: 2000, etaMin: 1e-3 });
  let at10 = 0, max = 0, loss = 0;
  for (let i = 1; i <= 2000; i++) {
    pt.tidy(() => {
      const l = x.mul(w).sum(1).add(b).sub(y).square().mean();
      l.backward();
      opt.step();
      opt.zeroGrad();
      if (i % 500 === 0) loss = l.item() as number;
    });
    sched.step();
    const inUse = pt.memoryStats(dev).inUse;
    if (i === 10) at10 = inUse;
    if (i > 10) max = Math.max(max, inUse);
  }
  assert.ok(max <= at10, `device memory in use grew from ${at10} bytes at step 10 to ${max}`);
  assert.ok(loss < 1e-4, `the loss converged (${loss})`);
  assertClose(values(w), trueW, 0, 1e-2, "w");
  assertClose([b.item() as number], [0.3], 0, 1e-2, "b");
});

test("an optimizer made, stepped and disposed with its parameters leaves no device memory in use (SGD, Adam, AdamW)", () => {
  const makers = [
    (ps: pt.Tensor[]) => new pt.optim.SGD(ps, { lr: 0.1, momentum: 0.9 }),
    (ps: pt.Tensor[]) => new pt.optim.Adam(ps, { lr: 0.1 }),
    (ps: pt.Tensor[]) => new pt.optim.AdamW(ps, { lr: 0.1, amsgrad: true }),
  ];
  for (const make of makers) {
    const before = pt.memoryStats(dev).inUse;
    const ps = [pt.zeros([5, 3], { requiresGrad: true }), pt.zeros([], { requiresGrad: true })], opt = make(ps);
    for (let i = 0; i < 2; i++) {
      for (const p of ps) p.grad = pt.onesLike(p);
      opt.step();
      opt.zeroGrad();
    }
    opt.dispose();
    for (const p of ps) p.dispose();
    assert.equal(pt.memoryStats(dev).inUse, before, opt.constructor.name);
  }
});

test("an optimizer step is seen through views of the parameter made before it", () => {
  using p = pt.tensor([1, 2, 3, 4, 5, 6], { requiresGrad: true });
  using grid = pt.noGrad(() => p.reshape([2, 3]));
  using odd = pt.noGrad(() => p.slice(0, 1, 6, 2));
  using colT = pt.noGrad(() => p.reshape([2, 3]).T);
  for (const opt of [new pt.optim.SGD([p], { lr: 0.5, momentum: 0.5 }), new pt.optim.Adam([p], { lr: 0.5 })]) {
    pt.tidy(() => {
      p.grad = pt.tensor([1, -1, 2, -2, 3, -3]);
      opt.step();
    });
    const now = values(p);
    assert.notDeepEqual(now, [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(values(grid), now);
    assert.deepEqual(values(odd), [now[1], now[3], now[5]]);
    assert.deepEqual(values(colT), [now[0], now[3], now[1], now[4], now[2], now[5]]);
    opt.dispose();
  }
});

testUnless(
  pt.lazyEnabled() ? null : "lazy mode is off (PT_LAZY=0): every op has its own kernel",
  "each write of a step is one fused kernel into the tensor's own storage: a step allocates no buffer",
  () => {
    const m = model();
    const makers: [string, (ps: pt.Tensor[]) => pt.optim.Optimizer][] = [
      ["SGD", (ps) => new pt.optim.SGD(ps, { lr: 0.1 })],
      ["SGD nesterov, weight decay", (ps) => new pt.optim.SGD(ps, { lr: 0.1, momentum: 0.9, nesterov: true, weightDecay: 0.1 })],
      ["Adam amsgrad, weight decay", (ps) => new pt.optim.Adam(ps, { amsgrad: true, weightDecay: 0.1 })],
      ["AdamW", (ps) => new pt.optim.AdamW(ps)],
    ];
    for (const [name, make] of makers) {
      const opt = make([m.w, m.b]);
      for (let t = 0; t < 3; t++) {
        pt.tidy(() => {
          m.w.grad = pt.tensor(GW[t]).reshape([2, 3]).materialize();
          m.b.grad = pt.tensor(GB[t]).materialize();
          const before = pt.memoryStats(dev).allocations;
          opt.step();
          assert.equal(pt.memoryStats(dev).allocations, before, `${name}, step ${t + 1}: buffers allocated`);
          opt.zeroGrad();
        });
      }
      opt.dispose();
    }
    m.dispose();
  },
);

// ---------------------------------------------------------------- captured steps

/** A linear model's training step: forward, backward, opt.step(), zeroGrad; returns the loss. */
function trainStep(w: pt.Tensor, b: pt.Tensor, opt: pt.optim.Optimizer): (x: pt.Tensor, y: pt.Tensor) => pt.Tensor {
  return (x, y) => {
    const loss = x.mul(w).sum(1).add(b).sub(y).square().mean();
    loss.backward();
    opt.step();
    opt.zeroGrad();
    return loss.detach();
  };
}

const CAPTURED: [string, (ps: pt.Tensor[]) => pt.optim.Optimizer][] = [
  ["SGD with momentum", (ps) => new pt.optim.SGD(ps, { lr: 0.05, momentum: 0.9, weightDecay: 0.01 })],
  ["Adam with amsgrad", (ps) => new pt.optim.Adam(ps, { lr: 0.05, amsgrad: true })],
  ["AdamW", (ps) => new pt.optim.AdamW(ps, { lr: 0.05 })],
];

test("pt.capture of a training step (forward, backward, opt.step) replayed N times gives the bits of N uncaptured steps", () => {
  const r = rng(9);
  const batches = Array.from({ length: 8 }, () => [Array.from({ length: 12 }, () => r() * 2 - 1), Array.from({ length: 4 }, () => r())]);
  for (const [name, make] of CAPTURED) {
    const run = (captured: boolean) => {
      using w = pt.tensor([0.1, -0.2, 0.3], { requiresGrad: true });
      using b = pt.zeros([], { requiresGrad: true });
      using opt = make([w, b]);
      const sched = new pt.optim.StepLR(opt, { stepSize: 2, gamma: 0.5 });
      const fn = trainStep(w, b, opt);
      using step = pt.capture(fn);
      using x = pt.zeros([4, 3]), y = pt.zeros([4]);
      const losses: number[] = [];
      for (const [xb, yb] of batches) {
        pt.tidy(() => {
          x.copy_(pt.tensor(xb).reshape([4, 3]));
          y.copy_(pt.tensor(yb));
        });
        // The step is called outside pt.tidy: see the test below.
        const loss = captured ? step(x, y) : fn(x, y);
        losses.push(loss.item() as number);
        loss.dispose();
        sched.step(); // between replays: the rate is a device tensor the replay reads
      }
      if (captured) assert.equal(step.replays, batches.length - 1, `${name}: replays`);
      const state = pt.tidy(() => {
        const sd = opt.stateDict();
        return Object.values(sd.state).map((s) => Object.values(s).map((v) => (v instanceof pt.Tensor ? values(v) : v)));
      });
      return { w: values(w), b: values(b), losses, state };
    };
    const plain = run(false), replayed = run(true);
    assert.deepEqual(replayed.losses, plain.losses, `${name}: losses`);
    assert.deepEqual(replayed.w, plain.w, `${name}: w bit for bit`);
    assert.deepEqual(replayed.b, plain.b, `${name}: b bit for bit`);
    assert.deepEqual(replayed.state, plain.state, `${name}: the optimizer's state (step counts, moments) bit for bit`);
  }
});

test(
  "a captured training step recorded inside pt.tidy replays",
  () => {
    using w = pt.tensor([0.1, -0.2, 0.3], { requiresGrad: true });
    using b = pt.zeros([], { requiresGrad: true });
    using opt = new pt.optim.SGD([w, b], { lr: 0.1 });
    using step = pt.capture(trainStep(w, b, opt));
    using x = pt.ones([4, 3]), y = pt.ones([4]);
    for (let i = 0; i < 3; i++) pt.tidy(() => void step(x, y));
    assert.equal(step.replays, 2);
  },
);

// ---------------------------------------------------------------- bad input

test("bad input is a TensorError naming the optimizer or scheduler and what was wrong", () => {
  using p = pt.tensor([1, 2], { requiresGrad: true });
  using plain = pt.tensor([1, 2]);
  using ints = pt.tensor([1, 2], { dtype: "int32" });
  using derived = p.mul(2);
  assertTensorError(() => new pt.optim.SGD([], { lr: 0.1 }), /^SGD: got an empty parameter list/);
  assertTensorError(() => new pt.optim.SGD([plain], { lr: 0.1 }), /^SGD: parameter 0 does not require gradients/);
  assertTensorError(() => new pt.optim.Adam([p, ints]), /^Adam: parameter 1 is int32; only floating-point tensors can be optimized/);
  assertTensorError(() => new pt.optim.AdamW([derived]), /^AdamW: parameter 0 is the result of a recorded op, not a leaf/);
  assertTensorError(() => new pt.optim.Adam([p, p]), /^Adam: parameter 1 appears more than once/);
  assertTensorError(() => new pt.optim.Adam([{ params: [p] }, { params: [p] }]), /^Adam: parameter 1 appears more than once/);
  assertTensorError(() => new pt.optim.SGD([p], { lr: -0.1 }), /^SGD: invalid learning rate: -0.1 \(must be a finite number >= 0\)/);
  assertTensorError(() => new pt.optim.SGD([p]), /^SGD: the parameters: no lr was given/);
  assertTensorError(() => new pt.optim.SGD([p], { lr: NaN }), /^SGD: invalid learning rate: NaN/);
  assertTensorError(() => new pt.optim.SGD([p], { lr: 0.1, momentum: -1 }), /^SGD: invalid momentum: -1/);
  assertTensorError(
    () => new pt.optim.SGD([p], { lr: 0.1, nesterov: true }),
    /^SGD: Nesterov momentum requires a momentum > 0 and zero dampening/,
  );
  assertTensorError(() => new pt.optim.Adam([p], { lr: -1 }), /^Adam: invalid learning rate: -1/);
  assertTensorError(
    () => new pt.optim.Adam([p], { betas: [1, 0.999] }),
    /^Adam: invalid beta parameter at index 0: 1 \(must be in \[0, 1\)\)/,
  );
  assertTensorError(() => new pt.optim.AdamW([p], { betas: [0.9, -0.1] }), /^AdamW: invalid beta parameter at index 1: -0.1/);
  assertTensorError(() => new pt.optim.Adam([p], { eps: -1e-8 }), /^Adam: invalid epsilon: -1e-8/);
  assertTensorError(() => new pt.optim.AdamW([p], { weightDecay: -1 }), /^AdamW: invalid weight decay: -1/);
  assertTensorError(() => new pt.optim.Adam([p], { weight_decay: 0.1 } as never), /^Adam: the options: unknown option "weight_decay"/);
  assertTensorError(() => new pt.optim.Adam([{ params: [p], lr: -2 }]), /^Adam: invalid learning rate: -2/);
  using opt = new pt.optim.SGD([p], { lr: 0.1 });
  assertTensorError(() => (opt.lr = -1), /^SGD: invalid learning rate: -1/);
  assertTensorError(() => (opt.paramGroups[0].lr = Infinity), /^SGD: invalid learning rate: Infinity/);
  p.grad = pt.zeros([3]);
  assertTensorError(() => opt.step(), /^SGD\.step: the gradient of parameter 0 has shape \[3\], the parameter \[2\]/);
  opt.zeroGrad();
  assertTensorError(() => new pt.optim.StepLR(opt, { stepSize: 0 }), /^StepLR: invalid stepSize: 0 \(must be a positive integer\)/);
  assertTensorError(() => new pt.optim.StepLR(opt, { stepSize: 2, gamma: -1 }), /^StepLR: invalid gamma: -1/);
  assertTensorError(
    () => new pt.optim.CosineAnnealingLR(opt, { tMax: 0 }),
    /^CosineAnnealingLR: invalid tMax: 0 \(must be a finite number > 0\)/,
  );
  assertTensorError(() => new pt.optim.CosineAnnealingLR(opt, { tMax: 5, etaMin: -1 }), /^CosineAnnealingLR: invalid etaMin: -1/);
  opt.dispose();
  assertTensorError(() => opt.step(), /^SGD\.step: this optimizer was disposed/);
});
