/**
 * pt.nn's layer functions against plain JS loops in float64: silu, softplus, leakyRelu and
 * hardtanh; dropout's rate, scaling and seed; embedding (and paddingIdx's gradient);
 * layerNorm, rmsNorm, groupNorm and batchNorm (its running statistics too); scaled
 * dot-product attention with causal, bool and float masks over broadcast batch dims; strided
 * inputs; gradients against finite differences; bad input as TensorErrors.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, rng, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

function rand(shape: number[], seed: number, scale = 3): { t: pt.Tensor; v: number[] } {
  const r = rng(seed), n = shape.reduce((a, b) => a * b, 1);
  const v = Array.from({ length: n }, () => Math.fround(scale * (2 * r() - 1)));
  return { t: pt.tensor(Float32Array.from(v)).reshape(shape), v };
}

/** (v - mean) / sqrt(var + eps) over consecutive groups of `size` elements. */
function jsNormalize(v: number[], size: number, eps: number, rms = false): number[] {
  const out: number[] = [];
  for (let g = 0; g < v.length; g += size) {
    const part = v.slice(g, g + size), mean = rms ? 0 : part.reduce((a, b) => a + b, 0) / size;
    const variance = part.reduce((a, b) => a + (b - mean) ** 2, 0) / size;
    out.push(...part.map((x) => (x - mean) / Math.sqrt(variance + eps)));
  }
  return out;
}

test("silu, softplus, leakyRelu and hardtanh match their formulas, softplus's threshold included", () => {
  const x = [-30, -2.5, -0.3, 0, 0.4, 3, 12, 25];
  const t = pt.tensor(x);
  assertClose(nums(pt.nn.silu(t)), x.map((u) => u / (1 + Math.exp(-u))), 1e-6, 1e-7, "silu");
  assertClose(nums(pt.nn.softplus(t)), x.map((u) => (u > 20 ? u : Math.log1p(Math.exp(u)))), 1e-6, 1e-7, "softplus");
  assertClose(nums(pt.nn.softplus(t, 2, 10)), x.map((u) => (2 * u > 10 ? u : Math.log1p(Math.exp(2 * u)) / 2)), 1e-6, 1e-7, "beta 2");
  assertClose(nums(pt.nn.leakyRelu(t, 0.2)), x.map((u) => (u > 0 ? u : 0.2 * u)), 1e-6, 1e-7, "leakyRelu");
  assertClose(nums(pt.nn.hardtanh(t, -2, 5)), x.map((u) => Math.fround(Math.min(5, Math.max(-2, u)))), 0, 0, "hardtanh");
});

test("dropout zeroes about p of the elements, scales the rest, repeats under a seed, and is the identity off training", () => {
  const x = pt.full([100, 100], 2);
  pt.manualSeed(7);
  const a = nums(pt.nn.dropout(x, 0.3));
  const zeros = a.filter((u) => u === 0).length;
  assert.ok(Math.abs(zeros / 1e4 - 0.3) < 0.02, `${zeros} of 10000 zeroed`);
  assert.ok(a.every((u) => u === 0 || Math.abs(u - 2 / 0.7) < 1e-6), "kept elements are scaled by 1 / (1 - p)");
  pt.manualSeed(7);
  assert.deepEqual(nums(pt.nn.dropout(x, 0.3)), a, "the same seed gives the same mask");
  assert.deepEqual(nums(pt.nn.dropout(x, 0.3, false)), nums(x));
  assert.deepEqual(nums(pt.nn.dropout(x, 1)), new Array(1e4).fill(0));
  assertTensorError(() => pt.nn.dropout(x, 1.5), /nn\.dropout/, /p must be a number in \[0, 1\]/);
});

test("embedding picks rows for any index shape; paddingIdx's row gets no gradient", () => {
  const w = pt.tensor([[0, 1], [10, 11], [20, 21], [30, 31]], { requiresGrad: true });
  const idx = pt.tensor([[3n, 0n, 3n], [1n, 1n, 2n]]);
  const e = pt.nn.embedding(idx, w, 1);
  assert.deepEqual([...e.shape], [2, 3, 2]);
  assert.deepEqual(nums(e), [30, 31, 0, 1, 30, 31, 10, 11, 10, 11, 20, 21]);
  e.sum().backward();
  assert.deepEqual(nums(w.grad!), [1, 1, 0, 0, 1, 1, 2, 2], "row 1 is padding: no gradient; others count their uses");
  assert.deepEqual(nums(pt.nn.embedding(pt.tensor(2n), w)), [20, 21]);
  assertTensorError(() => pt.nn.embedding(pt.tensor([1.5]), w), /nn\.embedding/, /integer tensor/);
  assertTensorError(() => pt.nn.embedding(idx, w, 4), /nn\.embedding/, /paddingIdx/);
});

