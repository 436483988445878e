/**
 * A multi-head scaled dot-product attention block written from the library's ops: q/k/v projections (batched matmul
 * with a bias), a reshape and permute into heads, scores q kᵀ / sqrt(d), an optional causal mask (a bool mask from
 * arange and gt, maskedFill with -Infinity), softmax from max, sub, exp, sum and div, the weighted sum of the values,
 * and the output projection. Runs it on seeded random inputs (pt.manualSeed), with and without the mask, and checks
 * the output against a plain JS loop on the same inputs (read back with toArray()), the softmax rows, the mask
 * (later tokens do not change earlier outputs) and that no tensor was left behind; a failure exits with status 1.
 *   deno run -A examples/attention.ts [--large]      or      bun examples/attention.ts [--large]
 * Sizes: --batch B --seq T --dim D --heads H (default 2, 16, 32, 4, small for CI); --large (or PT_EXAMPLE_LARGE=1)
 * takes 4, 128, 256, 8. PT_DEVICE picks the device (PT_DEVICE=cpu in CI).
 */
import * as pt from "../mod.ts";
import process from "node:process";

// ----- arguments
const args = process.argv.slice(2);
const large = args.includes("--large") || process.env.PT_EXAMPLE_LARGE === "1";
const num = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} needs a positive integer, got ${args[i + 1]}`);
  return v;
};
const B = num("--batch", large ? 4 : 2), T = num("--seq", large ? 128 : 16);
const D = num("--dim", large ? 256 : 32), HEADS = num("--heads", large ? 8 : 4);
if (D % HEADS !== 0) throw new Error(`--dim (${D}) must be a multiple of --heads (${HEADS})`);
const DH = D / HEADS;
const TOLERANCE = 1e-4; // float32 on the device against float64 in JS, for values of order 1

const dev = pt.defaultDevice();
console.log(`attention: batch ${B}, sequence ${T}, model dim ${D}, ${HEADS} heads of ${DH}, on ${dev.id}\n`);

interface Params {
  wq: pt.Tensor;
  wk: pt.Tensor;
  wv: pt.Tensor;
  wo: pt.Tensor;
  bq: pt.Tensor;
  bk: pt.Tensor;
  bv: pt.Tensor;
  bo: pt.Tensor;
}

/** softmax along an axis: exp(x - max) / sum(exp(x - max)), the max subtracted so that exp cannot overflow. */
function softmax(x: pt.Tensor, axis: number): pt.Tensor {
  const e = x.sub(x.max(axis, true)).exp();
  return e.div(e.sum(axis, true));
}

/**
 * x [B, T, D] -> [B, T, D], and the attention weights [B, H, T, T]. Call it inside pt.tidy: the intermediates it
 * makes are the tidy's to dispose.
 */
function attention(x: pt.Tensor, p: Params, causal: boolean): { out: pt.Tensor; weights: pt.Tensor } {
  const [b, t] = x.shape;
  const heads = (y: pt.Tensor) => y.reshape(b, t, HEADS, DH).permute(0, 2, 1, 3); // [B, T, D] -> [B, H, T, DH]
  const q = heads(x.matmul(p.wq).add(p.bq));
  const k = heads(x.matmul(p.wk).add(p.bk));
  const v = heads(x.matmul(p.wv).add(p.bv));
  let scores = q.matmul(k.transpose(-2, -1)).div(Math.sqrt(DH)); // [B, H, T, T]
  if (causal) {
    const i = pt.arange(t);
    const future = i.unsqueeze(0).gt(i.unsqueeze(1)); // [T, T] bool: key index > query index
    scores = scores.maskedFill(future, -Infinity);
  }
  const weights = softmax(scores, -1);
  const context = weights.matmul(v).permute(0, 2, 1, 3).reshape(b, t, D); // heads back side by side
  return { out: context.matmul(p.wo).add(p.bo), weights };
}

/** The same block as plain JS loops in float64 over row-major arrays. */
function attentionJs(x: Float32Array, p: Record<keyof Params, Float32Array>, causal: boolean): Float64Array {
  const project = (src: ArrayLike<number>, w: Float32Array, bias: Float32Array) => {
    const out = new Float64Array(B * T * D);
    for (let r = 0; r < B * T; r++) {
      for (let j = 0; j < D; j++) {
        let s = bias[j];
        for (let i = 0; i < D; i++) s += src[r * D + i] * w[i * D + j];
        out[r * D + j] = s;
      }
    }
    return out;
  };
  const q = project(x, p.wq, p.bq), k = project(x, p.wk, p.bk), v = project(x, p.wv, p.bv);
  const context = new Float64Array(B * T * D);
  const row = new Float64Array(T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < HEADS; h++) {
      for (let t = 0; t < T; t++) {
        const last = causal ? t : T - 1;
        let max = -Infinity;
        for (let s = 0; s <= last; s++) {
          let dot = 0;
          for (let d = 0; d < DH; d++) dot += q[(b * T + t) * D + h * DH + d] * k[(b * T + s) * D + h * DH + d];
          row[s] = dot / Math.sqrt(DH);
          max = Math.max(max, row[s]);
        }
        let sum = 0;
        for (let s = 0; s <= last; s++) sum += row[s] = Math.exp(row[s] - max);
        for (let d = 0; d < DH; d++) {
          let acc = 0;
          for (let s = 0; s <= last; s++) acc += (row[s] / sum) * v[(b * T + s) * D + h * DH + d];
          context[(b * T + t) * D + h * DH + d] = acc;
        }
      }
    }
  }
  return project(context, p.wo, p.bo);
}

let failures = 0;
function report(what: string, worst: number, tol: number): void {
  const ok = worst <= tol; // NaN fails
  if (!ok) failures++;
  console.log(`  ${ok ? "ok  " : "FAIL"} ${what}: max abs difference ${worst.toExponential(2)} (tolerance ${tol})`);
}
const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>, n = Math.max(a.length, b.length)) => {
  let worst = a.length === b.length ? 0 : NaN;
  for (let i = 0; i < n; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= worst)) worst = d;
  }
  return worst;
};

function run(): void {
  pt.manualSeed(0);
  const scale = 1 / Math.sqrt(D); // keeps the projections' outputs of order 1
  using x = pt.randn([B, T, D]);
  const names = ["wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo"] as const;
  const params = pt.tidy(() =>
    Object.fromEntries(names.map((n) => [n, n[0] === "w" ? pt.randn([D, D]).mul(scale) : pt.randn([D]).mul(0.1)]))
  ) as unknown as Params;
  using _params = { [Symbol.dispose]: () => Object.values(params).forEach((t) => t.dispose()) };
  const host = Object.fromEntries(names.map((n) => [n, params[n].toArray() as Float32Array])) as Record<keyof Params, Float32Array>;
  const xs = x.toArray() as Float32Array;
  // The same input with the last token replaced: with the mask, every earlier output must stay as it was.
  using changed = pt.tidy(() => pt.cat([x.narrow(1, 0, T - 1), pt.randn([B, 1, D])], 1));

  for (const causal of [false, true]) {
    console.log(causal ? "causal (each token attends to itself and earlier ones):" : "full (each token attends to every one):");
    const t0 = performance.now();
    const { out, weights } = pt.tidy(() => attention(x, params, causal));
    using _out = out, _weights = weights;
    const got = out.toArray() as Float32Array;
    const ms = performance.now() - t0;
    const t1 = performance.now();
    const want = attentionJs(xs, host, causal);
    console.log(`  polytensor ${ms.toFixed(1)} ms, plain JS loop ${(performance.now() - t1).toFixed(1)} ms`);
    report(`output [${out.shape}] against the plain JS loop`, maxAbsDiff(got, want), TOLERANCE);

    using rowSums = weights.sum(-1);
    report(
      `softmax rows [${rowSums.shape}] sum to 1`,
      maxAbsDiff(rowSums.toArray() as Float32Array, new Float64Array(rowSums.numel).fill(1)),
      1e-5,
    );
    if (causal) {
      using upper = pt.tidy(() => {
        const i = pt.arange(T);
        return weights.maskedFill(i.unsqueeze(0).le(i.unsqueeze(1)), 0).abs().max(); // the weights above the diagonal
      });
      report("weights on later tokens are 0", upper.item() as number, 0);
      using again = pt.tidy(() => attention(changed, params, true).out.narrow(1, 0, T - 1).contiguous());
      using before = pt.tidy(() => out.narrow(1, 0, T - 1).contiguous());
      report(
        "changing the last token leaves the earlier outputs",
        maxAbsDiff(again.toArray() as Float32Array, before.toArray() as Float32Array),
        1e-6,
      );
    }
  }
}

const inUse = pt.memoryStats(dev).inUse;
run();
const leaked = pt.memoryStats(dev).inUse - inUse;
if (leaked !== 0) failures++;
console.log(`${leaked === 0 ? "ok  " : "FAIL"} memory in use on ${dev.id} after the run: ${leaked} bytes more than before`);
if (failures > 0) {
  console.error(`attention: ${failures} check(s) failed`);
  process.exit(1);
}
console.log("attention: all checks passed");
