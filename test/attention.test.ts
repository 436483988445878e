/**
 * scaledDotProductAttention's fused kernel (float32, no dropout, features up to 128) against a plain JS softmax of
 * products in float64: every program size and the composition past it, causal with L < S and L > S, bool and float
 * masks broadcast over batch dims, strided and broadcast operands, query counts around a group of 64 and key counts
 * past one shared tile, features that leave a lane's slice padding, a NaN score, all-masked rows, empty shapes, and
 * the gradient rule (the weights recomputed in backward) against finite differences and against the composition's own
 * gradient.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, rng, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

function rand(shape: number[], seed: number, scale = 1): { t: pt.Tensor; v: number[] } {
  const r = rng(seed), n = shape.reduce((a, b) => a * b, 1);
  const v = Array.from({ length: n }, () => Math.fround(scale * (2 * r() - 1)));
  return { t: pt.tensor(Float32Array.from(v)).reshape(shape), v };
}

/** Row-major values of one [rows, cols] matrix of batch entry `b` of an operand of batch shape `bs`, broadcast to `to`. */
function entry(v: number[], bs: number[], to: number[], b: number, size: number): number[] {
  let off = 0, stride = 1, rest = b;
  const strides = bs.map(() => 0);
  for (let d = bs.length - 1; d >= 0; d--) {
    strides[d] = stride;
    stride *= bs[d];
  }
  for (let d = to.length - 1; d >= 0; d--) {
    const i = rest % to[d], bd = d - (to.length - bs.length);
    rest = Math.floor(rest / to[d]);
    if (bd >= 0 && bs[bd] !== 1) off += i * strides[bd];
  }
  return v.slice(off * size, (off + 1) * size);
}

/** softmax(q k^T scale + mask) v for one batch entry in float64; mask(i, j) is false (dropped) or an added score. */
function jsAttention(
  q: number[],
  k: number[],
  v: number[],
  [l, s, e, ev]: number[],
  mask: (i: number, j: number) => number | boolean = () => true,
  scale = 1 / Math.sqrt(e),
): number[] {
  const out: number[] = [];
  for (let i = 0; i < l; i++) {
    const sc: number[] = [];
    for (let j = 0; j < s; j++) {
      let d = 0;
      for (let x = 0; x < e; x++) d += q[i * e + x] * k[j * e + x];
      const m = mask(i, j);
      sc.push(m === false ? -Infinity : d * scale + (m === true ? 0 : m));
    }
    const mx = Math.max(...sc), w = sc.map((x) => Math.exp(x - mx)), z = w.reduce((a, b) => a + b, 0);
    for (let c = 0; c < ev; c++) out.push(w.reduce((a, wj, j) => a + (wj / z) * v[j * ev + c], 0));
  }
  return out;
}

/** The broadcast of several batch shapes (right-aligned, size 1 stretching). */
function broadcast(...shapes: number[][]): number[] {
  const rank = Math.max(...shapes.map((x) => x.length));
  return Array.from({ length: rank }, (_, d) => Math.max(...shapes.map((x) => x[x.length - rank + d] ?? 1)));
}

interface Case {
  qb: number[];
  kb: number[];
  vb: number[];
  l: number;
  s: number;
  e: number;
  ev: number;
}

/** Runs one case through the library and the reference; returns [ours, reference]. */
function both(c: Case, seed: number, opts: pt.nn.AttentionOptions = {}, mask?: (b: number, i: number, j: number) => number | boolean) {
  const q = rand([...c.qb, c.l, c.e], seed), k = rand([...c.kb, c.s, c.e], seed + 1), v = rand([...c.vb, c.s, c.ev], seed + 2);
  const batch = broadcast(c.qb, c.kb, c.vb), nb = batch.reduce((a, b) => a * b, 1);
  const ref: number[] = [];
  for (let b = 0; b < nb; b++) {
    const qe = entry(q.v, c.qb, batch, b, c.l * c.e), ke = entry(k.v, c.kb, batch, b, c.s * c.e);
    const ve = entry(v.v, c.vb, batch, b, c.s * c.ev);
    const m = opts.isCausal ? (i: number, j: number) => j <= i : mask ? (i: number, j: number) => mask(b, i, j) : undefined;
    ref.push(...jsAttention(qe, ke, ve, [c.l, c.s, c.e, c.ev], m, opts.scale));
  }
  const out = pt.nn.scaledDotProductAttention(q.t, k.t, v.t, opts);
  assert.deepEqual(out.shape, [...batch, c.l, c.ev]);
  return [nums(out), ref];
}

