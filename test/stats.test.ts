/**
 * amax, amin, nansum, nanToNum, median, kthvalue and quantile against plain JS loops over row-major data: several dims,
 * keepdim, odd sizes, strided (transposed) input, NaN and infinities, empty, one-element and 0-d tensors; gradients
 * against finite differences and by hand where ties share them; bad input as TensorErrors naming the function.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, rng, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const strides = (shape: readonly number[]) => shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));

/** The rows of data (row-major, shape) along `dims`, one per kept index in row-major order, with the kept shape. */
function groups(data: number[], shape: number[], dims: number[]): { shape: number[]; rows: number[][] } {
  const keep = shape.flatMap((_, i) => (dims.includes(i) ? [] : [i]));
  const kshape = keep.map((i) => shape[i]), st = strides(shape);
  const nk = kshape.reduce((a, b) => a * b, 1), nr = dims.reduce((a, d) => a * shape[d], 1);
  const rows: number[][] = [];
  for (let k = 0; k < nk; k++) {
    const row: number[] = [];
    for (let r = 0; r < nr; r++) {
      let off = 0, kk = k, rr = r;
      for (let j = keep.length - 1; j >= 0; j--) off += (kk % shape[keep[j]]) * st[keep[j]], kk = Math.floor(kk / shape[keep[j]]);
      for (let j = dims.length - 1; j >= 0; j--) off += (rr % shape[dims[j]]) * st[dims[j]], rr = Math.floor(rr / shape[dims[j]]);
      row.push(data[off]);
    }
    rows.push(row);
  }
  return { shape: kshape, rows };
}
const randomData = (n: number, seed: number) => {
  const r = rng(seed);
  return Array.from({ length: n }, () => Math.round((r() * 20 - 10) * 4) / 4); // quarters: exact in float32, with ties
};
/** Ascending with NaN last, as the library's (and torch's) sort. */
const jsSorted = (row: number[]) => [...row].sort((a, b) => (Number.isNaN(a) ? 1 : Number.isNaN(b) ? -1 : a - b));

test("amax and amin reduce one, several or all dims, with keepdim, NaN propagating, on strided input", () => {
  const shape = [3, 4, 5], data = randomData(60, 1);
  data[17] = NaN;
  const x = pt.tensor(data).reshape(shape);
  for (const dims of [[0], [1, 2], [0, 2], [2, 0, 1]]) {
    const g = groups(data, shape, [...dims].sort());
    const mx = (r: number[]) => (r.some(Number.isNaN) ? NaN : Math.max(...r)),
      mn = (r: number[]) => (r.some(Number.isNaN) ? NaN : Math.min(...r));
    const a = pt.amax(x, dims), b = pt.amin(x, dims, true);
    assert.deepEqual([...a.shape], g.shape);
    assertClose(nums(a), g.rows.map(mx), 0, 0, `amax ${dims}`);
    assert.deepEqual([...b.shape], shape.map((s, i) => (dims.includes(i) ? 1 : s)));
    assertClose(nums(b), g.rows.map(mn), 0, 0, `amin ${dims}`);
  }
  assert.equal(pt.amax(x).item(), NaN);
  assert.equal(pt.amax(pt.tensor([[1, 5], [7, 2]]).T, []).item(), 7, "an empty dim list reduces every dim");
  assert.deepEqual(nums(pt.amin(pt.tensor([[1, 5], [7, 2]]).T, 1)), [1, 2]);
  assert.equal(pt.amax(pt.tensor([3], { dtype: "int32" })).dtype, "int32");
  assert.equal(pt.amin(pt.tensor(4)).item(), 4);
  assert.deepEqual([...pt.amax(pt.zeros([0, 3]), 1).shape], [0], "reducing a non-empty dim of an empty tensor");
});

