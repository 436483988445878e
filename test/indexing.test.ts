/** gather, indexSelect, scatter, indexPut, index, maskedSelect and nonzero against JS loops. */
import * as pt from "../mod.ts";
import { assert, assertTensorError, rng, test } from "./harness.ts";

type Mode = "error" | "clamp" | "wrap";
const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const stridesOf = (s: readonly number[]) => s.map((_, i) => s.slice(i + 1).reduce((a, b) => a * b, 1));
const numel = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
const unravel = (i: number, s: readonly number[]) => stridesOf(s).map((st, d) => Math.floor(i / st) % s[d]);
const ravel = (p: readonly number[], s: readonly number[]) => stridesOf(s).reduce((acc, st, d) => acc + p[d] * st, 0);

function norm(v: number, size: number, mode: Mode): number {
  if (mode === "clamp") return Math.min(Math.max(v, 0), size - 1);
  if (mode === "wrap") return ((v % size) + size) % size;
  if (v < -size || v >= size) throw new Error(`reference: index ${v} out of range`);
  return v < 0 ? v + size : v;
}

function randData(shape: number[], seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: numel(shape) }, () => Math.round(r() * 200 - 100) / 4);
}
function randIdx(shape: number[], lo: number, hi: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: numel(shape) }, () => lo + Math.floor(r() * (hi - lo)));
}
function make(data: number[], shape: number[], dtype: pt.DType = "float32"): pt.Tensor {
  using flat = pt.tensor(data, { dtype });
  return flat.reshape(shape);
}

function refGather(x: number[], xs: number[], axis: number, idx: number[], is: number[], mode: Mode): number[] {
  return idx.map((v, i) => {
    const p = unravel(i, is);
    p[axis] = norm(v, xs[axis], mode);
    return x[ravel(p, xs)];
  });
}

function refScatter(
  x: number[],
  xs: number[],
  axis: number,
  idx: number[],
  is: number[],
  src: number[],
  ss: number[],
  reduce?: "add" | "max" | "min",
  mode: Mode = "error",
): number[] {
  const out = [...x];
  idx.forEach((v, i) => {
    const p = unravel(i, is);
    const s = src[ravel(p, ss)];
    p[axis] = norm(v, xs[axis], mode);
    const o = ravel(p, xs);
    out[o] = reduce === "add" ? out[o] + s : reduce === "max" ? Math.max(out[o], s) : reduce === "min" ? Math.min(out[o], s) : s;
  });
  return out;
}

for (const dtype of ["int32", "int64"] as const) {
  test(`gather matches a JS loop along every axis with ${dtype} indices, negatives included`, () => {
    const xs = [4, 5, 6];
    const x = randData(xs, 1);
    using t = make(x, xs);
    for (let axis = 0; axis < 3; axis++) {
      const is = [3, 4, 5];
      is[axis] = 7;
      const idx = randIdx(is, -xs[axis], xs[axis], 10 + axis);
      using it = make(idx, is, dtype);
      using g = t.gather(axis, it);
      assert.deepEqual(g.shape, is);
      assert.deepEqual(nums(g), refGather(x, xs, axis, idx, is, "error"));
    }
  });
}

for (const mode of ["clamp", "wrap"] as const) {
  test(`gather in ${mode} mode maps out-of-range indices like the reference`, () => {
    const xs = [3, 5];
    const x = randData(xs, 2);
    using t = make(x, xs);
    const idx = [-12, -6, -5, -1, 0, 4, 5, 11, 99, 3, -100, 2];
    using it = make(idx, [3, 4], "int64");
    using g = t.gather(1, it, mode);
    assert.deepEqual(nums(g), refGather(x, xs, 1, idx, [3, 4], mode));
  });
}

test("gather with an out-of-range index in error mode throws a TensorError naming index, axis and size", () => {
  using t = make([1, 2, 3, 4, 5, 6], [2, 3]);
  using it = make([0, 3, 1, 0], [2, 2], "int32");
  assertTensorError(() => t.gather(1, it), /gather/, /index 3/, /axis 1/, /size 3/);
  using neg = make([-4], [1, 1], "int64");
  assertTensorError(() => t.gather(1, neg), /index -4/);
});