test("sdpa matches the JS reference at every program size and past the largest (features 1 to 160, Ev != E)", () => {
  for (const [e, ev] of [[1, 1], [5, 3], [16, 16], [17, 9], [24, 40], [64, 64], [65, 128], [128, 128], [129, 20], [160, 160]]) {
    const [ours, ref] = both({ qb: [2], kb: [2], vb: [2], l: 7, s: 11, e, ev }, e * 31 + ev);
    assertClose(ours, ref, 2e-5, 2e-6, `E ${e}, Ev ${ev}`);
  }
});

test("sdpa causal is top-left aligned for L < S, L = S and L > S, as a lower-triangular L x S mask", () => {
  for (const [l, s] of [[3, 9], [8, 8], [13, 5], [1, 1]]) {
    const [ours, ref] = both({ qb: [3], kb: [3], vb: [3], l, s, e: 8, ev: 6 }, l * 7 + s, { isCausal: true });
    assertClose(ours, ref, 2e-5, 2e-6, `L ${l}, S ${s}`);
  }
});

test("sdpa past one group of queries and one shared tile of keys: L 300, S 333, causal and not", () => {
  const c = { qb: [2], kb: [2], vb: [2], l: 300, s: 333, e: 12, ev: 7 };
  for (const isCausal of [false, true]) {
    const [ours, ref] = both(c, isCausal ? 5 : 6, { isCausal, scale: 0.7 });
    assertClose(ours, ref, 3e-5, 3e-6, `causal ${isCausal}`);
  }
});

test("sdpa at query counts around a group of 64 (1, 63, 64, 65, 130) and key counts off the tile, causal and not", () => {
  for (const [l, s] of [[1, 17], [63, 70], [64, 64], [65, 9], [130, 131]]) {
    for (const isCausal of [false, true]) {
      // E 5 and Ev 7 run the 16-feature program: each lane's slice of 4 is partly or wholly padding
      const [ours, ref] = both({ qb: [2], kb: [2], vb: [2], l, s, e: 5, ev: 7 }, l * 13 + s + (isCausal ? 1 : 0), { isCausal });
      assertClose(ours, ref, 2e-5, 2e-6, `L ${l}, S ${s}, causal ${isCausal}`);
    }
  }
});

test("sdpa with 128 features past one group and one tile: causal with L != S, and a float mask [L, S]", () => {
  const c = { qb: [2], kb: [2], vb: [2], l: 130, s: 77, e: 128, ev: 128 };
  const [oc, rc] = both(c, 30, { isCausal: true });
  assertClose(oc, rc, 3e-5, 3e-6, "causal");
  const { t: fm, v: fv } = rand([130, 77], 31, 2);
  const [om, rm] = both(c, 32, { attnMask: fm }, (_b, i, j) => fv[i * 77 + j]);
  assertClose(om, rm, 3e-5, 3e-6, "float mask");
});

test("sdpa: a NaN in the float mask makes its query's row NaN and no other", () => {
  const c = { qb: [2], kb: [2], vb: [2], l: 70, s: 20, e: 24, ev: 9 };
  const fv = rand([70, 20], 35, 2).v;
  fv[66 * 20 + 13] = NaN; // query 66, past the first group of 64
  const fm = pt.tensor(Float32Array.from(fv)).reshape([70, 20]);
  const [ours, ref] = both(c, 36, { attnMask: fm }, (_b, i, j) => fv[i * 20 + j]);
  for (let b = 0; b < 2; b++) {
    for (let i = 0; i < 70; i++) {
      const row = ours.slice((b * 70 + i) * 9, (b * 70 + i + 1) * 9);
      assert.ok(row.every((x) => Number.isNaN(x) === (i === 66)), `batch ${b}, query ${i}: NaN only in row 66`);
    }
  }
  assertClose(ours, ref, 2e-5, 2e-6, "the other rows");
});

