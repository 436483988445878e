/**
 * diag, diagonal, outer, movedim and meshgrid against plain JS loops over row-major data: offsets on both sides of the
 * main diagonal, odd and empty sizes, strided (transposed, sliced) inputs, diagonal as a view that shares memory,
 * gradients through each against finite differences, and bad input as TensorErrors naming the function.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const iota = (shape: number[]) => pt.arange(shape.reduce((a, b) => a * b, 1), undefined, 1, { dtype: "int32" }).reshape(shape);
const strides = (shape: readonly number[]) => shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
/** Every multi-index of shape, row-major. */
function indices(shape: readonly number[]): number[][] {
  const out: number[][] = [];
  const n = shape.reduce((a, b) => a * b, 1);
  for (let k = 0; k < n; k++) out.push(shape.map((d, i) => Math.floor(k / strides(shape)[i]) % d));
  return out;
}
const at = (data: number[], shape: readonly number[], idx: number[]) => data[idx.reduce((s, v, i) => s + v * strides(shape)[i], 0)];

/** torch.diagonal by its definition: other dims in order, then the diagonal. */
function refDiagonal(data: number[], shape: number[], offset: number, d1: number, d2: number): { shape: number[]; values: number[] } {
  const n = Math.max(0, offset >= 0 ? Math.min(shape[d1], shape[d2] - offset) : Math.min(shape[d1] + offset, shape[d2]));
  const keep = shape.flatMap((_, i) => (i === d1 || i === d2 ? [] : [i]));
  const outShape = [...keep.map((i) => shape[i]), n];
  const values = indices(outShape).map((ix) => {
    const full = new Array<number>(shape.length);
    keep.forEach((d, j) => full[d] = ix[j]);
    const k = ix[ix.length - 1];
    full[d1] = offset >= 0 ? k : k - offset;
    full[d2] = offset >= 0 ? k + offset : k;
    return at(data, shape, full);
  });
  return { shape: outShape, values };
}

test("diagonal takes each offset of any two dims, as torch.diagonal, on contiguous and strided input", () => {
  for (const shape of [[3, 5], [5, 3], [2, 3, 4], [4, 1, 3], [3, 0]]) {
    const data = Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => i);
    for (let d1 = 0; d1 < shape.length; d1++) {
      for (let d2 = 0; d2 < shape.length; d2++) {
        if (d1 === d2) continue;
        for (const k of [-3, -1, 0, 1, 2, 6]) {
          const want = refDiagonal(data, shape, k, d1, d2);
          const got = pt.diagonal(iota(shape), k, d1, d2);
          assert.deepEqual([...got.shape], want.shape, `shape ${shape} k=${k} dims ${d1},${d2}`);
          assert.deepEqual(nums(got), want.values, `values ${shape} k=${k} dims ${d1},${d2}`);
        }
      }
    }
  }
  const t = iota([4, 6]).T.slice(0, 1, undefined, 2); // [3, 4], strided both ways
  const tData = [1, 7, 13, 19, 3, 9, 15, 21, 5, 11, 17, 23];
  for (const k of [-2, 0, 1]) assert.deepEqual(nums(pt.diagonal(t, k)), refDiagonal(tData, [3, 4], k, 0, 1).values);
  assert.deepEqual(nums(pt.diagonal(iota([3, 3]), 0, -1, -2)), [0, 4, 8]);
});

test("diagonal is a view: writes through it reach the base, and the base's later writes show in it", () => {
  const m = pt.zeros([3, 4]);
  pt.diagonal(m, 1).fill_(7);
  assert.deepEqual(nums(m), [0, 7, 0, 0, 0, 0, 7, 0, 0, 0, 0, 7]);
  const d = pt.diagonal(m);
  m.fill_(2);
  assert.deepEqual(nums(d), [2, 2, 2]);
  // a pending (lazy) base is run first, and the view reads its values
  assert.deepEqual(nums(pt.diagonal(pt.ones([2, 2]).mul(3))), [3, 3]);
});

