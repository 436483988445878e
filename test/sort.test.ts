/** sort, argsort and topk against a stable JS sort. */
import * as pt from "../mod.ts";
import { assert, assertTensorError, rng, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

/** Stable order of a row: NaN above every number (last ascending, first descending). */
function refOrder(row: number[], descending: boolean): number[] {
  const key = (v: number) => (Number.isNaN(v) ? Infinity : v);
  const rank = (v: number) => (Number.isNaN(v) ? 1 : 0);
  return row.map((_, i) => i).sort((i, j) => {
    const a = row[i], b = row[j];
    let c = rank(a) - rank(b) || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
    if (descending) c = -c;
    return c || i - j;
  });
}

/** Reference sort of a row-major [outer..., n, inner...] array along `axis`. */
function refSort(x: number[], shape: number[], axis: number, descending: boolean): { values: number[]; indices: number[] } {
  const n = shape[axis], inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outer = x.length / (n * inner || 1);
  const values = [...x], indices = new Array<number>(x.length).fill(0);
  for (let o = 0; o < outer; o++) {
    for (let q = 0; q < inner; q++) {
      const at = (k: number) => (o * n + k) * inner + q;
      const row = Array.from({ length: n }, (_, k) => x[at(k)]);
      refOrder(row, descending).forEach((src, k) => {
        values[at(k)] = row[src];
        indices[at(k)] = src;
      });
    }
  }
  return { values, indices };
}

function make(data: number[], shape: number[], dtype: pt.DType = "float32"): pt.Tensor {
  using flat = pt.tensor(data, { dtype });
  return flat.reshape(shape);
}

function randInts(n: number, lo: number, hi: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => lo + Math.floor(r() * (hi - lo)));
}

const sameNums = (a: number[], b: number[], what: string) =>
  assert.ok(a.length === b.length && a.every((v, i) => Object.is(v, b[i]) || v === b[i]), `${what}: got ${a}, expected ${b}`);

for (const descending of [false, true]) {
  test(`sort ${descending ? "descending" : "ascending"} is stable with duplicates and places NaN ${descending ? "first" : "last"}`, () => {
    const x = [3, 1, NaN, 2, 1, 3, -Infinity, NaN, 2, Infinity, 0, 1];
    using t = make(x, [12]);
    const { values, indices } = t.sort(-1, descending);
    using v = values, i = indices;
    const want = refSort(x, [12], 0, descending);
    assert.equal(i.dtype, "int64");
    sameNums(nums(v), want.values, "values");
    assert.deepEqual(nums(i), want.indices);
    if (!descending) assert.deepEqual(nums(i).slice(-2), [2, 7]);
    else assert.deepEqual(nums(i).slice(0, 2), [2, 7]);
  });
}

for (const dtype of ["float32", "float64", "int32", "int64"] as const) {
  test(`sort along each axis of a 3-D ${dtype} tensor matches the reference`, () => {
    const shape = [4, 33, 5];
    const x = randInts(4 * 33 * 5, -20, 20, 1);
    using t = make(x, shape, dtype);
    for (let axis = 0; axis < 3; axis++) {
      for (const descending of [false, true]) {
        const r = t.sort(axis, descending);
        using v = r.values, i = r.indices;
        const want = refSort(x, shape, axis, descending);
        assert.deepEqual(v.shape, shape);
        assert.equal(v.dtype, dtype);
        assert.deepEqual(nums(v), want.values, `axis ${axis} descending ${descending}`);
        assert.deepEqual(nums(i), want.indices, `axis ${axis} descending ${descending}`);
      }
    }
  });
}

test("sort reads permuted and sliced inputs through their strides", () => {
  const x = randInts(6 * 9, 0, 5, 2);
  using t = make(x, [6, 9]);
  using tt = t.T; // [9, 6]
  using sl = tt.slice(0, 1, 9, 2); // [4, 6]: rows 1, 3, 5, 7 of tt
  const rows = [1, 3, 5, 7].map((r) => Array.from({ length: 6 }, (_, c) => x[c * 9 + r]));
  const r = sl.sort(1);
  using v = r.values, i = r.indices;
  const want = refSort(rows.flat(), [4, 6], 1, false);
  assert.deepEqual(nums(v), want.values);
  assert.deepEqual(nums(i), want.indices);
  using a = sl.argsort(0, true);
  assert.deepEqual(nums(a), refSort(rows.flat(), [4, 6], 0, true).indices);
});

