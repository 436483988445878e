/**
 * Scans, sorts, reductions and indexed reads and writes past the sizes where GPU launches
 * change shape, each checked against a plain JS loop: axes of 70000 (past 65535, and past
 * the 65535 loop passes that llvmpipe, the CI's Vulkan, allows one invocation), more than
 * 65535 rows or index positions (past a dispatch dimension's 65535 groups), and ELEMENT
 * launches of more than 4096 x 256 elements (past one pass of the grid-stride loop).
 * Runs on the default device (PT_DEVICE).
 */
import * as pt from "../mod.ts";
import { assert, assertClose, env, philox, rng, test } from "./harness.ts";

const dev = pt.defaultDevice();
const N = 70000;
const ROWS = 66000;
/**
 * A ROW launch (reduce, scan, sort) runs a group of 256 invocations per row, which a
 * software device (lavapipe) takes tens of seconds over for 66000 rows: there the many-row
 * cases run only with PT_LARGE_ROWS=1.
 */
const manyRows = !dev.info.software || env("PT_LARGE_ROWS") === "1";

/** n floats in [lo, hi), exact in float32. */
function floats(n: number, seed: number, lo: number, hi: number): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * r());
}

/** n integers in [lo, hi). */
function ints(n: number, seed: number, lo: number, hi: number): Int32Array {
  const r = rng(seed);
  return Int32Array.from({ length: n }, () => lo + Math.floor((hi - lo) * r()));
}

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint | boolean>, Number);

