import * as pt from "../mod.ts";
import { assert, test } from "./harness.ts";

const range = (n: number) => pt.arange(n, undefined, 1, { dtype: "int32" });

test("reshape and view share storage with the base", () => {
  using a = range(6);
  using b = a.reshape(2, 3);
  using c = b.view([3, 2]);
  assert.deepEqual(c.toList(), [[0, 1], [2, 3], [4, 5]]);
  using d = a.reshape(-1, 2);
  assert.deepEqual(d.shape, [3, 2]);
  assert.equal(b.buf, a.buf);
});

test("reshape of a transposed tensor copies when it must", () => {
  using a = range(6).reshape(2, 3);
  using t = a.T;
  assert.equal(t.isContiguous, false);
  using r = t.reshape(6);
  assert.deepEqual([...r.toArray()], [0, 3, 1, 4, 2, 5]);
});

test("permute and transpose reorder axes without a copy", () => {
  using a = range(24).reshape(2, 3, 4);
  using p = a.permute(2, 0, 1);
  assert.deepEqual(p.shape, [4, 2, 3]);
  const flat = [...p.toArray()];
  const expect: number[] = [];
  for (let k = 0; k < 4; k++) for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) expect.push(i * 12 + j * 4 + k);
  assert.deepEqual(flat, expect);
  using t = a.transpose(0, 2);
  assert.deepEqual(t.shape, [4, 3, 2]);
  assert.equal(t.buf, a.buf);
});

test("expand, squeeze, unsqueeze and flatten", () => {
  using a = pt.tensor([[1], [2]]);
  using e = a.expand(2, 3);
  assert.deepEqual(e.toList(), [[1, 1, 1], [2, 2, 2]]);
  using e2 = a.expand(4, -1, 3);
  assert.deepEqual(e2.shape, [4, 2, 3]);
  using s = a.squeeze();
  assert.deepEqual(s.shape, [2]);
  using s1 = a.squeeze(0);
  assert.deepEqual(s1.shape, [2, 1]);
  using u = s.unsqueeze(-1);
  assert.deepEqual(u.shape, [2, 1]);
  using f = e2.flatten(1);
  assert.deepEqual(f.shape, [4, 6]);
  using f0 = e2.flatten();
  assert.equal(f0.numel, 24);
});

test("slice and narrow, with negative bounds and steps", () => {
  using a = range(10);
  assert.deepEqual([...a.slice(0, 2, 8, 3).toArray()], [2, 5]);
  assert.deepEqual([...a.slice(0, -3).toArray()], [7, 8, 9]);
  assert.deepEqual([...a.narrow(0, 4, 2).toArray()], [4, 5]);
  assert.equal(a.slice(0, 8, 2).numel, 0);
  using m = range(12).reshape(3, 4);
  assert.deepEqual(m.slice(1, 1, 3).toList(), [[1, 2], [5, 6], [9, 10]]);
});

test("flip reverses the given axes", () => {
  using a = range(6).reshape(2, 3);
  assert.deepEqual(a.flip(1).toList(), [[2, 1, 0], [5, 4, 3]]);
  assert.deepEqual(a.flip([0, 1]).toList(), [[5, 4, 3], [2, 1, 0]]);
  assert.deepEqual(pt.flip(a, 0).toList(), [[3, 4, 5], [0, 1, 2]]);
});

test("cat and stack join along an axis and promote dtypes", () => {
  using a = pt.tensor([[1, 2]], { dtype: "int32" });
  using b = pt.tensor([[3, 4], [5, 6]], { dtype: "int32" });
  using c = pt.cat([a, b], 0);
  assert.deepEqual(c.toList(), [[1, 2], [3, 4], [5, 6]]);
  using d = pt.cat([b, b.T], 1);
  assert.deepEqual(d.toList(), [[3, 4, 3, 5], [5, 6, 4, 6]]);
  using f = pt.tensor([[0.5, 0.5]]);
  using g = pt.cat([a, f]);
  assert.equal(g.dtype, "float32");
  using s = pt.stack([a.squeeze(0), f.squeeze(0)], 1);
  assert.deepEqual(s.toList(), [[1, 0.5], [2, 0.5]]);
});

test("contiguous copies only when needed; clone always copies", () => {
  using a = range(6).reshape(2, 3);
  using c = a.contiguous();
  assert.equal(c.buf, a.buf);
  using t = a.T.contiguous();
  assert.notEqual(t.buf, a.buf);
  assert.deepEqual(t.toList(), [[0, 3], [1, 4], [2, 5]]);
  using k = a.clone();
  assert.notEqual(k.buf, a.buf);
  assert.deepEqual(k.toList(), a.toList());
});

test("views of a rank-8 tensor work", () => {
  using a = range(256).reshape(2, 2, 2, 2, 2, 2, 2, 2);
  using p = a.permute(7, 6, 5, 4, 3, 2, 1, 0).contiguous();
  const v = [...p.toArray()];
  // element (i7..i0) of p = element (i0..i7) of a: bit-reversed index
  for (let i = 0; i < 256; i++) {
    let rev = 0;
    for (let b = 0; b < 8; b++) rev |= ((i >> b) & 1) << (7 - b);
    assert.equal(v[i], rev);
  }
});

test("view merges dims across a size-1 dim whatever its stride: a permuted slice of shape [2, 1, 3] views as [6]", () => {
  using a = pt.arange(12).reshape([2, 3, 2]), s = a.slice(2, 0, 2, 2), p = s.permute([0, 2, 1]);
  assert.deepEqual([p.shape, p.strides], [[2, 1, 3], [6, 2, 2]]);
  using v = p.view([6]);
  assert.deepEqual(Array.from(v.toArray() as ArrayLike<number>, Number), [0, 2, 4, 6, 8, 10]);
});
