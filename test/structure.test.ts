/**
 * split, chunk, unbind, tril, triu, roll, repeat, tile, isclose, allclose and equal against
 * plain JS loops and PyTorch's documented cases: odd sizes, strided (transposed) inputs,
 * empty and 0-d tensors, views that share memory, gradients through each against finite
 * differences, and bad input as TensorErrors naming the function.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const iota = (shape: number[]) => pt.arange(shape.reduce((a, b) => a * b, 1), undefined, 1, { dtype: "int32" }).reshape(shape);
/** Element [i, j] of a row-major [r, c] array laid out 0..r*c-1, read through a transpose. */
const transposed = (r: number, c: number) => Array.from({ length: r * c }, (_, k) => (k % r) * c + Math.floor(k / r));

test("split by size and by sizes, chunk and unbind return views of the right pieces", () => {
  const t = iota([7, 3]);
  const parts = t.split(3);
  assert.deepEqual(parts.map((p) => p.shape[0]), [3, 3, 1]);
  assert.deepEqual(nums(parts[2]), [18, 19, 20]);
  assert.deepEqual(pt.split(t, [2, 0, 5]).map((p) => p.shape[0]), [2, 0, 5]);
  assert.deepEqual(nums(pt.split(t, [1, 2], 1)[1]), [1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17, 19, 20]);
  assert.deepEqual(t.chunk(4).map((p) => p.shape[0]), [2, 2, 2, 1]);
  assert.deepEqual(pt.chunk(iota([5]), 4).map((p) => p.shape[0]), [2, 2, 1]);
  assert.deepEqual(pt.chunk(pt.zeros([0, 2]), 3).map((p) => [...p.shape]), [[0, 2], [0, 2], [0, 2]]);
  const rows = t.T.unbind(1);
  assert.equal(rows.length, 7);
  assert.deepEqual(nums(rows[4]), [12, 13, 14]);
  assert.deepEqual([...pt.unbind(iota([2, 0]), 0)[1].shape], [0]);
  const x = pt.zeros([4, 2]);
  x.split(2)[1].fill_(5); // a view: the write shows in x
  assert.deepEqual(nums(x), [0, 0, 0, 0, 5, 5, 5, 5]);
});

test("tril and triu keep the triangle on either side of each diagonal, on batches and strided input", () => {
  for (const [r, c] of [[4, 6], [5, 3], [1, 1]]) {
    for (const k of [-2, -1, 0, 1, 3]) {
      const t = iota([2, r, c]);
      const lower = nums(pt.tril(t, k)), upper = nums(t.triu(k));
      for (let b = 0; b < 2; b++) {
        for (let i = 0; i < r; i++) {
          for (let j = 0; j < c; j++) {
            const at = (b * r + i) * c + j;
            assert.equal(lower[at], j - i <= k ? at : 0, `tril ${r}x${c} k=${k} [${b},${i},${j}]`);
            assert.equal(upper[at], j - i >= k ? at : 0, `triu ${r}x${c} k=${k} [${b},${i},${j}]`);
          }
        }
      }
    }
  }
  const view = iota([3, 5]).T; // [5, 3], strided
  const expect = transposed(3, 5).map((v, k) => (k % 3) - Math.floor(k / 3) <= 0 ? v : 0);
  assert.deepEqual(nums(view.tril()), expect);
  const b = pt.tril(pt.ones([3, 3], { dtype: "bool" }));
  assert.equal(b.dtype, "bool");
  assert.deepEqual(nums(b), [1, 0, 0, 1, 1, 0, 1, 1, 1]);
  assert.equal(pt.triu(pt.ones([2, 3], { dtype: "float16" })).dtype, "float16");
  assert.deepEqual([...pt.tril(pt.zeros([0, 4])).shape], [0, 4]);
});

test("roll shifts along axes with wrap-around, negative and oversized shifts, and flattened without axes", () => {
  const t = iota([3, 4]);
  assert.deepEqual(nums(t.roll(1, 1)), [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10]);
  assert.deepEqual(nums(pt.roll(t, [-1, 6], [0, 1])), [6, 7, 4, 5, 10, 11, 8, 9, 2, 3, 0, 1]);
  assert.deepEqual(nums(pt.roll(t, 5)), [7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6]);
  assert.deepEqual(nums(pt.roll(t.T, 1, 0)), [3, 7, 11, 0, 4, 8, 1, 5, 9, 2, 6, 10]);
  assert.deepEqual(nums(pt.roll(t, 4, 1)), nums(t));
  assert.deepEqual([...pt.roll(pt.zeros([0, 3]), 2, 0).shape], [0, 3]);
});

