import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, rng, test } from "./harness.ts";

function data(n: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => Math.fround(r() * 4 - 2));
}

/** Reference reduction of a row-major [rows, cols] array along axis 1 or 0. */
function ref2(vals: number[], rows: number, cols: number, axis: 0 | 1, f: (xs: number[]) => number): number[] {
  const out: number[] = [];
  if (axis === 1) { for (let i = 0; i < rows; i++) out.push(f(vals.slice(i * cols, (i + 1) * cols))); }
  else for (let j = 0; j < cols; j++) out.push(f(Array.from({ length: rows }, (_, i) => vals[i * cols + j])));
  return out;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => sum(xs) / xs.length;
const variance = (xs: number[], c = 1) => {
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - c);
};
const argOf = (better: (a: number, b: number) => boolean) => (xs: number[]) => xs.reduce((bi, x, i) => (better(x, xs[bi]) ? i : bi), 0);

test("sum, mean, prod, max, min, var, std over each axis of 33x127 match JS", () => {
  const vals = data(33 * 127, 1);
  using t = pt.tensor(vals).reshape(33, 127);
  for (const axis of [0, 1] as const) {
    assertClose(t.sum(axis).toArray() as Float32Array, ref2(vals, 33, 127, axis, sum), 1e-5, 1e-5, "sum");
    assertClose(t.mean(axis).toArray() as Float32Array, ref2(vals, 33, 127, axis, mean), 1e-5, 1e-6, "mean");
    assertClose(t.max(axis).toArray() as Float32Array, ref2(vals, 33, 127, axis, (xs) => Math.max(...xs)), 0, 0, "max");
    assertClose(t.min(axis).toArray() as Float32Array, ref2(vals, 33, 127, axis, (xs) => Math.min(...xs)), 0, 0, "min");
    assertClose(t.var(axis).toArray() as Float32Array, ref2(vals, 33, 127, axis, (xs) => variance(xs)), 1e-5, 1e-6, "var");
    assertClose(
      t.std(axis, false, 0).toArray() as Float32Array,
      ref2(vals, 33, 127, axis, (xs) => Math.sqrt(variance(xs, 0))),
      1e-5,
      1e-6,
      "std",
    );
    assert.deepEqual([...t.argmax(axis).toArray()].map(Number), ref2(vals, 33, 127, axis, argOf((a, b) => a > b)));
    assert.deepEqual([...t.argmin(axis).toArray()].map(Number), ref2(vals, 33, 127, axis, argOf((a, b) => a < b)));
  }
  using small = pt.tensor([1.5, -2, 3]);
  assertClose(small.prod().toArray() as Float32Array, [-9]);
});

test("reductions over several axes with keepdim, on a permuted input", () => {
  const vals = data(4 * 5 * 6, 2);
  using t = pt.tensor(vals).reshape(4, 5, 6).permute(2, 0, 1); // [6, 4, 5], strided
  using s = t.sum([0, 2], true);
  assert.deepEqual(s.shape, [1, 4, 1]);
  const expect = [0, 1, 2, 3].map((i) => {
    let acc = 0;
    for (let j = 0; j < 5; j++) for (let k = 0; k < 6; k++) acc += vals[i * 30 + j * 6 + k];
    return acc;
  });
  assertClose(s.toArray() as Float32Array, expect, 1e-5, 1e-5);
  using all = t.sum();
  assertClose(all.toArray() as Float32Array, [sum(vals)], 1e-5, 1e-4);
  assert.deepEqual(all.shape, []);
});

test("integer and bool sums give int64", () => {
  using a = pt.tensor([1, 2, 3, 4], { dtype: "int32" });
  using s = a.sum();
  assert.equal(s.dtype, "int64");
  assert.equal(s.item(), 10n);
  using b = pt.tensor([true, true, false]);
  assert.equal(b.sum().item(), 2n);
});

test("any, all and countNonzero", () => {
  using a = pt.tensor([[0, 1, 0], [0, 0, 0]]);
  assert.deepEqual([...a.any(1).toArray()], [1, 0]);
  assert.deepEqual([...a.all(0).toArray()], [0, 0, 0]);
  assert.equal(a.countNonzero().item(), 1n);
  using n = pt.tensor([NaN, 0]);
  assert.equal(n.countNonzero().item(), 1n);
  assert.equal(pt.ones([3]).all().item(), 1);
});

test("NaN propagates through max and argmax", () => {
  using a = pt.tensor([1, NaN, 3]);
  assert.ok(Number.isNaN(a.max().item()));
  assert.equal(a.argmax().item(), 1n);
  assert.ok(Number.isNaN(a.sum().item()));
});