test("amax and amin share the gradient evenly among tied elements, as torch.amax", () => {
  const x = pt.tensor([[1, 3, 3], [2, 2, 2]]).requiresGrad_();
  pt.amax(x, 1).sum().backward();
  assertClose(nums(x.grad!), [0, 0.5, 0.5, 1 / 3, 1 / 3, 1 / 3]);
  const y = pt.tensor([[4, 1], [1, 9]]).requiresGrad_();
  pt.amin(y, [0, 1]).backward();
  assertClose(nums(y.grad!), [0, 0.5, 0.5, 0]);
  gradcheck("amax over two dims", (t) => pt.amax(t, [0, 2]), [randomInput([2, 3, 4], 11)]);
  gradcheck("amin with keepdim", (t) => pt.amin(t.T, 0, true), [randomInput([3, 4], 12)]);
});

test("nansum adds the non-NaN elements; integer input sums to int64", () => {
  const data = [1, NaN, 2.5, NaN, -4, 8];
  const x = pt.tensor(data).reshape([2, 3]);
  assert.equal(pt.nansum(x).item(), 7.5);
  assert.deepEqual(
    nums(pt.nansum(x, 0)),
    [NaN, 2.5, NaN].map((_, j) => [data[j], data[j + 3]].filter((v) => !Number.isNaN(v)).reduce((a, b) => a + b, 0)),
  );
  assert.deepEqual(nums(pt.nansum(x.T, 0, true)), [3.5, 4]);
  const i = pt.nansum(pt.tensor([1, 2, 3], { dtype: "int32" }));
  assert.equal(i.dtype, "int64");
  assert.equal(i.item(), 6n);
  assert.equal(pt.nansum(pt.zeros([0])).item(), 0);
  assert.equal(pt.nansum(pt.tensor(NaN)).item(), 0);
  const g = pt.tensor([1, NaN, 3]).requiresGrad_();
  pt.nansum(g).backward();
  assert.deepEqual(nums(g.grad!), [1, 0, 1]);
  gradcheck("nansum", (t) => pt.nansum(t, 1), [randomInput([2, 3], 13)]);
});

test("nanToNum replaces NaN and infinities, by default with each dtype's extreme finite values", () => {
  const vals = [NaN, Infinity, -Infinity, 1.5];
  assert.deepEqual(nums(pt.nanToNum(pt.tensor(vals))), [0, 3.4028234663852886e38, -3.4028234663852886e38, 1.5]);
  assert.deepEqual(nums(pt.nanToNum(pt.tensor(vals, { dtype: "float64" }))), [0, Number.MAX_VALUE, -Number.MAX_VALUE, 1.5]);
  assert.deepEqual(nums(pt.nanToNum(pt.tensor(vals, { dtype: "float16" }))), [0, 65504, -65504, 1.5]);
  assert.deepEqual(nums(pt.nanToNum(pt.tensor(vals, { dtype: "bfloat16" }))), [0, 3.3895313892515355e38, -3.3895313892515355e38, 1.5]);
  assert.deepEqual(nums(pt.nanToNum(pt.tensor(vals).reshape([2, 2]).T, 7, 8, -9)), [7, -9, 8, 1.5]);
  const ints = pt.tensor([1, 2], { dtype: "int32" });
  const copy = pt.nanToNum(ints, 5);
  assert.equal(copy.dtype, "int32");
  assert.deepEqual(nums(copy), [1, 2]);
  assert.equal(pt.nanToNum(pt.tensor(NaN), 3).item(), 3);
  const g = pt.tensor([NaN, 2, Infinity]).requiresGrad_();
  pt.nanToNum(g).sum().backward();
  assert.deepEqual(nums(g.grad!), [0, 1, 0]);
  gradcheck("nanToNum", (t) => pt.nanToNum(t.mul(3)), [randomInput([5], 14)]);
});

