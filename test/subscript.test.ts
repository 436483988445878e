/**
 * t.at(...) and t.setAt([...], value), PyTorch's `t[...]` and `t[...] = value`: integers, slices, the ellipsis and new
 * axes as views; integer arrays, index tensors and bool masks by value, with PyTorch's placement of their dims; against a
 * plain JS evaluator and hand values, on contiguous and strided inputs, empty and 0-d results; gradients; in-place writes
 * seen through views and on pending results; a loop's memory; bad input as TensorErrors naming at or setAt.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
type Sub = number | pt.Slice | "..." | null | number[];

/**
 * The reference: the element of data (row-major, shape) each output position reads, by loops over output coordinates.
 * Integer arrays (1-D, broadcast to one length) stand together at the first one's place when adjacent after the integers
 * are taken out, else first.
 */
function reference(data: number[], shape: number[], subs: Sub[]): { shape: number[]; values: number[] } {
  const taken = subs.filter((s) => s !== null && s !== "...").length;
  const full: Sub[] = subs.flatMap((s) => (s === "..." ? Array.from({ length: shape.length - taken }, () => pt.slice()) : [s]));
  while (full.filter((s) => s !== null).length < shape.length) full.push(pt.slice());
  type Axis = { kind: "range"; src: number; start: number; step: number; len: number } | { kind: "new" } | { kind: "batch" };
  const fixed = new Map<number, number>(), arrays: { src: number; idx: number[] }[] = [], axes: Axis[] = [];
  let src = 0, batchAt = -1, lastArrayAxis = -2, adjacent = true;
  for (const s of full) {
    if (s === null) axes.push({ kind: "new" });
    else if (typeof s === "number") fixed.set(src++, s < 0 ? s + shape[src - 1] : s);
    else if (Array.isArray(s)) {
      if (arrays.length > 0 && lastArrayAxis !== axes.length) adjacent = false;
      if (arrays.length === 0) batchAt = axes.length;
      arrays.push({ src: src++, idx: s.map((v) => (v < 0 ? v + shape[src - 1] : v)) });
      lastArrayAxis = axes.length;
    } else if (s instanceof pt.Slice) {
      const n = shape[src], step = s.step, clampTo = (v: number) => Math.min(Math.max(v < 0 ? v + n : v, 0), n);
      const start = clampTo(s.start ?? 0), end = clampTo(s.end ?? n);
      axes.push({ kind: "range", src: src++, start, step, len: Math.max(0, Math.ceil((end - start) / step)) });
    }
  }
  const blen = Math.max(0, ...arrays.map((a) => a.idx.length));
  if (arrays.length > 0) axes.splice(adjacent ? batchAt : 0, 0, { kind: "batch" });
  const oshape = axes.map((a) => (a.kind === "range" ? a.len : a.kind === "new" ? 1 : blen));
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const total = oshape.reduce((a, b) => a * b, 1), values: number[] = [];
  for (let o = 0; o < total; o++) {
    let rem = o, off = 0;
    const coord = oshape.map((_, i) => oshape.slice(i + 1).reduce((a, b) => a * b, 1)).map((st) => {
      const c = Math.floor(rem / st);
      rem %= st;
      return c;
    });
    for (const [d, v] of fixed) off += v * strides[d];
    axes.forEach((a, i) => {
      if (a.kind === "range") off += (a.start + coord[i] * a.step) * strides[a.src];
      if (a.kind === "batch") { for (const arr of arrays) off += arr.idx[arr.idx.length === 1 ? 0 : coord[i]] * strides[arr.src]; }
    });
    values.push(data[off]);
  }
  return { shape: oshape, values };
}

const CASES: Sub[][] = [
  [1],
  [-1, pt.slice(1, 4)],
  ["...", 2],
  [pt.slice(null, null, 2), null, pt.slice(-3)],
  [0, 1, 2],
  [pt.slice(5, 9)],
  [pt.slice(-100, 100, 3), "...", null],
  [[2, 0, 2]],
  [pt.slice(), [3, 0]],
  [[0, 1], pt.slice(), [4, 1]],
  [0, pt.slice(), [1, 3]],
  [pt.slice(1), [2, 0], [-1]],
  [null, [1], pt.slice(null, 2), 3],
  ["...", [0, 4, 2]],
];