test("sdpa bool and float masks broadcast over batch dims; operand batch dims broadcast against each other", () => {
  const c = { qb: [2, 3], kb: [1, 3], vb: [2, 1], l: 6, s: 9, e: 10, ev: 5 };
  const bools = Array.from({ length: 3 * 6 * 9 }, (_, x) => (x * 7) % 5 !== 2);
  const bm = pt.tensor(bools).reshape([3, 6, 9]); // broadcasts over the first batch dim
  const [ob, rb] = both(c, 40, { attnMask: bm }, (b, i, j) => bools[((b % 3) * 6 + i) * 9 + j]);
  assertClose(ob, rb, 2e-5, 2e-6, "bool mask [3, L, S]");
  const { t: fm, v: fv } = rand([9], 41, 2); // one row of scores added to every query
  const [of, rf] = both(c, 42, { attnMask: fm }, (_b, _i, j) => fv[j]);
  assertClose(of, rf, 2e-5, 2e-6, "float mask [S]");
  const { t: f2, v: f2v } = rand([2, 1, 6, 9], 43, 2);
  const [o2, r2] = both(c, 44, { attnMask: f2 }, (b, i, j) => f2v[(Math.floor(b / 3) * 6 + i) * 9 + j]);
  assertClose(o2, r2, 2e-5, 2e-6, "float mask [2, 1, L, S]");
});

test("sdpa reads strided operands: a permuted query, a sliced key, a transposed-back value, a strided mask", () => {
  const l = 9, s = 13, e = 20, ev = 11;
  const q = rand([l, 2, e], 50).t.permute(1, 0, 2); // [2, L, E] with the batch stride inside the row stride
  const k = rand([2, 2 * s, e], 51).t.slice(1, 0, 2 * s, 2); // every other key
  const v = rand([2, ev, s], 52).t.transpose(1, 2);
  const m = rand([s, l], 53, 3).t.transpose(0, 1);
  for (const opts of [{}, { isCausal: true }, { attnMask: m }] as pt.nn.AttentionOptions[]) {
    const ours = nums(pt.nn.scaledDotProductAttention(q, k, v, opts));
    const dense = nums(pt.nn.scaledDotProductAttention(q.contiguous(), k.contiguous(), v.contiguous(), {
      ...opts,
      ...(opts.attnMask && { attnMask: opts.attnMask.contiguous() }),
    }));
    assertClose(ours, dense, 1e-6, 1e-7, JSON.stringify(Object.keys(opts)));
  }
});

test("sdpa in float32 agrees with the float64 composition; a fully masked row is NaN, as PyTorch's math path", () => {
  const q = rand([3, 5, 16], 60), k = rand([3, 8, 16], 61), v = rand([3, 8, 16], 62);
  const bools = Array.from({ length: 5 * 8 }, (_, x) => x >= 8); // query 0 sees nothing
  const m = pt.tensor(bools).reshape([5, 8]);
  const f32 = nums(pt.nn.scaledDotProductAttention(q.t, k.t, v.t, { attnMask: m }));
  const f64 = nums(pt.nn.scaledDotProductAttention(q.t.to("float64"), k.t.to("float64"), v.t.to("float64"), { attnMask: m }));
  for (let b = 0; b < 3; b++) {
    for (let x = 0; x < 16; x++) {
      assert.ok(Number.isNaN(f32[b * 80 + x]), `batch ${b}: row 0 is NaN (fused)`);
      assert.ok(Number.isNaN(f64[b * 80 + x]), `batch ${b}: row 0 is NaN (composed)`);
    }
  }
  const live = (a: number[]) => a.filter((_, i) => i % 80 >= 16);
  assertClose(live(f32), live(f64), 2e-5, 2e-6, "rows 1..4");
});