test("median is the lower middle value, NaN where a NaN is present, with indices along a dim", () => {
  for (const [r, c] of [[3, 5], [4, 4], [1, 1], [2, 7]]) {
    const data = randomData(r * c, r * 10 + c);
    const x = pt.tensor(data).reshape([r, c]);
    for (const d of [0, 1]) {
      const g = groups(data, [r, c], [d]);
      const { values, indices } = pt.median(x, d);
      const want = g.rows.map((row) => jsSorted(row)[(row.length - 1) >> 1]);
      assert.deepEqual(nums(values), want, `median ${r}x${c} dim ${d}`);
      const picked = x.gather(d, indices.unsqueeze(d)).squeeze(d);
      assert.deepEqual(nums(picked), want, "the indices point at the medians");
    }
    assert.equal(pt.median(x).item(), jsSorted(data)[(data.length - 1) >> 1]);
    const t = pt.median(x.T, 0, true);
    assert.deepEqual([...t.values.shape], [1, r]);
    assert.deepEqual(nums(t.values), groups(data, [r, c], [1]).rows.map((row) => jsSorted(row)[(row.length - 1) >> 1]));
  }
  const n = pt.median(pt.tensor([[3, NaN, 1, NaN], [2, 1, 4, 3]]), 1);
  assert.deepEqual(nums(n.values), [NaN, 2]);
  assert.deepEqual(nums(n.indices), [1, 0], "the first NaN of a row");
  assert.equal(pt.median(pt.tensor([1, NaN, 2])).item(), NaN);
  assert.equal(pt.median(pt.tensor([4, 1, 3, 2], { dtype: "int32" })).item(), 2);
  assert.equal(pt.median(pt.zeros([0])).item(), NaN);
  const s = pt.median(pt.tensor(5), 0);
  assert.deepEqual([s.values.ndim, s.values.item(), s.indices.item()], [0, 5, 0n]);
  assert.deepEqual([...pt.median(pt.zeros([0, 3]), 1).values.shape], [0]);
});

test("kthvalue picks the k-th smallest along a dim with its index, NaN counting as the largest", () => {
  const shape = [3, 6], data = randomData(18, 5);
  data[4] = NaN;
  const x = pt.tensor(data).reshape(shape);
  for (const k of [1, 3, 6]) {
    const { values, indices } = pt.kthvalue(x, k);
    const want = groups(data, shape, [1]).rows.map((row) => jsSorted(row)[k - 1]);
    assert.deepEqual(nums(values), want, `k=${k}`);
    assert.deepEqual(nums(x.gather(1, indices.unsqueeze(1)).squeeze(1)), want);
  }
  const kd = pt.kthvalue(x.T, 2, 0, true);
  assert.deepEqual([...kd.values.shape], [1, 3]);
  assert.deepEqual(nums(kd.values), groups(data, shape, [1]).rows.map((row) => jsSorted(row)[1]));
  assert.deepEqual(nums(pt.kthvalue(x, 2, 0).values), groups(data, shape, [0]).rows.map((row) => jsSorted(row)[1]));
  assert.equal(pt.kthvalue(pt.tensor(3), 1).values.item(), 3);
});

/** torch.quantile's definition over one row, in plain JS. */
function refQuantile(row: number[], q: number, how: string): number {
  if (row.length === 0 || row.some(Number.isNaN)) return NaN;
  const s = jsSorted(row), r = q * (s.length - 1), lo = Math.floor(r), hi = Math.ceil(r);
  const even = (v: number) => (Math.abs(v % 1) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v));
  switch (how) {
    case "lower":
      return s[lo];
    case "higher":
      return s[hi];
    case "midpoint":
      return (s[lo] + s[hi]) / 2;
    case "nearest":
      return s[even(r)];
    default:
      return s[lo] + (s[hi] - s[lo]) * (r - lo);
  }
}

test("quantile interpolates between sorted elements by each of torch's modes, over a dim or all elements", () => {
  const qs = [0, 0.1, 0.25, 0.5, 0.625, 0.9, 1];
  for (const shape of [[3, 5], [4, 2], [1, 7]]) {
    const n = shape[0] * shape[1], data = randomData(n, n + shape[0]), x = pt.tensor(data).reshape(shape);
    for (const how of ["linear", "lower", "higher", "midpoint", "nearest"] as const) {
      for (const d of [0, 1]) {
        const rows = groups(data, shape, [d]).rows;
        const got = pt.quantile(x, qs, d, false, { interpolation: how });
        assert.deepEqual([...got.shape], [qs.length, rows.length]);
        assertClose(nums(got), qs.flatMap((q) => rows.map((row) => refQuantile(row, q, how))), 1e-6, 1e-6, `${how} ${shape} dim ${d}`);
      }
      const all = pt.quantile(x.T, 0.3, undefined, false, { interpolation: how });
      assert.equal(all.ndim, 0);
      assertClose(nums(all), [refQuantile(data, 0.3, how)], 1e-6, 1e-6, `${how} over all`);
    }
  }
  const x = pt.tensor([[1, 2, 3, 4], [NaN, 1, 2, 3]]);
  assert.deepEqual(nums(pt.quantile(x, 0.5, 1)), [2.5, NaN]);
  const k = pt.quantile(x, pt.tensor([0.25, 0.75]), 1, true);
  assert.deepEqual([...k.shape], [2, 2, 1]);
  assert.deepEqual(nums(k), [1.75, NaN, 3.25, NaN]);
  assert.deepEqual([...pt.quantile(x, pt.tensor(0.5), undefined, true).shape], [1, 1]);
  assert.equal(pt.quantile(pt.zeros([0]), 0.5).item(), NaN);
  assert.equal(pt.quantile(pt.tensor(2.5), 0.3).item(), 2.5);
  assert.equal(pt.quantile(pt.tensor([1, 3], { dtype: "float64" }), 0.5).dtype, "float64");
});

