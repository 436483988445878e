/**
 * pt.nn's compositions against plain JS loops in float64 (softmax, logSoftmax, logsumexp,
 * linear, oneHot, nllLoss, crossEntropy with weights, ignoreIndex, label smoothing and
 * probability targets, mseLoss, l1Loss, binaryCrossEntropyWithLogits), on contiguous and
 * strided inputs at odd sizes, 0-d and empty tensors and infinite values as PyTorch treats
 * them; their gradients against finite differences; bad input as TensorErrors naming the
 * function; and a training loop of crossEntropy and Adam whose memory stays flat.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, rng, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const shapeOf = (t: pt.Tensor) => [...t.shape];

/** Random float32 values in [-3, 3) of a shape. */
function rand(shape: number[], seed: number): { t: pt.Tensor; v: number[] } {
  const r = rng(seed), n = shape.reduce((a, b) => a * b, 1);
  const v = Array.from({ length: n }, () => Math.fround(-3 + 6 * r()));
  return { t: pt.tensor(Float32Array.from(v)).reshape(shape), v };
}

/** The rows of a row-major array along `dim`: each row's flat positions. */
function rows(shape: number[], dim: number): number[][] {
  const stride = shape.slice(dim + 1).reduce((a, b) => a * b, 1), n = shape[dim];
  const total = shape.reduce((a, b) => a * b, 1), out: number[][] = [];
  for (let base = 0; base < total; base++) {
    if (Math.floor(base / stride) % n !== 0) continue;
    out.push(Array.from({ length: n }, (_, k) => base + k * stride));
  }
  return out;
}

function jsLse(v: number[], idx: number[]): number {
  const m = Math.max(...idx.map((i) => v[i]));
  const mm = Number.isFinite(m) ? m : 0;
  return mm + Math.log(idx.reduce((s, i) => s + Math.exp(v[i] - mm), 0));
}

function jsSoftmax(v: number[], shape: number[], dim: number, log: boolean): number[] {
  const out = new Array(v.length).fill(0);
  for (const idx of rows(shape, dim)) {
    const l = jsLse(v, idx);
    for (const i of idx) out[i] = log ? v[i] - l : Math.exp(v[i] - l);
  }
  return out;
}

test("softmax and logSoftmax match a JS loop along every dim of a [3, 5, 7] tensor", () => {
  const { t, v } = rand([3, 5, 7], 1);
  for (const dim of [0, 1, 2, -1]) {
    const d = dim < 0 ? dim + 3 : dim;
    assertClose(nums(pt.nn.softmax(t, dim)), jsSoftmax(v, [3, 5, 7], d, false), 1e-5, 1e-7, `softmax dim ${dim}`);
    assertClose(nums(pt.nn.logSoftmax(t, dim)), jsSoftmax(v, [3, 5, 7], d, true), 1e-5, 1e-5, `logSoftmax dim ${dim}`);
  }
});

test("softmax of a transposed (strided) view is the softmax of its contiguous copy", () => {
  const { t } = rand([7, 5], 2);
  const view = t.T, dense = view.contiguous();
  assert.equal(view.isContiguous, false);
  for (const dim of [0, 1]) {
    assertClose(nums(pt.nn.softmax(view, dim)), nums(pt.nn.softmax(dense, dim)), 1e-6, 1e-7, `dim ${dim}`);
    assertClose(nums(pt.nn.logsumexp(view, dim)), nums(pt.nn.logsumexp(dense, dim)), 1e-6, 1e-6, `lse dim ${dim}`);
  }
});

