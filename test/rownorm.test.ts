/**
 * The fused row kernels (nn/rownorm.ts: float32 softmax, logSoftmax, layerNorm and rmsNorm) against float64 JS loops:
 * row lengths around the group size and its four-load step, strided and offset rows, more rows than a launch has
 * groups, PyTorch's NaN and infinity rules, gradients against the float64 compositions (whose rules the nn tests check
 * by finite differences), and a long loop's memory.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, rng, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number>, Number);

function data(n: number, seed: number, scale = 3): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => Math.fround(scale * (2 * r() - 1)));
}

type RowFn = (row: number[], w?: number[], b?: number[]) => number[];
const jsSoftmax: RowFn = (v) => {
  const m = Math.max(...v), e = v.map((x) => Math.exp(x - m)), s = e.reduce((a, c) => a + c, 0);
  return e.map((x) => x / s);
};
const jsLogSoftmax: RowFn = (v) => {
  const m = Math.max(...v), l = Math.log(v.reduce((a, c) => a + Math.exp(c - m), 0));
  return v.map((x) => x - m - l);
};
const jsNorm = (rms: boolean, eps: number): RowFn => (v, w, b) => {
  const mean = rms ? 0 : v.reduce((a, c) => a + c, 0) / v.length;
  const rstd = 1 / Math.sqrt(v.reduce((a, c) => a + (c - mean) ** 2, 0) / v.length + eps);
  return v.map((x, i) => (x - mean) * rstd * (w ? w[i] : 1) + (b ? b[i] : 0));
};
/** fn over each row of `n` consecutive values. */
const byRows = (v: number[], n: number, fn: RowFn, w?: number[], b?: number[]) =>
  Array.from({ length: v.length / n }, (_, r) => fn(v.slice(r * n, (r + 1) * n), w, b)).flat();

test("fused softmax, logSoftmax, layerNorm and rmsNorm match float64 JS loops for rows of 1 to 4099", () => {
  for (const n of [1, 2, 3, 255, 256, 257, 1023, 1024, 1025, 4099]) {
    const v = data(3 * n, n), wv = data(n, n + 1), bv = data(n, n + 2);
    using x = pt.tensor(Float32Array.from(v)).reshape([3, n]), w = pt.tensor(Float32Array.from(wv)), b = pt.tensor(Float32Array.from(bv));
    assertClose(nums(pt.nn.softmax(x, -1)), byRows(v, n, jsSoftmax), 2e-5, 1e-7, `softmax n=${n}`);
    assertClose(nums(pt.nn.logSoftmax(x, 1)), byRows(v, n, jsLogSoftmax), 1e-5, 1e-5, `logSoftmax n=${n}`);
    assertClose(nums(pt.nn.layerNorm(x, [n], w, b)), byRows(v, n, jsNorm(false, 1e-5), wv, bv), 1e-4, 1e-4, `layerNorm n=${n}`);
    assertClose(nums(pt.nn.layerNorm(x, [n])), byRows(v, n, jsNorm(false, 1e-5)), 1e-4, 1e-4, `layerNorm, no affine, n=${n}`);
    assertClose(nums(pt.nn.rmsNorm(x, [n], w, 1e-6)), byRows(v, n, jsNorm(true, 1e-6), wv), 1e-4, 1e-4, `rmsNorm n=${n}`);
  }
});