test("at gives what a JS evaluator of PyTorch's subscripts gives, contiguous and transposed", () => {
  const shape = [3, 4, 5], data = Array.from({ length: 60 }, (_, i) => i * 1.5 - 7);
  using x = pt.tensor(data).reshape(shape);
  // The same values laid out as [5, 4, 3], transposed back to [3, 4, 5]: strides (1, 3, 12).
  using y = pt.tensor(data).reshape(shape).permute([2, 1, 0]).contiguous().permute([2, 1, 0]);
  for (const subs of CASES) {
    const want = reference(data, shape, subs);
    for (const [name, t] of [["contiguous", x], ["strided", y]] as const) {
      using got = t.at(...subs);
      const what = `${name} at(${subs.map(String).join(", ")})`;
      assert.deepEqual(got.shape, want.shape, what);
      assert.deepEqual(nums(got), want.values, what);
    }
  }
});

test("basic subscripts give views; index tensors, masks and 2-D indices give PyTorch's shapes and values", () => {
  using x = pt.arange(24).reshape([2, 3, 4]);
  using row = x.at(1, pt.slice(), 2);
  assert.deepEqual(nums(row), [14, 18, 22]);
  x.setAt([1, 0, 2], 100);
  assert.deepEqual(nums(row), [100, 18, 22], "the view sees a write to its base");
  using idx = pt.tensor([[0, 1], [1, 0]], { dtype: "int32" });
  using two = x.at(idx);
  assert.deepEqual(two.shape, [2, 2, 3, 4]);
  assert.deepEqual(nums(two.at(0, 1, 0)), [12, 13, 100, 15], "two[0, 1] is x[1], two[0, 1, 0] is x[1, 0]");
  using mask = pt.tensor([[true, false, true], [false, false, true]]);
  using masked = x.at(mask);
  assert.deepEqual(masked.shape, [3, 4]);
  assert.deepEqual(nums(masked), [0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23]);
  using cols = x.at("...", [true, false, false, true]);
  assert.deepEqual(nums(cols), [0, 3, 4, 7, 8, 11, 12, 15, 16, 19, 20, 23]);
  using zero = pt.tensor(2, { dtype: "int64" });
  using picked = x.at(pt.slice(), zero);
  assert.deepEqual(picked.shape, [2, 4], "a 0-d index tensor takes its dim away");
  using scalar = x.at(0, 0, 0);
  assert.deepEqual(scalar.shape, []);
  assert.equal(Number(scalar.item()), 0);
  using all = x.at();
  assert.deepEqual(all.shape, [2, 3, 4]);
});

test("empty and one-element tensors and empty index lists", () => {
  using e = pt.zeros([0, 3]);
  using col = e.at(pt.slice(), 1);
  assert.deepEqual(col.shape, [0]);
  using none = pt.arange(5).at([]);
  assert.deepEqual(none.shape, [0]);
  using one = pt.tensor([7]);
  assert.deepEqual(nums(one.at([0, 0, -1])), [7, 7, 7]);
  using past = pt.arange(5).at(pt.slice(4, 2));
  assert.deepEqual(past.shape, [0]);
});

