/**
 * int8 and int16 on the default device against independent references: hand values (torch's
 * results) and plain JS loops whose stores go through Int8Array and Int16Array, which wrap as
 * PyTorch's int8 and int16 do. Round trips, promotion, scalar wrap, arithmetic, comparisons,
 * bitwise ops and shifts, casts to and from every dtype, reductions, scans, sort, indexing,
 * creation, strided, 0-d and empty tensors.
 */
import * as pt from "../mod.ts";
import type { DType } from "../src/base/dtype.ts";
import { assert, assertTensorError, rng, test } from "./harness.ts";

type Small = "int8" | "int16";
const SMALL: readonly Small[] = ["int8", "int16"];
const BITS: Record<Small, number> = { int8: 8, int16: 16 };
const ARRAY = { int8: Int8Array, int16: Int16Array } as const;
/** v stored as dtype: the typed array's conversion is PyTorch's wrap. */
const wrap = (dt: Small, v: number): number => ARRAY[dt].of(v)[0];

/** Random values of dt, its extremes first. */
function values(dt: Small, n: number, seed: number): number[] {
  const r = rng(seed), lim = 2 ** (BITS[dt] - 1);
  const out = [0, -1, 1, lim - 1, -lim, -lim + 1];
  while (out.length < n) out.push(Math.floor(r() * 2 * lim) - lim);
  return out;
}
const read = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

test("int8 and int16 round-trip through tensor, fromBuffer, toArray, toList, item and printing as Int8Array and Int16Array", () => {
  pt.tidy(() => {
    const a = pt.tensor([-128, -1, 0, 1, 127], { dtype: "int8" });
    assert.equal(a.dtype, "int8");
    assert.ok(a.toArray() instanceof Int8Array);
    assert.deepEqual(Array.from(a.toArray() as Int8Array), [-128, -1, 0, 1, 127]);
    assert.deepEqual(a.toList(), [-128, -1, 0, 1, 127]);
    assert.equal(a.toString(), "tensor([-128,   -1,    0,    1,  127], dtype=int8, device=" + a.device.id + ")");
    const h = pt.tensor(Int16Array.of(-32768, 300, 32767));
    assert.equal(h.dtype, "int16", "an Int16Array gives int16");
    assert.ok(h.toArray() instanceof Int16Array);
    assert.deepEqual(h.toList(), [-32768, 300, 32767]);
    assert.equal(pt.tensor(Int8Array.of(-5)).dtype, "int8", "an Int8Array gives int8");
    const b = pt.fromBuffer(Int16Array.of(1, -2, 3, -4, 5, -6), { shape: [2, 3] });
    assert.equal(b.dtype, "int16");
    assert.deepEqual(b.toList(), [[1, -2, 3], [-4, 5, -6]]);
    const raw = pt.fromBuffer(Int8Array.of(-1, 2, -3, 4).buffer, { dtype: "int8" });
    assert.deepEqual(read(raw), [-1, 2, -3, 4]);
    assert.equal(pt.tensor(-7, { dtype: "int16" }).item(), -7);
    assert.equal(JSON.stringify(pt.tensor([[-3, 4]], { dtype: "int8" })), "[[-3,4]]");
  });
});

test("int8 and int16 refuse out-of-range values in tensor() and full(); JS scalars in ops wrap as PyTorch's", () => {
  pt.tidy(() => {
    assertTensorError(() => pt.tensor([128], { dtype: "int8" }), /^tensor: 128 is outside the range of int8 \[-128, 127\]/);
    assertTensorError(() => pt.tensor([-32769], { dtype: "int16" }), /^tensor: -32769 is outside the range of int16/);
    assertTensorError(() => pt.full([2], 200, { dtype: "int8" }), /outside the range of int8/);
    const x = pt.tensor([0, 100, -100], { dtype: "int8" });
    assert.deepEqual(read(x.add(200)), [-56, 44, 100], "200 is -56 in int8, as torch's int8 + 200");
    assert.equal(x.add(200).dtype, "int8");
    assert.deepEqual(read(pt.tensor([1, 2], { dtype: "int16" }).mul(70000)), [4464, 8928], "70000 is 4464 in int16");
    assert.deepEqual(read(x.add(true)), [1, 101, -99]);
  });
});

