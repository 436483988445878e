/**
 * The bitwise ops on the default device against BigInt loops: AND, OR, XOR and NOT over
 * int32, int64, uint8 and bool (with promotion, broadcasting and JS scalars), the shifts
 * with every count from -3 to 70 (a count outside [0, bit width) shifts every bit out: 0
 * for <<, the sign fill for >>, as PyTorch), layouts, and the errors for float and bool.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, rng, test } from "./harness.ts";

type Int = "int32" | "int64" | "uint8" | "bool";
const BITS: Record<Int, number> = { int32: 32, int64: 64, uint8: 8, bool: 1 };
/** v wrapped to dtype as PyTorch stores it. */
const wrap = (
  dt: Int,
  v: bigint,
) => (dt === "uint8" ? BigInt.asUintN(8, v) : dt === "bool" ? (v !== 0n ? 1n : 0n) : BigInt.asIntN(BITS[dt], v));

/** Random values of dtype, with its extremes. */
function values(dt: Int, n: number, seed: number): bigint[] {
  const r = rng(seed), out: bigint[] = [];
  const edges: Record<Int, bigint[]> = {
    int32: [0n, -1n, 2147483647n, -2147483648n],
    int64: [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 40n + 3n],
    uint8: [0n, 255n, 128n],
    bool: [0n, 1n],
  };
  out.push(...edges[dt]);
  while (out.length < n) {
    const hi = BigInt(Math.floor(r() * 2 ** 32)), lo = BigInt(Math.floor(r() * 2 ** 32));
    out.push(wrap(dt, (hi << 32n) | lo));
  }
  return out;
}

function tensorOf(dt: Int, v: readonly bigint[]): pt.Tensor {
  if (dt === "int64") return pt.tensor(BigInt64Array.from(v));
  if (dt === "bool") return pt.tensor(v.map((x) => x !== 0n));
  return pt.tensor(v.map(Number), { dtype: dt });
}
function read(t: pt.Tensor): bigint[] {
  return Array.from(t.toArray() as ArrayLike<number | bigint | boolean>, (x) => BigInt(typeof x === "boolean" ? Number(x) : x));
}

const OPS: [string, (a: pt.Tensor, b: pt.Tensor) => pt.Tensor, (a: bigint, b: bigint) => bigint][] = [
  ["bitwiseAnd", pt.bitwiseAnd, (a, b) => a & b],
  ["bitwiseOr", pt.bitwiseOr, (a, b) => a | b],
  ["bitwiseXor", pt.bitwiseXor, (a, b) => a ^ b],
];

for (const [name, op, ref] of OPS) {
  test(`${name} matches a BigInt loop for int32, int64, uint8 and bool, odd sizes and extremes included`, () => {
    for (const dt of ["int32", "int64", "uint8", "bool"] as const) {
      pt.tidy(() => {
        const a = values(dt, 333, 1), b = values(dt, 333, 2).reverse();
        const y = op(tensorOf(dt, a), tensorOf(dt, b));
        assert.equal(y.dtype, dt);
        assert.deepEqual(read(y), a.map((x, i) => wrap(dt, ref(x, b[i]))), `${name} ${dt}`);
      });
    }
  });
}

test("bitwiseNot flips every bit of integers (uint8 ~200 is 55) and is logical not for bool", () => {
  for (const dt of ["int32", "int64", "uint8", "bool"] as const) {
    pt.tidy(() => {
      const a = values(dt, 101, 3);
      const y = pt.bitwiseNot(tensorOf(dt, a));
      assert.equal(y.dtype, dt);
      assert.deepEqual(read(y), a.map((x) => (dt === "bool" ? 1n - x : wrap(dt, ~x))), dt);
    });
  }
  pt.tidy(() => assert.deepEqual(read(pt.bitwiseNot(pt.tensor([200, 0], { dtype: "uint8" }))), [55n, 255n]));
});

/** PyTorch's shifts: a count outside [0, W) gives 0 (<<) or the sign fill (>>); W is the dtype's bit width. */
function shiftRef(dt: Int, a: bigint, b: bigint, left: boolean): bigint {
  const w = BigInt(BITS[dt]);
  if (b < 0n || b >= w) return left ? 0n : a < 0n ? -1n : 0n;
  return wrap(dt, left ? a << b : a >> b);
}