test("diag builds a matrix from a vector with the vector on each offset, and copies a matrix's diagonal", () => {
  for (const n of [1, 3, 4]) {
    for (const k of [-2, 0, 1, 3]) {
      const v = Array.from({ length: n }, (_, i) => i + 1), m = n + Math.abs(k);
      const want = indices([m, m]).map(([i, j]) => (j - i === k ? v[k >= 0 ? i : j] : 0));
      const got = pt.diag(pt.tensor(v), k);
      assert.deepEqual([...got.shape], [m, m]);
      assert.deepEqual(nums(got), want, `n=${n} k=${k}`);
    }
  }
  assert.deepEqual(nums(pt.diag(iota([6]).slice(0, 0, undefined, 2))), [0, 0, 0, 0, 2, 0, 0, 0, 4], "a strided vector");
  assert.deepEqual(pt.diag(pt.tensor([true, false], { dtype: "bool" })).toList(), [[true, false], [false, false]]);
  assert.equal(pt.diag(iota([2])).dtype, "int32");
  assert.deepEqual([...pt.diag(pt.zeros([0]), 2).shape], [2, 2]);
  assert.deepEqual(nums(pt.diag(pt.zeros([0]), 2)), [0, 0, 0, 0]);
  const m = iota([3, 4]);
  assert.deepEqual(nums(pt.diag(m, 1)), [1, 6, 11]);
  assert.deepEqual(nums(pt.diag(m.T, -1)), [1, 6, 11]);
  assert.deepEqual(nums(pt.diag(m, 5)), []);
  const copy = pt.diag(m);
  m.fill_(0);
  assert.deepEqual(nums(copy), [0, 5, 10], "diag of a matrix is a copy");
});

test("outer gives a[i] * b[j] with promoted dtypes, for odd, strided and empty vectors", () => {
  const a = [1, -2, 3], b = [0.5, 2, -1, 4, 7];
  const got = pt.outer(pt.tensor(a), pt.tensor(b));
  assert.deepEqual([...got.shape], [3, 5]);
  assert.deepEqual(nums(got), indices([3, 5]).map(([i, j]) => a[i] * b[j]));
  assert.equal(pt.outer(iota([2]), pt.tensor([1.5])).dtype, "float32");
  assert.equal(pt.outer(iota([2]), iota([2])).dtype, "int32");
  assert.deepEqual(nums(pt.outer(iota([6]).slice(0, 1, undefined, 2), iota([2]))), [0, 1, 0, 3, 0, 5]);
  assert.deepEqual([...pt.outer(pt.zeros([0]), pt.zeros([4])).shape], [0, 4]);
});