test("softmax keeps large logits finite and treats -inf and +inf rows as PyTorch does", () => {
  const x = pt.tensor([[1000, 1001, 999], [-Infinity, -Infinity, -Infinity], [0, -Infinity, 1], [Infinity, 0, 1]]);
  const s = pt.nn.softmax(x, 1).toList() as number[][];
  const e = [Math.exp(-1), 1, Math.exp(-2)], z = e[0] + e[1] + e[2];
  assertClose(s[0], e.map((u) => u / z), 1e-6, 1e-7, "large row");
  assert.ok(s[1].every(Number.isNaN), "a row of -inf is NaN");
  assertClose(s[2], [1 / (1 + Math.E), 0, Math.E / (1 + Math.E)], 1e-6, 1e-7, "a -inf entry is 0");
  assert.ok(s[3].every(Number.isNaN), "a row with +inf is NaN throughout (inf - inf), as PyTorch's kernel gives");
  assert.ok((pt.nn.logSoftmax(x, 1).toList() as number[][])[3].every(Number.isNaN));
  const l = pt.nn.logsumexp(x, 1).toList() as number[];
  assertClose(l.slice(0, 3), [1001 + Math.log(z), -Infinity, 1 + Math.log(1 + Math.exp(-1))], 1e-6, 1e-4, "logsumexp");
  assert.equal(l[3], Infinity);
});

test("logsumexp over several axes, keepdim both ways, 0-d and empty extents", () => {
  const { t, v } = rand([3, 4, 5], 3);
  const expect = Array.from({ length: 4 }, (_, j) => { // axes 0 and 2 reduced, axis 1 (j) kept
    const idx: number[] = [];
    for (let i = 0; i < 3; i++) for (let k = 0; k < 5; k++) idx.push(i * 20 + j * 5 + k);
    return jsLse(v, idx);
  });
  const r = pt.nn.logsumexp(t, [0, -1]);
  assert.deepEqual(shapeOf(r), [4]);
  assertClose(nums(r), expect, 1e-6, 1e-5);
  assert.deepEqual(shapeOf(pt.nn.logsumexp(t, [0, 2], true)), [1, 4, 1]);
  assert.equal(pt.nn.logsumexp(pt.tensor(2.5), 0).item(), 2.5);
  assert.equal(pt.nn.softmax(pt.tensor(2.5), -1).item(), 1);
  assert.equal(pt.nn.logSoftmax(pt.tensor(2.5), 0).item(), 0);
  const empty = pt.zeros([3, 0]);
  assert.deepEqual(pt.nn.logsumexp(empty, 1).toList(), [-Infinity, -Infinity, -Infinity]);
  assert.deepEqual(shapeOf(pt.nn.logsumexp(empty, 0)), [0]);
  assert.deepEqual(shapeOf(pt.nn.softmax(empty, 1)), [3, 0]);
  assert.deepEqual(shapeOf(pt.nn.logSoftmax(pt.zeros([0, 4]), 1)), [0, 4]);
});

test("linear is x @ W^T + b for 1-d, 2-d and batched inputs, with and without bias", () => {
  const { t: w, v: wv } = rand([3, 5], 4), { t: b, v: bv } = rand([3], 5), { t: x, v: xv } = rand([2, 4, 5], 6);
  const expect: number[] = [];
  for (let r = 0; r < 8; r++) {
    for (let o = 0; o < 3; o++) {
      let s = bv[o];
      for (let k = 0; k < 5; k++) s += xv[r * 5 + k] * wv[o * 5 + k];
      expect.push(s);
    }
  }
  const y = pt.nn.linear(x, w, b);
  assert.deepEqual(shapeOf(y), [2, 4, 3]);
  assertClose(nums(y), expect, 1e-5, 1e-5);
  assertClose(nums(pt.nn.linear(x, w)), expect.map((e, i) => e - bv[i % 3]), 1e-5, 1e-5, "no bias");
  assertClose(
    nums(pt.nn.linear(x.narrow(0, 1, 1).reshape([4, 5]).narrow(0, 2, 1).squeeze(0), w, b)),
    expect.slice(18, 21),
    1e-5,
    1e-5,
    "1-d",
  );
});