test("median, kthvalue and quantile carry gradients to the elements they pick", () => {
  gradcheck("median over all", (t) => pt.median(t), [randomInput([3, 3], 21)]);
  gradcheck("median along a dim", (t) => pt.median(t, 0).values, [randomInput([4, 3], 22)]);
  gradcheck("kthvalue", (t) => pt.kthvalue(t.T, 2, 1).values, [randomInput([5, 2], 23)]);
  for (const how of ["linear", "midpoint", "nearest"] as const) {
    gradcheck(`quantile ${how}`, (t) => pt.quantile(t, [0.2, 0.5, 0.85], 1, false, { interpolation: how }), [randomInput([2, 6], 24)]);
  }
});

test("the statistics reject bad input with TensorErrors naming the function", () => {
  assertTensorError(() => pt.amax(pt.zeros([0])), /^amax: is undefined on an empty extent/);
  assertTensorError(() => pt.amin(pt.zeros([2, 0]), 1), /^amin: is undefined on an empty extent/);
  assertTensorError(() => pt.amax(pt.zeros([2]), 1), /^amax: axis 1 is out of range/);
  assertTensorError(() => pt.amin(pt.zeros([2, 2]), [0, 0]), /^amin: axes \[0, 0\] repeat an axis/);
  assertTensorError(() => pt.nansum(pt.zeros([2]), 3), /^nansum: axis 3 is out of range/);
  assertTensorError(() => pt.nanToNum(pt.zeros([2]), "x" as never), /^nanToNum: nan must be a number/);
  assertTensorError(() => pt.median(pt.zeros([2, 0]), 1), /^median: dim 1 of shape \[2, 0\] is empty/);
  assertTensorError(() => pt.median(pt.zeros([0], { dtype: "int32" })), /^median: an empty int32 tensor has no median/);
  assertTensorError(() => pt.median(pt.zeros([2]), 2), /^median: axis 2 is out of range/);
  assertTensorError(() => pt.kthvalue(pt.zeros([3]), 4), /^kthvalue: k must be an integer in \[1, 3\]/);
  assertTensorError(() => pt.kthvalue(pt.zeros([3]), 0), /^kthvalue: k must be an integer/);
  assertTensorError(() => pt.quantile(pt.zeros([3], { dtype: "int64" }), 0.5), /^quantile: needs a floating-point tensor, got int64/);
  assertTensorError(() => pt.quantile(pt.zeros([3]), 1.5), /^quantile: q must lie in \[0, 1\], got 1.5/);
  assertTensorError(() => pt.quantile(pt.zeros([3]), [0.5, NaN]), /^quantile: q must lie in \[0, 1\], got NaN/);
  assertTensorError(() => pt.quantile(pt.zeros([3]), pt.zeros([2, 2])), /^quantile: q must be a scalar or 1-D/);
  assertTensorError(
    () => pt.quantile(pt.zeros([3]), 0.5, 0, false, { interpolation: "cubic" as never }),
    /^quantile: interpolation must be/,
  );
  assertTensorError(() => pt.quantile(pt.zeros([3]), 0.5, 1), /^quantile: axis 1 is out of range/);
});
