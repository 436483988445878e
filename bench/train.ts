/**
 * Training-step benchmark of issue #25: an MLP trained on one fixed batch, the step being
 * forward (matmul + bias + relu, then a log-softmax cross-entropy from the library's ops),
 * backward, optimizer step and zeroGrad, all inside pt.tidy. Timed eagerly (each op sent as
 * the program reaches it, lazy fusion as configured) and as one step captured with pt.capture.
 *
 *   big:   MLP 784-1024-1024-10, batch 256, Adam lr 1e-3
 *   small: MLP 784-64-10, batch 64, SGD lr 0.1 (momentum 0)
 *
 * The weights, inputs and labels come from a counter-based hash (hashUniform), which
 * bench/train_torch.py and bench/train_numpy.py compute identically, so the losses of the
 * first CHECK_STEPS steps from the same start (loss_check) must agree between the three up to
 * float32 rounding: a wrong gradient or update shows there, and in loss_final (the loss of the
 * last timed step, after steps_total steps). Weights are [in, out], the layer being x @ W + b;
 * the initial bounds are nn.Linear's (1/sqrt(fan_in)).
 *
 * Timing: warm-up steps (WARM_MS, at least WARM_MIN), then repetitions of n steps each ended
 * by a device sync (n chosen so that one repetition takes about REP_MS), until BUDGET_MS or
 * MAX_REPS; ms_per_step is the median over repetitions of (repetition time / n).
 *
 *     PT_DEVICE=cuda deno run -A bench/train.ts [big|small ...]      (also runs under bun)
 *
 * PT_BENCH_QUICK=1: a few steps only (a test of the harness). PT_TRAIN_BUDGET_MS: sampling
 * time per case and mode (default 3000). PT_TRAIN_MODES: "eager,captured" (default).
 * Prints {device, runtime, lazy, optimizer, cases: {name: {eager, captured}}, errors} on
 * stdout; progress goes to stderr. A mode that throws is reported in errors under
 * "case/mode" with the message, and the others still run.
 */
import * as pt from "../mod.ts";

type Env = {
  Deno?: { env: { get(n: string): string | undefined }; args: string[] };
  process?: { env: Record<string, string | undefined>; argv: string[] };
};
const g = globalThis as unknown as Env & { Bun?: { version: string } };
function env(name: string): string | undefined {
  try {
    return g.Deno ? g.Deno.env.get(name) : g.process?.env[name];
  } catch {
    return undefined;
  }
}
const QUICK = env("PT_BENCH_QUICK") === "1";
const BUDGET_MS = QUICK ? 0 : Number(env("PT_TRAIN_BUDGET_MS") || 3000);
const WARM_MS = QUICK ? 0 : 1500, WARM_MIN = QUICK ? 1 : 10, WARM_MAX = QUICK ? 1 : 5000;
const REP_MS = QUICK ? 0 : 100, MIN_REPS = QUICK ? 2 : 5, MAX_REPS = QUICK ? 2 : 40, MAX_N = QUICK ? 2 : 1000;
const CHECK_STEPS = 3;
const MODES = (env("PT_TRAIN_MODES") || "eager,captured").split(",").map((s) => s.trim()).filter(Boolean);
const args = g.Deno?.args ?? g.process?.argv.slice(2) ?? [];

interface CaseDef {
  name: string;
  sizes: number[];
  batch: number;
  opt: "adam" | "sgd";
  lr: number;
}
const CASES: CaseDef[] = [
  { name: "big", sizes: [784, 1024, 1024, 10], batch: 256, opt: "adam", lr: 1e-3 },
  { name: "small", sizes: [784, 64, 10], batch: 64, opt: "sgd", lr: 0.1 },
];