test("oneHot makes int64 rows, infers the class count, and refuses bad classes", () => {
  const r = pt.nn.oneHot(pt.tensor([[0n, 3n], [1n, 0n]]));
  assert.equal(r.dtype, "int64");
  assert.deepEqual(shapeOf(r), [2, 2, 4]);
  assert.deepEqual(nums(r), [1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0]);
  assert.deepEqual(nums(pt.nn.oneHot(pt.tensor([2], { dtype: "int32" }), 5)), [0, 0, 1, 0, 0]);
  assert.deepEqual(shapeOf(pt.nn.oneHot(pt.zeros([0], { dtype: "int64" }), 3)), [0, 3]);
  assertTensorError(() => pt.nn.oneHot(pt.tensor([1, 2])), /nn\.oneHot/, /integer tensor/);
  assertTensorError(() => pt.nn.oneHot(pt.tensor([-1n])), /nn\.oneHot/, /non-negative/);
  assertTensorError(() => pt.nn.oneHot(pt.tensor([3n]), 3), /nn\.oneHot/, /not below numClasses = 3/);
  assertTensorError(() => pt.nn.oneHot(pt.zeros([0], { dtype: "int64" })), /nn\.oneHot/, /empty/);
});

/** PyTorch's cross_entropy and nll_loss for class indices, in JS: logp [N, C, D] row-major (D = 1 without extra dims). */
function jsClassLoss(
  logp: number[],
  n: number,
  c: number,
  d: number,
  target: number[],
  o: { weight?: number[]; ignore?: number; reduction?: string; smoothing?: number },
): number | number[] {
  const ignore = o.ignore ?? -100, s = o.smoothing ?? 0, w = (k: number) => o.weight?.[k] ?? 1;
  const per: number[] = [];
  let wsum = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      const t = target[i * d + j];
      if (t === ignore) {
        per.push(0);
        continue;
      }
      const at = (k: number) => logp[(i * c + k) * d + j];
      let smooth = 0;
      for (let k = 0; k < c; k++) smooth -= w(k) * at(k);
      per.push((1 - s) * -w(t) * at(t) + (s / c) * smooth);
      wsum += w(t);
    }
  }
  if (o.reduction === "none") return per;
  const sum = per.reduce((a, b) => a + b, 0);
  return o.reduction === "sum" ? sum : sum / wsum;
}

test("crossEntropy and nllLoss match PyTorch's formulas: weights, ignoreIndex, label smoothing, every reduction", () => {
  const n = 6, c = 5, { t: x, v } = rand([n, c], 7);
  const target = [4, 0, 2, 2, 1, 3], weight = [0.5, 1, 2, 1.5, 0.25];
  const tt = pt.tensor(BigInt64Array.from(target.map(BigInt))), wt = pt.tensor(weight);
  const logp = jsSoftmax(v, [n, c], 1, true);
  for (const reduction of ["mean", "sum", "none"] as const) {
    for (const smoothing of [0, 0.2]) {
      for (const [name, withWeight, ignore] of [["plain", false, -100], ["weighted", true, -100], ["ignore 2", true, 2]] as const) {
        const o = { weight: withWeight ? weight : undefined, ignore, reduction, smoothing };
        const got = pt.nn.crossEntropy(x, tt, {
          weight: withWeight ? wt : undefined,
          ignoreIndex: ignore,
          reduction,
          labelSmoothing: smoothing,
        });
        const want = jsClassLoss(logp, n, c, 1, target, o);
        assertClose(
          reduction === "none" ? nums(got) : [got.item() as number],
          typeof want === "number" ? [want] : want,
          1e-5,
          1e-6,
          `${name} ${reduction} s=${smoothing}`,
        );
        if (smoothing === 0) {
          const nll = pt.nn.nllLoss(pt.tensor(logp).reshape([n, c]), tt, {
            weight: withWeight ? wt : undefined,
            ignoreIndex: ignore,
            reduction,
          });
          assertClose(
            reduction === "none" ? nums(nll) : [nll.item() as number],
            typeof want === "number" ? [want] : want,
            1e-5,
            1e-6,
            `nll ${name} ${reduction}`,
          );
        }
      }
    }
  }
});