test("empty reductions: sum 0, prod 1, mean NaN", () => {
  using e = pt.zeros([0]);
  assert.equal(e.sum().item(), 0);
  assert.equal(e.prod().item(), 1);
  assert.ok(Number.isNaN(e.mean().item()));
  using z = pt.zeros([3, 0]);
  assert.deepEqual([...z.sum(1).toArray()], [0, 0, 0]);
  assert.equal(z.max(0).numel, 0);
});

test("sum of 1024x1031 is accurate to float32 rounding", () => {
  const n = 1024 * 1031;
  const r = rng(4);
  const arr = new Float32Array(n);
  for (let i = 0; i < n; i++) arr[i] = r();
  using t = pt.tensor(arr).reshape(1024, 1031);
  let acc = 0;
  for (let i = 0; i < n; i++) acc += arr[i];
  assertClose([t.sum().item()], [acc], 1e-6, 0);
});

test("cumsum and cumprod along each axis", () => {
  using a = pt.tensor([[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(a.cumsum(1).toList(), [[1, 3, 6], [4, 9, 15]]);
  assert.deepEqual(a.cumsum(0).toList(), [[1, 2, 3], [5, 7, 9]]);
  assert.deepEqual(a.cumprod(1).toList(), [[1, 2, 6], [4, 20, 120]]);
  using i = pt.tensor([1, 2, 3], { dtype: "int32" });
  using c = i.cumsum(0);
  assert.equal(c.dtype, "int64");
  assert.deepEqual(a.T.cumsum(1).toList(), [[1, 5], [2, 7], [3, 9]]);
});

test("whole-tensor reductions of many elements (two-stage, with a ragged tail) match JS", () => {
  const n = 65536 * 3 + 17;
  const r = rng(21);
  const vals = new Float32Array(n);
  for (let i = 0; i < n; i++) vals[i] = r() < 0.3 ? 0 : Math.fround(r() * 2 - 1);
  using t = pt.tensor(vals).reshape(n);
  let s = 0, mx = -Infinity, mn = Infinity, nz = 0;
  for (const v of vals) {
    s += v;
    mx = Math.max(mx, v);
    mn = Math.min(mn, v);
    if (v !== 0) nz++;
  }
  assertClose([t.sum().item()], [s], 1e-5, 1e-4, "sum");
  assertClose([t.mean().item()], [s / n], 1e-5, 1e-8, "mean");
  assert.equal(t.max().item(), mx);
  assert.equal(t.min().item(), mn);
  assert.equal(t.countNonzero().item(), BigInt(nz));
  assert.equal(t.any().item(), 1);
  assert.equal(t.all().item(), 0);
  using ints = pt.ones([n], { dtype: "int32" });
  assert.equal(ints.sum().item(), BigInt(n));
  using kept = t.narrow(0, 0, 65536 * 3).reshape(3, 65536).sum(undefined, true);
  assert.deepEqual(kept.shape, [1, 1]);
  assertClose([kept.item()], [vals.subarray(0, 65536 * 3).reduce((a, b) => a + b, 0)], 1e-5, 1e-4, "keepdim sum");
  using withNan = t.clone().indexPut([pt.tensor([n - 1], { dtype: "int32" })], NaN);
  assert.ok(Number.isNaN(withNan.max().item()));
});

test("every reduction of a 0-d tensor takes dim 0 and -1 and gives a 0-d result; dim 1 is a TensorError", () => {
  // PyTorch: a 0-d tensor has one element and accepts dim 0 or -1; var with correction 1 of one element is nan.
  const expect: [string, (x: pt.Tensor, d: number) => pt.Tensor, number | bigint | boolean][] = [
    ["sum", (x, d) => x.sum(d), 5],
    ["mean", (x, d) => x.mean(d), 5],
    ["prod", (x, d) => x.prod(d), 5],
    ["max", (x, d) => x.max(d), 5],
    ["min", (x, d) => x.min(d), 5],
    ["argmax", (x, d) => x.argmax(d), 0n],
    ["argmin", (x, d) => x.argmin(d), 0n],
    ["countNonzero", (x, d) => x.countNonzero(d), 1n],
    ["any", (x, d) => x.any(d), true],
    ["all", (x, d) => x.all(d), true],
    ["var", (x, d) => x.var(d), NaN],
    ["std", (x, d) => x.std(d), NaN],
    ["var (correction 0)", (x, d) => x.var(d, false, 0), 0],
    ["std (correction 0)", (x, d) => x.std(d, false, 0), 0],
    ["cumsum", (x, d) => x.cumsum(d), 5],
    ["cumprod", (x, d) => x.cumprod(d), 5],
    ["sum keepdim", (x, d) => x.sum(d, true), 5],
    ["sum over [d]", (x, d) => x.sum([d]), 5],
  ];
  for (const mode of ["lazy", "eager"]) {
    const run = <T>(f: () => T): T => (mode === "eager" ? pt.eager(f) : f());
    run(() => {
      using stored = pt.tensor(new Float32Array([5])).reshape([]);
      using one = pt.tensor(new Float32Array([4])).reshape([]);
      using pending = one.add(1); // a deferred 0-d result in lazy mode: the fused reductions
      for (const x of [stored, pending]) {
        for (const [name, f, want] of expect) {
          for (const d of [0, -1]) {
            using r = f(x, d);
            assert.deepEqual(r.shape, [], `${name}(${d}) ${mode}`);
            assert.deepEqual(r.toList(), want, `${name}(${d}) ${mode}`);
          }
          assertTensorError(() => f(x, 1), /axis 1/, /rank 0/);
        }
      }
    });
  }
});

test("any and all of uint8 give uint8, of every other dtype bool", () => {
  for (const dtype of ["uint8", "int32", "int64", "float32", "float16", "bool"] as const) {
    using x = pt.tensor([[1, 0], [2, 3]], { dtype });
    using any = x.any(), all = x.all(1), anyRows = x.any(0, true);
    const want = dtype === "uint8" ? "uint8" : "bool";
    for (const r of [any, all, anyRows]) assert.equal(r.dtype, want, `${dtype}`);
    assert.deepEqual(Array.from(all.toArray() as Uint8Array), [0, 1], dtype);
    assert.deepEqual(Array.from(anyRows.toArray() as Uint8Array), [1, 1], dtype);
    assert.equal(any.item(), 1);
  }
  // the two-stage path of a large whole-tensor reduction keeps uint8 too
  using big = pt.ones([65536 * 2 + 5], { dtype: "uint8" });
  using a = big.all(), b = big.any();
  assert.equal(a.dtype, "uint8");
  assert.equal(b.dtype, "uint8");
  assert.deepEqual([a.item(), b.item()], [1, 1]);
});

test("mean, var and std of integer and bool tensors are a TensorError naming the function and suggesting a cast", () => {
  for (const dtype of ["int32", "int64", "uint8", "bool"] as const) {
    using x = pt.tensor([1, 0, 1], { dtype });
    assertTensorError(() => x.mean(), /^mean: /, new RegExp(dtype), /floating-point/, /cast\("float32"\)\.mean\(\)/);
    assertTensorError(() => x.var(0), /^var: /, new RegExp(dtype), /cast/);
    assertTensorError(() => x.std(), /^std: /, new RegExp(dtype), /cast/);
    using f = x.cast("float32");
    using m = f.mean();
    assertClose([m.item()], [2 / 3]);
  }
});

// ---- integer and bool reductions against plain JS loops (BigInt; int64 wraps as two's complement) ----

type IntDType = "int32" | "int64" | "uint8" | "bool";
/** A row-major array of exact values held as bigints, with its shape: the JS side of the comparison. */
interface Ref {
  shape: number[];
  data: bigint[];
}

const stridesOf = (shape: readonly number[]) => {
  const s = new Array<number>(shape.length);
  for (let i = shape.length - 1, acc = 1; i >= 0; i--) (s[i] = acc), (acc *= shape[i]);
  return s;
};
const numelOf = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);
/** Calls f with every index of shape, in row-major order. */
function eachIndex(shape: readonly number[], f: (idx: number[]) => void): void {
  const n = numelOf(shape), idx = new Array<number>(shape.length).fill(0);
  for (let k = 0; k < n; k++) {
    f(idx);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}
function refPermute(a: Ref, perm: number[]): Ref {
  const st = stridesOf(a.shape), shape = perm.map((p) => a.shape[p]), data: bigint[] = [];
  eachIndex(shape, (idx) => data.push(a.data[idx.reduce((o, v, d) => o + v * st[perm[d]], 0)]));
  return { shape, data };
}
function refSlice(a: Ref, axis: number, start: number, step: number): Ref {
  const st = stridesOf(a.shape), shape = [...a.shape], data: bigint[] = [];
  shape[axis] = Math.ceil((a.shape[axis] - start) / step);
  eachIndex(shape, (idx) => data.push(a.data[idx.reduce((o, v, d) => o + (d === axis ? start + v * step : v) * st[d], 0)]));
  return { shape, data };
}
/** Reduces every line of a along axis (all elements when axis is undefined) with f. */
function refReduce(a: Ref, axis: number | undefined, keepdim: boolean, f: (xs: bigint[]) => bigint): Ref {
  if (axis === undefined) return { shape: keepdim ? a.shape.map(() => 1) : [], data: [f(a.data)] };
  const st = stridesOf(a.shape), out = [...a.shape];
  out[axis] = 1;
  const data: bigint[] = [];
  eachIndex(out, (idx) => {
    const base = idx.reduce((o, v, d) => o + v * st[d], 0);
    data.push(f(Array.from({ length: a.shape[axis] }, (_, k) => a.data[base + k * st[axis]])));
  });
  return { shape: keepdim ? out : a.shape.filter((_, d) => d !== axis), data };
}
/** A running reduction along axis: same shape as a. */
function refScan(a: Ref, axis: number, f: (acc: bigint, x: bigint) => bigint): Ref {
  const st = stridesOf(a.shape), data = [...a.data], line = [...a.shape];
  line[axis] = 1;
  eachIndex(line, (idx) => {
    const base = idx.reduce((o, v, d) => o + v * st[d], 0);
    for (let k = 1; k < a.shape[axis]; k++) {
      const p = base + k * st[axis];
      data[p] = f(data[p - st[axis]], data[p]);
    }
  });
  return { shape: a.shape, data };
}

const wrap64 = (v: bigint) => BigInt.asIntN(64, v);
const firstIndexOf = (better: (a: bigint, b: bigint) => boolean) => (xs: bigint[]) => {
  let bi = 0;
  for (let i = 1; i < xs.length; i++) if (better(xs[i], xs[bi])) bi = i;
  return BigInt(bi);
};
/** What each reduction gives in PyTorch: its JS loop, and its dtype (sum and prod of every integer dtype and bool are int64). */
const INT_REDUCTIONS: {
  name: string;
  f: (xs: bigint[]) => bigint;
  dtype: (d: IntDType) => string;
  run: (t: pt.Tensor, axis: number | undefined, keep: boolean) => pt.Tensor;
}[] = [
  { name: "sum", f: (xs) => xs.reduce((a, b) => wrap64(a + b), 0n), dtype: () => "int64", run: (t, a, k) => t.sum(a, k) },
  { name: "prod", f: (xs) => xs.reduce((a, b) => wrap64(a * b), 1n), dtype: () => "int64", run: (t, a, k) => t.prod(a, k) },
  { name: "max", f: (xs) => xs.reduce((a, b) => (b > a ? b : a)), dtype: (d) => d, run: (t, a, k) => t.max(a, k) },
  { name: "min", f: (xs) => xs.reduce((a, b) => (b < a ? b : a)), dtype: (d) => d, run: (t, a, k) => t.min(a, k) },
  { name: "argmax", f: firstIndexOf((a, b) => a > b), dtype: () => "int64", run: (t, a, k) => t.argmax(a, k) },
  { name: "argmin", f: firstIndexOf((a, b) => a < b), dtype: () => "int64", run: (t, a, k) => t.argmin(a, k) },
];

const I32_MAX = 2147483647n, I32_MIN = -2147483648n, I64_MAX = 2n ** 63n - 1n, I64_MIN = -(2n ** 63n);
/** Values with many ties, negatives where the dtype has them, and about one in eight at or next to the dtype's limits. */
function intData(dtype: IntDType, n: number, seed: number): bigint[] {
  const r = rng(seed);
  const small: bigint[] =
    { int32: [-3n, -2n, -1n, 1n, 2n, 3n, 0n], int64: [-3n, -2n, -1n, 1n, 2n, 3n, 0n], uint8: [1n, 2n, 3n, 4n, 0n], bool: [0n, 1n] }[dtype];
  const limits: bigint[] = {
    int32: [I32_MAX, I32_MIN, I32_MAX - 1n, I32_MIN + 1n],
    int64: [I64_MAX, I64_MIN, I64_MAX - 1n, I64_MIN + 1n, 2n ** 40n + 3n],
    uint8: [255n, 254n, 128n],
    bool: [1n],
  }[dtype];
  return Array.from({ length: n }, () => (r() < 0.125 ? pick(r, limits) : pick(r, small)));
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
function intTensor(dtype: IntDType, data: bigint[], shape: number[]): pt.Tensor {
  const host = dtype === "int64"
    ? BigInt64Array.from(data)
    : dtype === "int32"
    ? Int32Array.from(data, Number)
    : Uint8Array.from(data, Number);
  using flat = dtype === "bool" ? pt.tensor(Array.from(data, (v) => v !== 0n)) : pt.tensor(host, { dtype });
  assert.equal(flat.dtype, dtype);
  return flat.reshape(shape);
}
/** A tensor's values as exact bigints, in row-major order (bool as 0n/1n). */
function exact(t: pt.Tensor): bigint[] {
  return Array.from(t.toArray() as ArrayLike<number | bigint>, (v) => BigInt(v));
}

/** Each input layout: the tensor's view and the same view of the JS values. */
const LAYOUTS: { name: string; view: (t: pt.Tensor) => pt.Tensor; ref: (a: Ref) => Ref }[] = [
  { name: "contiguous", view: (t) => t.view(t.shape), ref: (a) => a },
  { name: "transposed", view: (t) => t.permute([...t.shape.keys()].reverse()), ref: (a) => refPermute(a, [...a.shape.keys()].reverse()) },
  { name: "sliced every 2nd from 1 on axis 0", view: (t) => t.slice(0, 1, undefined, 2), ref: (a) => refSlice(a, 0, 1, 2) },
];
const INT_SHAPES = [[7, 13], [3, 5, 11]];
const INT_DTYPES: IntDType[] = ["int32", "int64", "uint8", "bool"];

/** Every reduction of every dtype, shape, layout and axis (and all axes), with and without keepdim, against the JS loops. */
function checkIntReductions(prepare: (t: pt.Tensor) => pt.Tensor, mode: string): void {
  let seed = 100;
  for (const dtype of INT_DTYPES) {
    for (const shape of INT_SHAPES) {
      const base: Ref = { shape, data: intData(dtype, numelOf(shape), seed++) };
      using t = intTensor(dtype, base.data, shape);
      for (const layout of LAYOUTS) {
        using v = layout.view(t);
        using x = prepare(v);
        const ref = layout.ref(base);
        assert.deepEqual(x.shape, ref.shape);
        for (const axis of [...shape.keys(), undefined]) {
          for (const keepdim of layout.name === "contiguous" ? [false, true] : [false]) {
            for (const red of INT_REDUCTIONS) {
              const what = `${mode} ${red.name}(${axis}, keepdim ${keepdim}) of ${dtype} ${layout.name} [${ref.shape}]`;
              using got = red.run(x, axis, keepdim);
              const want = refReduce(ref, axis, keepdim, red.f);
              assert.equal(got.dtype, red.dtype(dtype), what);
              assert.deepEqual(got.shape, want.shape, what);
              assert.deepEqual(exact(got), want.data, what);
            }
          }
          if (axis === undefined) continue;
          using cs = x.cumsum(axis), cp = x.cumprod(axis);
          const what = `${mode} of ${dtype} ${layout.name} [${ref.shape}] along ${axis}`;
          assert.equal(cs.dtype, "int64", `cumsum ${what}`);
          assert.equal(cp.dtype, "int64", `cumprod ${what}`);
          assert.deepEqual(exact(cs), refScan(ref, axis, (a, b) => wrap64(a + b)).data, `cumsum ${what}`);
          assert.deepEqual(exact(cp), refScan(ref, axis, (a, b) => wrap64(a * b)).data, `cumprod ${what}`);
        }
      }
    }
  }
}

test("integer and bool sum, prod, max, min, argmax, argmin, cumsum, cumprod over each axis match JS loops, eagerly", () => {
  pt.eager(() => checkIntReductions((t) => t.view(t.shape), "eager"));
});

test("integer and bool reductions of a deferred expression (x + 0, or x | false for bool) match JS loops", () => {
  checkIntReductions((t) => {
    const y = t.dtype === "bool" ? pt.logicalOr(t, false) : t.add(0);
    assert.equal(y.dtype, t.dtype);
    if (pt.lazyEnabled()) assert.ok(y.isDeferred, `${t.dtype} x + 0 is deferred, so its reductions take the fused path`);
    return y;
  }, "lazy");
});

test("int32 max, min, argmax and argmin of [1, 5, 3, -2, 4] are 5, -2, 1 and 3, stored and deferred", () => {
  using x = pt.tensor([1, 5, 3, -2, 4], { dtype: "int32" });
  using d = x.mul(1);
  for (const [what, t] of [["stored", x], ["deferred", d]] as const) {
    assert.equal(t.max().item(), 5, `${what} max`);
    assert.equal(t.min().item(), -2, `${what} min`);
    assert.equal(t.argmax().item(), 1n, `${what} argmax`);
    assert.equal(t.argmin().item(), 3n, `${what} argmin`);
    assert.deepEqual(t.reshape(1, 5).max(1).toList(), [5], `${what} max along axis 1`);
    assert.deepEqual(t.reshape(5, 1).max(0).toList(), [5], `${what} max along axis 0`);
  }
});