test("promoteTypes and resultType give torch.result_type's values for int8 and int16", () => {
  const table: [DType, DType, DType][] = [
    ["int8", "uint8", "int16"],
    ["uint8", "int8", "int16"],
    ["int8", "int8", "int8"],
    ["int8", "int16", "int16"],
    ["int16", "int8", "int16"],
    ["int16", "uint8", "int16"],
    ["int16", "int32", "int32"],
    ["int8", "int32", "int32"],
    ["int8", "int64", "int64"],
    ["int16", "int64", "int64"],
    ["int8", "bool", "int8"],
    ["bool", "int16", "int16"],
    ["int8", "float16", "float16"],
    ["int16", "bfloat16", "bfloat16"],
    ["int16", "float32", "float32"],
    ["int8", "float64", "float64"],
  ];
  for (const [a, b, want] of table) assert.equal(pt.promoteTypes(a, b), want, `${a} with ${b}`);
  pt.tidy(() => {
    const i8 = pt.tensor([1], { dtype: "int8" }), i16 = pt.tensor([1], { dtype: "int16" }), u8 = pt.tensor([1], { dtype: "uint8" });
    assert.equal(pt.resultType(i8, u8), "int16");
    assert.equal(i8.add(u8).dtype, "int16");
    assert.equal(pt.resultType(i8, 5), "int8", "an integer scalar does not widen");
    assert.equal(pt.resultType(i16, 2.5), "float32");
    assert.equal(pt.resultType(i16, pt.tensor(3n)), "int16", "a 0-d int64 does not widen a dimensioned int16");
    assert.equal(pt.resultType(u8, pt.tensor(3, { dtype: "int8" })), "uint8", "nor a 0-d int8 a dimensioned uint8");
    assert.equal(pt.resultType(i8, pt.tensor(1, { dtype: "float64" })), "float64", "a 0-d float of a higher kind promotes");
    assert.equal(pt.resultType(pt.tensor(1, { dtype: "int8" }), pt.tensor(1, { dtype: "uint8" })), "int16");
  });
});

const ARITH: [string, (a: pt.Tensor, b: pt.Tensor) => pt.Tensor, (a: number, b: number) => number][] = [
  ["add", (a, b) => a.add(b), (a, b) => a + b],
  ["sub", (a, b) => a.sub(b), (a, b) => a - b],
  ["mul", (a, b) => a.mul(b), (a, b) => a * b],
  ["maximum", (a, b) => a.maximum(b), Math.max],
  ["minimum", (a, b) => a.minimum(b), Math.min],
  ["floorDivide", (a, b) => a.floorDivide(b), (a, b) => Math.floor(a / b)],
  ["mod", (a, b) => a.mod(b), (a, b) => ((a % b) + b) % b],
  ["fmod", (a, b) => a.fmod(b), (a, b) => a % b],
];

test("int8 and int16 arithmetic wraps as Int8Array/Int16Array stores it, matching a JS loop (odd sizes, extremes)", () => {
  for (const dt of SMALL) {
    for (const [name, op, ref] of ARITH) {
      pt.tidy(() => {
        const a = values(dt, 257, 1), b = values(dt, 257, 2).reverse().map((v) => v || 3); // no zero divisors
        const y = op(pt.tensor(a, { dtype: dt }), pt.tensor(b, { dtype: dt }));
        assert.equal(y.dtype, dt, `${name} ${dt}`);
        assert.deepEqual(read(y), a.map((x, i) => wrap(dt, ref(x, b[i]))), `${name} ${dt}`);
      });
    }
    pt.tidy(() => {
      const a = values(dt, 101, 3), x = pt.tensor(a, { dtype: dt });
      assert.deepEqual(read(x.neg()), a.map((v) => wrap(dt, -v)), `neg ${dt}: -(-128) wraps to -128`);
      assert.deepEqual(read(x.abs()), a.map((v) => wrap(dt, Math.abs(v))), `abs ${dt}`);
      assert.deepEqual(read(x.square()), a.map((v) => wrap(dt, v * v)), `square ${dt}`);
      assert.deepEqual(read(x.sign()), a.map(Math.sign).map((v) => v + 0), `sign ${dt}`);
      assert.deepEqual(read(x.clamp(-5, 7)), a.map((v) => Math.min(Math.max(v, -5), 7)), `clamp ${dt}`);
      const t = x.div(4);
      assert.equal(t.dtype, "float32", "true division gives the default float");
      assert.deepEqual(read(t), a.map((v) => Math.fround(v / 4)));
      assert.deepEqual(read(x.pow(3)), a.map((v) => wrap(dt, Number(BigInt.asIntN(64, BigInt(v) ** 3n)))), `pow ${dt}`);
    });
  }
  pt.tidy(() => {
    const a = values("int8", 99, 4), b = Array.from({ length: 99 }, (_, i) => (i * 37) % 256);
    const y = pt.tensor(a, { dtype: "int8" }).add(pt.tensor(b, { dtype: "uint8" }));
    assert.equal(y.dtype, "int16");
    assert.deepEqual(read(y), a.map((v, i) => v + b[i]), "int8 + uint8 is exact in int16");
    assertTensorError(() => pt.tensor([1], { dtype: "int8" }).floorDivide(pt.tensor([0], { dtype: "int8" })).toArray(), /floorDivide/);
  });
});