test("gather reads permuted inputs and sliced index tensors through their strides", () => {
  const xs = [6, 7];
  const x = randData(xs, 3);
  using base = make(x, xs);
  using tt = base.T; // [7, 6], strides [1, 7]
  const tx = Array.from({ length: 42 }, (_, i) => x[(i % 6) * 7 + Math.floor(i / 6)]);
  const idxFull = randIdx([7, 8], 0, 6, 4);
  using ifull = make(idxFull, [7, 8], "int64");
  using isl = ifull.slice(1, 1, 8, 2); // [7, 4]
  const idx = Array.from({ length: 28 }, (_, i) => idxFull[Math.floor(i / 4) * 8 + 1 + 2 * (i % 4)]);
  using g = tt.gather(1, isl);
  assert.deepEqual(nums(g), refGather(tx, [7, 6], 1, idx, [7, 4], "error"));
});

test("gather and friends reject float, bool and mis-shaped index tensors with the op and dtype in the message", () => {
  using t = make([1, 2, 3, 4], [2, 2]);
  using fi = make([0, 1, 0, 1], [2, 2], "float32");
  assertTensorError(() => t.gather(0, fi), /gather/, /int32 or int64/, /float32/);
  using bi = pt.tensor([true, false]);
  assertTensorError(() => t.indexSelect(0, bi), /indexSelect/, /bool/);
  using i1 = make([0, 1], [2], "int64");
  assertTensorError(() => t.gather(0, i1), /gather/, /\[2\]/, /\[2, 2\]/);
  using big = make([0, 0, 0, 0, 0, 0], [2, 3], "int64");
  assertTensorError(() => t.gather(0, big), /dim 1/);
  assertTensorError(() => t.gather(2, make([0], [1, 1], "int64")), /axis 2/);
  assertTensorError(() => t.gather(0, make([0, 0, 0, 0], [2, 2], "int64"), "nearest" as Mode), /mode/);
});

test("indexSelect picks rows, columns and slabs of a 3-D tensor (int32/int64, negative, wrap)", () => {
  const xs = [3, 4, 5];
  const x = randData(xs, 5);
  using t = make(x, xs);
  for (let axis = 0; axis < 3; axis++) {
    for (const [dtype, mode] of [["int32", "error"], ["int64", "wrap"]] as const) {
      const n = xs[axis];
      const idx = mode === "error" ? [n - 1, -1, 0, -n, 1] : [n, -n - 1, 2 * n + 1, 0, -1];
      using it = make(idx, [5], dtype);
      using s = t.indexSelect(axis, it, mode);
      const os = [...xs];
      os[axis] = 5;
      assert.deepEqual(s.shape, os);
      const want = Array.from({ length: numel(os) }, (_, i) => {
        const p = unravel(i, os);
        p[axis] = norm(idx[p[axis]], n, mode);
        return x[ravel(p, xs)];
      });
      assert.deepEqual(nums(s), want);
    }
  }
});

test("indexSelect handles odd sizes: 33x127 input, empty and single-element indices", () => {
  const xs = [33, 127];
  const x = randData(xs, 6);
  using t = make(x, xs);
  const idx = randIdx([7], -127, 127, 7);
  using it = make(idx, [7], "int64");
  using s = t.indexSelect(1, it);
  assert.deepEqual(s.shape, [33, 7]);
  assert.deepEqual(nums(s), Array.from({ length: 33 * 7 }, (_, i) => x[Math.floor(i / 7) * 127 + norm(idx[i % 7], 127, "error")]));
  using e = make([], [0], "int32");
  using se = t.indexSelect(0, e);
  assert.deepEqual(se.shape, [0, 127]);
  using one = make([32], [1], "int32");
  using s1 = t.indexSelect(0, one);
  assert.deepEqual(nums(s1), x.slice(32 * 127));
});

test("scatter set: overlapping writes resolve to the last writer in row-major order", () => {
  using t = pt.zeros([2, 4]);
  using it = make([1, 1, 3, 1, 0, 0, 0, 2], [2, 4], "int64");
  using src = make([10, 20, 30, 40, 50, 60, 70, 80], [2, 4]);
  using s = t.scatter(1, it, src);
  assert.deepEqual(nums(s), [0, 40, 0, 30, 70, 0, 80, 0]);
  assert.deepEqual(nums(t), new Array(8).fill(0), "scatter is out of place");
});