test("layerNorm and rmsNorm over one and two trailing dims, with weight and bias, on a strided input", () => {
  const { t, v } = rand([4, 3, 5], 1);
  assertClose(nums(pt.nn.layerNorm(t, [5])), jsNormalize(v, 5, 1e-5), 1e-5, 1e-5, "layerNorm [5]");
  assertClose(nums(pt.nn.layerNorm(t, [3, 5], undefined, undefined, 0.1)), jsNormalize(v, 15, 0.1), 1e-5, 1e-5, "layerNorm [3, 5]");
  const { t: w, v: wv } = rand([5], 2), { t: b, v: bv } = rand([5], 3);
  const affine = jsNormalize(v, 5, 1e-5).map((y, i) => y * wv[i % 5] + bv[i % 5]);
  assertClose(nums(pt.nn.layerNorm(t, [5], w, b)), affine, 1e-5, 1e-5, "affine");
  const rms = jsNormalize(v, 5, 2 ** -23, true).map((y, i) => y * wv[i % 5]);
  assertClose(nums(pt.nn.rmsNorm(t, [5], w)), rms, 1e-5, 1e-5, "rmsNorm");
  const view = t.permute([2, 1, 0]); // [5, 3, 4], strided
  const dense = nums(view.contiguous());
  assertClose(nums(pt.nn.layerNorm(view, [4])), jsNormalize(dense, 4, 1e-5), 1e-5, 1e-5, "strided");
  assertTensorError(() => pt.nn.layerNorm(t, [3]), /nn\.layerNorm/, /not a suffix/);
  assertTensorError(() => pt.nn.layerNorm(t, [5], pt.ones([4])), /nn\.layerNorm/, /weight must have shape \[5\]/);
});

test("groupNorm normalizes each group of channels and applies per-channel weight and bias", () => {
  const { t, v } = rand([2, 6, 5], 4), { t: w, v: wv } = rand([6], 5), { t: b, v: bv } = rand([6], 6);
  const y = jsNormalize(v, 10, 1e-5).map((u, i) => u * wv[Math.floor(i / 5) % 6] + bv[Math.floor(i / 5) % 6]);
  assertClose(nums(pt.nn.groupNorm(t, 3, w, b)), y, 1e-5, 1e-5);
  assertClose(nums(pt.nn.groupNorm(t, 1)), jsNormalize(v, 30, 1e-5), 1e-5, 1e-5, "one group");
  assertTensorError(() => pt.nn.groupNorm(t, 4), /nn\.groupNorm/, /dividing the 6 channels/);
});

test("batchNorm: training uses the batch's statistics and updates the running ones; inference uses the running ones", () => {
  const { t, v } = rand([4, 3, 2], 7), rm = pt.zeros([3]), rv = pt.ones([3]);
  const per = (c: number) => v.filter((_, i) => Math.floor(i / 2) % 3 === c);
  const stats = [0, 1, 2].map((c) => {
    const xs = per(c), m = xs.reduce((a, b) => a + b, 0) / xs.length;
    return { m, biased: xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length, n: xs.length };
  });
  const y = pt.nn.batchNorm(t, rm, rv, { training: true, momentum: 0.2 });
  assertClose(
    nums(y),
    v.map((x, i) => {
      const s = stats[Math.floor(i / 2) % 3];
      return (x - s.m) / Math.sqrt(s.biased + 1e-5);
    }),
    1e-5,
    1e-5,
    "training output",
  );
  assertClose(nums(rm), stats.map((s) => 0.2 * s.m), 1e-5, 1e-6, "running mean");
  assertClose(nums(rv), stats.map((s) => 0.8 + 0.2 * (s.biased * s.n) / (s.n - 1)), 1e-5, 1e-6, "running var (unbiased)");
  const w = pt.tensor([1, 2, 3]), b = pt.tensor([0.5, 0, -1]);
  const inf = pt.nn.batchNorm(t, rm, rv, { weight: w, bias: b });
  const rmv = nums(rm), rvv = nums(rv);
  assertClose(
    nums(inf),
    v.map((x, i) => {
      const c = Math.floor(i / 2) % 3;
      return ((x - rmv[c]) / Math.sqrt(rvv[c] + 1e-5)) * [1, 2, 3][c] + [0.5, 0, -1][c];
    }),
    1e-5,
    1e-5,
    "inference",
  );
  assertTensorError(() => pt.nn.batchNorm(t, undefined, undefined), /nn\.batchNorm/, /runningMean and runningVar/);
  assertTensorError(() => pt.nn.batchNorm(t, pt.zeros([2]), rv), /nn\.batchNorm/, /runningMean must be \[C\] = \[3\]/);
  assertTensorError(() => pt.nn.batchNorm(pt.ones([1, 3]), undefined, undefined, { training: true }), /more than 1 value per channel/);
});