test("bitwiseLeftShift and bitwiseRightShift (arithmetic) match BigInt for every count -3..70 on int32, int64 and uint8", () => {
  const counts = Array.from({ length: 74 }, (_, k) => BigInt(k - 3));
  for (const dt of ["int32", "int64", "uint8"] as const) {
    pt.tidy(() => {
      const vs = values(dt, 6, 4);
      const a: bigint[] = [], b: bigint[] = [];
      for (const v of vs) for (const c of counts) if (dt !== "uint8" || c >= 0n) a.push(v), b.push(wrap(dt, c));
      const ta = tensorOf(dt, a), tb = tensorOf(dt, b);
      assert.deepEqual(read(pt.bitwiseLeftShift(ta, tb)), a.map((x, i) => shiftRef(dt, x, b[i], true)), `<< ${dt}`);
      assert.deepEqual(read(pt.bitwiseRightShift(ta, tb)), a.map((x, i) => shiftRef(dt, x, b[i], false)), `>> ${dt}`);
    });
  }
  pt.tidy(() => {
    const x = pt.tensor([-8, 5, 1], { dtype: "int32" });
    assert.deepEqual(read(pt.bitwiseRightShift(x, 1)), [-4n, 2n, 0n]);
    assert.deepEqual(read(pt.bitwiseLeftShift(x, pt.tensor([1, 31, 32], { dtype: "int32" }))), [-16n, -2147483648n, 0n]);
    assert.deepEqual(read(pt.bitwiseRightShift(x, pt.tensor([40, -1, 33], { dtype: "int32" }))), [-1n, 0n, 0n]);
    assert.deepEqual(read(pt.bitwiseLeftShift(pt.tensor([200], { dtype: "uint8" }), 1)), [144n]);
  });
});

test("bitwise ops promote (int32 & int64 is int64, bool & int32 is int32), broadcast, take JS scalars and read strided views", () => {
  pt.tidy(() => {
    const i32 = pt.tensor([[6], [-1], [12]], { dtype: "int32" }), i64 = pt.tensor(BigInt64Array.from([3n, 5n, 2n ** 40n]));
    const y = pt.bitwiseAnd(i32, i64);
    assert.equal(y.dtype, "int64");
    assert.deepEqual(y.shape, [3, 3]);
    const want: bigint[] = [];
    for (const a of [6n, -1n, 12n]) for (const b of [3n, 5n, 2n ** 40n]) want.push(a & b);
    assert.deepEqual(read(y), want);
    const b = pt.tensor([true, false, true]);
    assert.equal(pt.bitwiseOr(b, pt.tensor([2, 2, 2], { dtype: "int32" })).dtype, "int32");
    assert.equal(pt.bitwiseXor(b, true).dtype, "bool");
    assert.deepEqual(read(pt.bitwiseXor(b, true)), [0n, 1n, 0n]);
    assert.deepEqual(read(pt.bitwiseOr(8, pt.tensor([1, 2], { dtype: "int32" }))), [9n, 10n]);
    assert.deepEqual(read(pt.bitwiseLeftShift(1, pt.tensor([0, 3], { dtype: "int64" }))), [1n, 8n]);
    const m = pt.arange(0, 12, 1, { dtype: "int32" }).reshape([3, 4]);
    const mt = read(m.T.contiguous());
    assert.deepEqual(read(pt.bitwiseXor(m.T, 5)), mt.map((v) => v ^ 5n), "transposed");
    assert.deepEqual(read(pt.bitwiseNot(m.slice(1, 1, 4, 2))), read(m.slice(1, 1, 4, 2).contiguous()).map((v) => ~v), "sliced");
    assert.deepEqual(pt.bitwiseAnd(pt.zeros([0, 2], { dtype: "int32" }), 1).shape, [0, 2]);
    const zero = pt.bitwiseRightShift(pt.tensor(-16, { dtype: "int64" }), 2);
    assert.deepEqual(zero.shape, []);
    assert.deepEqual(read(zero), [-4n]);
  });
});

test("float operands are a TensorError naming the function; bool shifts too; the results take no gradient", () => {
  pt.tidy(() => {
    const x = pt.tensor([1.5]), i = pt.tensor([1], { dtype: "int32" }), b = pt.tensor([true]);
    assertTensorError(() => pt.bitwiseAnd(x, i), /^bitwiseAnd: needs integer or bool operands, got float32/);
    assertTensorError(() => pt.bitwiseOr(i, 0.5), /^bitwiseOr: needs integer or bool operands, got float32/);
    assertTensorError(() => pt.bitwiseXor(pt.tensor([1], { dtype: "float64" }), 1), /^bitwiseXor: .*got float64/);
    assertTensorError(() => pt.bitwiseLeftShift(x, 1), /^bitwiseLeftShift: needs integer or bool operands/);
    assertTensorError(() => pt.bitwiseRightShift(i, 1.5), /^bitwiseRightShift: needs integer or bool operands/);
    assertTensorError(() => pt.bitwiseNot(x), /^bitwiseNot: needs an integer or bool tensor, got float32/);
    assertTensorError(() => pt.bitwiseLeftShift(b, b), /^bitwiseLeftShift: is not supported for bool operands/);
    assertTensorError(() => pt.bitwiseRightShift(b, true), /^bitwiseRightShift: is not supported for bool operands/);
    assertTensorError(() => pt.bitwiseAnd(1, 2), /^bitwiseAnd: needs at least one tensor operand/);
    assertTensorError(
      () => pt.bitwiseAnd(pt.zeros([2], { dtype: "int32" }), pt.zeros([3], { dtype: "int32" })),
      /^bitwiseAnd: .*broadcast/,
    );
  });
});
