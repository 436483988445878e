import * as pt from "../mod.ts";
import { assert, assertClose, rng, test } from "./harness.ts";

const f32 = Math.fround;
function randomArray(n: number, seed: number, lo = -3, hi = 3): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => f32(lo + (hi - lo) * r()));
}

const unaryCases: [keyof pt.Tensor & string, (x: number) => number, number, number][] = [
  ["neg", (x) => -x, 0, 0],
  ["abs", Math.abs, 0, 0],
  ["sign", Math.sign, 0, 0],
  ["square", (x) => x * x, 1e-6, 0],
  ["reciprocal", (x) => 1 / x, 1e-6, 0],
  ["exp", Math.exp, 1e-6, 0],
  ["exp2", (x) => 2 ** x, 1e-6, 0],
  ["sin", Math.sin, 1e-6, 1e-6],
  ["cos", Math.cos, 1e-6, 1e-6],
  ["tan", Math.tan, 1e-5, 1e-6],
  ["tanh", Math.tanh, 1e-6, 1e-7],
  ["sigmoid", (x) => 1 / (1 + Math.exp(-x)), 1e-6, 1e-7],
  ["relu", (x) => Math.max(x, 0), 0, 0],
  ["floor", Math.floor, 0, 0],
  ["ceil", Math.ceil, 0, 0],
  ["trunc", Math.trunc, 0, 0],
];

for (const [op, ref, rtol, atol] of unaryCases) {
  test(`${op} of float32 matches a JS reference on odd sizes`, () => {
    for (const n of [0, 1, 7, 1031]) {
      const xs = randomArray(n, n + 1);
      using x = pt.tensor(xs);
      using y = (x[op] as () => pt.Tensor).call(x);
      assert.equal(y.dtype, "float32");
      assertClose(y.toArray() as Float32Array, xs.map((v) => f32(ref(v))), rtol, atol, `${op} n=${n}`);
    }
  });
}

test("log, log2, log1p, sqrt and rsqrt match JS on positive inputs", () => {
  const xs = randomArray(257, 5, 0.01, 50);
  using x = pt.tensor(xs);
  const cases: [pt.Tensor, (v: number) => number][] = [
    [x.log(), Math.log],
    [x.log2(), Math.log2],
    [x.log1p(), Math.log1p],
    [x.sqrt(), Math.sqrt],
    [x.rsqrt(), (v) => 1 / Math.sqrt(v)],
  ];
  for (const [t, ref] of cases) {
    assertClose(t.toArray() as Float32Array, xs.map(ref), 2e-6, 1e-7);
    t.dispose();
  }
});

test("gelu uses the erf form", () => {
  using x = pt.tensor([-3, -1, -0.5, 0, 0.5, 1, 3]);
  using y = x.gelu();
  // 0.5 x (1 + erf(x / sqrt 2)), values from the erf table
  assertClose(y.toArray() as Float32Array, [-0.00404969, -0.15865525, -0.15426877, 0, 0.34573123, 0.84134475, 2.99595031], 1e-5, 1e-6);
});

test("round rounds half to even", () => {
  using x = pt.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6]);
  assert.deepEqual([...x.round().toArray()], [-2, -2, -0, 0, 2, 2, 3]);
});

test("binary float ops match JS with broadcasting", () => {
  const a = randomArray(6 * 5, 11), b = randomArray(5, 12, 0.5, 3);
  using ta = pt.tensor(a).reshape(6, 5);
  using tb = pt.tensor(b);
  const cases: [string, (x: number, y: number) => number][] = [
    ["add", (x, y) => x + y],
    ["sub", (x, y) => x - y],
    ["mul", (x, y) => x * y],
    ["div", (x, y) => x / y],
    ["maximum", Math.max],
    ["minimum", Math.min],
    ["pow", (x, y) => Math.pow(x, y)],
    ["mod", (x, y) => ((x % y) + y) % y],
  ];
  for (const [op, ref] of cases) {
    using out = (ta[op as "add"] as (o: pt.TensorLike) => pt.Tensor).call(ta, tb);
    assert.deepEqual(out.shape, [6, 5]);
    const expect = a.map((x, i) => f32(ref(x, b[i % 5])));
    assertClose(out.toArray() as Float32Array, expect, 1e-5, 1e-6, op);
  }
});