test("int8 and int16 comparisons see exact values, out-of-range scalars included", () => {
  for (const dt of SMALL) {
    pt.tidy(() => {
      const a = values(dt, 77, 5), b = values(dt, 77, 6), x = pt.tensor(a, { dtype: dt }), y = pt.tensor(b, { dtype: dt });
      const bools = (t: pt.Tensor) => Array.from(t.toArray() as Uint8Array, (v) => v !== 0);
      assert.deepEqual(bools(x.lt(y)), a.map((v, i) => v < b[i]));
      assert.deepEqual(bools(x.ge(y)), a.map((v, i) => v >= b[i]));
      assert.deepEqual(bools(x.eq(-(2 ** (BITS[dt] - 1)))), a.map((v) => v === -(2 ** (BITS[dt] - 1))));
      assert.ok(bools(x.lt(70000)).every((v) => v), "every value is below 70000");
      assert.ok(bools(x.gt(-70000)).every((v) => v));
    });
  }
});

/** PyTorch's shifts: a count outside [0, W) gives 0 (<<) or the sign fill (>>); W is the dtype's bit width. */
function shiftRef(dt: Small, a: number, b: number, left: boolean): number {
  if (b < 0 || b >= BITS[dt]) return left ? 0 : a < 0 ? -1 : 0;
  return wrap(dt, left ? a * 2 ** b : Math.floor(a / 2 ** b));
}

test("int8 and int16 bitwise ops and shifts (bit width 8 and 16) match JS loops for every count -3..20", () => {
  for (const dt of SMALL) {
    pt.tidy(() => {
      const a = values(dt, 131, 7), b = values(dt, 131, 8).reverse(), x = pt.tensor(a, { dtype: dt }), y = pt.tensor(b, { dtype: dt });
      assert.deepEqual(read(pt.bitwiseAnd(x, y)), a.map((v, i) => v & b[i]), `and ${dt}`);
      assert.deepEqual(read(pt.bitwiseOr(x, y)), a.map((v, i) => v | b[i]), `or ${dt}`);
      assert.deepEqual(read(pt.bitwiseXor(x, y)), a.map((v, i) => v ^ b[i]), `xor ${dt}`);
      assert.deepEqual(read(pt.bitwiseNot(x)), a.map((v) => ~v), `not ${dt}`);
      assert.equal(pt.bitwiseAnd(x, y).dtype, dt);
      const vs: number[] = [], cs: number[] = [];
      for (const v of values(dt, 7, 9)) for (let c = -3; c <= 20; c++) vs.push(v), cs.push(c);
      const tv = pt.tensor(vs, { dtype: dt }), tc = pt.tensor(cs, { dtype: dt });
      assert.deepEqual(read(pt.bitwiseLeftShift(tv, tc)), vs.map((v, i) => shiftRef(dt, v, cs[i], true)), `<< ${dt}`);
      assert.deepEqual(read(pt.bitwiseRightShift(tv, tc)), vs.map((v, i) => shiftRef(dt, v, cs[i], false)), `>> ${dt}`);
    });
  }
  pt.tidy(() => {
    assert.deepEqual(read(pt.bitwiseLeftShift(pt.tensor([100, -1], { dtype: "int8" }), 1)), [-56, -2], "int8 100 << 1 is -56");
    assert.deepEqual(read(pt.bitwiseRightShift(pt.tensor([-32768], { dtype: "int16" }), 15)), [-1]);
  });
});

/** A float truncated toward zero, then its low bits: how a float in int32's range is stored as int8 or int16 (as uint8). */
const floatTo = (dt: Small, v: number) => (Number.isNaN(v) ? 0 : wrap(dt, Math.trunc(v)));