// ----- deterministic data, shared with train_torch.py / train_numpy.py (hash_uniform there)
/** n values lo + (hi - lo) * u, u = hash(i + seed * 0x27d4eb2d) / 2^32, rounded to float32. */
export function hashUniform(n: number, seed: number, lo: number, hi: number): Float32Array {
  const out = new Float32Array(n), s = Math.imul(seed, 0x27d4eb2d) >>> 0;
  for (let i = 0; i < n; i++) {
    let x = (i + s) >>> 0;
    x = Math.imul((x >>> 16) ^ x, 0x45d9f3b) >>> 0;
    x = Math.imul((x >>> 16) ^ x, 0x45d9f3b) >>> 0;
    x = ((x >>> 16) ^ x) >>> 0;
    out[i] = lo + (hi - lo) * (x / 4294967296);
  }
  return out;
}
/** Layer l's weight [in, out] (seed 2l + 1) and bias [out] (seed 2l + 2), bounds 1/sqrt(in); x (seed 100) in [0, 1); labels (seed 101) in 0..9. */
function initParams(c: CaseDef): { w: Float32Array; b: Float32Array; shape: [number, number] }[] {
  const out = [];
  for (let l = 0; l + 1 < c.sizes.length; l++) {
    const fin = c.sizes[l], fout = c.sizes[l + 1], bound = 1 / Math.sqrt(fin);
    out.push({
      w: hashUniform(fin * fout, 2 * l + 1, -bound, bound),
      b: hashUniform(fout, 2 * l + 2, -bound, bound),
      shape: [fin, fout] as [number, number],
    });
  }
  return out;
}
function batchData(c: CaseDef): { x: Float32Array; y: Int32Array } {
  const x = hashUniform(c.batch * c.sizes[0], 100, 0, 1);
  const u = hashUniform(c.batch, 101, 0, 1), y = new Int32Array(c.batch);
  for (let i = 0; i < c.batch; i++) y[i] = Math.min(9, Math.floor(u[i] * 10));
  return { x, y };
}

// ----- the optimizer: pt.optim's, as torch.optim's (SGD without momentum, Adam with its defaults)
function makeOptimizer(c: CaseDef, params: pt.Tensor[]): pt.optim.Optimizer {
  return c.opt === "adam" ? new pt.optim.Adam(params, { lr: c.lr }) : new pt.optim.SGD(params, { lr: c.lr, momentum: 0 });
}

// ----- the model and its step
interface Model {
  params: pt.Tensor[]; // w0, b0, w1, b1, ...
  opt: pt.optim.Optimizer;
  x: pt.Tensor;
  y: pt.Tensor;
  classes: pt.Tensor; // arange(10), for the one-hot
  dispose(): void;
}
function makeModel(c: CaseDef): Model {
  const params: pt.Tensor[] = [];
  for (const l of initParams(c)) {
    params.push(pt.fromBuffer(l.w, { shape: l.shape, requiresGrad: true }));
    params.push(pt.fromBuffer(l.b, { shape: [l.shape[1]], requiresGrad: true }));
  }
  const d = batchData(c);
  const x = pt.fromBuffer(d.x, { shape: [c.batch, c.sizes[0]] });
  const y = pt.fromBuffer(d.y, { shape: [c.batch] });
  const classes = pt.arange(c.sizes[c.sizes.length - 1], undefined, 1, { dtype: "int32" });
  const opt = makeOptimizer(c, params);
  return {
    params,
    opt,
    x,
    y,
    classes,
    dispose() {
      opt.dispose();
      for (const t of [...params, x, y, classes]) t.dispose();
    },
  };
}

/** Mean cross-entropy of logits [B, C] against int labels [B]: logsumexp (row max detached) minus the label's logit. */
function crossEntropy(logits: pt.Tensor, labels: pt.Tensor, classes: pt.Tensor): pt.Tensor {
  const m = logits.detach().max(1, true);
  const lse = logits.sub(m).exp().sum(1, true).log().add(m);
  const onehot = labels.unsqueeze(1).eq(classes);
  const picked = logits.mul(onehot).sum(1, true);
  return lse.sub(picked).mean();
}
function forward(model: Model, x: pt.Tensor): pt.Tensor {
  let h = x;
  const p = model.params, layers = p.length / 2;
  for (let l = 0; l < layers; l++) {
    h = h.matmul(p[2 * l]).add(p[2 * l + 1]);
    if (l + 1 < layers) h = h.relu();
  }
  return h;
}
/** One training step; returns the loss (before the update), materialized. */
function trainStep(model: Model, x: pt.Tensor, y: pt.Tensor): pt.Tensor {
  return pt.tidy(() => {
    const loss = crossEntropy(forward(model, x), y, model.classes);
    loss.materialize();
    loss.backward();
    model.opt.step();
    model.opt.zeroGrad();
    return loss;
  });
}

// ----- timing
interface ModeResult {
  ms_per_step: number;
  p10_ms: number;
  p90_ms: number;
  reps: number;
  steps_per_rep: number;
  warmup_steps: number;
  loss_check: number[];
  loss_final: number;
  steps_total: number;
  recordings?: number;
  replays?: number;
}
function quantile(sorted: number[], p: number): number {
  const at = (sorted.length - 1) * p, lo = Math.floor(at), hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}
