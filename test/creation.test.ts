import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, test } from "./harness.ts";

test("tensor() infers shape and dtype from nested arrays", () => {
  using a = pt.tensor([[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(a.shape, [2, 3]);
  assert.equal(a.dtype, "float32");
  assert.deepEqual(a.toList(), [[1, 2, 3], [4, 5, 6]]);
  using b = pt.tensor([true, false]);
  assert.equal(b.dtype, "bool");
  assert.deepEqual(b.toList(), [true, false]);
  using c = pt.tensor([1n, 2n]);
  assert.equal(c.dtype, "int64");
  using s = pt.tensor(3.5);
  assert.deepEqual(s.shape, []);
  assert.equal(s.item(), 3.5);
  using e = pt.tensor([]);
  assert.deepEqual(e.shape, [0]);
  assert.equal(e.toArray().length, 0);
});

test("typed arrays keep their dtype", () => {
  using a = pt.tensor(new Int32Array([1, -2, 3]));
  assert.equal(a.dtype, "int32");
  assert.deepEqual([...a.toArray()], [1, -2, 3]);
  using b = pt.tensor(new Float64Array([0.1, 0.2]));
  assert.equal(b.dtype, "float64");
  assert.deepEqual([...b.toArray()], [0.1, 0.2]);
  using c = pt.tensor(new BigInt64Array([-(2n ** 62n)]));
  assert.deepEqual([...c.toArray()], [-(2n ** 62n)]);
  using d = pt.tensor(new Uint8Array([255, 0]));
  assert.equal(d.dtype, "uint8");
});

test("every dtype round-trips through tensor() and toArray()", () => {
  const values = [0, 1, 2, 3, 100];
  for (const dtype of ["float32", "float16", "bfloat16", "float64", "int32", "int64", "uint8", "bool"] as const) {
    using t = pt.tensor(values, { dtype });
    assert.equal(t.dtype, dtype);
    const got = [...t.toArray()].map(Number);
    const expect = dtype === "bool" ? values.map((v) => (v ? 1 : 0)) : values;
    assert.deepEqual(got, expect, dtype);
  }
});

test("zeros, ones, full and empty", () => {
  using z = pt.zeros([2, 3]);
  assert.deepEqual([...z.toArray()], [0, 0, 0, 0, 0, 0]);
  using o = pt.ones([4], { dtype: "int64" });
  assert.deepEqual([...o.toArray()], [1n, 1n, 1n, 1n]);
  using f = pt.full([3], 7.5, { dtype: "float64" });
  assert.deepEqual([...f.toArray()], [7.5, 7.5, 7.5]);
  using fb = pt.full([2], true);
  assert.equal(fb.dtype, "bool");
  using e = pt.empty([5, 0]);
  assert.deepEqual(e.shape, [5, 0]);
  assert.equal(e.numel, 0);
  using n = pt.full([2], NaN);
  assert.ok(Number.isNaN(n.toArray()[0] as number));
});

test("a shape array the caller keeps can change afterwards without changing the tensors made from it", () => {
  const shape = [2, 3];
  using z = pt.zeros(shape);
  using r = pt.arange(6).reshape(shape);
  using v = z.view(shape);
  shape[0] = 3;
  shape[1] = 2;
  for (const t of [z, r, v]) {
    assert.deepEqual([...t.shape], [2, 3]);
    assert.deepEqual([...t.strides], [3, 1]);
  }
  assert.deepEqual([...r.toArray()], [0, 1, 2, 3, 4, 5]);
});

test("zerosLike and friends copy dtype and shape", () => {
  using a = pt.tensor([[1, 2]], { dtype: "int32" });
  using z = pt.zerosLike(a);
  assert.deepEqual(z.shape, [1, 2]);
  assert.equal(z.dtype, "int32");
  using o = pt.onesLike(a, { dtype: "float64" });
  assert.equal(o.dtype, "float64");
  using f = pt.fullLike(a, 4);
  assert.deepEqual([...f.toArray()], [4, 4]);
  using e = pt.emptyLike(a);
  assert.deepEqual(e.shape, [1, 2]);
});

test("arange matches a JS loop for integer and fractional steps", () => {
  using a = pt.arange(5);
  assert.deepEqual([...a.toArray()], [0, 1, 2, 3, 4]);
  using b = pt.arange(1, 2, 0.25, { dtype: "float64" });
  assert.deepEqual([...b.toArray()], [1, 1.25, 1.5, 1.75]);
  using c = pt.arange(10, 0, -3, { dtype: "int32" });
  assert.deepEqual([...c.toArray()], [10, 7, 4, 1]);
  using d = pt.arange(3, 3);
  assert.equal(d.numel, 0);
});

test("linspace includes both ends and is symmetric", () => {
  using a = pt.linspace(0, 1, 5);
  assert.deepEqual([...a.toArray()], [0, 0.25, 0.5, 0.75, 1]);
  using b = pt.linspace(-1, 1, 7, { dtype: "float64" });
  const v = [...b.toArray()] as number[];
  assert.equal(v[0], -1);
  assert.equal(v[6], 1);
  for (let i = 0; i < 7; i++) assert.ok(Math.abs(v[i] + v[6 - i]) < 1e-15);
  using one = pt.linspace(3, 9, 1);
  assert.deepEqual([...one.toArray()], [3]);
});

test("eye builds square and rectangular identities", () => {
  using a = pt.eye(3);
  assert.deepEqual(a.toList(), [[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
  using b = pt.eye(2, 4, { dtype: "int32" });
  assert.deepEqual(b.toList(), [[1, 0, 0, 0], [0, 1, 0, 0]]);
  using c = pt.eye(4, 2);
  assert.deepEqual(c.toList(), [[1, 0], [0, 1], [0, 0], [0, 0]]);
});

test("fromBuffer on the CPU shares memory with the ArrayBuffer", () => {
  const buf = new ArrayBuffer(16);
  const view = new Float32Array(buf);
  view.set([1, 2, 3, 4]);
  using t = pt.fromBuffer(buf, { dtype: "float32", shape: [2, 2], device: "cpu" });
  assert.deepEqual(t.toList(), [[1, 2], [3, 4]]);
  view[0] = 10;
  assertClose(t.toArray() as Float32Array, [10, 2, 3, 4]);
});

test("await data() resolves with the values", async () => {
  using a = pt.tensor([1, 2, 3]);
  const d = await a.data();
  assert.deepEqual([...d], [1, 2, 3]);
});

test("to() changes dtype, and to the same device gives a view", () => {
  using a = pt.tensor([1.5, 2.5]);
  using b = a.to("int32");
  assert.deepEqual([...b.toArray()], [1, 2]);
  using c = a.to(a.device);
  assert.equal(c.device, a.device);
  assert.deepEqual([...c.toArray()], [1.5, 2.5]);
});

test("console formatting shows values, dtype and device", () => {
  using a = pt.tensor([[1, 2], [3, 4]]);
  assert.equal(String(a), `tensor([[1.0000, 2.0000],\n        [3.0000, 4.0000]], dtype=float32, device=${a.device.id})`);
});

test("item() and toList() of int64 give exact bigints (2^60 + 1 stays 1152921504606846977n); other dtypes give numbers and booleans", () => {
  const big = 2n ** 60n + 1n;
  using t = pt.tensor([big, -big, 7n]);
  assert.deepEqual(t.toList(), [big, -big, 7n]);
  using one = t.narrow(0, 0, 1), second = t.narrow(0, 1, 1).reshape([]);
  assert.equal(one.item(), big);
  assert.equal(second.item(), -big);
  assert.equal(second.toList(), -big);
  using s = pt.tensor([3, 4], { dtype: "int32" }).sum(); // int64 by promotion: a bigint even when small
  assert.equal(s.item(), 7n);
  using m = pt.tensor([[1n, 2n], [3n, 4n]]).mul(2n ** 40n);
  assert.deepEqual(m.toList(), [[2n ** 40n, 2n ** 41n], [3n * 2n ** 40n, 2n ** 42n]]);
  using i = pt.tensor([5], { dtype: "int32" }), f = pt.tensor([0.5], { dtype: "float16" }), u = pt.tensor([200], { dtype: "uint8" });
  assert.deepEqual([i.item(), f.item(), u.item()], [5, 0.5, 200]);
  using b = pt.tensor([true, false]);
  assert.deepEqual(b.toList(), [true, false]);
});

test("full, fullLike and scalar operands hold int64 values beyond 2^53 exactly", () => {
  const big = 2n ** 60n + 1n;
  using f = pt.full([2], big), fl = pt.fullLike(f, -big - 2n), min = pt.full([1], -(2n ** 63n));
  assert.deepEqual(f.toList(), [big, big]);
  assert.deepEqual(fl.toList(), [-big - 2n, -big - 2n]);
  assert.deepEqual(min.toList(), [-(2n ** 63n)]);
  using x = pt.tensor([1n, 2n]), sum = x.add(big), eq = f.eq(big), sc = x.scatter(0, pt.tensor([1n]), big);
  assert.deepEqual(sum.toList(), [big + 1n, big + 2n]);
  assert.deepEqual(eq.toList(), [true, true]);
  assert.deepEqual(sc.toList(), [1n, big]);
});

test("tensor() refuses a value its integer dtype cannot hold instead of wrapping it", () => {
  assertTensorError(() => pt.tensor([1e10], { dtype: "int32" }), /^tensor: /, /10000000000/, /int32 \[-2147483648, 2147483647\]/);
  assertTensorError(() => pt.tensor([300], { dtype: "uint8" }), /^tensor: /, /300/, /uint8 \[0, 255\]/);
  assertTensorError(() => pt.tensor([-1], { dtype: "uint8" }), /^tensor: /, /-1/, /uint8/);
  assertTensorError(() => pt.tensor([1e30], { dtype: "int64" }), /^tensor: /, /int64/);
  assertTensorError(() => pt.tensor([2n ** 63n]), /^tensor: /, /9223372036854775808/, /int64/);
  assertTensorError(() => pt.tensor(new BigInt64Array([2n ** 40n]), { dtype: "int32" }), /^tensor: /, /1099511627776/, /int32/);
  using edge = pt.tensor([2147483647, -2147483648, 2.9, -2.9], { dtype: "int32" }), u = pt.tensor([255, 0], { dtype: "uint8" });
  assert.deepEqual(edge.toList(), [2147483647, -2147483648, 2, -2]);
  assert.deepEqual(u.toList(), [255, 0]);
});

test("zeros, ones, empty and full take one size for a 1-D shape, as rand and torch.zeros do", () => {
  using z = pt.zeros(3), o = pt.ones(2, { dtype: "int32" }), e = pt.empty(4), f = pt.full(2, 7);
  assert.deepEqual([z.shape, o.shape, e.shape, f.shape], [[3], [2], [4], [2]]);
  assert.deepEqual(o.toList(), [1, 1]);
});
