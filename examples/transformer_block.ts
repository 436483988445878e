/**
 * One pre-norm transformer block trained on a toy task, to show the forward and backward passes of its parts working
 * together: token and learned position embeddings (`pt.nn.embedding`), x + attention(layerNorm(x)) with multi-head
 * causal attention (`pt.nn.scaledDotProductAttention` with isCausal), x + mlp(layerNorm(x)) with a gelu MLP of
 * width 4 D, a final layerNorm and a linear head, `pt.nn.crossEntropy` on the next token, `loss.backward()` and an
 * AdamW step. The task: each sequence repeats a fresh random pattern of PERIOD tokens, so after the first period the
 * next token is the one PERIOD - 1 places back, which one causal attention head can learn to fetch (through the
 * position embeddings); the first period's tokens stay unpredictable, so the loss can fall from ln(vocab) towards
 * (PERIOD - 1) / (T - 1) of it. Prints the loss every 50 steps and exits with status 1 unless the last steps' mean
 * loss is below half the first's.
 *   deno run -A examples/transformer_block.ts      or      bun examples/transformer_block.ts
 * Flags: --steps N (300), --batch B (16), --seq T (24), --dim D (32), --heads H (4), --vocab V (12), --period P (4),
 * --lr X (3e-3), --seed N (0). PT_DEVICE picks the device.
 * `transformer()` and `train()` are exported for test/examples.test.ts, which runs a short version.
 */
import * as pt from "../mod.ts";
import process from "node:process";

export interface Config {
  vocab: number;
  seq: number;
  dim: number;
  heads: number;
}

/** The parameters (leaves) and the logits [B, T, vocab] of tokens [B, T]. */
export interface Model {
  params: pt.Tensor[];
  logits(tokens: pt.Tensor): pt.Tensor;
}

/** A leaf of the given shape, uniform in ±1/sqrt(fanIn) (torch.nn.Linear's rule), or filled with a constant. */
function leaf(shape: number[], fanIn: number | null, fill = 0): pt.Tensor {
  if (fanIn === null) return pt.full(shape, fill).requiresGrad_();
  const bound = 1 / Math.sqrt(fanIn);
  return pt.tidy(() => pt.rand(shape).mul(2 * bound).sub(bound)).requiresGrad_();
}

/** Embeddings, one pre-norm block (causal multi-head attention, a gelu MLP, each with a residual) and a linear head. */
export function transformer(c: Config): Model {
  const { vocab, seq: T, dim: D, heads: H } = c;
  if (D % H !== 0) throw new Error(`dim ${D} must be a multiple of heads ${H}`);
  const tok = pt.tidy(() => pt.randn([vocab, D]).mul(0.5)).requiresGrad_(), pos = pt.tidy(() => pt.randn([T, D]).mul(0.5)).requiresGrad_();
  const norm = () => [leaf([D], null, 1), leaf([D], null, 0)];
  const [g1, n1] = norm(), [g2, n2] = norm(), [gf, nf] = norm();
  const wqkv = leaf([3 * D, D], D), bqkv = leaf([3 * D], D), wo = leaf([D, D], D), bo = leaf([D], D);
  const w1 = leaf([4 * D, D], D), b1 = leaf([4 * D], D), w2 = leaf([D, 4 * D], 4 * D), b2 = leaf([D], 4 * D);
  const head = leaf([vocab, D], D);

  /** Causal self-attention of x [B, T, D]: q, k, v in H heads of D / H, scaledDotProductAttention, heads merged. */
  const attention = (x: pt.Tensor): pt.Tensor => {
    const [b, t] = x.shape;
    const qkv = pt.nn.linear(x, wqkv, bqkv).reshape([b, t, 3, H, D / H]).permute([2, 0, 3, 1, 4]); // [3, B, H, T, D/H]
    const [q, k, v] = qkv.unbind(0);
    const y = pt.nn.scaledDotProductAttention(q, k, v, { isCausal: true }); // [B, H, T, D/H]
    return pt.nn.linear(y.transpose(1, 2).reshape([b, t, D]), wo, bo);
  };
  const mlp = (x: pt.Tensor) => pt.nn.linear(pt.nn.linear(x, w1, b1).gelu(), w2, b2);
  return {
    params: [tok, pos, g1, n1, g2, n2, gf, nf, wqkv, bqkv, wo, bo, w1, b1, w2, b2, head],
    logits: (tokens) => {
      const t = tokens.shape[1];
      let x = pt.nn.embedding(tokens, tok).add(pos.narrow(0, 0, t));
      x = x.add(attention(pt.nn.layerNorm(x, [D], g1, n1)));
      x = x.add(mlp(pt.nn.layerNorm(x, [D], g2, n2)));
      return pt.nn.linear(pt.nn.layerNorm(x, [D], gf, nf), head);
    },
  };
}