test("scatter add and scatterAdd accumulate duplicates; max and min keep the extreme", () => {
  const xs = [3, 6];
  const x = randData(xs, 8);
  const is = [5, 6], ss = [5, 7];
  const idx = randIdx(is, -3, 3, 9), src = randData(ss, 10);
  using t = make(x, xs), it = make(idx, is, "int32"), st = make(src, ss);
  for (const reduce of ["add", "max", "min"] as const) {
    using s = t.scatter(0, it, st, { reduce });
    const want = refScatter(x, xs, 0, idx, is, src, ss, reduce);
    nums(s).forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-4, `${reduce} element ${i}: ${v} vs ${want[i]}`));
  }
  using sa = t.scatterAdd(0, it, st);
  const wantAdd = refScatter(x, xs, 0, idx, is, src, ss, "add");
  nums(sa).forEach((v, i) => assert.ok(Math.abs(v - wantAdd[i]) < 1e-4, `scatterAdd element ${i}: ${v} vs ${wantAdd[i]}`));
});

test("scatter with a scalar src, clamp and wrap modes, and an int64 input", () => {
  const x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  using t = make(x, [10], "int64");
  using it = make([-3, 12, 4], [3], "int64");
  using c = t.scatter(0, it, 99, { mode: "clamp" });
  assert.deepEqual(nums(c), [99, 2, 3, 4, 99, 6, 7, 8, 9, 99]);
  using w = t.scatter(0, it, 7n, { mode: "wrap", reduce: "add" });
  assert.deepEqual(nums(w), [1, 2, 10, 4, 12, 6, 7, 15, 9, 10]);
});

test("scatter checks PyTorch's shape rules and reports out-of-range indices", () => {
  using t = pt.zeros([3, 4]);
  using it = make([0, 1, 2, 0, 1, 2], [2, 3], "int64");
  using small = pt.ones([2, 2]);
  assertTensorError(() => t.scatter(1, it, small), /scatter/, /\[2, 3\]/, /\[2, 2\]/);
  using wide = make([0, 0, 0, 0, 0], [1, 5], "int64");
  assertTensorError(() => t.scatter(0, wide, 1), /dim 1/);
  using bad = make([0, 4], [1, 2], "int32");
  assertTensorError(() => t.scatter(1, bad, 1), /scatter/, /index 4/, /size 4/);
  assertTensorError(() => t.scatter(1, bad, 1, { reduce: "mul" as "add" }), /reduce/);
});