test("setAt writes scalars, broadcast tensors, masks and advanced indices in place, as t[...] = v", () => {
  using x = pt.zeros([3, 4]);
  x.setAt([pt.slice(), 0], 1);
  x.setAt([2], pt.tensor([5, 6, 7, 8]));
  x.setAt([[0, 1], pt.slice(2)], pt.tensor([[9], [10]]));
  assert.deepEqual(nums(x), [1, 0, 9, 9, 1, 0, 10, 10, 5, 6, 7, 8]);
  x.setAt([x.gt(6)], -1);
  assert.deepEqual(nums(x), [1, 0, -1, -1, 1, 0, -1, -1, 5, 6, -1, -1]);
  // Non-adjacent advanced indices: the value is laid out as at() gives, batch dims first.
  using y = pt.zeros([2, 3, 4]);
  y.setAt([[0, 1], pt.slice(), [3, 1]], pt.tensor([[1, 2, 3], [4, 5, 6]]));
  using back = y.at([0, 1], pt.slice(), [3, 1]);
  assert.deepEqual(nums(back), [1, 2, 3, 4, 5, 6]);
  assert.equal(Number(y.sum().item()), 21);
  // Adjacent ones after a slice: the batch dim stays in place, so the value is [3, 2].
  using z = pt.zeros([3, 4]);
  z.setAt([pt.slice(), [1, 3]], pt.tensor([[1, 2], [3, 4], [5, 6]]));
  assert.deepEqual(nums(z), [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6]);
  // A strided target and a view of it.
  using base = pt.zeros([4, 3]);
  using t = base.T;
  t.setAt([1, pt.slice(null, null, 2)], 3);
  assert.deepEqual(nums(base), [0, 3, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0]);
  // A pending (lazy) result written in place.
  using p = pt.ones([2, 2]).add(1);
  p.setAt([0, 1], 0);
  assert.deepEqual(nums(p), [2, 0, 2, 2]);
});

test("gradients flow through at: views, repeated indices accumulate, masks", () => {
  gradcheck("at basic", (t) => t.at(1, pt.slice(null, null, 2), null), [randomInput([3, 5], 31)]);
  gradcheck("at repeated index", (t) => t.at(pt.slice(), [2, 0, 2]), [randomInput([2, 4], 32)]);
  gradcheck("at non-adjacent", (t) => t.at([0, 1], pt.slice(), [3, 1]), [randomInput([2, 3, 4], 33)]);
  using x = pt.tensor([1, -2, 3, -4]).requiresGrad_();
  x.at(x.detach().gt(0)).sum().backward();
  assert.deepEqual(nums(x.grad!), [1, 0, 1, 0]);
});

test("300 steps of at and setAt hold device memory flat", () => {
  const dev = pt.defaultDevice();
  using x = pt.zeros([16, 16]);
  const step = (i: number) =>
    pt.tidy(() => {
      x.setAt([i % 16, pt.slice(2, 9)], i);
      x.setAt([[1, 3, 5]], x.at([0, 2, 4]).add(1));
      return Number(x.at(pt.ellipsis, [0, 15]).sum().item());
    });
  for (let i = 0; i < 20; i++) step(i);
  const before = pt.memoryStats(dev).inUse;
  for (let i = 0; i < 300; i++) step(i);
  assert.equal(pt.memoryStats(dev).inUse, before, "device memory in use after 300 more steps");
});

test("bad subscripts are TensorErrors naming at or setAt", () => {
  using x = pt.zeros([2, 3]);
  assertTensorError(() => x.at(0, 0, 0), /^at: 3 indices for a tensor of 2 dims/);
  assertTensorError(() => x.at(2), /^at: index 2 is out of range for dim 0 of size 2/);
  assertTensorError(() => x.at(pt.ellipsis, pt.ellipsis), /at most one pt.ellipsis/);
  assertTensorError(() => x.at(1.5), /^at: index 0 must be an integer/);
  assertTensorError(() => x.at(pt.slice(0, 2, 0)), /step of index 0 must be positive/);
  assertTensorError(() => x.at("a" as unknown as pt.Index), /^at: index 0 must be an integer, pt.slice/);
  using f = pt.tensor([0.5]);
  assertTensorError(() => x.at(f), /must be an integer or bool tensor, got float32/);
  using m = pt.tensor([true, false, true]);
  assertTensorError(() => x.at(m), /mask of index 0 has shape \[3\], the dims it indexes \[2\]/);
  assertTensorError(() => x.at([0, 5]), /^at: /);
  assertTensorError(() => x.setAt([0], pt.ones([4])), /^setAt: /);
  assertTensorError(() => x.setAt([[0, 1]], pt.ones([3, 3])), /^setAt: /);
  using w = pt.zeros([3]).requiresGrad_();
  assertTensorError(() => w.setAt([0], 1), /^setAt: .*pt.noGrad/);
});