test("argsort returns the sort's indices and sorts bool and uint8 tensors", () => {
  const x = randInts(127, 0, 4, 3);
  using t = make(x, [127], "uint8");
  using a = t.argsort();
  assert.deepEqual(nums(a), refOrder(x, false));
  using b = pt.tensor([true, false, true, false, false]);
  const r = b.sort();
  using v = r.values, i = r.indices;
  assert.deepEqual(nums(v), [0, 0, 0, 1, 1]);
  assert.deepEqual(nums(i), [1, 3, 4, 0, 2]);
});

test("sort handles odd sizes: empty, one element, 0-d and a 7-long axis", () => {
  using e = pt.zeros([3, 0]);
  const re = e.sort(1);
  using ev = re.values, ei = re.indices;
  assert.deepEqual(ev.shape, [3, 0]);
  assert.deepEqual(ei.shape, [3, 0]);
  using one = make([4], [1]);
  const r1 = one.sort();
  using v1 = r1.values, i1 = r1.indices;
  assert.deepEqual(nums(v1), [4]);
  assert.deepEqual(nums(i1), [0]);
  using s = pt.tensor(2.5);
  const rs = s.sort();
  using vs = rs.values, is = rs.indices;
  assert.deepEqual(vs.shape, []);
  assert.deepEqual(nums(vs), [2.5]);
  assert.deepEqual(nums(is), [0]);
  const x = [5, -1, 5, 0, 7, -1, 2];
  using t7 = make(x, [7]);
  using a7 = t7.argsort(0, true);
  assert.deepEqual(nums(a7), refOrder(x, true));
  assertTensorError(() => t7.sort(1), /sort/, /axis 1/);
});

test("topk returns the k largest or smallest in order, with their indices", () => {
  const shape = [5, 33];
  const x = randInts(5 * 33, -50, 50, 4);
  using t = make(x, shape);
  for (const largest of [true, false]) {
    const r = t.topk(4, 1, largest);
    using v = r.values, i = r.indices;
    assert.deepEqual(v.shape, [5, 4]);
    const full = refSort(x, shape, 1, largest);
    const pick = (a: number[]) => Array.from({ length: 20 }, (_, k) => a[Math.floor(k / 4) * 33 + (k % 4)]);
    assert.deepEqual(nums(v), pick(full.values));
    assert.deepEqual(nums(i), pick(full.indices));
  }
  const r0 = t.topk(2, 0);
  using v0 = r0.values, i0 = r0.indices;
  const full0 = refSort(x, shape, 0, true);
  assert.deepEqual(nums(v0), full0.values.slice(0, 66));
  assert.deepEqual(nums(i0), full0.indices.slice(0, 66));
});

test("topk with k = 0 and k = n works; k out of range is a TensorError naming k and the axis size", () => {
  using t = make([3, 1, 2, NaN], [4]);
  const rn = t.topk(4);
  using vn = rn.values, inn = rn.indices;
  assert.deepEqual(nums(inn), [3, 0, 2, 1]);
  assert.ok(Number.isNaN(nums(vn)[0]));
  const rz = t.topk(0);
  using vz = rz.values, iz = rz.indices;
  assert.deepEqual(vz.shape, [0]);
  assert.deepEqual(iz.shape, [0]);
  assertTensorError(() => t.topk(5), /topk/, /k = 5/, /size 4/);
  assertTensorError(() => t.topk(-1), /topk/, /k = -1/);
  assertTensorError(() => t.topk(1.5), /topk/);
});

test("sort and topk free every intermediate", () => {
  using t = make(randInts(200, 0, 9, 5), [10, 20]);
  const before = pt.liveBytes();
  for (let k = 0; k < 3; k++) {
    const s = t.sort(0);
    s.values.dispose();
    s.indices.dispose();
    t.argsort(1).dispose();
    const tk = t.topk(3, 1);
    tk.values.dispose();
    tk.indices.dispose();
    assertTensorError(() => t.topk(21, 1), /topk/);
  }
  assert.ok(pt.liveBytes() <= before, `live bytes grew from ${before} to ${pt.liveBytes()}`);
});

test("-0 and 0 are equal keys: a sort keeps them in input order (stable), ascending and descending", () => {
  using x = pt.tensor(new Float32Array([0, -0, 0, -0, -1, 1]));
  const up = x.sort(), down = x.sort(-1, true);
  try {
    assert.deepEqual(Array.from(up.indices.toArray() as BigInt64Array, Number), [4, 0, 1, 2, 3, 5]);
    assert.deepEqual(Array.from(down.indices.toArray() as BigInt64Array, Number), [5, 0, 1, 2, 3, 4]);
  } finally {
    for (const t of [up.values, up.indices, down.values, down.indices]) t.dispose();
  }
});
