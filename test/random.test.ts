/** rand, randn, randint and the process generator (seed, offset) over Philox4x32-10. */
import * as pt from "../mod.ts";
import { getOffset, setOffset } from "../src/tensor/random.ts";
import { assert, assertTensorError, philox, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

function stats(x: number[]): { mean: number; std: number; min: number; max: number } {
  const mean = x.reduce((s, v) => s + v, 0) / x.length;
  const v = x.reduce((s, y) => s + (y - mean) ** 2, 0) / (x.length - 1);
  return { mean, std: Math.sqrt(v), min: Math.min(...x), max: Math.max(...x) };
}

test("rand float32 equals a JS Philox reference for a 64-bit seed, element by element", () => {
  const seed = 0x1234_5678_9abc_def0n;
  pt.manualSeed(seed);
  assert.equal(pt.getSeed(), seed);
  using r = pt.rand([33]);
  const got = nums(r);
  for (let i = 0; i < 33; i++) {
    const w = philox(BigInt(i), 0x9abcdef0, 0x12345678);
    assert.equal(got[i], (w[0] >>> 8) / 2 ** 24, `element ${i}`);
  }
  using r2 = pt.rand([2]); // continues at counter 33
  assert.equal(nums(r2)[1], (philox(34n, 0x9abcdef0, 0x12345678)[0] >>> 8) / 2 ** 24);
});

test("the same seed and sequence of calls gives the same numbers; a different seed does not", () => {
  const draw = (seed: number | bigint) => {
    pt.manualSeed(seed);
    using a = pt.rand([5, 7]), b = pt.randn([33]), c = pt.randint(-3, 9, [17]);
    return [...nums(a), ...nums(b), ...nums(c)];
  };
  const x = draw(42), y = draw(42), z = draw(43), w = draw(42n);
  assert.deepEqual(x, y);
  assert.deepEqual(x, w);
  assert.notDeepEqual(x, z);
  assert.ok(x.slice(0, 35).filter((v, i) => v === z[i]).length < 3, "seeds 42 and 43 share many values");
});

test("each call draws fresh counters: the offset advances by the element count, and splits agree", () => {
  pt.manualSeed(7);
  assert.equal(getOffset(), 0);
  using whole = pt.rand([15]);
  assert.equal(getOffset(), 15);
  pt.manualSeed(7);
  using a = pt.rand([10]), b = pt.rand([5]);
  assert.deepEqual([...nums(a), ...nums(b)], nums(whole));
  using empty = pt.rand([0, 4]);
  assert.deepEqual(empty.shape, [0, 4]);
  assert.equal(getOffset(), 15, "an empty tensor draws nothing");
  setOffset(3);
  using replay = pt.rand([4]);
  assert.deepEqual(nums(replay), nums(whole).slice(3, 7));
  assert.equal(getOffset(), 7);
  assertTensorError(() => setOffset(-1), /setOffset/);
});

test("manualSeed accepts negative numbers and bigints modulo 2^64, and rejects non-integers", () => {
  pt.manualSeed(-1);
  assert.equal(pt.getSeed(), 2n ** 64n - 1n);
  pt.manualSeed(2n ** 64n + 5n);
  assert.equal(pt.getSeed(), 5n);
  assertTensorError(() => pt.manualSeed(1.5), /manualSeed/, /1.5/);
});

for (const dtype of ["float32", "float64"] as const) {
  test(`rand ${dtype}: 100k samples lie in [0, 1) with mean 1/2 and std 1/sqrt(12)`, () => {
    pt.manualSeed(1);
    using r = pt.rand([100, 1000], { dtype });
    assert.equal(r.dtype, dtype);
    assert.deepEqual(r.shape, [100, 1000]);
    const s = stats(nums(r));
    assert.ok(s.min >= 0 && s.max < 1, `range [${s.min}, ${s.max}]`);
    assert.ok(Math.abs(s.mean - 0.5) < 0.005, `mean ${s.mean}`);
    assert.ok(Math.abs(s.std - 1 / Math.sqrt(12)) < 0.005, `std ${s.std}`);
    assert.ok(new Set(nums(r).slice(0, 1000)).size > 990, "values repeat too often");
  });

  test(`randn ${dtype}: 100k samples have mean 0, std 1 and a normal share within one sigma`, () => {
    pt.manualSeed(2);
    using r = pt.randn([100_001], { dtype });
    const x = nums(r);
    const s = stats(x);
    assert.ok(Math.abs(s.mean) < 0.02, `mean ${s.mean}`);
    assert.ok(Math.abs(s.std - 1) < 0.02, `std ${s.std}`);
    const within = x.filter((v) => Math.abs(v) < 1).length / x.length;
    assert.ok(Math.abs(within - 0.6827) < 0.01, `share within 1 sigma ${within}`);
    assert.ok(x.every(Number.isFinite));
  });
}

test("rand and randn fill float16 and bfloat16 and odd shapes (0-d, 1, 7, 33x127)", () => {
  pt.manualSeed(3);
  for (const shape of [[], [1], [7], [33, 127]]) {
    for (const dtype of ["float16", "bfloat16"] as const) {
      using u = pt.rand(shape, { dtype }), n = pt.randn(shape, { dtype });
      assert.deepEqual(u.shape, shape);
      assert.equal(n.dtype, dtype);
      const x = nums(u);
      assert.ok(x.every((v) => v >= 0 && v < 1), `${dtype} ${shape}`);
      assert.ok(nums(n).every(Number.isFinite));
    }
  }
});

test("randint stays in [low, high), reaches every value and defaults to int64", () => {
  pt.manualSeed(4);
  using r = pt.randint(-3, 4, [33, 127]);
  assert.equal(r.dtype, "int64");
  const x = nums(r);
  assert.ok(x.every((v) => Number.isInteger(v) && v >= -3 && v < 4));
  assert.deepEqual([...new Set(x)].sort((a, b) => a - b), [-3, -2, -1, 0, 1, 2, 3]);
  const counts = [-3, -2, -1, 0, 1, 2, 3].map((v) => x.filter((y) => y === v).length / x.length);
  assert.ok(counts.every((c) => Math.abs(c - 1 / 7) < 0.02), `counts ${counts}`);
  using big = pt.randint(0, 2 ** 40, [1000]);
  assert.ok(nums(big).some((v) => v > 2 ** 32), "a wide range uses the high bits");
  using one = pt.randint(5, 6, [7], { dtype: "int32" });
  assert.deepEqual(nums(one), [5, 5, 5, 5, 5, 5, 5]);
  using u8 = pt.randint(250, 256, [1000], { dtype: "uint8" });
  assert.ok(nums(u8).every((v) => v >= 250 && v <= 255));
  using f = pt.randint(0, 10, [9], { dtype: "float32" });
  assert.ok(nums(f).every((v) => Number.isInteger(v) && v >= 0 && v < 10));
  using e = pt.randint(0, 3, [0]);
  assert.deepEqual(e.shape, [0]);
});

test("random creation errors: empty ranges, non-integer bounds, int dtypes for rand, ranges beyond the dtype", () => {
  assertTensorError(() => pt.randint(3, 3, [2]), /randint/, /\[3, 3\)/, /empty/);
  assertTensorError(() => pt.randint(0.5, 3, [2]), /randint/, /integers/);
  assertTensorError(() => pt.randint(0, 300, [2], { dtype: "uint8" }), /randint/, /uint8/);
  assertTensorError(() => pt.randint(0, 2 ** 31 + 1, [2], { dtype: "int32" }), /randint/, /int32/);
  assertTensorError(() => pt.rand([2], { dtype: "int32" }), /rand/, /int32/);
  assertTensorError(() => pt.randn([2], { dtype: "bool" }), /randn/, /bool/);
  assertTensorError(() => pt.rand([2, -1]), /rand/, /-1/);
});

test("random calls leave nothing behind", () => {
  const before = pt.liveBytes();
  for (let k = 0; k < 3; k++) {
    pt.rand([100]).dispose();
    pt.randn([7, 3], { dtype: "float64" }).dispose();
    pt.randint(0, 5, [13]).dispose();
    assertTensorError(() => pt.randint(1, 0, [4]), /randint/);
  }
  assert.ok(pt.liveBytes() <= before, `live bytes grew from ${before} to ${pt.liveBytes()}`);
});