test("fused rows may be strided: softmax along a middle axis of a permuted view, norms of a transposed or sliced suffix", () => {
  const v = data(5 * 6 * 37, 7);
  using base = pt.tensor(Float32Array.from(v)).reshape([5, 6, 37]);
  using p = base.permute([2, 0, 1]); // [37, 5, 6], strided everywhere
  for (const dim of [0, 1, 2]) {
    const want = nums(pt.nn.softmax(p.contiguous(), dim));
    assertClose(nums(pt.nn.softmax(p, dim)), want, 1e-6, 1e-8, `softmax of the permuted view along ${dim}`);
    assertClose(nums(pt.nn.logSoftmax(p, dim - 3)), nums(pt.nn.logSoftmax(p.contiguous(), dim)), 1e-6, 1e-6, `logSoftmax ${dim}`);
  }
  using t = base.transpose(1, 2); // [5, 37, 6]: its [37, 6] suffix is not one stride
  using w = pt.randn([37, 6]), b = pt.randn([37, 6]);
  assertClose(nums(pt.nn.layerNorm(t, [37, 6], w, b)), nums(pt.nn.layerNorm(t.contiguous(), [37, 6], w, b)), 1e-5, 1e-5, "transposed");
  assertClose(nums(pt.nn.rmsNorm(t, [6], w.at(0))), nums(pt.nn.rmsNorm(t.contiguous(), [6], w.at(0))), 1e-5, 1e-5, "rms, stride 37");
  using s = base.at(pt.slice(1, 4), pt.slice(null, null, 2), pt.slice(3)); // offset rows of 34 with a row stride of 74
  const sv = nums(s.contiguous());
  assertClose(nums(pt.nn.layerNorm(s, [34])), byRows(sv, 34, jsNorm(false, 1e-5)), 1e-4, 1e-4, "sliced layerNorm");
  assertClose(nums(pt.nn.softmax(s, -1)), byRows(sv, 34, jsSoftmax), 2e-5, 1e-7, "sliced softmax");
});

test("fused rows past a launch's group count: 70000 rows of 5", () => {
  const rows = 70000, n = 5, v = data(rows * n, 3);
  using x = pt.tensor(Float32Array.from(v)).reshape([rows, n]);
  const got = nums(pt.nn.softmax(x, -1)), norm = nums(pt.nn.layerNorm(x, [n]));
  for (const r of [0, 1, 65534, 65535, 65536, 69999]) {
    const row = v.slice(r * n, (r + 1) * n);
    assertClose(got.slice(r * n, (r + 1) * n), jsSoftmax(row), 2e-5, 1e-7, `softmax row ${r}`);
    assertClose(norm.slice(r * n, (r + 1) * n), jsNorm(false, 1e-5)(row), 1e-4, 1e-4, `layerNorm row ${r}`);
  }
});

test("fused softmax rows holding +inf, only -inf or a NaN are NaN, as PyTorch; -inf among finite values weighs 0", () => {
  const I = Infinity;
  using x = pt.tensor(Float32Array.from([1, I, 2, -I, -I, -I, NaN, 1, 2, -I, 0, 1, 1000, 1001, -1000])).reshape([5, 3]);
  const soft = nums(pt.nn.softmax(x, -1)), logs = nums(pt.nn.logSoftmax(x, -1));
  for (let i = 0; i < 9; i++) assert.ok(Number.isNaN(soft[i]) && Number.isNaN(logs[i]), `element ${i} is NaN: ${soft[i]}, ${logs[i]}`);
  assertClose(soft.slice(9), [0, ...jsSoftmax([0, 1]), ...jsSoftmax([1000, 1001, -1000])], 1e-6, 1e-7, "finite rows");
  assertClose(logs.slice(9), [-I, ...jsLogSoftmax([0, 1]), ...jsLogSoftmax([1000, 1001, -1000])], 1e-6, 1e-6, "finite log rows");
  using c = pt.full([2, 4], 2.5);
  assertClose(nums(pt.nn.layerNorm(c, [4])), Array(8).fill(0), 0, 0, "a constant row normalizes to 0");
  using one = pt.tensor(Float32Array.from([7, -3])).reshape([2, 1]);
  assertClose(nums(pt.nn.softmax(one, -1)), [1, 1], 0, 0, "rows of one element");
});

/** The gradients of loss = sum(f(x, w, b) * g) for float32 (fused) and float64 (the composition). */
function grads(f: (x: pt.Tensor, w: pt.Tensor, b: pt.Tensor) => pt.Tensor, shape: number[], n: number, dtype: pt.DType): number[][] {
  const count = shape.reduce((a, c) => a * c, 1);
  return pt.tidy(() => {
    const x = pt.tensor(Float64Array.from(data(count, 11))).reshape(shape).cast(dtype).requiresGrad_();
    const w = pt.tensor(Float64Array.from(data(n, 12))).cast(dtype).requiresGrad_();
    const b = pt.tensor(Float64Array.from(data(n, 13))).cast(dtype).requiresGrad_();
    const g = pt.tensor(Float64Array.from(data(count, 14))).reshape(shape).cast(dtype);
    f(x, w, b).mul(g).sum().backward();
    return [x, w, b].map((t) => (t.grad ? nums(t.grad) : []));
  });
}

