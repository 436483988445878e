/**
 * searchsorted, bincount, histc and unique against plain JS loops: both sides, sorters, batched sequences, ties, NaN,
 * weights and minlength, data-derived ranges, slices along a dim, strided inputs, empty and 0-d tensors; bad input as
 * TensorErrors naming the function.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, rng, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const ints = (r: () => number, n: number, lo: number, hi: number) => Array.from({ length: n }, () => lo + Math.floor(r() * (hi - lo)));

/** numpy's definition: the count of sequence elements before which the value goes. */
const refSearch = (seq: number[], v: number, right: boolean) => seq.filter((s) => (right ? s <= v : s < v)).length;

test("searchsorted counts the elements that go before each value, on both sides, for many sizes", () => {
  const r = rng(3);
  for (const n of [1, 2, 3, 7, 8, 9, 16, 33]) {
    const seq = ints(r, n, -5, 6).sort((a, b) => a - b), vals = ints(r, 25, -7, 8);
    for (const right of [false, true]) {
      const got = pt.searchsorted(pt.tensor(seq), pt.tensor(vals).reshape([5, 5]), { right });
      assert.deepEqual([...got.shape], [5, 5]);
      assert.equal(got.dtype, "int64");
      assert.deepEqual(nums(got), vals.map((v) => refSearch(seq, v, right)), `n=${n} right=${right}`);
    }
  }
  assert.deepEqual(nums(pt.searchsorted(pt.tensor([1, 3, 3, 7]), pt.tensor([3]), { side: "right" })), [3]);
  const s = pt.searchsorted(pt.tensor([1, 3, 5]), 4);
  assert.deepEqual([s.ndim, Number(s.item())], [0, 2]);
  assert.equal(pt.searchsorted(pt.tensor([1, 2]), pt.tensor([2]), { outInt32: true }).dtype, "int32");
  assert.deepEqual(nums(pt.searchsorted(pt.zeros([0]), pt.tensor([1, 2]))), [0, 0]);
  assert.deepEqual([...pt.searchsorted(pt.tensor([1, 2]), pt.zeros([0, 3])).shape], [0, 3]);
  assert.deepEqual(nums(pt.searchsorted(pt.tensor([1, 2, NaN]), pt.tensor([1.5, NaN]))), [1, 3], "NaN sorts last");
});

test("searchsorted searches each row of a batched sequence, through a sorter and on strided input", () => {
  const r = rng(9);
  const rows = [0, 1, 2].map(() => ints(r, 6, 0, 10).sort((a, b) => a - b)), vals = [0, 1, 2].map(() => ints(r, 4, -1, 11));
  const got = pt.searchsorted(pt.tensor(rows), pt.tensor(vals), { right: true });
  assert.deepEqual(nums(got), rows.flatMap((row, i) => vals[i].map((v) => refSearch(row, v, true))));
  const colMajor = pt.tensor(rows).T.contiguous().T; // the same rows, strided
  assert.deepEqual(
    nums(pt.searchsorted(colMajor, pt.tensor(vals))),
    rows.flatMap((row, i) => vals[i].map((v) => refSearch(row, v, false))),
  );
  const unsorted = [5, 1, 4, 2], sorter = pt.tensor([1, 3, 2, 0], { dtype: "int64" });
  assert.deepEqual(nums(pt.searchsorted(pt.tensor(unsorted), pt.tensor([0, 3, 4, 6]), { sorter })), [0, 2, 2, 4]);
  const batched = pt.searchsorted(pt.tensor([[3, 1], [2, 9]]), pt.tensor([[2], [5]]), {
    sorter: pt.tensor([[1, 0], [0, 1]], { dtype: "int64" }),
  });
  assert.deepEqual(nums(batched), [1, 1]);
});

