/**
 * Reductions of deferred elementwise results (lazy mode): a reduction over the trailing axes
 * of a pending expression runs as one "ewreduce" kernel on devices whose renderer has it,
 * computing each value as it reduces it, and gives the bits the reduce template gives on the
 * materialized result (the same ops under pt.eager): the same rows, the same order, the
 * same vectorised path from the same element offsets. Where the device fuses, each case
 * also checks that the expression was never written: it is still deferred afterwards and no
 * buffer but the result's was left live. Runs on the default device (PT_DEVICE).
 */
import * as pt from "../mod.ts";
import { fusesReductions } from "../src/kernels/launch.ts";
import { DTYPES } from "../src/base/dtype.ts";
import { assert, assertClose, rng, test } from "./harness.ts";

const dev = pt.defaultDevice();
const fuses = pt.lazyEnabled() && fusesReductions(dev);
const hasF64 = dev.info.float64;

/** Each element as text that tells apart every value JS can see: -0, NaN, int64 bigints. */
function bitsOf(t: pt.Tensor): string[] {
  return Array.from(
    t.toArray() as ArrayLike<number | bigint | boolean>,
    (v) => (typeof v === "number" && Object.is(v, -0) ? "-0" : String(v)),
  );
}

/** n uniform floats in [lo, hi) (exact in float32). */
function floats(n: number, seed: number, lo = 0, hi = 1): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * r());
}

/**
 * Rows of values in [-1, 1) with a few pairs of huge values that cancel exactly (+-u 2^50),
 * so a float sum depends on the order of its additions: small values meeting a huge partial
 * sum lose their low bits, differently in another order, and what is left is small.
 */
function cancelling(rows: number, len: number, seed: number): Float32Array {
  const r = rng(seed);
  const out = floats(rows * len, seed + 1000, -1, 1);
  for (let i = 0; i < rows; i++) {
    for (let k = 0; k < 8; k++) {
      const a = i * len + Math.floor(r() * len), b = i * len + Math.floor(r() * len);
      if (a === b) continue;
      out[a] = Math.fround(r() * 2 ** 50);
      out[b] = -out[a];
    }
  }
  return out;
}

/** n integers in [lo, hi). */
function ints(n: number, seed: number, lo: number, hi: number): Int32Array {
  const r = rng(seed);
  return Int32Array.from({ length: n }, () => lo + Math.floor((hi - lo) * r()));
}

function input(data: Float32Array | Int32Array, shape: number[], dtype?: pt.DType): pt.Tensor {
  using flat = pt.tensor(data, dtype ? { dtype } : undefined);
  return flat.reshape(...shape);
}

type Reduction = [string, (d: pt.Tensor) => pt.Tensor];

/**
 * Each reduction of build()'s deferred result, lazily and then under pt.eager (which
 * materializes the expression and reduces it with the reduce template): the same bits.
 */
function same(what: string, build: () => pt.Tensor, reductions: readonly Reduction[]): void {
  for (const [name, reduce] of reductions) {
    const before = pt.liveBytes();
    const d = build();
    let lazy: string[];
    try {
      if (fuses) assert.ok(d.isDeferred, `${what}: the expression is deferred`);
      using r = reduce(d);
      lazy = bitsOf(r);
      if (fuses) {
        assert.ok(d.isDeferred, `${what} ${name}: still deferred, so the reduction computed its values (fused)`);
        assert.equal(pt.liveBytes() - before, r.numel * DTYPES[r.dtype].size, `${what} ${name}: only the result was allocated`);
      }
    } finally {
      d.dispose();
    }
    const eager = pt.eager(() => {
      using e = build();
      assert.ok(!e.isDeferred);
      using r = reduce(e);
      return bitsOf(r);
    });
    assert.deepEqual(lazy, eager, `${what} ${name}: fused and materialized results differ`);
  }
}

/** Every reduction op over the last axis (float results). */
const ALL_OPS: Reduction[] = [
  ["sum", (d) => d.sum(-1)],
  ["sum keepdim", (d) => d.sum(-1, true)],
  ["mean", (d) => d.mean(-1)],
  ["prod", (d) => d.prod(-1)],
  ["max", (d) => d.max(-1)],
  ["min", (d) => d.min(-1)],
  ["argmax", (d) => d.argmax(-1)],
  ["argmin", (d) => d.argmin(-1)],
  ["var", (d) => d.var(-1)],
  ["std (correction 0)", (d) => d.std(-1, false, 0)],
  ["countNonzero", (d) => d.countNonzero(-1)],
  ["any", (d) => d.any(-1)],
  ["all", (d) => d.all(-1)],
];