test("casts to int8 and int16 from every dtype truncate floats toward zero and keep the low bits; bool is 0 or 1", () => {
  const floats = [0, 0.5, -0.5, 1.9, -1.9, 127.9, -128.9, 300.7, -300.7, 40000.5, -40000.5, 70000, NaN];
  for (const to of SMALL) {
    pt.tidy(() => {
      for (const from of ["float32", "float64"] as const) {
        assert.deepEqual(read(pt.tensor(floats, { dtype: from }).cast(to)), floats.map((v) => floatTo(to, v)), `${from} -> ${to}`);
      }
      const half = [0, 1.5, -2.5, 300, -300, 1000, 2048];
      for (const from of ["float16", "bfloat16"] as const) {
        assert.deepEqual(read(pt.tensor(half, { dtype: from }).cast(to)), half.map((v) => floatTo(to, v)), `${from} -> ${to}`);
      }
      const ints = [0, 1, -1, 127, -128, 255, 256, 32767, -32768, 65535, 70000, -70000];
      assert.deepEqual(read(pt.tensor(ints, { dtype: "int32" }).cast(to)), ints.map((v) => wrap(to, v)), `int32 -> ${to}`);
      const big = [0n, -1n, 2n ** 40n + 200n, -(2n ** 63n), 2n ** 63n - 1n];
      assert.deepEqual(
        read(pt.tensor(BigInt64Array.from(big)).cast(to)),
        big.map((v) => Number(BigInt.asIntN(BITS[to], v))),
        `int64 -> ${to}`,
      );
      const bytes = [0, 1, 127, 128, 200, 255];
      assert.deepEqual(read(pt.tensor(bytes, { dtype: "uint8" }).cast(to)), bytes.map((v) => wrap(to, v)), `uint8 -> ${to}`);
      assert.deepEqual(read(pt.tensor([true, false]).cast(to)), [1, 0], `bool -> ${to}`);
      const other: Small = to === "int8" ? "int16" : "int8";
      const o = values(other, 40, 10);
      assert.deepEqual(read(pt.tensor(o, { dtype: other }).cast(to)), o.map((v) => wrap(to, v)), `${other} -> ${to}`);
    });
  }
});

test("casts from int8 and int16 to every dtype give the value (rounded in float16/bfloat16, wrapped in uint8)", () => {
  const cases: [Small, number[], number[], number[]][] = [ // values, as float16, as bfloat16
    ["int8", [-128, -1, 0, 1, 127], [-128, -1, 0, 1, 127], [-128, -1, 0, 1, 127]],
    ["int16", [-32768, -300, -1, 0, 257, 32767], [-32768, -300, -1, 0, 257, 32768], [-32768, -300, -1, 0, 256, 32768]],
  ];
  for (const [dt, v, f16, bf16] of cases) {
    pt.tidy(() => {
      const x = pt.tensor(v, { dtype: dt });
      for (const to of ["float32", "float64", "int32"] as const) assert.deepEqual(read(x.cast(to)), v, `${dt} -> ${to}`);
      assert.deepEqual(Array.from(x.cast("int64").toArray() as BigInt64Array), v.map(BigInt), `${dt} -> int64`);
      assert.deepEqual(read(x.cast("uint8")), v.map((n) => n & 255), `${dt} -> uint8`);
      assert.deepEqual(read(x.cast("bool")), v.map((n) => (n !== 0 ? 1 : 0)), `${dt} -> bool`);
      assert.deepEqual(read(x.cast("float16")), f16, `${dt} -> float16`);
      assert.deepEqual(read(x.cast("bfloat16")), bf16, `${dt} -> bfloat16`);
      assert.deepEqual(read(x.cast(dt)), v, `${dt} -> itself`);
    });
  }
});