test("bincount counts each value, or sums its weights, with minlength", () => {
  const r = rng(4), x = ints(r, 40, 0, 9);
  const counts = Array.from({ length: 9 }, (_, v) => x.filter((e) => e === v).length);
  const last = Math.max(...x) + 1;
  const got = pt.bincount(pt.tensor(x, { dtype: "int64" }));
  assert.equal(got.dtype, "int64");
  assert.deepEqual(nums(got), counts.slice(0, last));
  assert.deepEqual(nums(pt.bincount(pt.tensor(x, { dtype: "int32" }), undefined, 12)), [
    ...counts.slice(0, last),
    ...Array(12 - last).fill(0),
  ]);
  const w = x.map((_, i) => (i % 5) * 0.5);
  const wsum = Array.from({ length: last }, (_, v) => x.reduce((s, e, i) => s + (e === v ? w[i] : 0), 0));
  const weighted = pt.bincount(pt.tensor(x, { dtype: "int32" }), pt.tensor(w));
  assert.equal(weighted.dtype, "float32");
  assert.deepEqual(nums(weighted), wsum);
  assert.equal(pt.bincount(pt.tensor([1], { dtype: "int64" }), pt.tensor([2], { dtype: "int32" })).dtype, "float64");
  assert.deepEqual(nums(pt.bincount(pt.tensor([2, 0, 4, 0, 6], { dtype: "uint8" }).slice(0, 0, undefined, 2))), [0, 0, 1, 0, 1, 0, 1]);
  assert.deepEqual(nums(pt.bincount(pt.zeros([0], { dtype: "int64" }), undefined, 3)), [0, 0, 0]);
  assert.deepEqual(nums(pt.bincount(pt.zeros([0], { dtype: "int64" }))), []);
});

/** torch.histc by its definition: bin floor((x - lo) * bins / (hi - lo)), x = hi in the last, outside and NaN dropped. */
function refHistc(x: number[], bins: number, lo: number, hi: number): number[] {
  const out = new Array<number>(bins).fill(0);
  for (const v of x) {
    if (!(v >= lo && v <= hi)) continue;
    out[Math.min(bins - 1, Math.floor(((v - lo) * bins) / (hi - lo)))]++;
  }
  return out;
}

test("histc counts elements into equal-width bins over a given range or the data's", () => {
  const r = rng(5), x = Array.from({ length: 60 }, () => Math.round((r() * 10 - 5) * 8) / 8);
  x.push(NaN);
  for (const [bins, lo, hi] of [[7, -3, 3], [1, -10, 10], [10, -5, 5], [4, 0, 2.5]]) {
    assert.deepEqual(nums(pt.histc(pt.tensor(x), bins, lo, hi)), refHistc(x, bins, lo, hi), `${bins} bins over [${lo}, ${hi}]`);
  }
  const finite = x.filter((v) => !Number.isNaN(v));
  const lo = Math.min(...finite), hi = Math.max(...finite);
  assert.deepEqual(nums(pt.histc(pt.tensor(finite).reshape([6, 10]).T, 9)), refHistc(finite, 9, lo, hi), "the data's range");
  assert.equal(pt.histc(pt.tensor(finite)).shape[0], 100);
  assert.deepEqual(nums(pt.histc(pt.tensor([2, 2, 2]), 4)), [0, 0, 3, 0], "one value: widened to [1, 3]");
  assert.deepEqual(nums(pt.histc(pt.tensor(3), 2)), [0, 1]);
  assert.deepEqual(nums(pt.histc(pt.zeros([0]), 3)), [0, 0, 0]);
  assert.equal(pt.histc(pt.tensor([1, 2], { dtype: "float64" }), 2).dtype, "float64");
});

test("unique gives the sorted distinct elements with inverse indices and counts", () => {
  const r = rng(6), x = ints(r, 30, -4, 5);
  const distinct = [...new Set(x)].sort((a, b) => a - b);
  const t = pt.tensor(x).reshape([5, 6]);
  assert.deepEqual(nums(pt.unique(t)), distinct);
  const u = pt.unique(t.T, { returnInverse: true, returnCounts: true });
  const xt = Array.from({ length: 30 }, (_, k) => x[(k % 5) * 6 + Math.floor(k / 5)]);
  assert.deepEqual(nums(u.values), distinct);
  assert.deepEqual([...u.inverse!.shape], [6, 5]);
  assert.deepEqual(nums(u.inverse!), xt.map((v) => distinct.indexOf(v)));
  assert.deepEqual(nums(u.counts!), distinct.map((v) => x.filter((e) => e === v).length));
  const only = pt.unique(t, { returnCounts: true });
  assert.equal(only.inverse, undefined);
  assert.equal(pt.unique(pt.tensor([2, 1, 2], { dtype: "int32" })).dtype, "int32");
  assert.deepEqual(nums(pt.unique(pt.tensor([1, NaN, 1, NaN]))), [1, NaN, NaN], "NaNs are each distinct");
  assert.deepEqual(pt.unique(pt.tensor([true, false, true], { dtype: "bool" })).toList(), [false, true]);
  const e = pt.unique(pt.zeros([0, 2]), { returnInverse: true, returnCounts: true });
  assert.deepEqual([[...e.values.shape], [...e.inverse!.shape], [...e.counts!.shape]], [[0], [0, 2], [0]]);
  const s = pt.unique(pt.tensor(4), { returnInverse: true });
  assert.deepEqual([nums(s.values), s.inverse!.ndim], [[4], 0]);
});