test("crossEntropy over [N, C, d] with a strided input, unbatched [C] input, and all targets ignored", () => {
  const { t: base, v } = rand([2, 3, 4], 8); // read as [N=2, d=3, C=4] and permuted to [N, C, d]: strided
  const x = base.permute([0, 2, 1]);
  assert.equal(x.isContiguous, false);
  const dense: number[] = [];
  for (let i = 0; i < 2; i++) for (let k = 0; k < 4; k++) for (let j = 0; j < 3; j++) dense.push(v[(i * 3 + j) * 4 + k]);
  const target = [0, 3, 1, 2, 2, 0], tt = pt.tensor(BigInt64Array.from(target.map(BigInt))).reshape([2, 3]);
  const want = jsClassLoss(jsSoftmax(dense, [2, 4, 3], 1, true), 2, 4, 3, target, { reduction: "none", smoothing: 0.1 });
  const got = pt.nn.crossEntropy(x, tt, { reduction: "none", labelSmoothing: 0.1 });
  assert.deepEqual(shapeOf(got), [2, 3]);
  assertClose(nums(got), want as number[], 1e-5, 1e-6);
  const one = pt.nn.crossEntropy(pt.tensor([1, 2, 0.5]), pt.tensor(1n));
  assert.deepEqual(shapeOf(one), []);
  assertClose([one.item() as number], [-jsSoftmax([1, 2, 0.5], [3], 0, true)[1]], 1e-6, 1e-6, "unbatched");
  const none = pt.nn.crossEntropy(pt.ones([2, 3]), pt.tensor([-100n, -100n]));
  assert.ok(Number.isNaN(none.item() as number), "mean over no targets is 0/0, as in PyTorch");
  assert.equal(pt.nn.crossEntropy(pt.ones([2, 3]), pt.tensor([-100n, -100n]), { reduction: "sum" }).item(), 0);
});

test("crossEntropy with class probabilities (and smoothing, and weights) matches the JS sum", () => {
  const n = 4, c = 3, { t: x, v } = rand([n, c], 9), r = rng(10);
  const probs = Array.from({ length: n }, () => {
    const a = [r(), r(), r()], s = a[0] + a[1] + a[2];
    return a.map((u) => Math.fround(u / s));
  }).flat();
  const weight = [1, 2, 0.5], logp = jsSoftmax(v, [n, c], 1, true);
  for (const s of [0, 0.3]) {
    for (const w of [undefined, weight]) {
      const per = Array.from({ length: n }, (_, i) => {
        let acc = 0;
        for (let k = 0; k < c; k++) acc -= (w?.[k] ?? 1) * ((1 - s) * probs[i * c + k] + s / c) * logp[i * c + k];
        return acc;
      });
      const opts = { labelSmoothing: s, weight: w && pt.tensor(w) };
      assertClose(
        nums(pt.nn.crossEntropy(x, pt.tensor(probs).reshape([n, c]), { ...opts, reduction: "none" })),
        per,
        1e-5,
        1e-6,
        `none s=${s}`,
      );
      const mean = pt.nn.crossEntropy(x, pt.tensor(probs).reshape([n, c]), opts).item() as number;
      assertClose([mean], [per.reduce((a, b) => a + b, 0) / n], 1e-5, 1e-6, `mean s=${s}`);
    }
  }
});