test("sum, prod, max, min, argmax, cumsum of int8 and int16 give PyTorch's dtypes (sum and cumsum int64) and a JS loop's values", () => {
  for (const dt of SMALL) {
    pt.tidy(() => {
      const a = values(dt, 3 * 67, 11), x = pt.tensor(a, { dtype: dt }).reshape([3, 67]);
      const rows = [0, 1, 2].map((r) => a.slice(r * 67, r * 67 + 67));
      const s = x.sum();
      assert.equal(s.dtype, "int64");
      assert.equal(Number(s.item()), a.reduce((p, q) => p + q, 0), `sum ${dt}: no wrap in int64`);
      assert.deepEqual(read(x.sum(1)), rows.map((r) => r.reduce((p, q) => p + q, 0)), `sum(1) ${dt}`);
      assert.deepEqual(read(x.sum(0)), rows[0].map((_, j) => rows[0][j] + rows[1][j] + rows[2][j]), `sum(0) ${dt}`);
      assert.equal(x.max().dtype, dt);
      assert.equal(x.max().item(), Math.max(...a));
      assert.equal(x.min().item(), Math.min(...a));
      assert.deepEqual(read(x.max(1)), rows.map((r) => Math.max(...r)));
      assert.deepEqual(read(x.argmax(1)), rows.map((r) => r.indexOf(Math.max(...r))));
      assert.equal(x.countNonzero().item(), 3n * 67n - BigInt(a.filter((v) => v === 0).length));
      const c = x.cumsum(1);
      assert.equal(c.dtype, "int64");
      assert.deepEqual(read(c), rows.flatMap((r) => r.map((_, j) => r.slice(0, j + 1).reduce((p, q) => p + q, 0))), `cumsum ${dt}`);
      const small = pt.tensor([3, -2, 5, -1], { dtype: dt });
      assert.equal(small.prod().dtype, "int64");
      assert.equal(small.prod().item(), 30n);
      assert.equal(pt.tensor([true]).any().dtype, "bool");
      assert.equal(small.any().dtype, "bool", "any of int8/int16 is bool (only uint8 keeps its dtype)");
      // a strided view: every other column of the transpose
      const t = x.T.slice(0, 1, 67, 2);
      const want = rows[0].map((_, j) => j).filter((j) => j % 2 === 1).map((j) => rows[0][j] + rows[1][j] + rows[2][j]);
      assert.deepEqual(read(t.sum(1)), want, `strided sum ${dt}`);
    });
  }
});

test("sort and argsort of int8 and int16 put negatives first, ascending and descending, over rows and strided views", () => {
  for (const dt of SMALL) {
    pt.tidy(() => {
      const a = values(dt, 2 * 45, 12), x = pt.tensor(a, { dtype: dt }).reshape([2, 45]);
      const rows = [a.slice(0, 45), a.slice(45)];
      const up = x.sort(1), down = x.sort(1, true);
      assert.equal(up.values.dtype, dt);
      assert.deepEqual(read(up.values), rows.flatMap((r) => [...r].sort((p, q) => p - q)), `ascending ${dt}`);
      assert.deepEqual(read(down.values), rows.flatMap((r) => [...r].sort((p, q) => q - p)), `descending ${dt}`);
      const idx = read(up.indices);
      assert.deepEqual(idx.map((k, i) => rows[Math.floor(i / 45)][k]), read(up.values), "indices point at the sorted values");
      const cols = x.T.sort(0).values; // strided input: the transpose
      assert.deepEqual(read(cols.T.contiguous()), read(up.values));
    });
  }
});

test("where, cat, gather, indexSelect, maskedSelect, zeros, full, arange and randint keep int8 and int16; index tensors stay int32/int64", () => {
  for (const dt of SMALL) {
    pt.tidy(() => {
      const x = pt.tensor([-3, 7, -100, 100], { dtype: dt }), y = pt.tensor([1, 2, 3, 4], { dtype: dt });
      const w = pt.where(x.gt(0), x, y);
      assert.equal(w.dtype, dt);
      assert.deepEqual(read(w), [1, 7, 3, 100]);
      const c = pt.cat([x, y]);
      assert.equal(c.dtype, dt);
      assert.deepEqual(read(c), [-3, 7, -100, 100, 1, 2, 3, 4]);
      assert.equal(pt.cat([x, pt.tensor([1], { dtype: "uint8" })]).dtype, "int16", "cat promotes as result_type");
      assert.deepEqual(read(x.gather(0, pt.tensor([3, 0], { dtype: "int64" }))), [100, -3]);
      assert.deepEqual(read(x.indexSelect(0, pt.tensor([2, 2], { dtype: "int32" }))), [-100, -100]);
      assert.deepEqual(read(x.maskedSelect(x.lt(0))), [-3, -100]);
      assertTensorError(() => y.indexSelect(0, pt.tensor([0], { dtype: dt })), /^indexSelect: .*must be int32 or int64, got /);
      const z = pt.zeros([2, 3], { dtype: dt });
      assert.equal(z.dtype, dt);
      assert.deepEqual(read(z), [0, 0, 0, 0, 0, 0]);
      assert.deepEqual(read(pt.full([3], -9, { dtype: dt })), [-9, -9, -9]);
      assert.deepEqual(read(pt.arange(-3, 3, 2, { dtype: dt })), [-3, -1, 1]);
      const lim = 2 ** (BITS[dt] - 1);
      const r = pt.randint(-lim, lim, [500], { dtype: dt });
      assert.equal(r.dtype, dt);
      assert.ok(read(r).every((v) => v >= -lim && v < lim));
      assertTensorError(() => pt.randint(0, lim + 1, [2], { dtype: dt }), /^randint:/);
      const m = pt.tensor([[1, -2], [3, -4]], { dtype: dt });
      assert.equal(m.matmul(m).dtype, dt);
      assert.deepEqual(read(m.matmul(m)), [-5, 6, -9, 10]);
    });
  }
});