test("unique with dim gives the distinct slices in lexicographic order", () => {
  const r = rng(8);
  const rows = Array.from({ length: 9 }, () => ints(r, 3, 0, 2));
  const key = (row: number[]) => row.join(",");
  const distinct = [...new Map(rows.map((row) => [key(row), row])).values()].sort((a, b) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
    return 0;
  });
  const u = pt.unique(pt.tensor(rows), { dim: 0, returnInverse: true, returnCounts: true });
  assert.deepEqual(u.values.toList(), distinct);
  assert.deepEqual(nums(u.inverse!), rows.map((row) => distinct.findIndex((d) => key(d) === key(row))));
  assert.deepEqual(nums(u.counts!), distinct.map((d) => rows.filter((row) => key(row) === key(d)).length));
  const cols = pt.unique(pt.tensor(rows).T, { dim: 1 }); // the same slices as columns of a strided tensor
  assert.deepEqual(cols.T.toList(), distinct);
  const three = pt.unique(pt.tensor([[[1, 2], [3, 4]], [[0, 0], [0, 0]], [[1, 2], [3, 4]]]), { dim: 0 });
  assert.deepEqual(three.toList(), [[[0, 0], [0, 0]], [[1, 2], [3, 4]]]);
  assert.deepEqual([...pt.unique(pt.zeros([2, 0]), { dim: 1 }).shape], [2, 0]);
});

test("searchsorted, bincount, histc and unique reject bad input with TensorErrors naming them", () => {
  assertTensorError(() => pt.searchsorted(pt.tensor(1), pt.tensor([1])), /^searchsorted: sortedSequence must have at least one dim/);
  assertTensorError(
    () => pt.searchsorted(pt.zeros([2, 3]), pt.zeros([3, 3])),
    /^searchsorted: sortedSequence \[2, 3\] and values \[3, 3\] must agree/,
  );
  assertTensorError(() => pt.searchsorted(pt.zeros([2, 3]), 1), /^searchsorted: a number needs a 1-D sortedSequence/);
  assertTensorError(
    () => pt.searchsorted(pt.zeros([3]), pt.zeros([1]), { side: "left", right: true }),
    /^searchsorted: side "left" contradicts right/,
  );
  assertTensorError(
    () => pt.searchsorted(pt.zeros([3]), pt.zeros([1]), { side: "up" as never }),
    /^searchsorted: side must be "left" or "right"/,
  );
  assertTensorError(
    () => pt.searchsorted(pt.zeros([3]), pt.zeros([1]), { sorter: pt.zeros([3]) }),
    /^searchsorted: sorter must be an int64 tensor/,
  );
  assertTensorError(() => pt.bincount(pt.zeros([3])), /^bincount: input must be a 1-D integer tensor, got float32\[3\]/);
  assertTensorError(() => pt.bincount(pt.tensor([1, -2, 3], { dtype: "int64" })), /^bincount: input must be non-negative, got -2/);
  assertTensorError(() => pt.bincount(pt.tensor([1], { dtype: "int64" }), pt.zeros([2])), /^bincount: weights must have input's shape/);
  assertTensorError(() => pt.bincount(pt.tensor([1], { dtype: "int64" }), undefined, -1), /^bincount: minlength must be an integer >= 0/);
  assertTensorError(() => pt.histc(pt.tensor([1], { dtype: "int64" })), /^histc: needs a floating-point tensor, got int64/);
  assertTensorError(() => pt.histc(pt.zeros([3]), 0), /^histc: bins must be an integer >= 1, got 0/);
  assertTensorError(() => pt.histc(pt.zeros([3]), 5, 2, 1), /^histc: max must be larger than min/);
  assertTensorError(() => pt.histc(pt.zeros([3]), 5, -Infinity, 1), /^histc: min and max must be finite numbers/);
  assertTensorError(() => pt.histc(pt.tensor([1, Infinity])), /^histc: the data's range \[1, Infinity\] is not finite/);
  assertTensorError(() => pt.unique(pt.zeros([2, 2]), { dim: 2 }), /^unique: axis 2 is out of range/);
});