/** got equals want element for element (NaN equal to NaN); names the first difference (assert's diff of 70000 elements takes minutes). */
function same(got: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  assert.equal(got.length, want.length, `${what}: ${got.length} elements, expected ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i] && !(Number.isNaN(got[i]) && Number.isNaN(want[i]))) {
      assert.fail(`${what}: element ${i} is ${got[i]}, expected ${want[i]}`);
    }
  }
}

/** A tensor of the data in a shape (the flat one disposed). */
function input(data: Float32Array | Int32Array, shape: number[], dtype?: pt.DType): pt.Tensor {
  using flat = pt.tensor(data, dtype ? { dtype } : undefined);
  return flat.reshape(...shape);
}

/** Element (r, k) of row r along an axis, for the three layouts the tests use. */
type Layout = { shape: number[]; axis: number; rows: number; len: number; at: (r: number, k: number) => number };
function layouts(len: number): Layout[] {
  return [
    { shape: [len], axis: 0, rows: 1, len, at: (_r, k) => k },
    { shape: [2, len], axis: 1, rows: 2, len, at: (r, k) => r * len + k },
    { shape: [len, 2], axis: 0, rows: 2, len, at: (r, k) => k * 2 + r }, // a strided axis
  ];
}

/** The running sums (or products) along each row, accumulated in double in order, as JS does. */
function scanRef(x: ArrayLike<number>, l: Layout, prod: boolean): number[] {
  const out = new Array<number>(x.length);
  for (let r = 0; r < l.rows; r++) {
    let acc = prod ? 1 : 0;
    for (let k = 0; k < l.len; k++) {
      const i = l.at(r, k);
      acc = prod ? acc * x[i] : acc + x[i];
      out[i] = acc;
    }
  }
  return out;
}

test("cumsum and cumprod along an axis of 70000 accumulate in order over the whole axis, as a JS loop does", () => {
  for (const l of layouts(N)) {
    const x = floats(2 * N, 1, -1, 1).subarray(0, l.rows * l.len);
    using t = input(x, l.shape);
    using s = t.cumsum(l.axis);
    same(nums(s), Array.from(Float32Array.from(scanRef(x, l, false))), `cumsum of [${l.shape}] along ${l.axis}`);
    const p = floats(l.rows * l.len, 2, 0.9999, 1.0001);
    using tp = input(p, l.shape);
    using c = tp.cumprod(l.axis);
    same(nums(c), Array.from(Float32Array.from(scanRef(p, l, true))), `cumprod of [${l.shape}] along ${l.axis}`);
    const q = ints(l.rows * l.len, 3, -5, 6);
    using ti = input(q, l.shape, "int32");
    using si = ti.cumsum(l.axis);
    assert.equal(si.dtype, "int64");
    same(nums(si), scanRef(q, l, false), `int32 cumsum of [${l.shape}] along ${l.axis}`);
  }
});

/** The stable sort order of row r: NaN above every number, descending inverting the keys only. */
function sortRef(x: ArrayLike<number>, l: Layout, r: number, descending: boolean): number[] {
  const key = (v: number) => (Number.isNaN(v) ? Infinity : v);
  const order = Array.from({ length: l.len }, (_, k) => k);
  order.sort((a, b) => {
    const ka = key(x[l.at(r, a)]), kb = key(x[l.at(r, b)]); // the data has no infinities
    const d = ka === kb ? 0 : ka < kb ? -1 : 1;
    return (descending ? -d : d) || a - b;
  });
  return order;
}

test("sort, argsort and topk of rows of 70000 give a JS stable sort's order, ties by position, NaN last", () => {
  for (const l of layouts(N)) {
    const x = Float32Array.from(ints(l.rows * l.len, 4, 0, 5000)); // ties everywhere
    for (let k = 0; k < 20; k++) x[(k * 7919) % x.length] = NaN;
    using t = input(x, l.shape);
    for (const descending of [false, true]) {
      const { values, indices } = t.sort(l.axis, descending);
      using v = values, i = indices;
      const got = nums(i), vals = nums(v);
      for (let r = 0; r < l.rows; r++) {
        const want = sortRef(x, l, r, descending);
        const row = want.map((_, k) => got[l.at(r, k)]);
        same(row, want, `[${l.shape}] row ${r} ${descending ? "descending" : "ascending"}: indices`);
        same(want.map((_, k) => vals[l.at(r, k)]), want.map((k) => x[l.at(r, k)]), `row ${r}: values`);
      }
    }
  }
  const x = floats(N, 5, -1, 1);
  using t = pt.tensor(x);
  using a = t.argsort(0, true);
  const want = sortRef(x, layouts(N)[0], 0, true);
  same(nums(a), want, "argsort descending");
  const { values, indices } = t.topk(5);
  using tv = values, ti = indices;
  same(nums(ti), want.slice(0, 5), "topk indices");
  same(nums(tv), want.slice(0, 5).map((k) => x[k]), "topk values");
});

test("sum, mean, max, argmax and argmin along an axis of 70000, and of its expression (fused), match JS loops", () => {
  for (const l of layouts(N)) {
    const x = Float32Array.from(ints(l.rows * l.len, 6, -1000, 1000)); // repeated maxima: argmax takes the first
    using t = input(x, l.shape);
    using sum = t.sum(l.axis), mean = t.mean(l.axis), max = t.max(l.axis), am = t.argmax(l.axis), an = t.argmin(l.axis);
    using d = t.mul(2), fused = d.sum(l.axis);
    const want = { sum: [] as number[], max: [] as number[], am: [] as number[], an: [] as number[] };
    for (let r = 0; r < l.rows; r++) {
      let s = 0, hi = -Infinity, lo = Infinity, ih = -1, il = -1;
      for (let k = 0; k < l.len; k++) {
        const v = x[l.at(r, k)];
        s += v;
        if (v > hi) [hi, ih] = [v, k];
        if (v < lo) [lo, il] = [v, k];
      }
      want.sum.push(Math.fround(s)), want.max.push(hi), want.am.push(ih), want.an.push(il); // an exact sum, stored as float32
    }
    const what = `[${l.shape}] along ${l.axis}`;
    same(nums(sum), want.sum, `${what}: sum`);
    same(nums(fused), want.sum.map((s) => 2 * s), `${what}: sum of x * 2`);
    assertClose(nums(mean), want.sum.map((s) => s / l.len), 1e-6, 1e-6, `${what}: mean`);
    same(nums(max), want.max, `${what}: max`);
    same(nums(am), want.am, `${what}: argmax`);
    same(nums(an), want.an, `${what}: argmin`);
  }
});

test("scans, sorts and reductions over more than 65535 rows match JS loops", () => {
  if (!manyRows) {
    console.log("large_shapes: software device; the 66000-row scan, sort and reduce run with PT_LARGE_ROWS=1");
    return;
  }
  const x = Float32Array.from(ints(ROWS * 2, 7, -50, 50));
  using t = input(x, [ROWS, 2]);
  using c = t.cumsum(1), s = t.sum(1), am = t.argmax(1);
  const { values, indices } = t.sort(1);
  using v = values, i = indices;
  const cs: number[] = [], sums: number[] = [], args: number[] = [], sorted: number[] = [], order: number[] = [];
  for (let r = 0; r < ROWS; r++) {
    const a = x[2 * r], b = x[2 * r + 1];
    cs.push(a, a + b);
    sums.push(a + b);
    args.push(b > a ? 1 : 0);
    sorted.push(Math.min(a, b), Math.max(a, b));
    order.push(...(b < a ? [1, 0] : [0, 1]));
  }
  same(nums(c), cs, "cumsum of each row");
  same(nums(s), sums, "sum of each row");
  same(nums(am), args, "argmax of each row");
  same(nums(v), sorted, "sorted rows");
  same(nums(i), order, "stable order of each row");
});

test("scatter, scatter add and indexPut of 70000 elements write in row-major order: last writer wins, sums in order", () => {
  const slots = 1000, src = floats(N, 8, -1, 1), idx = ints(N, 9, 0, slots);
  const set = new Float32Array(slots), add = new Float32Array(slots);
  for (let i = 0; i < N; i++) {
    set[idx[i]] = src[i];
    add[idx[i]] = add[idx[i]] + src[i]; // each step stored to float32, as the kernels store it
  }
  using s = pt.tensor(src), ix = pt.tensor(idx, { dtype: "int64" }), z = pt.zeros([slots]);
  using sc = z.scatter(0, ix, s), sa = z.scatter(0, ix, s, { reduce: "add" });
  using ip = z.indexPut([ix], s), ia = z.indexPut([ix], s, { accumulate: true });
  same(nums(sc), Array.from(set), "scatter: the last write to each slot");
  same(nums(sa), Array.from(add), "scatter add: the sum in row-major order");
  same(nums(ip), Array.from(set), "indexPut: the last write to each slot");
  same(nums(ia), Array.from(add), "indexPut accumulate: the sum in row-major order");
  // 66000 rows of an index along axis 1: row r writes row r only, its second element last
  const col = ints(ROWS * 2, 10, 0, 2), vals = floats(ROWS * 2, 11, 1, 2);
  const want = new Float32Array(ROWS * 2);
  for (let i = 0; i < ROWS * 2; i++) want[(i >> 1) * 2 + col[i]] = vals[i];
  using c2 = input(col, [ROWS, 2], "int64"), v2 = input(vals, [ROWS, 2]), z2 = pt.zeros([ROWS, 2]);
  using s2 = z2.scatter(1, c2, v2);
  same(nums(s2), Array.from(want), "scatter along axis 1 of [66000, 2]");
});

test("gather, indexSelect and index read 70000 and 1.1M positions and 66000 rows as a JS loop does", () => {
  const x = floats(N, 12, -1, 1), idx = ints(N, 13, -N, N); // negative indices count from the end
  const want = Array.from(idx, (k) => x[k < 0 ? k + N : k]);
  using t = pt.tensor(x), ix = pt.tensor(idx, { dtype: "int64" });
  using g = t.gather(0, ix), s = t.indexSelect(0, ix), i = t.index([ix]);
  same(nums(g), want, "gather");
  same(nums(s), want, "indexSelect");
  same(nums(i), want, "index");
  // more elements than one pass of 4096 groups of 256 covers
  const many = 1_100_000, big = ints(many, 14, 0, N);
  using bx = pt.tensor(big, { dtype: "int64" }), bg = t.gather(0, bx);
  const got = nums(bg);
  assert.equal(got.length, many);
  for (let k = 0; k < many; k += 997) assert.equal(got[k], x[big[k]], `gather position ${k}`);
  assert.equal(got[many - 1], x[big[many - 1]], "the last position");
  const rows = floats(ROWS * 2, 15, -1, 1), col = ints(ROWS * 2, 16, 0, 2);
  using tr = input(rows, [ROWS, 2]), cr = input(col, [ROWS, 2], "int64"), gr = tr.gather(1, cr);
  same(nums(gr), Array.from(col, (c, k) => rows[(k >> 1) * 2 + c]), "gather along axis 1 of [66000, 2]");
});

test("nonzero and maskedSelect of 70000 elements and of [66000, 2] keep row-major order", () => {
  for (const shape of [[N], [ROWS, 2]]) {
    const n = shape[0] * (shape[1] ?? 1), x = floats(n, 17, -1, 1);
    using t = input(x, shape), m = t.gt(0.25), nz = m.nonzero(), sel = t.maskedSelect(m);
    const coords: number[] = [], picked: number[] = [];
    x.forEach((v, k) => {
      if (!(v > 0.25)) return;
      coords.push(...(shape.length === 1 ? [k] : [k >> 1, k & 1]));
      picked.push(v);
    });
    same(nums(nz), coords, `nonzero of [${shape}]`);
    same(nums(sel), picked, `maskedSelect of [${shape}]`);
  }
});

test("rand of 1.1M elements draws counter i for element i past one pass of the launch grid", () => {
  pt.manualSeed(0x1234_5678_9abc_def0n);
  const n = 1_100_000;
  using r = pt.rand([n]);
  const got = nums(r);
  for (const i of [0, 65535, 65536, 1048575, 1048576, 1048577, n - 1]) {
    assert.equal(got[i], (philox(BigInt(i), 0x9abcdef0, 0x12345678)[0] >>> 8) / 2 ** 24, `element ${i}`);
  }
});