/** softmax(q k^T * scale + mask) v in JS for one [L, E] x [S, E] x [S, Ev] problem; mask(i, j) false drops a score. */
function jsAttention(
  q: number[],
  k: number[],
  v: number[],
  l: number,
  s: number,
  e: number,
  ev: number,
  mask: (i: number, j: number) => number | boolean,
) {
  const out: number[] = [];
  for (let i = 0; i < l; i++) {
    const sc = Array.from({ length: s }, (_, j) => {
      const m = mask(i, j);
      if (m === false) return -Infinity;
      let d = 0;
      for (let c = 0; c < e; c++) d += q[i * e + c] * k[j * e + c];
      return d / Math.sqrt(e) + (typeof m === "number" ? m : 0);
    });
    const mx = Math.max(...sc), ex = sc.map((u) => Math.exp(u - mx)), z = ex.reduce((a, b) => a + b, 0);
    for (let c = 0; c < ev; c++) out.push(ex.reduce((a, w, j) => a + (w / z) * v[j * ev + c], 0));
  }
  return out;
}

test("scaledDotProductAttention matches a JS softmax of products: plain, causal, bool and float masks, broadcast batch", () => {
  const l = 5, s = 7, e = 4, ev = 3;
  const { t: q, v: qv } = rand([2, l, e], 8, 1), { t: k, v: kv } = rand([s, e], 9, 1), { t: v, v: vv } = rand([s, ev], 10, 1);
  const per = (f: (i: number, j: number) => number | boolean) =>
    [0, 1].flatMap((b) => jsAttention(qv.slice(b * l * e, (b + 1) * l * e), kv, vv, l, s, e, ev, f));
  assertClose(nums(pt.nn.scaledDotProductAttention(q, k, v)), per(() => true), 1e-5, 1e-6, "plain");
  assertClose(nums(pt.nn.scaledDotProductAttention(q, k, v, { isCausal: true })), per((i, j) => j <= i), 1e-5, 1e-6, "causal");
  const bool = Array.from({ length: l * s }, (_, x) => x % 3 !== 1);
  const bm = pt.tensor(bool).reshape([l, s]);
  assertClose(nums(pt.nn.scaledDotProductAttention(q, k, v, { attnMask: bm })), per((i, j) => bool[i * s + j]), 1e-5, 1e-6, "bool mask");
  const { t: fm, v: fv } = rand([l, s], 11, 2);
  assertClose(nums(pt.nn.scaledDotProductAttention(q, k, v, { attnMask: fm })), per((i, j) => fv[i * s + j]), 1e-5, 1e-6, "float mask");
  const qt = rand([2, e, l], 12, 1).t.transpose(1, 2); // strided query
  assertClose(
    nums(pt.nn.scaledDotProductAttention(qt, k, v)),
    nums(pt.nn.scaledDotProductAttention(qt.contiguous(), k, v)),
    1e-6,
    1e-7,
    "strided",
  );
  assertTensorError(() => pt.nn.scaledDotProductAttention(q, k, v, { isCausal: true, attnMask: bm }), /not both/);
  assertTensorError(() => pt.nn.scaledDotProductAttention(q, pt.zeros([s, e + 1]), v), /key's features 5 differ from query's 4/);
  assertTensorError(() => pt.nn.scaledDotProductAttention(q, k, pt.zeros([s + 1, ev])), /value's sequence 8 differs from key's 7/);
});

test("gradients of the activations, norms, embedding and attention agree with finite differences", () => {
  const X = randomInput([3, 4], 61, -2, 2), W = randomInput([4], 62, 0.5, 1.5), B = randomInput([4], 63);
  gradcheck("silu", (x) => pt.nn.silu(x), [X]);
  gradcheck("softplus beta 2", (x) => pt.nn.softplus(x, 2), [X]);
  gradcheck("leakyRelu", (x) => pt.nn.leakyRelu(x, 0.1), [X]);
  gradcheck("layerNorm with weight and bias", (x, w, b) => pt.nn.layerNorm(x, [4], w, b), [X, W, B]);
  gradcheck("rmsNorm", (x, w) => pt.nn.rmsNorm(x, [4], w, 1e-3), [X, W]);
  const C = randomInput([2, 4, 3], 64);
  gradcheck("groupNorm", (x, w, b) => pt.nn.groupNorm(x, 2, w, b), [C, W, B]);
  gradcheck("batchNorm training", (x, w, b) => pt.nn.batchNorm(x, undefined, undefined, { training: true, weight: w, bias: b }), [C, W, B]);
  const Q = randomInput([2, 3, 4], 65), K = randomInput([5, 4], 66), V = randomInput([5, 2], 67);
  gradcheck("attention, causal", (q, k, v) => pt.nn.scaledDotProductAttention(q, k, v, { isCausal: true }), [Q, K, V]);
  const E = randomInput([5, 3], 68);
  gradcheck("embedding", (w) => pt.nn.embedding(pt.tensor([[4n, 0n], [2n, 4n]], { device: w.device }), w), [E]);
});