test("comparisons give bool tensors", () => {
  using a = pt.tensor([1, 2, 3, NaN]);
  using b = pt.tensor([3, 2, 1, NaN]);
  assert.deepEqual([...a.lt(b).toArray()], [1, 0, 0, 0]);
  assert.deepEqual([...a.le(b).toArray()], [1, 1, 0, 0]);
  assert.deepEqual([...a.eq(b).toArray()], [0, 1, 0, 0]);
  assert.deepEqual([...a.ne(b).toArray()], [1, 0, 1, 1]);
  assert.deepEqual([...a.gt(2).toArray()], [0, 0, 1, 0]);
  assert.deepEqual([...a.ge(2).toArray()], [0, 1, 1, 0]);
  using c = a.gt(b);
  assert.equal(c.dtype, "bool");
});

test("logical ops treat any nonzero (and NaN) as true", () => {
  using a = pt.tensor([0, 1, 2, NaN]);
  using b = pt.tensor([0, 0, 3, 0]);
  assert.deepEqual([...a.logicalAnd(b).toArray()], [0, 0, 1, 0]);
  assert.deepEqual([...a.logicalOr(b).toArray()], [0, 1, 1, 1]);
  assert.deepEqual([...a.logicalXor(b).toArray()], [0, 1, 0, 1]);
  assert.deepEqual([...a.logicalNot().toArray()], [1, 0, 0, 0]);
});

test("isnan, isinf and isfinite", () => {
  using a = pt.tensor([0, NaN, Infinity, -Infinity, 1]);
  assert.deepEqual([...a.isnan().toArray()], [0, 1, 0, 0, 0]);
  assert.deepEqual([...a.isinf().toArray()], [0, 0, 1, 1, 0]);
  assert.deepEqual([...a.isfinite().toArray()], [1, 0, 0, 0, 1]);
  using i = pt.tensor([1, 2], { dtype: "int32" });
  assert.deepEqual([...i.isnan().toArray()], [0, 0]);
});

test("maximum and minimum propagate NaN", () => {
  using a = pt.tensor([NaN, 1, 2]);
  using b = pt.tensor([0, NaN, 1]);
  const mx = [...a.maximum(b).toArray()], mn = [...a.minimum(b).toArray()];
  assert.ok(Number.isNaN(mx[0]) && Number.isNaN(mx[1]) && mx[2] === 2);
  assert.ok(Number.isNaN(mn[0]) && Number.isNaN(mn[1]) && mn[2] === 1);
});

test("integer arithmetic stays integer and wraps", () => {
  using a = pt.tensor([2147483647, -7, 7], { dtype: "int32" });
  using b = pt.tensor([1, 2, -2], { dtype: "int32" });
  using s = a.add(b);
  assert.equal(s.dtype, "int32");
  assert.deepEqual([...s.toArray()], [-2147483648, -5, 5]);
  assert.deepEqual([...a.mod(b).toArray()], [0, 1, -1]); // Python's sign-of-divisor rule
  using d = a.div(b);
  assert.equal(d.dtype, "float32");
  assertClose(d.toArray() as Float32Array, [2147483647, -3.5, -3.5]);
  using u = pt.tensor([200, 100], { dtype: "uint8" });
  assert.deepEqual([...u.add(u).toArray()], [144, 200]);
});

test("int64 values beyond 2^32 survive arithmetic", () => {
  using a = pt.tensor([2n ** 40n, -(2n ** 35n)]);
  assert.equal(a.dtype, "int64");
  using b = a.mul(3);
  assert.deepEqual([...(b.toArray() as BigInt64Array)], [3n * 2n ** 40n, -3n * 2n ** 35n]);
});

test("scalars are weak: int tensor + int stays int, + float becomes float32", () => {
  using a = pt.tensor([1, 2], { dtype: "int32" });
  using b = a.add(3);
  assert.equal(b.dtype, "int32");
  using c = a.add(0.5);
  assert.equal(c.dtype, "float32");
  using h = pt.tensor([1, 2], { dtype: "float16" });
  using d = h.mul(2.5);
  assert.equal(d.dtype, "float16");
  using e = pt.tensor([1], { dtype: "float64" }).add(pt.tensor([1], { dtype: "float32" }));
  assert.equal(e.dtype, "float64");
  using f = pt.tensor([true]).add(1);
  assert.equal(f.dtype, "int64");
});

test("type promotion follows PyTorch's table", () => {
  assert.equal(pt.promoteTypes("int32", "float16"), "float16");
  assert.equal(pt.promoteTypes("uint8", "int32"), "int32");
  assert.equal(pt.promoteTypes("bool", "uint8"), "uint8");
  assert.equal(pt.promoteTypes("float16", "bfloat16"), "float32");
  assert.equal(pt.promoteTypes("int64", "float32"), "float32");
  assert.equal(pt.promoteTypes("float32", "float64"), "float64");
});