test("float32: every reduction of an expression over rows of odd length (rows start at every alignment)", () => {
  // x * 1.7 keeps the huge pairs exact negatives of each other, and - 0.3 vanishes next to them
  using x = input(cancelling(257, 301, 1), [257, 301]);
  using y = input(cancelling(33, 2051, 2), [33, 2051]);
  same("[257, 301] x * 1.7 - 0.3", () => x.mul(1.7).add(-0.3), ALL_OPS);
  same("[33, 2051] y * 1.7 - 0.3", () => y.mul(1.7).add(-0.3), [ALL_OPS[0], ALL_OPS[4], ALL_OPS[10]]);
  // products that neither vanish nor overflow, of rows of even length
  using z = input(floats(40 * 64, 3, 0.9, 1.1), [40, 64]);
  same("[40, 64] z * 1.7 - 0.3", () => z.mul(1.7).add(-0.3), [ALL_OPS[3]]);
});

test("float64: sums, means, max, argmax, var of an expression", () => {
  if (!hasF64) return;
  using x = input(floats(129 * 257, 4, -1, 1), [129, 257], "float64");
  same("[129, 257] float64 x * x - 0.25", () => x.mul(x).sub(0.25), [
    ALL_OPS[0],
    ALL_OPS[2],
    ALL_OPS[4],
    ALL_OPS[6],
    ALL_OPS[8],
    ALL_OPS[10],
  ]);
});

test("int32 and int64: exact integer reductions of an expression, ties to the first", () => {
  using a = input(ints(129 * 301, 5, -4, 5), [129, 301], "int32");
  using b = input(ints(129 * 301, 6, -4, 5), [129, 301], "int32");
  // mean, var and std of integers are errors, as in PyTorch (reduce.test.ts)
  same("int32 a * 3 + b", () => a.mul(3).add(b), ALL_OPS.filter(([name]) => !/^(mean|var|std)/.test(name)));
  using c = input(ints(65 * 203, 7, -1000, 1000), [65, 203], "int64");
  same("int64 c * c - 7", () => c.mul(c).sub(7), [ALL_OPS[0], ALL_OPS[4], ALL_OPS[6], ALL_OPS[7], ALL_OPS[10]]);
});

test("bool: counts, any, all and sums of a comparison", () => {
  using x = input(floats(131 * 301, 8), [131, 301]);
  same("x > 0.5", () => x.gt(0.5), [
    ["countNonzero", (d) => d.countNonzero(1)],
    ["any", (d) => d.any(1)],
    ["all", (d) => d.all(1)],
    ["sum", (d) => d.sum(1)],
    ["argmax", (d) => d.argmax(1)],
  ]);
  // rows where all holds and rows where any fails: the threshold sits near the smallest values
  same("x > 0.002", () => x.gt(0.002), [["all", (d) => d.all(1)], ["any", (d) => d.any(1)]]);
});

test("NaN: max, min, argmax, argmin and sums of an expression with a few NaNs", () => {
  using x = input(floats(400 * 301, 9), [400, 301]);
  // sqrt of a negative is NaN: about one element in 500
  same("sqrt(x - 0.002)", () => x.sub(0.002).sqrt(), [
    ALL_OPS[0],
    ALL_OPS[4],
    ALL_OPS[5],
    ALL_OPS[6],
    ALL_OPS[7],
    ALL_OPS[10],
  ]);
});

test("whole-tensor reductions of 69654 elements: partial rows from unaligned starts, then a tail", () => {
  // 17 partial rows of 4097 (odd, so rows start at every alignment) and a tail of 5
  using x = input(cancelling(6, 11609, 10), [6, 11609]);
  same("[6, 11609] x * 2 + 1", () => x.mul(2).add(1), [
    ["sum", (d) => d.sum()],
    ["mean", (d) => d.mean()],
    ["max", (d) => d.max()],
    ["min", (d) => d.min()],
    ["countNonzero", (d) => d.countNonzero()],
  ]);
  same("[6, 11609] x > 0.99", () => x.gt(0.99), [
    ["countNonzero", (d) => d.countNonzero()],
    ["any", (d) => d.any()],
    ["all", (d) => d.all()],
  ]);
  using p = input(floats(6 * 11609, 11, 0.999, 1.001), [6, 11609]);
  same("[6, 11609] p * 1.0001", () => p.mul(1.0001), [["prod", (d) => d.prod()]]);
  using i = input(ints(6 * 11609, 12, -100, 100), [6, 11609], "int32");
  same("[6, 11609] int32 i * 3", () => i.mul(3), [["sum", (d) => d.sum()]]);
});

test("broadcast and permuted inputs: the expression's element order is row-major over its shape", () => {
  using x = input(floats(200 * 301, 13, -1, 1), [200, 301]);
  using m = x.mean(1, true);
  same("(x - mean) ** 2 (a broadcast input)", () => x.sub(m).square(), [ALL_OPS[0], ALL_OPS[4], ALL_OPS[8]]);
  using y = input(floats(301 * 200, 14, -1, 1), [301, 200]);
  using yt = y.permute(1, 0);
  same("y^T * 3 (a strided input)", () => yt.mul(3), [ALL_OPS[0], ALL_OPS[6]]);
});