test("indexPut writes through broadcast index tensors, with accumulate summing duplicates", () => {
  const xs = [4, 5, 2];
  const x = randData(xs, 11);
  using t = make(x, xs);
  using i0 = make([0, -1, 0], [3, 1], "int64"); // broadcasts with i1 to [3, 2]
  using i1 = make([1, 4], [2], "int32");
  using vals = make([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [3, 2, 2]);
  const v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const set = [...x], acc = [...x];
  for (let b = 0; b < 6; b++) {
    const r = [0, 3, 0][Math.floor(b / 2)], c = [1, 4][b % 2];
    for (let k = 0; k < 2; k++) {
      set[(r * 5 + c) * 2 + k] = v[b * 2 + k];
      acc[(r * 5 + c) * 2 + k] += v[b * 2 + k];
    }
  }
  using p = t.indexPut([i0, i1], vals);
  assert.deepEqual(nums(p), set);
  using a = t.indexPut([i0, i1], vals, { accumulate: true });
  nums(a).forEach((y, i) => assert.ok(Math.abs(y - acc[i]) < 1e-4, `element ${i}: ${y} vs ${acc[i]}`));
  using row = make([-7, 7], [2], "float32");
  using pb = t.indexPut([i1], row, { mode: "clamp" }); // i1 [2] indexes dim 0 (clamped: 1, 3); values broadcast over [2, 5, 2]
  const want = [...x];
  for (const r of [1, 3]) for (let k = 0; k < 10; k++) want[r * 10 + k] = k % 2 === 0 ? -7 : 7;
  assert.deepEqual(nums(pb), want);
  using ps = t.indexPut([i0], 0);
  assert.deepEqual(nums(ps), x.map((y, i) => (Math.floor(i / 10) === 0 || Math.floor(i / 10) === 3 ? 0 : y)));
});

test("indexPut and index reject bad values shapes, bad indices and too many index tensors", () => {
  using t = pt.zeros([3, 4]);
  using i = make([0, 1], [2], "int64");
  using v = pt.ones([3]);
  assertTensorError(() => t.indexPut([i], v), /indexPut/, /\[3\]/, /\[2, 4\]/);
  using oob = make([3], [1], "int64");
  assertTensorError(() => t.indexPut([oob], 1), /index 3/, /size 3/);
  assertTensorError(() => t.index([i, i, i]), /index/, /too many/);
  using f = make([0], [1], "float64");
  assertTensorError(() => t.index([f]), /float64/);
});

test("index (advanced indexing) returns B + rest shapes like a JS loop", () => {
  const xs = [5, 3, 4];
  const x = randData(xs, 12);
  using t = make(x, xs);
  const a = randIdx([2, 3], -5, 5, 13), b = randIdx([3], 0, 3, 14);
  using ia = make(a, [2, 3], "int64"), ib = make(b, [3], "int32");
  using g = t.index([ia, ib]);
  assert.deepEqual(g.shape, [2, 3, 4]);
  assert.deepEqual(
    nums(g),
    Array.from({ length: 24 }, (_, i) => {
      const q = Math.floor(i / 4);
      return x[(norm(a[q], 5, "error") * 3 + b[q % 3]) * 4 + (i % 4)];
    }),
  );
  using p = t.permute(2, 0, 1); // [4, 5, 3]
  using ic = make([3, 0], [2], "int64");
  using g2 = p.index([ic], "wrap");
  assert.deepEqual(g2.shape, [2, 5, 3]);
  assert.deepEqual(
    nums(g2),
    Array.from({ length: 30 }, (_, i) => x[(Math.floor(i / 3) % 5) * 12 + (i % 3) * 4 + [3, 0][Math.floor(i / 15)]]),
  );
});

test("maskedSelect broadcasts the mask, reads strided input and may select nothing", () => {
  const xs = [4, 6];
  const x = randData(xs, 15);
  using t = make(x, xs);
  using tt = t.T; // [6, 4]
  using m = pt.tensor([true, false, true, true]);
  using sel = tt.maskedSelect(m);
  const want: number[] = [];
  for (let i = 0; i < 6; i++) for (let j = 0; j < 4; j++) if ([true, false, true, true][j]) want.push(x[j * 6 + i]);
  assert.deepEqual(nums(sel), want);
  using none = pt.zeros([6, 4], { dtype: "bool" });
  using s0 = tt.maskedSelect(none);
  assert.deepEqual(s0.shape, [0]);
  using gt = t.gt(0);
  using pos = t.maskedSelect(gt);
  assert.deepEqual(nums(pos), x.filter((v) => v > 0));
  assertTensorError(() => t.maskedSelect(t), /maskedSelect/, /bool/, /float32/);
  using m5 = pt.tensor([true, false, true, true, false]);
  assertTensorError(() => t.maskedSelect(m5), /maskedSelect/, /broadcast/);
});

test("nonzero lists coordinates row-major; NaN is nonzero; empty and 0-d inputs work", () => {
  using t = make([0, 1.5, 0, NaN, 0, -2, 0, 0, 3, 0, 0, 0], [2, 2, 3]);
  using nz = t.nonzero();
  assert.equal(nz.dtype, "int64");
  assert.deepEqual(nz.shape, [4, 3]);
  assert.deepEqual(nums(nz), [0, 0, 1, 0, 1, 0, 0, 1, 2, 1, 0, 2]);
  using b = pt.tensor([[true, false], [false, true]]);
  using nb = b.T.nonzero();
  assert.deepEqual(nums(nb), [0, 0, 1, 1]);
  using e = pt.zeros([0, 3]);
  using ne = e.nonzero();
  assert.deepEqual(ne.shape, [0, 2]);
  using s = pt.tensor(5, { dtype: "int32" });
  using ns = s.nonzero();
  assert.deepEqual(ns.shape, [1, 0]);
  const big = randIdx([33, 127], -1, 2, 16);
  using tb = make(big, [33, 127], "int32");
  using nbig = tb.nonzero();
  const coords: number[] = [];
  big.forEach((v, i) => v !== 0 && coords.push(Math.floor(i / 127), i % 127));
  assert.deepEqual(nums(nbig), coords);
});

test("indexing ops free every intermediate, also when they throw", () => {
  using t = make(randData([7, 7], 17), [7, 7]);
  using i = make([0, 6, -1, 3, 2, 1, 0], [7], "int64");
  using bad = make([9], [1], "int64");
  using ones = pt.ones([7, 7]);
  using m = t.gt(0).materialize(); // its bytes belong before the baseline
  using si = make([0, 1, 2], [1, 3], "int64");
  using sbad = make([9], [1, 1], "int64");
  const before = pt.liveBytes();
  for (let k = 0; k < 3; k++) {
    t.indexSelect(1, i).dispose();
    t.scatter(1, si, 5).dispose();
    t.indexPut([i], 2, { accumulate: true }).dispose();
    t.maskedSelect(m).dispose();
    t.nonzero().dispose();
    t.index([i]).dispose();
    assertTensorError(() => t.indexSelect(0, bad), /index 9/);
    assertTensorError(() => t.scatter(0, sbad, ones), /index 9/);
    assertTensorError(() => t.indexPut([bad], 1), /index 9/);
  }
  assert.ok(pt.liveBytes() <= before, `live bytes grew from ${before} to ${pt.liveBytes()}`);
});

test("out-of-range indices are errors even when the result or the input is empty (gather, indexSelect, index, indexPut, scatter, scatterAdd)", () => {
  // PyTorch checks every index against its dim whatever the sizes of the other dims.
  const i64 = (v: bigint[]) => pt.tensor(v);
  using e00 = pt.zeros([0, 0]), e03 = pt.zeros([0, 3]), e30 = pt.zeros([3, 0]), e20 = pt.zeros([2, 0]);
  using i5 = i64([5n]), im4 = i64([-4n]), i2 = i64([2n]), im3 = i64([-3n]), i55 = i64([5n]).reshape(1, 1);
  const cases: [string, () => pt.Tensor, RegExp][] = [
    ["indexSelect of [0, 0] along 0 (result [1, 0])", () => e00.indexSelect(0, i5), /^indexSelect: .*index.*size 0/],
    ["indexSelect of [0, 3] along 1 (result [0, 1])", () => e03.indexSelect(1, i5), /^indexSelect: .*index 5.*size 3/],
    ["indexSelect of [0, 3] along 1, negative (result [0, 1])", () => e03.indexSelect(1, im4), /^indexSelect: .*index -4.*size 3/],
    ["indexSelect of [3, 0] along 0, 0-d index (result [0])", () => e30.indexSelect(0, i64([3n]).reshape([])), /^indexSelect: .*index 3/],
    ["index of [3, 0] (result [1, 0])", () => e30.index([i5]), /^index: .*index 5.*size 3/],
    ["index of [0, 0] (result [1, 0])", () => e00.index([i5]), /^index: .*index.*size 0/],
    ["indexPut of [3, 0]", () => e30.indexPut([i5], 1), /^indexPut: .*index 5.*size 3/],
    ["indexPut(accumulate) of [3, 0]", () => e30.indexPut([im4], 1, { accumulate: true }), /^indexPut\(accumulate\): .*index -4/],
    ["gather along an empty axis", () => e20.gather(1, i64([0n, 0n]).reshape(2, 1)), /^gather: .*size 0/],
    ["scatter along an empty axis", () => e20.scatter(1, i55, 1), /^scatter: .*index.*size 0/],
    ["scatterAdd along an empty axis", () => e20.scatterAdd(1, i55, 1), /^scatterAdd: .*index.*size 0/],
  ];
  for (const [what, f, pattern] of cases) {
    let caught: unknown;
    try {
      f().dispose();
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof pt.TensorError, `${what}: expected a TensorError, got ${caught}`);
    assert.match(caught.message, pattern, what);
  }
  // in range, the same empty results are fine
  using a = e03.indexSelect(1, i2), b = e03.indexSelect(1, im3), c = e30.index([i2]), d = e30.indexPut([i2], 1);
  assert.deepEqual([a.shape, b.shape, c.shape, d.shape], [[0, 1], [0, 1], [1, 0], [3, 0]]);
  // clamp and wrap still need a non-empty axis to map an index into
  assertTensorError(() => e00.indexSelect(0, i5, "clamp"), /^indexSelect: .*size 0/);
  using w = e03.indexSelect(1, i5, "wrap");
  assert.deepEqual(w.shape, [0, 1]);
});