test("fused rules: the float32 gradients of x, weight and bias agree with the float64 compositions'", () => {
  const cases: [string, (x: pt.Tensor, w: pt.Tensor, b: pt.Tensor) => pt.Tensor][] = [
    ["softmax", (x) => pt.nn.softmax(x, -1)],
    ["softmax along dim 0 of a transposed view", (x) => pt.nn.softmax(x.transpose(0, 1), 0).transpose(0, 1)],
    ["logSoftmax", (x) => pt.nn.logSoftmax(x, 1)],
    ["layerNorm", (x, w, b) => pt.nn.layerNorm(x, [300], w, b)],
    ["layerNorm without bias", (x, w) => pt.nn.layerNorm(x, [300], w)],
    ["rmsNorm", (x, w) => pt.nn.rmsNorm(x, [300], w, 1e-6)],
  ];
  for (const [name, f] of cases) {
    const [got, want] = [grads(f, [7, 300], 300, "float32"), grads(f, [7, 300], 300, "float64")];
    for (let i = 0; i < 3; i++) {
      const scale = Math.max(1e-3, ...want[i].map(Math.abs));
      assertClose(got[i], want[i], 1e-3, 1e-5 * scale, `${name}: input ${i}`);
    }
  }
});

test("a loop of 200 fused forward and backward steps keeps live memory flat", () => {
  using w = pt.ones([64], { requiresGrad: true }), b = pt.zeros([64], { requiresGrad: true });
  const live: number[] = [];
  for (let step = 0; step < 200; step++) {
    pt.tidy(() => {
      const x = pt.randn([32, 64]).requiresGrad_();
      pt.nn.logSoftmax(pt.nn.layerNorm(x, [64], w, b), -1).sum().backward();
      w.grad?.dispose();
      b.grad?.dispose();
      w.grad = null;
      b.grad = null;
    });
    if (step >= 20) live.push(pt.liveBytes());
  }
  assert.ok(Math.max(...live) - Math.min(...live) <= 4096, `live bytes stayed flat: ${Math.min(...live)}..${Math.max(...live)}`);
});

test("empty and 0-d inputs keep their shapes, and float64 and float16 inputs (the compositions) agree with the fused float32", () => {
  assert.deepEqual([...pt.nn.softmax(pt.zeros([3, 0]), -1).shape], [3, 0]);
  assert.deepEqual([...pt.nn.logSoftmax(pt.zeros([0, 4]), 0).shape], [0, 4]);
  assert.deepEqual([...pt.nn.layerNorm(pt.zeros([0, 4]), [4]).shape], [0, 4]);
  assert.deepEqual([...pt.nn.rmsNorm(pt.zeros([2, 0]), [0]).shape], [2, 0]);
  assert.equal(pt.nn.softmax(pt.tensor(2.5), 0).item(), 1, "softmax of a 0-d tensor is 1, as PyTorch's");
  assert.equal(pt.nn.logSoftmax(pt.tensor(2.5), -1).item(), 0);
  using x = pt.tensor(Float32Array.from(data(4 * 37, 21))).reshape([4, 37]), w = pt.tensor(Float32Array.from(data(37, 22)));
  const fused = [nums(pt.nn.softmax(x, 1)), nums(pt.nn.layerNorm(x, [37], w)), nums(pt.nn.rmsNorm(x, [37], w))];
  for (const [dtype, tol] of [["float64", 1e-5], ["float16", 1e-2]] as [pt.DType, number][]) {
    const xd = x.cast(dtype), wd = w.cast(dtype);
    const got = [pt.nn.softmax(xd, 1), pt.nn.layerNorm(xd, [37], wd), pt.nn.rmsNorm(xd, [37], wd)];
    got.forEach((t, i) => {
      assert.equal(t.dtype, dtype);
      assertClose(nums(t), fused[i], tol, tol, `${dtype} op ${i}`);
    });
  }
});