test("0-d and empty int8 and int16 tensors: item, shapes, the empty sum is 0 and an empty sort is empty", () => {
  for (const dt of SMALL) {
    pt.tidy(() => {
      const s = pt.tensor(-5, { dtype: dt });
      assert.deepEqual(s.shape, []);
      assert.equal(s.add(pt.tensor(3, { dtype: dt })).item(), -2);
      assert.equal(s.mul(-1).item(), 5);
      const e = pt.zeros([0, 3], { dtype: dt });
      assert.deepEqual(e.add(1).shape, [0, 3]);
      assert.equal(e.sum().item(), 0n);
      assert.deepEqual(e.sum(0).shape, [3]);
      assert.deepEqual(read(e.sum(0)), [0, 0, 0]);
      assert.deepEqual(pt.tensor([], { dtype: dt }).sort().values.shape, [0]);
      assert.equal(pt.tensor([], { dtype: dt }).toArray().length, 0);
      assert.ok(pt.tensor([], { dtype: dt }).toArray() instanceof ARRAY[dt]);
    });
  }
});

test("int8 and int16 ops read strided, broadcast and flipped operands, and a fused chain wraps each step as PyTorch stores it", () => {
  for (const dt of SMALL) {
    pt.tidy(() => {
      const a = values(dt, 5 * 7, 13), x = pt.tensor(a, { dtype: dt }).reshape([5, 7]);
      const at = (r: number, c: number) => a[r * 7 + c];
      const t = x.T.add(x.T.flip(0)); // [7, 5]: element (c, r) is x[r, c] + x[r, 6 - c]
      const want: number[] = [];
      for (let c = 0; c < 7; c++) for (let r = 0; r < 5; r++) want.push(wrap(dt, at(r, c) + at(r, 6 - c)));
      assert.deepEqual(read(t), want, `transposed and flipped ${dt}`);
      const row = pt.tensor([1, -2, 3, -4, 5, -6, 7], { dtype: dt });
      assert.deepEqual(
        read(x.slice(0, 1, 5, 2).mul(row)),
        [1, 3].flatMap((r) => a.slice(r * 7, r * 7 + 7).map((v, c) => wrap(dt, v * read(row)[c]))),
      );
      const big = pt.tensor([100, -100, 50], { dtype: dt }), lim = 2 ** (BITS[dt] - 1);
      const step = pt.full([3], lim / 2 + 28, { dtype: dt }); // int8: 92
      const sum = [100, -100, 50].map((v) => wrap(dt, v * (lim / 64) + (lim / 2 + 28)));
      const chain = big.mul(lim / 64).add(step);
      assert.deepEqual(read(chain.gt(0)), sum.map((v) => (v > 0 ? 1 : 0)), `each step stored as ${dt} before the compare`);
      assert.deepEqual(read(pt.eager(() => big.mul(lim / 64).add(step).gt(0))), read(chain.gt(0)), "eager agrees");
    });
  }
});

test("scatterAdd, indexPut and cumsum over int8 and int16 wrap (scatter) or widen (cumsum) as PyTorch", () => {
  for (const dt of SMALL) {
    pt.tidy(() => {
      const lim = 2 ** (BITS[dt] - 1);
      const base = pt.tensor([lim - 1, 0, -lim], { dtype: dt });
      const i = pt.tensor([0, 0, 2], { dtype: "int64" });
      const y = base.scatterAdd(0, i, pt.tensor([1, 2, -1], { dtype: dt }));
      assert.equal(y.dtype, dt);
      assert.deepEqual(read(y), [wrap(dt, lim + 2), 0, wrap(dt, -lim - 1)], "lim-1 + 3 and -lim - 1 wrap");
      const p = base.indexPut([pt.tensor([1], { dtype: "int32" })], -7);
      assert.deepEqual(read(p), [lim - 1, -7, -lim]);
      assert.deepEqual(read(pt.tensor([lim - 1, lim - 1], { dtype: dt }).cumsum(0)), [lim - 1, 2 * lim - 2], "cumsum is int64: no wrap");
    });
  }
});