test("movedim moves the named dims to their destinations and keeps the rest in order, as torch.movedim", () => {
  const x = iota([2, 3, 4, 5]);
  assert.deepEqual([...pt.movedim(x, 0, -1).shape], [3, 4, 5, 2]);
  assert.deepEqual([...pt.movedim(x, [0, 3], [2, 0]).shape], [5, 3, 2, 4]);
  assert.deepEqual([...pt.movedim(x, [1, 2], [2, 1]).shape], [2, 4, 3, 5]);
  const data = Array.from({ length: 120 }, (_, i) => i);
  const moved = pt.movedim(x, [0, 3], [2, 0]); // [5, 3, 2, 4]: out[e, b, a, c] = x[a, b, c, e]
  assert.deepEqual(nums(moved), indices([5, 3, 2, 4]).map(([e, b, a, c]) => at(data, [2, 3, 4, 5], [a, b, c, e])));
  assert.deepEqual(nums(pt.movedim(iota([2, 3]).T, 0, 1)), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(pt.movedim(pt.tensor(5), 0, 0).toList(), 5);
  assert.deepEqual([...pt.movedim(pt.zeros([0, 2]), 1, 0).shape], [2, 0]);
});

test("meshgrid repeats each input along its own dim, with ij and xy indexing", () => {
  const a = pt.tensor([1, 2, 3]), b = pt.tensor([4, 5]), c = pt.tensor([6, 7, 8, 9]);
  const [ga, gb, gc] = pt.meshgrid([a, b, c]);
  for (const g of [ga, gb, gc]) assert.deepEqual([...g.shape], [3, 2, 4]);
  assert.deepEqual(nums(ga), indices([3, 2, 4]).map(([i]) => i + 1));
  assert.deepEqual(nums(gb), indices([3, 2, 4]).map(([, j]) => j + 4));
  assert.deepEqual(nums(gc), indices([3, 2, 4]).map(([, , k]) => k + 6));
  const [xa, xb, xc] = pt.meshgrid([a, b, c], { indexing: "xy" });
  for (const g of [xa, xb, xc]) assert.deepEqual([...g.shape], [2, 3, 4]);
  assert.deepEqual(nums(xa), indices([2, 3, 4]).map(([, i]) => i + 1));
  assert.deepEqual(nums(xb), indices([2, 3, 4]).map(([j]) => j + 4));
  assert.deepEqual(nums(xc), indices([2, 3, 4]).map(([, , k]) => k + 6));
  assert.deepEqual(pt.meshgrid([a], { indexing: "xy" })[0].toList(), [1, 2, 3]);
  const [s, e] = pt.meshgrid([pt.tensor(4), pt.zeros([0])]);
  assert.deepEqual([...s.shape], [1, 0]);
  assert.deepEqual([...e.shape], [1, 0]);
  assert.deepEqual(nums(pt.meshgrid([iota([6]).slice(0, 1, undefined, 2), iota([2])])[0]), [1, 1, 3, 3, 5, 5]);
});

test("gradients of diag, diagonal, outer, movedim and meshgrid match finite differences", () => {
  gradcheck("diag of a vector", (x) => pt.diag(x, -1), [randomInput([3], 1)]);
  gradcheck("diag of a matrix", (x) => pt.diag(x, 1), [randomInput([3, 4], 2)]);
  gradcheck("diagonal", (x) => pt.diagonal(x, -1, 2, 0).mul(x.sum()), [randomInput([3, 2, 4], 3)]);
  gradcheck("diagonal of a transpose", (x) => pt.diagonal(x.T), [randomInput([4, 3], 4)]);
  gradcheck("outer", (a, b) => pt.outer(a, b), [randomInput([3], 5), randomInput([4], 6)]);
  gradcheck("movedim", (x) => pt.movedim(x, [0, 1], [2, 0]).reshape([-1]).cumsum(0), [randomInput([2, 3, 2], 7)]);
  gradcheck("meshgrid", (a, b) => {
    const [ga, gb] = pt.meshgrid([a, b], { indexing: "xy" });
    return ga.mul(gb.square());
  }, [randomInput([3], 8), randomInput([2], 9)]);
});

test("diag, diagonal, outer, movedim and meshgrid reject bad input with TensorErrors naming them", () => {
  assertTensorError(() => pt.diagonal(pt.zeros([3]), 0), /^diagonal: needs 2 or more dims/);
  assertTensorError(() => pt.diagonal(pt.zeros([3, 3]), 0, 1, -1), /^diagonal: dim1 and dim2 must differ, got 1 and -1/);
  assertTensorError(() => pt.diagonal(pt.zeros([3, 3]), 0.5), /^diagonal: offset must be an integer, got 0.5/);
  assertTensorError(() => pt.diagonal(pt.zeros([3, 3]), 0, 0, 2), /^diagonal: axis 2 is out of range/);
  assertTensorError(() => pt.diag(pt.zeros([2, 2, 2])), /^diag: needs a 1-D or 2-D tensor, got shape \[2, 2, 2\]/);
  assertTensorError(() => pt.diag(pt.tensor(1)), /^diag: needs a 1-D or 2-D tensor/);
  assertTensorError(() => pt.outer(pt.zeros([2, 2]), pt.zeros([2])), /^outer: needs two 1-D tensors/);
  assertTensorError(() => pt.movedim(pt.zeros([2, 3]), [0, 1], [1]), /^movedim: source \[0, 1\] and destination \[1\]/);
  assertTensorError(() => pt.movedim(pt.zeros([2, 3]), [0, 0], [0, 1]), /^movedim: source \[0, 0\] repeats a dim/);
  assertTensorError(() => pt.movedim(pt.zeros([2, 3]), 0, 2), /^movedim: axis 2 is out of range/);
  assertTensorError(() => pt.meshgrid([]), /^meshgrid: needs a non-empty list/);
  assertTensorError(() => pt.meshgrid([pt.zeros([2, 2])]), /^meshgrid: needs 0-d or 1-D tensors/);
  assertTensorError(() => pt.meshgrid([pt.zeros([2]), iota([2])]), /^meshgrid: needs one dtype, got float32 and int32/);
  assertTensorError(() => pt.meshgrid([pt.zeros([2])], { indexing: "yx" as never }), /^meshgrid: indexing must be "ij" or "xy"/);
});