test("clamp, where, lerp and maskedFill", () => {
  using x = pt.tensor([-2, -0.5, 0.5, 2, NaN]);
  const c = [...x.clamp(-1, 1).toArray()];
  assert.deepEqual(c.slice(0, 4), [-1, -0.5, 0.5, 1]);
  assert.ok(Number.isNaN(c[4]));
  assert.deepEqual([...x.clamp(0).toArray()].slice(0, 4), [0, 0, 0.5, 2]);
  assert.deepEqual([...x.clamp(null, 0).toArray()].slice(0, 4), [-2, -0.5, 0, 0]);
  using m = x.gt(0);
  assert.deepEqual([...pt.where(m, x, 0).toArray()], [0, 0, 0.5, 2, 0]);
  assert.deepEqual([...x.maskedFill(m, 9).toArray()].slice(0, 4), [-2, -0.5, 9, 9]);
  using a = pt.tensor([0, 10]);
  assertClose(a.lerp(pt.tensor([10, 20]), 0.25).toArray() as Float32Array, [2.5, 12.5]);
});

test("strided (transposed, sliced) inputs give the same results as contiguous ones", () => {
  const vals = randomArray(33 * 127, 3);
  using t = pt.tensor(vals).reshape(33, 127);
  using tt = t.T; // [127, 33], strided
  using s = tt.exp().sub(1);
  using ref = t.contiguous().exp().sub(1);
  using refT = ref.T.contiguous();
  assertClose(s.toArray() as Float32Array, refT.toArray() as Float32Array, 0, 0);
  using sl = t.slice(1, 1, 120, 3);
  const got = sl.mul(2).toArray();
  const expect: number[] = [];
  for (let i = 0; i < 33; i++) for (let j = 1; j < 120; j += 3) expect.push(f32(vals[i * 127 + j] * 2));
  assertClose(got as Float32Array, expect, 0, 0);
});

test("a large add (1024x1031) matches JS exactly", () => {
  const n = 1024 * 1031;
  const a = new Float32Array(n), b = new Float32Array(n);
  const r = rng(9);
  for (let i = 0; i < n; i++) {
    a[i] = r();
    b[i] = r() * 100;
  }
  using ta = pt.tensor(a).reshape(1024, 1031);
  using tb = pt.tensor(b).reshape(1024, 1031);
  const got = ta.add(tb).toArray();
  for (let i = 0; i < n; i += 997) assert.equal(got[i], f32(a[i] + b[i]));
});

test("casts convert between every dtype; to bool is nonzero with NaN true", () => {
  using x = pt.tensor([-1.7, 0, 0.4, 2.5, 300, NaN]);
  assert.deepEqual([...x.cast("int32").toArray()], [-1, 0, 0, 2, 300, 0]);
  assert.deepEqual([...x.cast("bool").toArray()], [1, 0, 1, 1, 1, 1]);
  assert.deepEqual([...x.cast("int64").toArray()], [-1n, 0n, 0n, 2n, 300n, 0n]);
  assert.deepEqual([...x.cast("uint8").toArray()], [255, 0, 0, 2, 44, 0]);
  using h = x.cast("float16");
  assertClose(h.toArray() as Float32Array, [-1.7001953125, 0, 0.39990234375, 2.5, 300, NaN], 0, 0);
  using bf = x.cast("bfloat16");
  assertClose(bf.toArray() as Float32Array, [-1.703125, 0, 0.400390625, 2.5, 300, NaN], 0, 0);
  using d = x.cast("float64");
  assert.equal(d.dtype, "float64");
  assertClose(d.toArray() as Float64Array, [f32(-1.7), 0, f32(0.4), 2.5, 300, NaN], 0, 0);
  using back = pt.tensor([1, 0, 1], { dtype: "bool" }).cast("float32");
  assert.deepEqual([...back.toArray()], [1, 0, 1]);
});

test("functional forms match methods", () => {
  using a = pt.tensor([1, 4, 9]);
  assert.deepEqual([...pt.sqrt(a).toArray()], [1, 2, 3]);
  assert.deepEqual([...pt.add(1, a).toArray()], [2, 5, 10]);
  assert.deepEqual([...pt.sub(10, a).toArray()], [9, 6, 1]);
});