const sync = () => pt.defaultDevice().sync();
const lossValue = (l: pt.Tensor) => Number(l.item());

function timeMode(c: CaseDef, mode: string): ModeResult {
  const model = makeModel(c);
  let cap: pt.CapturedStep<[pt.Tensor, pt.Tensor], pt.Tensor> | null = null;
  let step: () => pt.Tensor;
  if (mode === "eager") step = () => trainStep(model, model.x, model.y);
  else if (mode === "captured") {
    const captured = pt.capture((x: pt.Tensor, y: pt.Tensor) => trainStep(model, x, y));
    cap = captured;
    step = () => captured(model.x, model.y);
  } else throw new Error(`unknown mode ${mode} (eager or captured)`);
  let steps = 0;
  try {
    const check: number[] = [];
    for (let i = 0; i < CHECK_STEPS; i++, steps++) {
      const l = step();
      check.push(lossValue(l));
      l.dispose();
    }
    const w0 = performance.now();
    let warm = 0;
    // A sync every 8 steps, so that the clock sees the device's progress (a replay only queues its work).
    for (; warm < WARM_MAX && (warm < WARM_MIN || performance.now() - w0 < WARM_MS); warm++, steps++) {
      step().dispose();
      if (warm % 8 === 7) sync();
    }
    sync();
    const warmPer = (performance.now() - w0) / warm;
    // The steps per repetition, from a short timed run (or the warm-up's average, when faster: one slow probe step
    // would make every repetition a single step).
    const probe = QUICK ? 1 : 5, p0 = performance.now();
    for (let i = 0; i < probe; i++, steps++) step().dispose();
    sync();
    const per = Math.min(warmPer, (performance.now() - p0) / probe);
    const n = Math.max(1, Math.min(MAX_N, Math.ceil(REP_MS / Math.max(per, 1e-3))));
    const t: number[] = [];
    let last: pt.Tensor | null = null;
    const t0 = performance.now();
    while (t.length < MIN_REPS || (t.length < MAX_REPS && performance.now() - t0 < BUDGET_MS)) {
      const a = performance.now();
      for (let i = 0; i < n; i++, steps++) {
        last?.dispose();
        last = step();
      }
      sync();
      t.push((performance.now() - a) / n);
    }
    const final = lossValue(last!);
    last!.dispose();
    t.sort((x, y) => x - y);
    const r: ModeResult = {
      ms_per_step: quantile(t, 0.5),
      p10_ms: quantile(t, 0.1),
      p90_ms: quantile(t, 0.9),
      reps: t.length,
      steps_per_rep: n,
      warmup_steps: warm + probe,
      loss_check: check,
      loss_final: final,
      steps_total: steps,
    };
    if (cap) Object.assign(r, { recordings: cap.recordings, replays: cap.replays });
    return r;
  } finally {
    cap?.dispose();
    model.dispose();
  }
}

const selected = CASES.filter((c) => args.length === 0 || args.includes(c.name));
for (const a of args) if (!CASES.some((c) => c.name === a)) throw new Error(`unknown case ${a} (big or small)`);
const dev = pt.defaultDevice();
const runtime = g.Bun
  ? `bun ${g.Bun.version}`
  : g.Deno
  ? `deno ${(g.Deno as unknown as { version: { deno: string } }).version.deno}`
  : "unknown";
const out: Record<string, Record<string, ModeResult>> = {}, errors: Record<string, string> = {};
for (const c of selected) {
  out[c.name] = {};
  for (const mode of MODES) {
    try {
      const r = timeMode(c, mode);
      out[c.name][mode] = r;
      console.error(
        `${c.name}/${mode}: ${r.ms_per_step.toFixed(4)} ms/step (${r.reps} x ${r.steps_per_rep} steps), ` +
          `loss ${r.loss_check.map((l) => l.toFixed(5)).join(" ")} .. ${r.loss_final.toFixed(5)} after ${r.steps_total} steps`,
      );
    } catch (e) {
      const err = e as Error;
      errors[`${c.name}/${mode}`] = `${err.name}: ${err.message}`;
      console.error(`${c.name}/${mode}: ERROR ${err.name}: ${err.message}\n${err.stack ?? ""}`);
    }
  }
}
console.log(JSON.stringify(
  {
    device: `${dev.id} ${dev.info.name}, blas: ${dev.has("blas")}`,
    runtime,
    lazy: pt.lazyEnabled(),
    optimizer: "pt.optim (Adam for big, SGD for small)",
    quick: QUICK,
    cases: out,
    errors,
  },
  null,
  1,
));