export interface TrainOptions extends Config {
  steps: number;
  batch: number;
  period: number;
  lr: number;
  seed: number;
  /** Called after each step with its loss (the example prints every 50th). */
  onStep?: (step: number, loss: number) => void;
}

/** mulberry32: the seeded stream the sequences are drawn from (floats in [0, 1)). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Trains a fresh model on fresh repeating sequences each step; returns every step's loss (its parameters freed). */
export function train(o: TrainOptions): number[] {
  pt.manualSeed(o.seed);
  const model = transformer(o), random = prng(o.seed + 1), losses: number[] = [];
  const opt = new pt.optim.AdamW(model.params, { lr: o.lr, weightDecay: 0.01 });
  for (let step = 1; step <= o.steps; step++) {
    const data = new Int32Array(o.batch * o.seq);
    for (let b = 0; b < o.batch; b++) {
      const pattern = Array.from({ length: o.period }, () => Math.floor(random() * o.vocab));
      for (let t = 0; t < o.seq; t++) data[b * o.seq + t] = pattern[t % o.period];
    }
    const loss = pt.tidy(() => {
      const tokens = pt.tensor(data).reshape([o.batch, o.seq]);
      const z = model.logits(tokens.narrow(1, 0, o.seq - 1)); // predict token t + 1 from tokens 0..t
      const l = pt.nn.crossEntropy(z.reshape([-1, o.vocab]), tokens.narrow(1, 1, o.seq - 1).reshape([-1]));
      l.backward();
      opt.step();
      opt.zeroGrad();
      return Number(l.item());
    });
    losses.push(loss);
    o.onStep?.(step, loss);
  }
  opt.dispose();
  for (const p of model.params) p.dispose();
  return losses;
}

/** The mean of the first or last n values. */
export const meanOf = (xs: readonly number[], n: number, last: boolean) =>
  (last ? xs.slice(-n) : xs.slice(0, n)).reduce((a, b) => a + b, 0) / Math.min(n, xs.length);

function main(): void {
  const args = process.argv.slice(2);
  const num = (name: string, fallback: number): number => {
    const i = args.indexOf(name);
    if (i < 0) return fallback;
    const v = Number(args[i + 1]);
    if (!(v >= 0)) throw new Error(`${name} needs a number >= 0, got ${args[i + 1]}`);
    return v;
  };
  const o: TrainOptions = {
    steps: num("--steps", 300),
    batch: num("--batch", 16),
    seq: num("--seq", 24),
    dim: num("--dim", 32),
    heads: num("--heads", 4),
    vocab: num("--vocab", 12),
    period: num("--period", 4),
    lr: num("--lr", 3e-3),
    seed: num("--seed", 0),
    onStep: (step, loss) => {
      if (step === 1 || step % 50 === 0) console.log(`step ${step}: loss ${loss.toFixed(4)}`);
    },
  };
  const floor = Math.log(o.vocab) * (o.period - 1) / (o.seq - 1);
  console.log(
    `transformer_block: batch ${o.batch} of ${o.seq} tokens (vocab ${o.vocab}, period ${o.period}), dim ${o.dim}, ` +
      `${o.heads} heads, on ${pt.defaultDevice().id}; loss starts near ln(${o.vocab}) = ${Math.log(o.vocab).toFixed(3)}, ` +
      `the unpredictable first period alone costs ${floor.toFixed(3)}`,
  );
  const t0 = performance.now(), losses = train(o), secs = (performance.now() - t0) / 1000;
  const n = Math.max(1, Math.min(20, Math.floor(losses.length / 4)));
  const first = meanOf(losses, n, false), last = meanOf(losses, n, true);
  console.log(`mean loss of the first ${n} steps ${first.toFixed(4)}, of the last ${n} ${last.toFixed(4)} (${secs.toFixed(1)} s)`);
  if (!(last < first / 2)) {
    console.error(`FAILED: the loss did not fall below half its start`);
    process.exit(1);
  }
  console.log("transformer_block: all checks passed");
}

if (import.meta.main) main();