test("repeat and tile lay copies out as PyTorch does, adding leading dims", () => {
  const t = pt.tensor([[1, 2, 3]]);
  assert.deepEqual(t.repeat(2, 2).toList(), [[1, 2, 3, 1, 2, 3], [1, 2, 3, 1, 2, 3]]);
  assert.deepEqual([...t.repeat(4, 1, 1).shape], [4, 1, 3]);
  assert.deepEqual(pt.tile(pt.tensor([1, 2]), [2, 3]).toList(), [[1, 2, 1, 2, 1, 2], [1, 2, 1, 2, 1, 2]]);
  assert.deepEqual(pt.tile(t, [2]).toList(), [[1, 2, 3, 1, 2, 3]], "short reps get leading 1s");
  assert.deepEqual(nums(iota([3, 2]).T.repeat(1, 2)), [0, 2, 4, 0, 2, 4, 1, 3, 5, 1, 3, 5]);
  assert.deepEqual([...t.repeat(0, 2).shape], [0, 6]);
  assert.deepEqual(pt.tensor(7).repeat(3).toList(), [7, 7, 7]);
});

test("isclose, allclose and equal: tolerances, infinities, NaN, broadcasting, integers", () => {
  const a = pt.tensor([1, 1 + 1e-6, 1.1, Infinity, -Infinity, NaN, 0]);
  const b = pt.tensor([1, 1, 1, Infinity, Infinity, NaN, 1e-9]);
  assert.deepEqual(nums(pt.isclose(a, b)), [1, 1, 0, 1, 0, 0, 1]);
  assert.deepEqual(nums(a.isclose(b, 1e-5, 1e-8, true)), [1, 1, 0, 1, 0, 1, 1]);
  assert.deepEqual(nums(pt.isclose(a, b, 0.2, 0)), [1, 1, 1, 1, 0, 0, 0]);
  assert.deepEqual(nums(pt.isclose(pt.tensor([[1], [2]]), pt.tensor([1, 2.5]), 0, 0.5)), [1, 0, 0, 1]);
  assert.deepEqual(nums(pt.isclose(pt.tensor([1n, 2n]), pt.tensor([1n, 3n]))), [1, 0]);
  assert.equal(pt.allclose(pt.tensor([1, 2]), pt.tensor([1, 2 + 1e-7])), true);
  assert.equal(pt.tensor([1, NaN]).allclose(pt.tensor([1, NaN])), false);
  assert.equal(pt.tensor([1, NaN]).allclose(pt.tensor([1, NaN]), 1e-5, 1e-8, true), true);
  assert.equal(pt.equal(iota([2, 3]), iota([2, 3])), true);
  assert.equal(pt.equal(iota([2, 3]), iota([3, 2])), false, "shapes differ");
  assert.equal(iota([2, 3]).T.equal(iota([3, 2])), false);
  assert.equal(pt.equal(pt.zeros([0]), pt.zeros([0])), true);
});

test("gradients flow through split, unbind, tril, triu, roll, repeat and tile", () => {
  const X = randomInput([4, 5], 51);
  gradcheck("split pieces weighted", (x) => {
    const [p, q] = x.split([1, 4], 1);
    return p.mul(2).sum().add(q.square().sum());
  }, [X]);
  gradcheck("unbind then stack reversed", (x) => pt.stack(x.unbind(0).reverse(), 0), [X]);
  gradcheck("tril", (x) => pt.tril(x, 1), [X]);
  gradcheck("triu of a transposed view", (x) => pt.triu(x.T, -1), [X]);
  gradcheck("roll", (x) => pt.roll(x, [1, -2], [0, 1]), [X]);
  gradcheck("repeat", (x) => x.repeat(2, 1, 3), [X]);
  gradcheck("tile", (x) => pt.tile(x, [3]), [X]);
});

test("bad arguments are TensorErrors that name the function", () => {
  const t = iota([3, 4]);
  assertTensorError(() => t.split(0), /split/, /split size must be an integer >= 1/);
  assertTensorError(() => t.split([1, 1]), /split/, /add up to 2, not to axis 0's length 3/);
  assertTensorError(() => t.split(2, 2), /split/, /axis 2 is out of range/);
  assertTensorError(() => t.chunk(0), /chunk/, /chunks must be an integer >= 1/);
  assertTensorError(() => pt.tensor(1).unbind(), /unbind/, /0-d/);
  assertTensorError(() => pt.tril(pt.ones([3])), /tril/, /2 or more dims/);
  assertTensorError(() => t.triu(0.5), /triu/, /diagonal must be an integer/);
  assertTensorError(() => t.roll([1, 2], 0), /roll/, /2 shifts for 1 axes/);
  assertTensorError(() => t.roll([1, 2]), /roll/, /one shift/);
  assertTensorError(() => t.roll(1.5, 0), /roll/, /integers/);
  assertTensorError(() => t.repeat(2), /repeat/, /each of the tensor's 2 dims/);
  assertTensorError(() => t.repeat(2, -1), /repeat/, /integer >= 0/);
  assertTensorError(() => pt.isclose(t, t, -1), /isclose/, /rtol and atol/);
  assertTensorError(() => pt.isclose(t, pt.zeros([5])), /broadcast|shape/);
});
