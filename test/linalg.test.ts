/** matmul and dot against a JS triple loop, with torch.matmul's shape and dtype rules. */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, env, rng, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

function randData(n: number, seed: number, ints = false): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => (ints ? Math.floor(r() * 11) - 5 : r() * 2 - 1));
}
function make(data: number[], shape: number[], dtype: pt.DType = "float32"): pt.Tensor {
  using flat = pt.tensor(data, { dtype });
  return flat.reshape(shape);
}

/** C[b] = A[b] @ B[b] for row-major [batch, M, K] and [batch, K, N] arrays (batch broadcast by index maps). */
function refMatmul(
  a: number[],
  b: number[],
  batch: number,
  M: number,
  K: number,
  N: number,
  ai: (i: number) => number,
  bi: (i: number) => number,
): number[] {
  const out = new Array<number>(batch * M * N).fill(0);
  for (let p = 0; p < batch; p++) {
    const ao = ai(p) * M * K, bo = bi(p) * K * N;
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += a[ao + i * K + k] * b[bo + k * N + j];
        out[(p * M + i) * N + j] = s;
      }
    }
  }
  return out;
}

test("2-D @ 2-D matches a triple loop for odd sizes (1, 7, 33x127, 0)", () => {
  for (const [M, K, N] of [[1, 1, 1], [7, 7, 7], [33, 127, 5], [3, 1, 9], [127, 33, 33]]) {
    const a = randData(M * K, M + K), b = randData(K * N, K + N);
    using ta = make(a, [M, K]), tb = make(b, [K, N]);
    using c = ta.matmul(tb);
    assert.deepEqual(c.shape, [M, N]);
    assertClose(nums(c), refMatmul(a, b, 1, M, K, N, () => 0, () => 0), 1e-4, 1e-4, `${M}x${K}x${N}`);
  }
  using e1 = pt.zeros([0, 4]), e2 = pt.ones([4, 3]);
  using ce = e1.matmul(e2);
  assert.deepEqual(ce.shape, [0, 3]);
  using k1 = pt.ones([2, 0]), k2 = pt.ones([0, 3]);
  using ck = k1.matmul(k2);
  assert.deepEqual(ck.shape, [2, 3]);
  assert.deepEqual(nums(ck), [0, 0, 0, 0, 0, 0]);
});

test("larger matmuls (1024x1031 @ 1031x17 in float32, 256x515 @ 515x130 promoted to float64) agree with the loop", () => {
  const [M, K, N] = [1024, 1031, 17];
  const a = randData(M * K, 1).map(Math.fround), b = randData(K * N, 2).map(Math.fround);
  using ta = make(a, [M, K]), tb = make(b, [K, N]);
  using c = ta.matmul(tb);
  assert.equal(c.dtype, "float32");
  assertClose(nums(c), refMatmul(a, b, 1, M, K, N, () => 0, () => 0), 1e-4, 1e-3);
  const [P, Q, R] = [256, 515, 130];
  const x = randData(P * Q, 3), y = randData(Q * R, 4);
  using tx = make(x, [P, Q]), ty = make(y, [Q, R], "float64");
  using z = tx.matmul(ty);
  assert.equal(z.dtype, "float64");
  assertClose(nums(z), refMatmul(x.map(Math.fround), y, 1, P, Q, R, () => 0, () => 0), 1e-9, 1e-9);
});

test("1-D operands: vector @ vector is 0-d, matrix @ vector and vector @ matrix drop the added dim", () => {
  const v = randData(7, 3), w = randData(7, 4), m = randData(5 * 7, 5), n = randData(7 * 6, 6);
  using tv = make(v, [7]), tw = make(w, [7]), tm = make(m, [5, 7]), tn = make(n, [7, 6]);
  using vv = tv.matmul(tw);
  assert.deepEqual(vv.shape, []);
  assertClose(nums(vv), [v.reduce((s, x, i) => s + x * w[i], 0)], 1e-5, 1e-5);
  using mv = tm.matmul(tv);
  assert.deepEqual(mv.shape, [5]);
  assertClose(nums(mv), refMatmul(m, v, 1, 5, 7, 1, () => 0, () => 0), 1e-5, 1e-5);
  using vm = tv.matmul(tn);
  assert.deepEqual(vm.shape, [6]);
  assertClose(nums(vm), refMatmul(v, n, 1, 1, 7, 6, () => 0, () => 0), 1e-5, 1e-5);
  const b3 = randData(3 * 7 * 6, 7);
  using tb3 = make(b3, [3, 7, 6]);
  using vb = tv.matmul(tb3); // [7] @ [3, 7, 6] -> [3, 6]
  assert.deepEqual(vb.shape, [3, 6]);
  assertClose(nums(vb), refMatmul(v, b3, 3, 1, 7, 6, () => 0, (p) => p), 1e-5, 1e-5);
  const a3 = randData(3 * 5 * 7, 8);
  using ta3 = make(a3, [3, 5, 7]);
  using bv = ta3.matmul(tv); // [3, 5, 7] @ [7] -> [3, 5]
  assert.deepEqual(bv.shape, [3, 5]);
  assertClose(nums(bv), refMatmul(a3, v, 3, 5, 7, 1, (p) => p, () => 0), 1e-5, 1e-5);
});

