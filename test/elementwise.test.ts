import * as pt from "../mod.ts";
import { check, native } from "../src/runtime/native.ts";
import { ArgBlock, type ViewRef } from "../src/kernels/block.ts";
import type { Expr } from "../src/kernels/ir.ts";
import { elementwiseProgramFor, rendererFor, runElementwise } from "../src/kernels/launch.ts";
import { type DType, DTYPES } from "../src/base/dtype.ts";
import { assert, assertClose, assertTensorError, rng, test, testUnless } from "./harness.ts";

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

test("a JS integer beyond an int32 or uint8 op's range wraps to the dtype in arithmetic, as PyTorch converts it; comparisons are exact", () => {
  using u = pt.tensor([1, 2], { dtype: "uint8" });
  using i = pt.tensor([1, -3], { dtype: "int32" });
  using us = u.add(300), um = u.mul(300), ic = i.add(2 ** 40), in_ = i.sub(2 ** 32 + 1);
  // References: (x + 300) mod 256, (x * 300) mod 256; 2^40 wraps to 0 in int32, 2^32 + 1 to 1.
  assert.deepEqual([...us.toArray()], [45, 46]);
  assert.deepEqual([...um.toArray()], [44, 88]);
  assert.deepEqual([...ic.toArray()], [1, -3]);
  assert.deepEqual([...in_.toArray()], [0, -4]);
  assert.equal(us.dtype, "uint8");
  assert.equal(ic.dtype, "int32");
  // A deliberate difference: PyTorch wraps in comparisons too (uint8 2 == 258 is true there, a known bug).
  using ue = u.eq(258), ul = u.lt(-1), ug = u.gt(-1);
  assert.deepEqual([...ue.toArray()], [0, 0]);
  assert.deepEqual([...ul.toArray()], [0, 0]);
  assert.deepEqual([...ug.toArray()], [1, 1]);
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

test("type promotion of every pair of the 8 dtypes follows PyTorch's table (torch.promote_types)", () => {
  // Written out from torch.promote_types(row, column); the table is symmetric, and checked both ways.
  const order = ["float32", "float16", "bfloat16", "float64", "int32", "int64", "uint8", "bool"] as const;
  const table: Record<(typeof order)[number], readonly string[]> = {
    //        float32    float16    bfloat16   float64    int32      int64      uint8      bool
    float32: ["float32", "float32", "float32", "float64", "float32", "float32", "float32", "float32"],
    float16: ["float32", "float16", "float32", "float64", "float16", "float16", "float16", "float16"],
    bfloat16: ["float32", "float32", "bfloat16", "float64", "bfloat16", "bfloat16", "bfloat16", "bfloat16"],
    float64: ["float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64"],
    int32: ["float32", "float16", "bfloat16", "float64", "int32", "int64", "int32", "int32"],
    int64: ["float32", "float16", "bfloat16", "float64", "int64", "int64", "int64", "int64"],
    uint8: ["float32", "float16", "bfloat16", "float64", "int32", "int64", "uint8", "uint8"],
    bool: ["float32", "float16", "bfloat16", "float64", "int32", "int64", "uint8", "bool"],
  };
  for (const a of order) {
    order.forEach((b, j) => {
      assert.equal(table[b][order.indexOf(a)], table[a][j], `the table itself is symmetric at ${a}, ${b}`);
      assert.equal(pt.promoteTypes(a, b), table[a][j], `promoteTypes(${a}, ${b})`);
    });
  }
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

// ---- the linear layout ----------------------------------------------------------------------
// A launch whose views are all contiguous over one dim (after collapsing), each in its own
// buffer, may run a program made for that layout and those dtypes (launch.ts linearLayout);
// it must compute exactly what the general program computes.

const dev = pt.defaultDevice();
const load = (input: number, dtype: DType): Expr => ({ k: "load", input, dtype });
const cst = (index: number, dtype: DType): Expr => ({ k: "const", index, dtype });
const cvt = (a: Expr, dtype: DType): Expr => ({ k: "cast", a, dtype });
const un = (op: "neg" | "nonzero" | "isnan" | "sin", a: Expr, dtype: DType): Expr => ({ k: "unary", op, a, dtype });
const bin = (op: "add" | "sub" | "mul" | "div" | "mod" | "gt" | "logicalXor", a: Expr, b: Expr, dtype: DType): Expr => ({
  k: "binary",
  op,
  a,
  b,
  dtype,
});

/** The general program and the linear-layout one for views of these dtypes (the same where the language has none). */
function programsFor(expr: Expr, dtypes: readonly DType[]): { general: number; linear: number } {
  const n = dtypes.length - 1;
  return { general: elementwiseProgramFor(dev, expr, n), linear: elementwiseProgramFor(dev, expr, n, dtypes.map((d) => DTYPES[d].code)) };
}

/** The programs launched while fn runs, in order (pt_launch watched). */
function launched(fn: () => void): number[] {
  const lib = native as { pt_launch: typeof native.pt_launch };
  const orig = lib.pt_launch, seen: number[] = [];
  lib.pt_launch = (q, program, args, n) => {
    seen.push(program);
    return orig(q, program, args, n);
  };
  try {
    fn();
  } finally {
    lib.pt_launch = orig;
  }
  return seen;
}

/** Raw bytes of `count` elements of dt: varied values, signed zeros, infinities, one NaN (never 0 for integers, as divisors). */
function rawData(dt: DType, count: number, seed: number): Uint8Array {
  const r = rng(seed), bytes = new Uint8Array(count * DTYPES[dt].size), buf = bytes.buffer;
  const SPECIAL = [0, -0, Infinity, -Infinity, NaN, 0.5, 2.5, -1.5, 255.5, 300, 65520, 1e30, -1e30, 2 ** 31, -(2 ** 63)];
  const float = () => (r() < 0.25 ? SPECIAL[Math.floor(r() * SPECIAL.length)] : (r() < 0.5 ? -1 : 1) * 2 ** (r() * 40 - 16));
  const bits16 = (nan: number, expMask: number) => {
    const b = Math.floor(r() * 65536);
    return (b & expMask) === expMask && (b & ~expMask & 0x7fff) !== 0 ? nan : b; // one NaN encoding
  };
  for (let i = 0; i < count; i++) {
    switch (dt) {
      case "float32":
        new Float32Array(buf)[i] = float();
        break;
      case "float64":
        new Float64Array(buf)[i] = float() * (1 + r() / 3);
        break;
      case "float16":
        new Uint16Array(buf)[i] = bits16(0x7e00, 0x7c00);
        break;
      case "bfloat16":
        new Uint16Array(buf)[i] = bits16(0x7fc0, 0x7f80);
        break;
      case "int32":
        new Int32Array(buf)[i] = (r() < 0.5 ? Math.floor(r() * 2 ** 32) - 2 ** 31 : Math.floor(r() * 41) - 20) || 7;
        break;
      case "int64":
        new BigInt64Array(buf)[i] = r() < 0.5
          ? BigInt(Math.floor(r() * 2 ** 53) - 2 ** 52) * 977n || 7n
          : BigInt(Math.floor(r() * 41) - 20) || -3n;
        break;
      case "uint8":
        bytes[i] = Math.floor(r() * 256);
        break;
      case "bool":
        bytes[i] = r() < 0.5 ? 1 : 0;
        break;
      case "int8":
        new Int8Array(buf)[i] = Math.floor(r() * 256) - 128 || 5;
        break;
      case "int16":
        new Int16Array(buf)[i] = (r() < 0.5 ? Math.floor(r() * 65536) - 32768 : Math.floor(r() * 41) - 20) || -7;
        break;
    }
  }
  return bytes;
}

const LINEAR_CASES: { name: string; expr: Expr; dtypes: DType[]; consts: number[] }[] = [
  {
    name: "add f32",
    expr: bin("add", load(0, "float32"), load(1, "float32"), "float32"),
    dtypes: ["float32", "float32", "float32"],
    consts: [],
  },
  {
    name: "f16 * c + INDEX -> u8",
    expr: cvt(
      bin(
        "add",
        bin("mul", cvt(load(0, "float16"), "float32"), cst(0, "float32"), "float32"),
        cvt({ k: "index", dtype: "int32" }, "float32"),
        "float32",
      ),
      "uint8",
    ),
    dtypes: ["uint8", "float16"],
    consts: [3.5],
  },
  {
    name: "i64 floor-div i32 -> f64",
    expr: cvt(bin("div", load(0, "int64"), cvt(load(1, "int32"), "int64"), "int64"), "float64"),
    dtypes: ["float64", "int64", "int32"],
    consts: [],
  },
  {
    name: "bool xor (f64 > c) -> bool",
    expr: bin("logicalXor", un("nonzero", load(0, "bool"), "bool"), bin("gt", load(1, "float64"), cst(0, "float64"), "bool"), "bool"),
    dtypes: ["bool", "bool", "float64"],
    consts: [0.25],
  },
  {
    name: "f64 * bf16 -> bf16",
    expr: cvt(bin("mul", cvt(load(0, "float64"), "float32"), cvt(load(1, "bfloat16"), "float32"), "float32"), "bfloat16"),
    dtypes: ["bfloat16", "float64", "bfloat16"],
    consts: [],
  },
  {
    name: "f32 * c -> i32 (saturating)",
    expr: cvt(bin("mul", load(0, "float32"), cst(0, "float32"), "float32"), "int32"),
    dtypes: ["int32", "float32"],
    consts: [1e6],
  },
  { name: "f64 -> u8 (wrapping)", expr: cvt(load(0, "float64"), "uint8"), dtypes: ["uint8", "float64"], consts: [] },
  {
    name: "INDEX * c + i64",
    expr: bin("add", bin("mul", { k: "index", dtype: "int64" }, cst(0, "int64"), "int64"), load(0, "int64"), "int64"),
    dtypes: ["int64", "int64"],
    consts: [3],
  },
  {
    name: "arange-like (INDEX only, no inputs)",
    expr: cvt(
      bin("add", cst(0, "float64"), bin("mul", { k: "index", dtype: "float64" }, cst(1, "float64"), "float64"), "float64"),
      "float32",
    ),
    dtypes: ["float32"],
    consts: [-5, 0.25],
  },
  { name: "sin f32 -> f64", expr: cvt(un("sin", load(0, "float32"), "float32"), "float64"), dtypes: ["float64", "float32"], consts: [] },
  {
    name: "where(i32 > u8, i32 * u8, i32 - u8) wrapping",
    expr: {
      k: "where",
      c: bin("gt", load(0, "int32"), load(1, "uint8"), "bool"),
      a: bin("mul", load(0, "int32"), load(1, "uint8"), "int32"),
      b: bin("sub", load(0, "int32"), load(1, "uint8"), "int32"),
      dtype: "int32",
    },
    dtypes: ["int32", "int32", "uint8"],
    consts: [],
  },
  { name: "isnan(f16) -> bool", expr: un("isnan", cvt(load(0, "float16"), "float32"), "bool"), dtypes: ["bool", "float16"], consts: [] },
  { name: "u8 -> f16", expr: cvt(load(0, "uint8"), "float16"), dtypes: ["float16", "uint8"], consts: [] },
  {
    name: "i8 * i16 -> i8 (wrapping)",
    expr: cvt(bin("mul", cvt(load(0, "int8"), "int32"), cvt(load(1, "int16"), "int32"), "int32"), "int8"),
    dtypes: ["int8", "int8", "int16"],
    consts: [],
  },
  { name: "f32 -> i16 (wrapping)", expr: cvt(load(0, "float32"), "int16"), dtypes: ["int16", "float32"], consts: [] },
  { name: "i16 -> f16", expr: cvt(load(0, "int16"), "float16"), dtypes: ["float16", "int16"], consts: [] },
  {
    name: "i64 -> f32 -> i32, stored as bool",
    expr: cvt(cvt(load(0, "int64"), "float32"), "int32"),
    dtypes: ["bool", "int64"],
    consts: [],
  },
];

testUnless(
  rendererFor(dev).elementwiseLinear ? null : `${dev.info.language} runs the general program for every layout`,
  "linear-layout programs compute bit for bit what the general program computes (mixed dtypes, offsets, sizes, 0-d)",
  () => {
    const sizes = [0, 1, 3, 4, 5, 64, 257, 1031, 4099]; // 0: a 0-d launch (rank 0, one element)
    // element offsets of the output, then of every input: aligned, unaligned, and each against the other
    const offsets = [[0, 0], [1, 1], [3, 3], [4, 8], [0, 1], [2, 0], [5, 7]];
    let compared = 0;
    for (const [c, { name, expr, dtypes, consts }] of LINEAR_CASES.entries()) {
      const { general, linear } = programsFor(expr, dtypes);
      assert.notEqual(general, linear, `${name}: two programs`);
      for (const size of sizes) {
        const n = Math.max(size, 1), shape = size === 0 ? [] : [n], strides = size === 0 ? [] : [1];
        for (const [oOut, oIn] of offsets) {
          const offs = dtypes.map((_, v) => (v === 0 ? oOut : oIn + v - 1));
          const inputs = dtypes.slice(1).map((d, k) => pt.tensor(rawData(d, offs[k + 1] + n, 1000 * c + 10 * k + n), { dtype: "uint8" }));
          const outs = [0, 1].map(() => pt.full([(oOut + n) * DTYPES[dtypes[0]].size], 0xa5, { dtype: "uint8" }));
          try {
            const got = [general, linear].map((program, k) => {
              const views: ViewRef[] = [outs[k], ...inputs].map((t, v) => ({ buf: t.buf, dtype: dtypes[v], offset: offs[v], strides }));
              const args = new ArgBlock().fill("ew", { shape, views, consts }).finish();
              check(native.pt_launch(dev.queue, program, args, args.length), "launch");
              return outs[k].toArray() as Uint8Array;
            });
            const what = `${name}, ${size === 0 ? "0-d" : `n=${n}`}, offsets ${offs}`;
            const first = got[1].findIndex((b, i) => b !== got[0][i]);
            assert.equal(first, -1, `${what}: byte ${first} differs (general ${got[0][first]}, linear ${got[1][first]})`);
            const size0 = DTYPES[dtypes[0]].size;
            assert.ok(got[1].subarray(0, oOut * size0).every((b) => b === 0xa5), `${what}: nothing before the offset is written`);
            compared++;
          } finally {
            for (const t of [...inputs, ...outs]) t.dispose();
          }
        }
      }
    }
    assert.equal(compared, LINEAR_CASES.length * sizes.length * offsets.length);
  },
);

test("contiguous operands take the linear-layout program; strided, broadcast, aliased and in-place ones the general one", () => {
  pt.eager(() => {
    const add32 = bin("add", load(0, "float32"), load(1, "float32"), "float32");
    const p = programsFor(add32, ["float32", "float32", "float32"]);
    const xs = randomArray(15, 21), ys = randomArray(15, 22);
    using x = pt.tensor(xs), y = pt.tensor(ys);
    const ref = (i: number, j = i) => f32(xs[i] + ys[j]);
    const expectRun = (what: string, program: number, fn: () => pt.Tensor, want: number[]) => {
      let out: pt.Tensor | undefined;
      assert.deepEqual(launched(() => out = fn()), [program], `${what}: ${program === p.linear ? "linear" : "general"} program`);
      using o = out!;
      assert.deepEqual([...o.toArray()], want, what);
    };
    const all = xs.map((_, i) => i);
    expectRun("contiguous", p.linear, () => x.add(y), all.map((i) => ref(i)));
    // slices of a contiguous tensor that start at 1 and 2: contiguous, offsets not multiples of 4, 13 elements
    using xs1 = x.slice(0, 1, 14), ys2 = y.narrow(0, 2, 13);
    assert.equal(xs1.offset, 1);
    expectRun("offsets 1 and 2", p.linear, () => xs1.add(ys2), all.slice(0, 13).map((i) => ref(i + 1, i + 2)));
    // 2-d contiguous collapses to one dim
    using x2 = x.reshape(3, 5), y2 = y.reshape(3, 5);
    expectRun("[3, 5] contiguous", p.linear, () => x2.add(y2), all.map((i) => ref(i)));
    using xv = x.slice(0, 0, 15); // another view of x's buffer
    expectRun("one buffer read as two inputs", p.general, () => x.add(xv), all.map((i) => f32(xs[i] + xs[i])));
    using row = y.slice(0, 0, 5);
    expectRun("broadcast", p.general, () => x2.add(row), all.map((i) => ref(i, i % 5)));
    using xt = x.reshape(5, 3).T, yt = y.reshape(5, 3).T;
    expectRun("transposed", p.general, () => xt.add(yt), [0, 3, 6, 9, 12, 1, 4, 7, 10, 13, 2, 5, 8, 11, 14].map((i) => ref(i)));
    using step2 = x.slice(0, 0, 15, 2), ystep = y.slice(0, 0, 15, 2);
    expectRun("step 2", p.general, () => step2.add(ystep), all.filter((i) => i % 2 === 0).map((i) => ref(i)));
    // 0-d tensors are one element, linear
    using s = pt.tensor(1.5), t = pt.tensor(-4);
    expectRun("0-d", p.linear, () => s.add(t), [-2.5]);
    // mixed dtypes: f16 + f32 computes in f32
    using h = pt.tensor(xs).cast("float16");
    const mixed = bin("add", cvt(load(0, "float16"), "float32"), load(1, "float32"), "float32");
    const hs = [...h.toArray()].map(Number);
    expectRun(
      "f16 + f32",
      programsFor(mixed, ["float32", "float16", "float32"]).linear,
      () => h.add(y),
      all.map((i) => f32(hs[i] + ys[i])),
    );
    // INDEX: arange's expression
    const arangeExpr = cvt(
      bin("add", cst(0, "float64"), bin("mul", { k: "index", dtype: "float64" }, cst(1, "float64"), "float64"), "float64"),
      "float32",
    );
    expectRun("arange", programsFor(arangeExpr, ["float32"]).linear, () => pt.arange(2, 9, 0.5), all.slice(0, 14).map((i) => 2 + 0.5 * i));

    // In place: the output is the input's buffer, so the general program runs.
    const neg = un("neg", load(0, "float32"), "float32");
    const q = programsFor(neg, ["float32", "float32"]);
    using z = pt.tensor(xs);
    assert.deepEqual(launched(() => runElementwise(dev, "neg", neg, [15], z, [z], [])), [q.general], "in place: general");
    assert.deepEqual([...z.toArray()], xs.map((v) => -v));
    using w = pt.tensor(xs);
    const wIn: ViewRef = { buf: w.buf, dtype: "float32", offset: 1, strides: [1] }; // the same buffer, shifted by one
    const wOut: ViewRef = { buf: w.buf, dtype: "float32", offset: 0, strides: [1] };
    assert.deepEqual(launched(() => runElementwise(dev, "neg", neg, [14], wOut, [wIn], [])), [q.general], "overlapping: general");
    const wv = [...w.toArray()];
    assert.deepEqual([wv[13], wv[14]], [-xs[14], xs[14]], "the last element read the untouched one after it"); // the rest race
    using u = pt.tensor(xs), fresh = pt.empty([15]);
    assert.deepEqual(launched(() => runElementwise(dev, "neg", neg, [15], fresh, [u], [])), [q.linear], "a new output: linear");
    assert.deepEqual([...fresh.toArray()], xs.map((v) => -v));
  });
});

test("INDEX-based creation (arange, linspace, eye) and an integer error run on the linear layout", () => {
  pt.eager(() => {
    using a = pt.arange(0, 1031);
    assert.deepEqual([...a.toArray()], Array.from({ length: 1031 }, (_, i) => i));
    using l = pt.linspace(-1, 1, 5);
    assert.deepEqual([...l.toArray()], [-1, -0.5, 0, 0.5, 1]);
    using e = pt.eye(3, 4); // [3, 4] contiguous: one dim of 12 after collapsing, INDEX row-major
    assert.deepEqual([...e.toArray()], [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
    using i64 = pt.arange(0, 9, 1, { dtype: "int64" });
    using m = i64.mul(3).add(i64);
    assert.deepEqual([...(m.toArray() as BigInt64Array)], Array.from({ length: 9 }, (_, i) => BigInt(4 * i)));
    using num = pt.tensor([5, -7, 9, 11, 13], { dtype: "int32" });
    using den = pt.tensor([2, 2, 0, 3, 4], { dtype: "int32" });
    assertTensorError(() => num.mod(den), /mod/);
    using den2 = pt.tensor([2, 2, -4, 3, 4], { dtype: "int32" });
    using r = num.mod(den2);
    assert.deepEqual([...r.toArray()], [1, 1, -3, 2, 1]);
  });
});

/**
 * PyTorch's powi (aten/src/ATen/native/Pow.h) for a negative exponent: 1 for base 1, +-1 by
 * the exponent's parity for base -1, 0 for every other base, 0 itself included.
 */
function powiNegative(base: bigint, e: bigint): bigint {
  if (base === 1n) return 1n;
  if (base === -1n) return e % 2n === 0n ? 1n : -1n;
  return 0n;
}

test("integer pow with a negative tensor exponent truncates as PyTorch's powi (int32, int64); a negative JS exponent is a TensorError, as in PyTorch", () => {
  for (const dtype of ["int32", "int64"] as const) {
    const asBig = (t: pt.Tensor) => Array.from(t.toArray() as ArrayLike<number | bigint>, (v) => BigInt(v));
    for (const mode of ["lazy", "eager"]) {
      const run = <T>(f: () => T): T => mode === "eager" ? pt.eager(f) : f();
      run(() => {
        using a = pt.tensor([2, 1, -1], { dtype }), m1 = pt.tensor(-1, { dtype });
        using p = a.pow(m1);
        assert.equal(p.dtype, dtype);
        assert.deepEqual(asBig(p), [0n, 1n, -1n], `${dtype} ${mode}: [2, 1, -1] ** tensor(-1)`);
        assertTensorError(() => a.pow(-1), /^pow: /, /negative integer power -1 is not allowed/);
        assertTensorError(() => a.pow(-2n), /^pow: /, /negative integer power -2 is not allowed/);
        using fp = a.pow(-0.5), sq = a.pow(2);
        assert.equal(fp.dtype, "float32", "a fractional exponent promotes to float");
        assert.deepEqual(asBig(sq), [4n, 1n, 1n]);
        const min = dtype === "int32" ? -(2n ** 31n) : -(2n ** 63n);
        const bases = [0n, 1n, -1n, 2n, -2n, 3n, -1n, 1n, 0n, 7n, -1n, -1n, -7n];
        const exps = [-1n, -5n, -2n, -3n, -1n, 0n, -7n, min, -2n, 2n, min, min + 1n, 3n];
        const expect = bases.map((b, i) => exps[i] < 0n ? powiNegative(b, exps[i]) : b ** exps[i]);
        assert.deepEqual(expect.slice(0, 5), [0n, 1n, 1n, 0n, 0n], "the reference's hand values");
        using b = pt.tensor(dtype === "int64" ? BigInt64Array.from(bases) : Int32Array.from(bases, Number), { dtype });
        using e = pt.tensor(dtype === "int64" ? BigInt64Array.from(exps) : Int32Array.from(exps, Number), { dtype });
        using q = b.pow(e);
        assert.deepEqual(asBig(q), expect, `${dtype} ${mode}: tensor exponents`);
        // in an expression and a reduction of one (the fused paths in lazy mode)
        using q3 = q.mul(3), q2 = b.pow(e), q2p1 = q2.add(1), sum = q2p1.sum();
        using b2 = b.reshape(1, 13), m2 = pt.tensor(-2, { dtype }), bm2 = b2.pow(m2), row = bm2.sum(-1);
        assert.deepEqual(asBig(q3), expect.map((v) => 3n * v), `${dtype} ${mode}: pow then mul`);
        assert.deepEqual(asBig(sum), [expect.reduce((s, v) => s + v + 1n, 0n)], `${dtype} ${mode}: sum of pow + 1`);
        assert.deepEqual(asBig(row), [bases.reduce((s, v) => s + powiNegative(v, -2n), 0n)], `${dtype} ${mode}: sum of pow -2`);
      });
    }
  }
});

// ---- PyTorch's promotion and scalar rules (issue #22) -------------------------------------------

/** fn in lazy mode and eagerly. */
function bothModes(fn: (mode: string) => void): void {
  fn("lazy");
  pt.eager(() => fn("eager"));
}

test("0-d tensors and JS scalars promote as torch.result_type: a lower group changes the dtype only when of a higher kind", () => {
  const d = (dtype: pt.DType) => pt.tensor([1, 2], { dtype });
  const z = (dtype: pt.DType) => pt.tensor([1], { dtype }).reshape([]);
  // [operands, torch.result_type], hand values from PyTorch's rules
  const cases: [string, pt.TensorLike[], pt.DType][] = [
    ["float16[2] + float32 0-d", [d("float16"), z("float32")], "float16"],
    ["float32 0-d + float16[2]", [z("float32"), d("float16")], "float16"],
    ["float16[2] + float64 0-d", [d("float16"), z("float64")], "float16"],
    ["float16[2] + bfloat16 0-d", [d("float16"), z("bfloat16")], "float16"],
    ["int32[2] + int64 0-d", [d("int32"), z("int64")], "int32"],
    ["uint8[2] + int64 0-d", [d("uint8"), z("int64")], "uint8"],
    ["int32[2] + float64 0-d", [d("int32"), z("float64")], "float64"],
    ["int32[2] + float16 0-d", [d("int32"), z("float16")], "float16"],
    ["bool[2] + int32 0-d", [d("bool"), z("int32")], "int32"],
    ["bool[2] + uint8 0-d", [d("bool"), z("uint8")], "uint8"],
    ["bool[2] + float64 0-d", [d("bool"), z("float64")], "float64"],
    ["float16[2] + float32[2]", [d("float16"), d("float32")], "float32"],
    ["int64 0-d + int32 0-d", [z("int64"), z("int32")], "int64"],
    ["float16 0-d + bfloat16 0-d", [z("float16"), z("bfloat16")], "float32"],
    ["float16 0-d + 2.5", [z("float16"), 2.5], "float16"],
    ["int32 0-d + 2.5", [z("int32"), 2.5], "float32"],
    ["int32 0-d + 3", [z("int32"), 3], "int32"],
    ["uint8[2] + 3", [d("uint8"), 3], "uint8"],
    ["bool[2] + 3", [d("bool"), 3], "int64"],
    ["bool[2] + true", [d("bool"), true], "bool"],
    ["int32[2] + 1.5", [d("int32"), 1.5], "float32"],
    ["int32[2] + float16 0-d + 2.5", [d("int32"), z("float16"), 2.5], "float16"],
    ["uint8[2] + int32 0-d + 2.5", [d("uint8"), z("int32"), 2.5], "float32"],
  ];
  for (const [what, ops, want] of cases) assert.equal(pt.resultType(...ops), want, what);
  bothModes((mode) => {
    for (const [what, ops, want] of cases) {
      if (ops.length !== 2) continue;
      const [a, b] = ops;
      using sum = pt.add(a, b), prod = pt.mul(b, a), mx = pt.maximum(a, b);
      for (const r of [sum, prod, mx]) assert.equal(r.dtype, want, `${what} (${mode})`);
      const other = typeof b === "number" ? b : 1; // every tensor here starts with 1
      assert.equal(Number(sum.toArray()[0]), want === "bool" ? 1 : 1 + other, `${what} (${mode}) values`);
      using lt = pt.lt(a, b);
      assert.equal(lt.dtype, "bool");
    }
    using h = d("float16"), f0 = z("float32"), i = d("int32"), l0 = z("int64"), f64 = z("float64"), m = pt.tensor([true, false]);
    using w1 = pt.where(m, h, f0), w2 = pt.where(m, i, l0), w3 = pt.where(m, i, 0.5), w4 = pt.where(m, f64, h);
    assert.deepEqual([w1.dtype, w2.dtype, w3.dtype, w4.dtype], ["float16", "int32", "float32", "float16"], `where (${mode})`);
    using c1 = h.clamp(f0, f64), c2 = i.clamp(l0), c3 = i.clamp(f64);
    assert.deepEqual([c1.dtype, c2.dtype, c3.dtype], ["float16", "int32", "float64"], `clamp (${mode})`);
    using l1 = h.lerp(f0, f64), l2 = h.lerp(h, 0.5);
    assert.deepEqual([l1.dtype, l2.dtype], ["float16", "float16"], `lerp (${mode})`);
    // indexPut and scatter write values in the input's dtype, as PyTorch (which requires it) keeps it
    using idx = pt.tensor([0n]), ip = h.indexPut([idx], f64), sc = i.scatter(0, idx, 1.5);
    assert.deepEqual([ip.dtype, sc.dtype], ["float16", "int32"]);
    assert.deepEqual(Array.from(sc.toArray() as Int32Array), [1, 2]);
  });
});

test("a JS number meets a tensor as the computation dtype's value: truthiness in logical ops, rounded for float16 and bfloat16", () => {
  bothModes((mode) => {
    using x = pt.tensor([1, 0, 2]);
    using and = x.logicalAnd(0.5), or = x.logicalOr(0.25), xor = x.logicalXor(-0.5), nan = x.logicalAnd(NaN);
    assert.deepEqual(and.toList(), [true, false, true], `logicalAnd(0.5) ${mode}`);
    assert.deepEqual(or.toList(), [true, true, true], `logicalOr(0.25) ${mode}`);
    assert.deepEqual(xor.toList(), [false, true, false], `logicalXor(-0.5) ${mode}`);
    assert.deepEqual(nan.toList(), [true, false, true], `logicalAnd(NaN) ${mode}`);
    using rev = pt.logicalAnd(0.5, x), zero = x.logicalOr(0);
    assert.deepEqual(rev.toList(), [true, false, true]);
    assert.deepEqual(zero.toList(), [true, false, true]);
    for (const dtype of ["float16", "bfloat16", "float32"] as const) {
      for (const v of [0.1, 1 / 3, 2049, 65519, -7.3]) {
        using t = pt.tensor([v], { dtype });
        using eq = t.eq(v), ne = t.ne(v), le = t.le(v), gt = t.gt(v);
        assert.deepEqual([eq.item(), ne.item(), le.item(), gt.item()], [1, 0, 1, 0], `${dtype} ${v} ${mode}`);
        using w = pt.where(pt.tensor([true]), t, v), same = w.eq(t); // a scalar branch is rounded too
        assert.equal(same.item(), 1, `${dtype} where ${v} ${mode}`);
        using f64 = pt.tensor(new Float64Array([v])).reshape([]), eq0 = t.eq(f64); // a 0-d float64 operand is cast to dtype too
        assert.equal(eq0.item(), 1, `${dtype} eq 0-d float64 ${v} ${mode}`);
      }
    }
    // float16(0.1) is 0.0999755859375, and so is float16(0.09998): the scalar is cast first, as in PyTorch
    using h = pt.tensor([0.1], { dtype: "float16" }), lt = h.lt(0.09998), eq = h.eq(0.09998);
    assert.deepEqual([lt.item(), eq.item()], [0, 1]);
  });
});

test("maskedFill keeps self's dtype: the value is cast to it, a tensor value must be 0-d, the mask must be bool", () => {
  bothModes((mode) => {
    using m = pt.tensor([true, false, true]);
    using i = pt.tensor([1, 2, 3], { dtype: "int32" }), fi = i.maskedFill(m, 1.5), fn = i.maskedFill(m, -2.7);
    assert.equal(fi.dtype, "int32");
    assert.deepEqual(fi.toList(), [1, 2, 1], mode);
    assert.deepEqual(fn.toList(), [-2, 2, -2], mode);
    using b = pt.tensor([false, false, false]), fb = b.maskedFill(m, 2), fz = b.maskedFill(m, 0.25);
    assert.equal(fb.dtype, "bool");
    assert.deepEqual(fb.toList(), [true, false, true], mode);
    assert.deepEqual(fz.toList(), [true, false, true], mode);
    using h = pt.tensor([0, 0, 0], { dtype: "float16" }), fh = h.maskedFill(m, 0.1), v64 = pt.tensor(new Float64Array([0.1])).reshape([]);
    using fh64 = h.maskedFill(m, v64);
    assert.equal(fh.dtype, "float16");
    assert.equal(fh64.dtype, "float16");
    assert.deepEqual(fh.toList(), [0.0999755859375, 0, 0.0999755859375], mode);
    assert.deepEqual(fh64.toList(), [0.0999755859375, 0, 0.0999755859375], mode);
    using l = pt.tensor([0n, 0n, 0n]), fl = l.maskedFill(m, 2n ** 60n + 1n);
    assert.deepEqual(fl.toList(), [2n ** 60n + 1n, 0n, 2n ** 60n + 1n], mode);
    using u = pt.tensor([1, 2, 3], { dtype: "uint8" }), mm = pt.tensor([[true], [false]]), fu = u.maskedFill(mm, 7);
    assert.deepEqual(fu.shape, [2, 3], "the result has self's and mask's broadcast shape");
    assert.deepEqual(fu.toList(), [[7, 7, 7], [1, 2, 3]]);
    using vec = pt.tensor([1, 2, 3]), fm = pt.tensor([1, 0, 1]);
    assertTensorError(() => i.maskedFill(m, vec), /^maskedFill: /, /0-d/, /\[3\]/);
    assertTensorError(() => i.maskedFill(fm, 1), /^maskedFill: /, /mask must be bool/, /float32/);
    assertTensorError(() => u.maskedFill(m, 300), /^maskedFill: /, /300/, /uint8/);
    assertTensorError(() => i.maskedFill(m, NaN), /^maskedFill: /, /NaN/, /int32/);
  });
});

test("sign of bool is bool, square of bool is int64 and bool / bool is float32, as in PyTorch", () => {
  bothModes((mode) => {
    using b = pt.tensor([true, false]), t = pt.tensor([true, true]);
    using s = b.sign(), q = b.square(), d = b.div(t), dd = b.div(b), fs = pt.sign(b), fq = pt.square(b);
    assert.equal(s.dtype, "bool");
    assert.deepEqual(s.toList(), [true, false], mode);
    assert.equal(q.dtype, "int64");
    assert.deepEqual(q.toList(), [1n, 0n], mode);
    assert.equal(d.dtype, "float32");
    assert.deepEqual(d.toList(), [1, 0], mode);
    assert.deepEqual(dd.toList(), [1, NaN], mode); // 0 / 0
    assert.deepEqual([fs.dtype, fq.dtype], ["bool", "int64"]);
    using bi = b.div(2);
    assert.deepEqual(bi.toList(), [0.5, 0]);
  });
});

test("a tensor operand of another dtype is cast to float16 or bfloat16 before the op, as PyTorch casts operands to the computation dtype", () => {
  bothModes((mode) => {
    // float16(2049) is 2048 and bfloat16(257) is 256: the op sees the rounded values
    using i = pt.tensor([2049, 1299062947], { dtype: "int32" }), h = pt.tensor([3, -67.0625], { dtype: "float16" });
    using p = i.mul(h), q = h.div(i);
    assert.equal(p.dtype, "float16");
    assert.deepEqual(p.toList(), [6144, -Infinity], `int32 * float16 ${mode}`); // not 6148: 2049 * 3 rounded once
    assert.ok(Object.is((q.toList() as number[])[1], -0), `float16 / int32: -67.0625 / inf is -0 ${mode}`);
    using j = pt.tensor([257], { dtype: "int32" }), b = pt.tensor([3], { dtype: "bfloat16" }), r = j.mul(b);
    assert.equal(r.dtype, "bfloat16");
    assert.deepEqual(r.toList(), [768], `int32 * bfloat16 ${mode}`); // not 772
    using f0 = pt.tensor(new Float64Array([2049])).reshape([]),
      hh = pt.tensor([1], { dtype: "float16" }),
      s = hh.mul(f0),
      w = hh.lerp(f0, 1);
    assert.deepEqual([s.dtype, s.toList(), w.toList()], ["float16", [2048], [2048]], `float16 with a float64 0-d ${mode}`);
  });
});

test("an int32 or int64 operand of a uint8 op wraps to uint8 before the op, as PyTorch casts operands to the computation dtype", () => {
  bothModes((mode) => {
    using u = pt.tensor([88, 0, 8], { dtype: "uint8" });
    using m4 = pt.tensor(-4, { dtype: "int32" }), big = pt.tensor(5579486137937880941n); // 0-d: uint8 stays the dtype
    using mx = u.maximum(m4), ge = u.ge(m4), mn = u.minimum(big), sum = u.add(m4);
    assert.equal(mx.dtype, "uint8");
    assert.deepEqual(mx.toList(), [252, 252, 252], `max with -4 as uint8 (252) ${mode}`);
    assert.deepEqual(ge.toList(), [false, false, false], `uint8 >= 252 ${mode}`);
    assert.deepEqual(mn.toList(), [88, 0, 8].map((v) => Math.min(v, 109)), `the int64 is 109 as uint8 ${mode}`);
    assert.deepEqual(sum.toList(), [84, 252, 4], `uint8 + 252 wraps ${mode}`);
  });
});

test("float32 to bfloat16 rounds half to even (1 + 1.5/128 up to 1 + 2/128, 1 + 2.5/128 down to it), as PyTorch", () => {
  using f = pt.tensor(new Float32Array([1 + 1.5 / 128, 1 + 2.5 / 128, -(1 + 1.5 / 128), 1 + 1.25 / 128, 1 + 1.75 / 128]));
  using b = f.cast("bfloat16");
  assert.deepEqual(Array.from(b.toArray() as Float32Array), [1 + 2 / 128, 1 + 2 / 128, -(1 + 2 / 128), 1 + 1 / 128, 1 + 2 / 128]);
});