test("a class index out of range is a TensorError at the next read; shapes and dtypes are checked at the call", () => {
  const x = pt.zeros([2, 3]);
  assertTensorError(() => pt.nn.crossEntropy(x, pt.tensor([0n, 3n])).item(), /out of range/);
  assertTensorError(() => pt.nn.nllLoss(x, pt.tensor([0n, 1n, 2n])), /nn\.nllLoss/, /target must have shape \[2\]/);
  assertTensorError(() => pt.nn.crossEntropy(x, pt.tensor([true, false])), /nn\.crossEntropy/, /class indices/);
  assertTensorError(() => pt.nn.crossEntropy(x, pt.zeros([2, 4])), /nn\.crossEntropy/, /probabilities must have input's shape/);
  assertTensorError(() => pt.nn.crossEntropy(x, pt.tensor([0n, 1n]), { labelSmoothing: 1.5 }), /nn\.crossEntropy/, /labelSmoothing/);
  assertTensorError(
    () => pt.nn.crossEntropy(x, pt.tensor([0n, 1n]), { weight: pt.ones([2]) }),
    /nn\.crossEntropy/,
    /weight must be \[C\] = \[3\]/,
  );
  assertTensorError(() => pt.nn.crossEntropy(x, pt.tensor([0n, 1n]), { reduction: "avg" as "mean" }), /nn\.crossEntropy/, /reduction/);
  assertTensorError(() => pt.nn.nllLoss(pt.tensor(1), pt.tensor(0n)), /nn\.nllLoss/, /class dim/);
  assertTensorError(() => pt.nn.softmax(pt.tensor([1n, 2n]), 0), /nn\.softmax/, /floating-point/);
  assertTensorError(() => pt.nn.softmax(x, 2), /nn\.softmax/, /axis 2 is out of range/);
  assertTensorError(() => pt.nn.logsumexp(x, [1, -1]), /nn\.logsumexp/, /repeat/);
  assertTensorError(() => pt.nn.linear(x, pt.zeros([4, 2])), /nn\.linear/, /in_features = 2/);
  assertTensorError(() => pt.nn.linear(x, pt.zeros([4, 3]), pt.zeros([3])), /nn\.linear/, /bias must be \[out_features\] = \[4\]/);
  assertTensorError(() => pt.nn.mseLoss(x, pt.zeros([3, 2])), /broadcast|shape/);
  assertTensorError(() => pt.nn.l1Loss(x, pt.tensor([1n])), /nn\.l1Loss/, /target must be a floating-point tensor/);
});

test("mseLoss, l1Loss and binaryCrossEntropyWithLogits match JS loops, broadcasting, with weights and posWeight", () => {
  const { t: a, v: av } = rand([3, 5], 11), { t: b, v: bv } = rand([5], 12);
  const d = av.map((u, i) => u - bv[i % 5]);
  assertClose([pt.nn.mseLoss(a, b).item() as number], [d.reduce((s, u) => s + u * u, 0) / 15], 1e-5, 1e-6, "mse mean");
  assertClose(nums(pt.nn.mseLoss(a, b, { reduction: "none" })), d.map((u) => u * u), 1e-5, 1e-6, "mse none");
  assertClose([pt.nn.l1Loss(a, b, { reduction: "sum" }).item() as number], [d.reduce((s, u) => s + Math.abs(u), 0)], 1e-5, 1e-5, "l1 sum");
  const x = [-40, -3, -0.5, 0, 0.7, 4, 40], y = [0, 1, 0.25, 1, 0, 1, 0], pw = 3, w = 0.5;
  const logSig = (z: number) => Math.min(z, 0) - Math.log1p(Math.exp(-Math.abs(z)));
  const per = x.map((z, i) => w * ((1 - y[i]) * z - (1 + (pw - 1) * y[i]) * logSig(z)));
  const got = pt.nn.binaryCrossEntropyWithLogits(pt.tensor(x), pt.tensor(y), {
    reduction: "none",
    weight: pt.tensor(w),
    posWeight: pt.tensor([pw]),
  });
  assertClose(nums(got), per, 1e-5, 1e-6, "bce none");
  const plain = x.map((z, i) => (1 - y[i]) * z - logSig(z));
  assertClose(
    [pt.nn.binaryCrossEntropyWithLogits(pt.tensor(x), pt.tensor(y)).item() as number],
    [plain.reduce((s, u) => s + u, 0) / 7],
    1e-5,
    1e-6,
  );
});

test("gradients of softmax, logSoftmax, logsumexp, linear and the losses agree with finite differences", () => {
  const X = randomInput([3, 5], 31), W = randomInput([4, 5], 32), B = randomInput([4], 33);
  for (const dim of [0, 1]) {
    gradcheck(`softmax dim ${dim}`, (x) => pt.nn.softmax(x, dim), [X]);
    gradcheck(`logSoftmax dim ${dim}`, (x) => pt.nn.logSoftmax(x, dim), [X]);
    gradcheck(`logsumexp dim ${dim}`, (x) => pt.nn.logsumexp(x, dim), [X]);
  }
  gradcheck("logsumexp over all dims of a strided view", (x) => pt.nn.logsumexp(x.T, [0, 1]), [X]);
  gradcheck("linear", (x, w, b) => pt.nn.linear(x, w, b), [X, W, B]);
  const target = pt.tensor([1n, 4n, 0n]), weight = [0.5, 1, 2, 1.5, 0.25];
  gradcheck(
    "crossEntropy, weights, ignoreIndex, smoothing",
    (x) =>
      pt.nn.crossEntropy(x, target.to(x.device), {
        weight: pt.tensor(weight, { dtype: x.dtype, device: x.device }),
        ignoreIndex: 4,
        labelSmoothing: 0.1,
      }),
    [X],
  );
  gradcheck("nllLoss sum", (x) => pt.nn.nllLoss(x, target.to(x.device), { reduction: "sum" }), [X]);
  const P = { values: randomInput([3, 5], 34, 0, 1).values, shape: [3, 5] };
  gradcheck("crossEntropy with probabilities (both inputs)", (x, p) => pt.nn.crossEntropy(x, p), [X, P]);
  const Y = randomInput([3, 5], 35);
  gradcheck("mseLoss", (x, y) => pt.nn.mseLoss(x, y), [X, Y]);
  gradcheck("l1Loss (no element at its kink)", (x, y) => pt.nn.l1Loss(x, y, { reduction: "sum" }), [X, Y]);
  const T = { values: randomInput([3, 5], 36, 0, 1).values, shape: [3, 5] }, PW = randomInput([5], 37, 0.5, 2);
  gradcheck("binaryCrossEntropyWithLogits with posWeight", (x, t, pw) => pt.nn.binaryCrossEntropyWithLogits(x, t, { posWeight: pw }), [
    X,
    T,
    PW,
  ]);
});

test("a training loop of linear, crossEntropy and Adam: the loss falls and memory stays flat over 300 steps", () => {
  const r = rng(41), n = 64, f = 9, c = 3;
  const xs = Array.from({ length: n * f }, () => r() * 2 - 1);
  const labels = Array.from({ length: n }, (_, i) => (xs[i * f] + xs[i * f + 1] > 0 ? 0 : xs[i * f + 2] > 0 ? 1 : 2));
  using x = pt.tensor(xs).reshape([n, f]), y = pt.tensor(BigInt64Array.from(labels.map(BigInt)));
  const w1 = pt.keep(pt.randn([16, f]).mul(0.3).requiresGrad_()), b1 = pt.keep(pt.zeros([16], { requiresGrad: true }));
  const w2 = pt.keep(pt.randn([c, 16]).mul(0.3).requiresGrad_()), b2 = pt.keep(pt.zeros([c], { requiresGrad: true }));
  const opt = new pt.optim.Adam([w1, b1, w2, b2], { lr: 0.02 });
  const losses: number[] = [], live: number[] = [];
  for (let step = 0; step < 300; step++) {
    const loss = pt.tidy(() => {
      opt.zeroGrad();
      const l = pt.nn.crossEntropy(pt.nn.linear(pt.nn.linear(x, w1, b1).relu(), w2, b2), y, { labelSmoothing: 0.05 });
      l.backward();
      opt.step();
      return l.item() as number;
    });
    losses.push(loss);
    if (step >= 50) live.push(pt.liveBytes());
  }
  assert.ok(losses[299] < losses[0] * 0.5, `the loss fell: ${losses[0]} -> ${losses[299]}`);
  assert.ok(Math.max(...live) - Math.min(...live) <= 4096, `live bytes stayed flat: ${Math.min(...live)}..${Math.max(...live)}`);
  for (const p of [w1, b1, w2, b2]) p.dispose();
});