test("batched matmul broadcasts batch dims ([2,1,4,3] @ [5,3,2] -> [2,5,4,2])", () => {
  const a = randData(2 * 4 * 3, 9), b = randData(5 * 3 * 2, 10);
  using ta = make(a, [2, 1, 4, 3]), tb = make(b, [5, 3, 2]);
  using c = ta.matmul(tb);
  assert.deepEqual(c.shape, [2, 5, 4, 2]);
  assertClose(nums(c), refMatmul(a, b, 10, 4, 3, 2, (p) => Math.floor(p / 5), (p) => p % 5), 1e-5, 1e-5);
  using m2 = make(b.slice(0, 6), [3, 2]);
  using c2 = ta.matmul(m2); // 2-D right operand shared by every batch
  assert.deepEqual(c2.shape, [2, 1, 4, 2]);
  assertClose(nums(c2), refMatmul(a, b.slice(0, 6), 2, 4, 3, 2, (p) => p, () => 0), 1e-5, 1e-5);
});

test("many small products in a batch (past a launch's group count) match the loop in float32, float64, int32 and int64", () => {
  // 70000 batches of 16x3 @ 3x16 (one output an invocation, more batches than groups), 9000 of 1x4 @ 4x10 (many a
  // group), and a transposed, broadcast operand. A software device (lavapipe) takes minutes over 70000 groups: there
  // that case runs with PT_LARGE_ROWS=1, and 3000 batches stand in.
  const past = !pt.defaultDevice().info.software || env("PT_LARGE_ROWS") === "1";
  if (!past) console.log("linalg: software device; 3000 batches of 16x3 @ 3x16, 70000 with PT_LARGE_ROWS=1");
  const cases = [[past ? 70000 : 3000, 16, 3, 16, "float32"], [9000, 1, 4, 10, "float64"], [5, 2, 7, 3, "int32"], [300, 5, 2, 5, "int64"]];
  for (const [batch, M, K, N, dtype] of cases as [number, number, number, number, pt.DType][]) {
    const ints = dtype.startsWith("int");
    const a = randData(batch * M * K, M + batch, ints).map(Math.fround), b = randData(K * N, N + 1, ints).map(Math.fround);
    using ta = make(a, [batch, M, K], dtype), tb0 = make(b, [N, K], dtype);
    using tb = tb0.transpose(0, 1); // [K, N], strided, broadcast over the batch
    using c = ta.matmul(tb);
    assert.deepEqual(c.shape, [batch, M, N]);
    const bT = Array.from({ length: K * N }, (_, i) => b[(i % N) * K + Math.floor(i / N)]);
    const got = c.toArray() as ArrayLike<number | bigint>;
    for (const p of [0, 1, batch >> 1, batch - 1, Math.min(batch - 1, 65535)]) {
      const at = p * M * N, seg = Array.from({ length: M * N }, (_, i) => Number(got[at + i]));
      const want = refMatmul(a.slice(p * M * K, (p + 1) * M * K), bT, 1, M, K, N, (q) => q, () => 0);
      if (ints) assert.deepEqual(seg, want, `${dtype} batch ${p}`);
      else assertClose(seg, want, 1e-5, 1e-5, `${dtype} batch ${p}`);
    }
  }
});

test("matmul reads transposed, sliced and expanded operands through their strides", () => {
  const a = randData(9 * 6, 11), b = randData(9 * 4, 12);
  using ta = make(a, [9, 6]), tb = make(b, [9, 4]);
  using at = ta.T; // [6, 9], column-major
  using c = at.matmul(tb); // [6, 4]
  const aT = Array.from({ length: 54 }, (_, i) => a[(i % 9) * 6 + Math.floor(i / 9)]);
  assertClose(nums(c), refMatmul(aT, b, 1, 6, 9, 4, () => 0, () => 0), 1e-5, 1e-5);
  using bs = tb.slice(1, 1, 4, 2); // [9, 2], columns 1 and 3
  using cs = at.matmul(bs);
  const bS = Array.from({ length: 18 }, (_, i) => b[Math.floor(i / 2) * 4 + 1 + 2 * (i % 2)]);
  assertClose(nums(cs), refMatmul(aT, bS, 1, 6, 9, 2, () => 0, () => 0), 1e-5, 1e-5);
  using ex = tb.unsqueeze(0).expand(3, 9, 4);
  using ce = at.matmul(ex);
  assert.deepEqual(ce.shape, [3, 6, 4]);
  assertClose(nums(ce), refMatmul(aT, b, 3, 6, 9, 4, () => 0, () => 0), 1e-5, 1e-5);
});