test("sdpa on empty shapes: no queries, no batch, no keys (zeros, as an empty matmul)", () => {
  const z = (shape: number[]) => pt.zeros(shape);
  assert.deepEqual(pt.nn.scaledDotProductAttention(z([2, 0, 4]), z([2, 3, 4]), z([2, 3, 5])).shape, [2, 0, 5]);
  assert.deepEqual(pt.nn.scaledDotProductAttention(z([0, 2, 4]), z([0, 3, 4]), z([0, 3, 5])).shape, [0, 2, 5]);
  const none = pt.nn.scaledDotProductAttention(rand([2, 4], 70).t, z([0, 4]), z([0, 3]));
  assert.deepEqual(none.shape, [2, 3]);
  assert.deepEqual(nums(none), [0, 0, 0, 0, 0, 0]);
});

test("sdpa's gradient rule matches finite differences: plain, causal with L > S, float mask, broadcast batch", () => {
  const Q = randomInput([2, 5, 4], 80), K = randomInput([1, 3, 4], 81), V = randomInput([2, 3, 6], 82);
  gradcheck("sdpa plain", (q, k, v) => pt.nn.scaledDotProductAttention(q, k, v), [Q, K, V]);
  gradcheck("sdpa causal", (q, k, v) => pt.nn.scaledDotProductAttention(q, k, v, { isCausal: true, scale: 0.8 }), [Q, K, V]);
  const M = randomInput([5, 3], 83);
  gradcheck("sdpa float mask", (q, k, v, m) => pt.nn.scaledDotProductAttention(q, k, v, { attnMask: m }), [Q, K, V, M]);
});

test("sdpa's fused gradient equals the composition's (float64, no fused path) within float32 rounding", () => {
  const q = rand([2, 7, 12], 90), k = rand([2, 9, 12], 91), v = rand([2, 9, 5], 92), m = rand([7, 9], 93, 2);
  const grads = (dtype: pt.DType) =>
    pt.tidy(() => {
      const xs = [q, k, v, m].map((x) => x.t.to(dtype).requiresGrad_());
      const out = pt.nn.scaledDotProductAttention(xs[0], xs[1], xs[2], { attnMask: xs[3] });
      out.mul(pt.arange(1, 6).to(dtype)).sum().backward();
      return xs.map((x) => nums(x.grad!));
    });
  const f32 = grads("float32"), f64 = grads("float64");
  for (let i = 0; i < 4; i++) assertClose(f32[i], f64[i], 1e-4, 1e-5, ["dq", "dk", "dv", "dmask"][i]);
});

test("sdpa rejects masks that do not broadcast and operands of other shapes, naming the op", () => {
  const q = pt.zeros([2, 4, 8]), k = pt.zeros([2, 5, 8]), v = pt.zeros([2, 5, 3]);
  assertTensorError(
    () => pt.nn.scaledDotProductAttention(q, k, v, { attnMask: pt.zeros([4, 6]) }),
    /nn\.scaledDotProductAttention/,
    /attnMask of shape \[4, 6\]/,
  );
  assertTensorError(() => pt.nn.scaledDotProductAttention(q, pt.zeros([3, 5, 8]), v), /nn\.scaledDotProductAttention/, /broadcast/);
  assertTensorError(() => pt.nn.scaledDotProductAttention(pt.zeros([8]), k, v), /query must be \[\.\.\., seq, features\]/);
  assertTensorError(() => pt.nn.scaledDotProductAttention(q, k, v, { scale: NaN }), /scale must be a number/);
});

test("200 fused attention steps with backward hold device memory flat", () => {
  const dev = pt.defaultDevice();
  const step = () =>
    pt.tidy(() => {
      const q = pt.randn([2, 16, 32]).requiresGrad_(), k = pt.randn([2, 16, 32]), v = pt.randn([2, 16, 32]);
      pt.nn.scaledDotProductAttention(q, k, v, { isCausal: true }).sum().backward();
      return Number(q.grad!.sum().item());
    });
  for (let i = 0; i < 20; i++) step();
  const before = pt.memoryStats(dev).inUse;
  for (let i = 0; i < 200; i++) step();
  assert.equal(pt.memoryStats(dev).inUse, before, "device memory in use after 200 more steps");
});