test("several trailing axes, rows of one element and rows of none", () => {
  using x = input(floats(20 * 30 * 7, 15, -1, 1), [20, 30, 7]);
  same("[20, 30, 7] over the last two axes", () => x.mul(2).add(1), [
    ["sum", (d) => d.sum([1, 2])],
    ["sum keepdim", (d) => d.sum([1, 2], true)],
    ["max", (d) => d.max([1, 2])],
    ["argmax of the last", (d) => d.argmax(2)],
  ]);
  using one = input(floats(50, 16, -1, 1), [50, 1]);
  same("[50, 1] rows of one", () => one.mul(2).add(1), [ALL_OPS[0], ALL_OPS[4], ALL_OPS[8]]);
  using none = pt.zeros([3, 0]);
  same("[3, 0] rows of none", () => none.mul(2).add(1), [["sum", (d) => d.sum(1)], ["countNonzero", (d) => d.countNonzero(1)]]);
});

/** The values as plain numbers. */
function values(t: pt.Tensor): number[] {
  return Array.from(t.toArray() as ArrayLike<number>, Number);
}

// A broadcast operand (all strides 0) is filled once per worker for a whole register block;
// that block is sized for BLK (256) values, more than an expression of fewer elements has.
test("fused reductions of expressions with a broadcast operand and fewer elements than a block: JS loops", () => {
  {
    using a = pt.tensor([1, 2, 3]), one = pt.tensor([1]);
    using d = a.sub(one), s = d.sum();
    assert.deepEqual(values(s), [3]);
  }
  {
    using a = pt.tensor(new Float32Array([5]));
    using d = a.neg(), s = d.sum();
    assert.deepEqual(values(s), [-5]);
  }
  // the mean-squared deviation of n values: x - mean(x) reads a one-element tensor
  for (let n = 1; n <= 300; n++) {
    const data = floats(n, 100 + n, -2, 2);
    let mean = 0, msd = 0;
    for (const v of data) mean += v;
    mean /= n;
    for (const v of data) msd += (Math.fround(v - Math.fround(mean))) ** 2;
    msd /= n;
    using x = pt.tensor(data);
    using m = x.mean(), d = x.sub(m), sq = d.square(), r = sq.mean();
    assertClose(values(r), [msd], 1e-5, 1e-6, `n = ${n}: (x - mean(x))^2 mean`);
  }
});

test("fused softmax denominators over short rows with a broadcast row maximum, keepdim: JS loops", () => {
  for (const [rows, len] of [[1, 1], [1, 10], [1, 255], [1, 256], [1, 300], [3, 10], [2, 200]]) {
    const data = floats(rows * len, rows * 1000 + len, -3, 3);
    const expect: number[] = [];
    for (let i = 0; i < rows; i++) {
      const row = data.subarray(i * len, (i + 1) * len);
      const max = Math.max(...row);
      let s = 0;
      for (const v of row) s += Math.exp(v - max);
      expect.push(s);
    }
    using z = input(data, [rows, len]);
    using m = z.max(-1, true), d = z.sub(m), e = d.exp(), s = e.sum(-1, true);
    assert.deepEqual(s.shape, [rows, 1]);
    assertClose(values(s), expect, 1e-5, 1e-6, `softmax denominators of [${rows}, ${len}]`);
  }
});

test("fused reductions over trailing axes of an expression with a broadcast scalar: JS loops", () => {
  for (const shape of [[2, 3, 4], [1, 1, 7], [4, 1, 63], [3, 5, 20]]) {
    const n = shape[0] * shape[1] * shape[2], inner = n / shape[0];
    const data = floats(n, n, -1, 1);
    using x = input(data, shape), c = pt.tensor([0.25]);
    using d = x.mul(c), sumLast2 = d.sum([1, 2]), maxLast = d.max(-1, true), all = d.sum();
    const sums: number[] = [], maxes: number[] = [];
    for (let i = 0; i < shape[0]; i++) {
      let s = 0;
      for (let k = 0; k < inner; k++) s += data[i * inner + k] * 0.25;
      sums.push(s);
    }
    for (let r = 0; r < n / shape[2]; r++) {
      maxes.push(Math.max(...Array.from(data.subarray(r * shape[2], (r + 1) * shape[2]), (v) => v * 0.25)));
    }
    assertClose(values(sumLast2), sums, 1e-5, 1e-6, `[${shape}] sum over the last two axes`);
    assertClose(values(maxLast), maxes, 0, 0, `[${shape}] max over the last axis`);
    assertClose(values(all), [sums.reduce((a, b) => a + b, 0)], 1e-5, 1e-6, `[${shape}] sum of everything`);
  }
});