test("matmul dtypes: promotion, exact int32/int64, uint8 and float16 computed wide and cast back", () => {
  const a = randData(12, 13, true), b = randData(12, 14, true);
  const want = refMatmul(a, b, 1, 3, 4, 3, () => 0, () => 0);
  for (
    const [da, db, out] of [["int32", "int32", "int32"], ["int64", "int32", "int64"], ["int32", "float32", "float32"], [
      "float16",
      "float16",
      "float16",
    ], ["bfloat16", "float32", "float32"]] as const
  ) {
    using ta = make(a, [3, 4], da), tb = make(b, [4, 3], db);
    using c = ta.matmul(tb);
    assert.equal(c.dtype, out, `${da} @ ${db}`);
    assert.deepEqual(nums(c), want, `${da} @ ${db}`);
  }
  const ua = a.map((x) => x + 5), ub = b.map((x) => x + 5);
  using u1 = make(ua, [3, 4], "uint8"), u2 = make(ub, [4, 3], "uint8");
  using cu = u1.matmul(u2);
  assert.equal(cu.dtype, "uint8");
  assert.deepEqual(nums(cu), refMatmul(ua, ub, 1, 3, 4, 3, () => 0, () => 0).map((x) => x % 256));
  using i64 = make([3_000_000_000, 1], [1, 2], "int64"), col = make([3, 1], [2, 1], "int64");
  using big = i64.matmul(col);
  assert.deepEqual(Array.from(big.toArray() as BigInt64Array), [9_000_000_001n]);
});

test("matmul errors name both shapes: inner mismatch, batch mismatch, 0-d and bool operands", () => {
  using a = pt.ones([2, 3]), b = pt.ones([4, 5]);
  assertTensorError(() => a.matmul(b), /matmul/, /\[2, 3\]/, /\[4, 5\]/, /3 vs 4/);
  using v = pt.ones([4]);
  assertTensorError(() => a.matmul(v), /matmul/, /\[2, 3\] @ \[4\]/);
  using x = pt.ones([2, 2, 3]), y = pt.ones([3, 3, 2]);
  assertTensorError(() => x.matmul(y), /matmul/, /batch/, /\[2\]/, /\[3\]/);
  using s = pt.tensor(2);
  assertTensorError(() => s.matmul(v), /matmul/, /at least 1 dim/);
  using bb = pt.ones([2, 2], { dtype: "bool" });
  assertTensorError(() => bb.matmul(bb), /matmul/, /bool/);
});

test("dot: 1-D only, same length, promoted dtype", () => {
  const v = randData(33, 15, true), w = randData(33, 16, true);
  using tv = make(v, [33], "int32"), tw = make(w, [33], "int64");
  using d = tv.dot(tw);
  assert.equal(d.dtype, "int64");
  assert.deepEqual(d.shape, []);
  assert.deepEqual(nums(d), [v.reduce((s, x, i) => s + x * w[i], 0)]);
  using o7 = pt.ones([7]), h7 = pt.full([7], 0.5);
  using f = pt.dot(o7, h7);
  assertClose(nums(f), [3.5]);
  using e = pt.zeros([0]);
  using de = e.dot(e);
  assert.deepEqual(nums(de), [0]);
  using m = pt.ones([2, 2]), u = pt.ones([3]);
  assertTensorError(() => m.dot(m), /dot/, /1-D/, /\[2, 2\]/);
  assertTensorError(() => tv.dot(u), /dot/, /\[33\]/, /\[3\]/);
});

test("matmul frees its casts and outputs, also when it throws", () => {
  using a = pt.ones([4, 5], { dtype: "float16" }), b = pt.ones([5, 3], { dtype: "uint8" }), c = pt.ones([6, 3]);
  using at = a.T, bt = b.T;
  const before = pt.liveBytes();
  for (let k = 0; k < 3; k++) {
    a.matmul(b).dispose();
    bt.matmul(at).dispose();
    assertTensorError(() => a.matmul(c), /matmul/);
  }
  assert.ok(pt.liveBytes() <= before, `live bytes grew from ${before} to ${pt.liveBytes()}`);
});
