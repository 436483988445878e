/**
 * Bad inputs: each one must throw a TensorError whose message names the op and what was
 * wrong with the input (shapes, dtypes, axes, values, the index and size, the handle), must
 * not leak device memory on the way out, and must leave the library working.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, test, testUnless } from "./harness.ts";

/** The error, then: no bytes leaked by the failing op, and a later op still succeeds. */
function bad(fn: () => unknown, ...patterns: RegExp[]): void {
  const before = pt.liveBytes();
  assertTensorError(fn, ...patterns);
  assert.equal(pt.liveBytes(), before, "the failing op leaked device memory");
  using a = pt.tensor([1, 2]);
  using b = a.add(1);
  assert.deepEqual(nums(b), [2, 3], "the library works after the error");
}

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const i64 = (data: pt.NestedArray) => pt.tensor(data, { dtype: "int64" });
const i32 = (data: pt.NestedArray) => pt.tensor(data, { dtype: "int32" });

// ----- shapes and broadcasting

test("add of [2,3] and [4] names both shapes", () => {
  using a = pt.ones([2, 3]), b = pt.ones([4]);
  bad(() => a.add(b), /^add: /, /\[2, 3\]/, /\[4\]/, /broadcast/);
});

test("matmul of [2,3] @ [4,5] names both shapes and the inner dims", () => {
  using a = pt.ones([2, 3]), b = pt.ones([4, 5]);
  bad(() => a.matmul(b), /^matmul: /, /\[2, 3\]/, /\[4, 5\]/, /3 vs 4/);
});

test("reshape of [2,3] to [4,2] names both shapes", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.reshape(4, 2), /^reshape: /, /\[4, 2\]/, /\[2, 3\]/, /6 elements/);
});

test("reshape with two -1 sizes names the shape", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.reshape(-1, -1), /^reshape: /, /-1/, /\[-1, -1\]/);
});

test("view of a transposed tensor names shape and strides and suggests reshape", () => {
  using a = pt.ones([2, 3]);
  using t = a.T;
  bad(() => t.view(6), /^view: /, /\[3, 2\]/, /strides \[1, 3\]/, /\[6\]/, /reshape/);
});

test("zeros with a negative size names the shape and the size", () => {
  bad(() => pt.zeros([2, -1]), /^zeros: /, /\[2, -1\]/, /size 1 is -1/, /integers >= 0/);
});

test("a shape of rank 9 names the rank and the maximum", () => {
  bad(() => pt.zeros([1, 1, 1, 1, 1, 1, 1, 1, 1]), /rank 9/, /maximum of 8/);
});

test("expand of [3] to [2,4] names both shapes and the dim", () => {
  using a = pt.ones([3]);
  bad(() => a.expand(2, 4), /^expand: /, /\[3\]/, /\[2, 4\]/, /dim 1/);
});

test("cat of [2,3] and [2,4] along axis 0 names both shapes", () => {
  using a = pt.ones([2, 3]), b = pt.ones([2, 4]);
  bad(() => pt.cat([a, b], 0), /^cat: /, /\[2, 3\]/, /\[2, 4\]/, /axis 0/);
});

test("dot of different lengths names both shapes", () => {
  using a = pt.ones([3]), b = pt.ones([4]);
  bad(() => a.dot(b), /^dot: /, /\[3\]/, /\[4\]/);
});

// ----- axes

test("sum over axis 2 of a rank-2 tensor names the axis and rank", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.sum(2), /^sum: /, /axis 2/, /rank 2/);
});

test("sum over a non-integer axis names the axis", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.sum(0.5), /^sum: /, /axis 0\.5/, /not an integer/);
});

test("sum over repeated axes [0, -2] names the axes", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.sum([0, -2]), /^sum: /, /\[0, -2\]/, /repeat/);
});

test("permute with a repeated axis names the axes", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.permute(0, 0), /^permute: /, /\[0, 0\]/, /repeat/);
});

test("permute with an out-of-range axis names the axis", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.permute(0, 2), /^permute: /, /axis 2/, /rank 2/);
});

test("permute with too few axes names the count and rank", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.permute(0), /^permute: /, /1 axes/, /rank 2/);
});

test("cat of a 0-d tensor names cat and the tensor's position; stack of 0-d tensors gives a 1-D tensor", () => {
  using a = pt.tensor([1, 2]), s = pt.tensor(3);
  bad(() => pt.cat([a, s]), /^cat: /, /0-d tensor \(at position 1\)/, /stack/);
  using t = pt.stack([s, s]);
  assert.deepEqual([...t.shape], [2]);
  assert.deepEqual([...t.toArray()], [3, 3]);
});

test("cat along axis 1 of rank-1 tensors names the axis", () => {
  using a = pt.ones([2]), b = pt.ones([2]);
  bad(() => pt.cat([a, b], 1), /^cat: /, /axis 1/, /rank 1/);
});

test("squeeze of axis 3 of a rank-2 tensor names the axis", () => {
  using a = pt.ones([2, 1]);
  bad(() => a.squeeze(3), /^squeeze: /, /axis 3/, /rank 2/);
});

test("transpose with axis 5 names the axis", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.transpose(0, 5), /^transpose: /, /axis 5/, /rank 2/);
});

test("slice along axis -3 of a rank-2 tensor names the axis", () => {
  using a = pt.ones([2, 3]);
  bad(() => a.slice(-3), /^slice: /, /axis -3/, /rank 2/);
});

test("gather along axis 2 of a rank-2 tensor names the axis", () => {
  using a = pt.ones([2, 3]), idx = i64([[0], [0]]);
  bad(() => a.gather(2, idx), /^gather: /, /axis 2/, /rank 2/);
});

test("a non-integer axis 1.5 is rejected by permute, cat, squeeze, transpose, slice, gather and flip, naming the axis", () => {
  using a = pt.ones([2, 3]), idx = i64([[0], [0]]);
  bad(() => a.permute(0, 1.5), /^permute: /, /axis 1\.5/, /not an integer/);
  bad(() => pt.cat([a, a], 1.5), /^cat: /, /axis 1\.5/);
  bad(() => a.squeeze(1.5), /^squeeze: /, /axis 1\.5/);
  bad(() => a.transpose(0, 1.5), /^transpose: /, /axis 1\.5/);
  bad(() => a.slice(1.5), /^slice: /, /axis 1\.5/);
  bad(() => a.gather(1.5, idx), /^gather: /, /axis 1\.5/);
  bad(() => a.flip(1.5), /^flip: /, /axis 1\.5/);
});

test("squeeze and flip over repeated axes name the axes", () => {
  using a = pt.ones([1, 3, 1]);
  bad(() => a.squeeze([0, -3]), /^squeeze: /, /\[0, -3\]/, /repeat/);
  bad(() => a.flip([1, 1]), /^flip: /, /\[1, 1\]/, /repeat/);
});

test("slice with step 0 names the step", () => {
  using a = pt.ones([3]);
  bad(() => a.slice(0, 0, 3, 0), /^slice: /, /step/, /got 0/);
});

test("narrow past the end names start, length and size", () => {
  using a = pt.ones([3]);
  bad(() => a.narrow(0, 2, 2), /^narrow: /, /start 2/, /length 2/, /size 3/);
});

test("topk with k larger than the axis names k and the size", () => {
  using a = pt.ones([3]);
  bad(() => a.topk(5), /^topk: /, /k = 5/, /size 3/, /\[3\]/);
});

// ----- dtypes

test("zeros with an unknown dtype names the dtype and the valid ones", () => {
  bad(() => pt.zeros([2], { dtype: "float8" as pt.DType }), /"float8"/, /unknown dtype/, /float32/);
});

test("tensor() with an unknown dtype names the op and the dtype", () => {
  bad(() => pt.tensor([1, 2], { dtype: "uint16" as pt.DType }), /^tensor: /, /"uint16"/);
});

test("cast to an unknown dtype names the op and the dtype", () => {
  using a = pt.ones([2]);
  bad(() => a.cast("complex64" as pt.DType), /^cast: /, /"complex64"/, /unknown dtype/);
});

test("to() an unknown dtype name names the value", () => {
  using a = pt.ones([2]);
  bad(() => a.to("uint16"), /"uint16"/);
});

test("full(NaN) into int32 names the value and the dtype", () => {
  bad(() => pt.full([2], NaN, { dtype: "int32" }), /^full: /, /NaN/, /int32/);
});

test("full(Infinity) into int64 names the value and the dtype", () => {
  bad(() => pt.full([2], Infinity, { dtype: "int64" }), /^full: /, /Infinity/, /int64/);
});

test("full(300) into uint8 names the value and the range", () => {
  bad(() => pt.full([2], 300, { dtype: "uint8" }), /^full: /, /300/, /uint8/, /\[0, 255\]/);
});

test("tensor([NaN]) as int32 names the value and the dtype", () => {
  bad(() => pt.tensor([1, NaN], { dtype: "int32" }), /^tensor: /, /NaN/, /int32/);
});

test("sub of two bool tensors names the op and bool", () => {
  using a = pt.tensor([true, false]), b = pt.tensor([false, false]);
  bad(() => a.sub(b), /^sub: /, /bool/);
});

test("neg of a bool tensor names the op and bool", () => {
  using a = pt.tensor([true, false]);
  bad(() => a.neg(), /^neg: /, /bool/);
});

test("lerp of int64 tensors names the op and the dtype", () => {
  using a = i64([1, 2]), b = i64([3, 4]);
  bad(() => a.lerp(b, 1), /^lerp: /, /int64/, /floating/);
});

test("an index tensor of float32 names the op and the dtype", () => {
  using a = pt.ones([3]), idx = pt.tensor([0, 1]);
  bad(() => a.indexSelect(0, idx), /^indexSelect: /, /float32/, /int32 or int64/);
  using idx2 = pt.tensor([[0.0, 1.0, 0.0]]), b = pt.ones([1, 3]);
  bad(() => b.gather(1, idx2), /^gather: /, /float32/);
});

// ----- JS data

test("a ragged nested array names the depth and the expected length", () => {
  bad(() => pt.tensor([[1, 2], [3]]), /^tensor: /, /ragged/, /depth 1/, /expected 2/);
});

test("a string element in tensor() names its position and type", () => {
  bad(() => pt.tensor([1, "a" as unknown as number]), /^tensor: /, /element 1/, /string/);
});

test("item() of a [2] tensor names the shape", () => {
  using a = pt.ones([2]);
  bad(() => a.item(), /^item: /, /\[2\]/, /one element/);
});

test("arange with step 0 names the arguments", () => {
  bad(() => pt.arange(0, 3, 0), /^arange: /, /\(0, 3, 0\)/, /step/);
});

test("linspace with -2 steps names the steps", () => {
  bad(() => pt.linspace(0, 1, -2), /^linspace: /, /-2/, /steps/);
});

// ----- empty reductions

for (const op of ["max", "min", "argmax", "argmin"] as const) {
  test(`${op} of an empty tensor names the op and the shape`, () => {
    using a = pt.zeros([0]), b = pt.zeros([2, 0]);
    bad(() => a[op](), new RegExp(`^${op}: `), /empty/, /\[0\]/);
    bad(() => b[op](1), new RegExp(`^${op}: `), /empty/, /\[2, 0\]/, /axes \[1\]/);
  });
}

// ----- indices out of range (mode "error")

test("gather with index 5 on an axis of size 3 names the index and size", () => {
  using a = pt.ones([2, 3]), idx = i64([[0, 5, 0], [0, 0, 0]]);
  bad(() => a.gather(1, idx), /^gather: /, /index 5/, /size 3/);
  using ok = a.gather(1, idx, "clamp");
  assert.deepEqual(nums(ok), [1, 1, 1, 1, 1, 1]);
});

test("indexSelect with index 7 on an axis of size 2 names the index and size", () => {
  using a = pt.ones([2, 3]), idx = i32([7]);
  bad(() => a.indexSelect(0, idx), /^indexSelect: /, /index 7/, /size 2/);
});

test("scatter with index 9 on an axis of size 4 names the index and size", () => {
  using a = pt.zeros([4]), idx = i64([9]);
  bad(() => a.scatter(0, idx, 1), /^scatter: /, /index 9/, /size 4/);
});

test("indexPut with index -5 on a dim of size 4 names the index and size", () => {
  using a = pt.zeros([4]), idx = i64([-5]);
  bad(() => a.indexPut([idx], 1), /^indexPut: /, /index -5/, /size 4/);
});

// ----- integer arithmetic faults

test("int64 mod a zero int64 tensor is a TensorError, not a crash", () => {
  using a = i64([1, 2]), z = i64([1, 0]);
  bad(() => a.mod(z), /^mod: /, /modulo by zero/, /element 1/);
});

test("int32 mod the scalar 0 is a TensorError", () => {
  using a = i32([5]);
  bad(() => a.mod(0), /^mod: /, /modulo by zero/);
});

// ----- devices and lifetimes

test('device "tpu" names the backend and the ones that exist', () => {
  bad(() => pt.device("tpu"), /^device: /, /"tpu"/, /cpu/);
});

test('device "cpu:5" names the index and the device count', () => {
  bad(() => pt.device("cpu:5"), /^device: /, /cpu:5/, /1 device/);
});

for (
  const [name, use] of [
    ["add", (t: pt.Tensor) => t.add(1)],
    ["sum", (t: pt.Tensor) => t.sum()],
    ["toArray", (t: pt.Tensor) => t.toArray()],
    ["reshape", (t: pt.Tensor) => t.reshape(2)],
  ] as const
) {
  test(`a disposed tensor used in ${name} names the op and says it was disposed`, () => {
    const t = pt.ones([2]);
    t.dispose();
    bad(() => use(t), new RegExp(`^${name}: `), /disposed/, /float32\[2\]/);
  });
}

test("tensors from before the device was closed are rejected, and the device works again", () => {
  const dev = pt.defaultDevice();
  const old = pt.ones([2]);
  using old2 = pt.ones([2]);
  dev.close();
  assert.equal(pt.liveBytes(), 0, "closing the device frees its buffers");
  bad(() => old.add(1), /^add: /, /closed/, new RegExp(dev.id));
  bad(() => old.toArray(), /^toArray: /, /closed/);
  using fresh = pt.ones([2]);
  bad(() => fresh.add(old), /^add: /, /closed/);
  bad(() => pt.cat([fresh, old2]), /^cat: /, /closed/);
  old.dispose(); // releasing a tensor of a closed device is a no-op, not an error
  using r = fresh.mul(3);
  assert.deepEqual(nums(r), [3, 3]);
});

const allDevices = pt.devices();
testUnless(
  allDevices.length < 2 ? `only ${allDevices.map((d) => d.id).join(", ")} exists here, so no op can mix two devices` : null,
  "tensors on two different devices in one op name both devices",
  () => {
    const all = allDevices;
    using a = pt.ones([2], { device: all[0].id }), b = pt.ones([2], { device: all[1].id });
    bad(() => a.add(b), /^add: /, /different devices/, new RegExp(all[0].id), new RegExp(all[1].id));
  },
);

// ----- messages in the user's terms (the function they called, what was wrong), never the internals'

test('zeros("3") and zeros(["3", 4]) name zeros and say the size is a string', () => {
  bad(() => pt.zeros("3" as unknown as number[]), /^zeros: /, /shape must be an array of sizes/, /the string "3"/);
  bad(() => pt.zeros(["3", 4] as unknown as number[]), /^zeros: /, /shape \["3", 4\]/, /size 0 is the string "3"/, /integers >= 0/);
  bad(() => pt.ones([2, 2.5]), /^ones: /, /size 1 is 2\.5/);
  bad(() => pt.empty([NaN]), /^empty: /, /size 0 is NaN/);
  bad(() => pt.full([null as unknown as number], 1), /^full: /, /size 0 is null/);
  using t = pt.ones([2]);
  bad(() => t.reshape(["2"] as unknown as number[]), /^reshape: /, /the string "2"/);
  bad(() => pt.rand("3" as unknown as number[]), /^rand: /, /the string "3"/);
});

test("a shape too big for any buffer names the function, the shape, the dtype and the bytes, not the allocator", () => {
  const huge = [1e12, 1e12];
  const cases: [string, () => unknown, RegExp][] = [
    ["zeros", () => pt.zeros(huge), /float32 is 4e\+24 bytes/],
    ["ones", () => pt.ones(huge, { dtype: "int64" }), /int64 is 8e\+24 bytes/],
    ["empty", () => pt.empty(huge), /bytes/],
    ["full", () => pt.full(huge, 2), /bytes/],
    ["eye", () => pt.eye(1e12), /bytes/],
    ["arange", () => pt.arange(1e20), /bytes/],
    ["rand", () => pt.rand(huge), /bytes/],
    ["randn", () => pt.randn(huge), /bytes/],
    ["randint", () => pt.randint(0, 5, huge), /int64/],
  ];
  for (const [op, f, p] of cases) {
    bad(f, new RegExp(`^${op}: `), /\[1000000000000, 1000000000000\]|\[100000000000000000000\]/, p, /more than/);
  }
  using one = pt.ones([1, 1]), wide = one.expand(huge), row = one.expand([1e12, 1]), col = one.expand([1, 1e12]);
  bad(() => wide.contiguous(), /^contiguous: /, /4e\+24 bytes/);
  bad(() => row.add(col), /^add: /, /4e\+24 bytes/);
  bad(() => wide.add(1).mul(2).materialize(), /^add(, mul \(fused\))?: /, /4e\+24 bytes/, /more than a buffer can hold/);
  for (const [op, f] of cases) {
    assert.doesNotMatch(
      String((() => {
        try {
          f();
        } catch (e) {
          return e;
        }
      })()),
      /pt_buffer|pt_/,
      op,
    );
  }
});

test("a host read or write inside a captured step names the function called and says capture cannot record it", () => {
  using x = pt.ones([3]), other = pt.ones([3]);
  const inside: [string, (t: pt.Tensor) => unknown][] = [
    ["item", (t) => t.sum().item()],
    ["toList", (t) => t.toList()],
    ["toArray", (t) => t.toArray()],
    ["toJSON", (t) => JSON.stringify(t)],
    ["nonzero", (t) => t.nonzero()],
    ["maskedSelect", (t) => t.maskedSelect(t.gt(0))],
    ["tensor", () => pt.tensor([1, 2, 3])],
  ];
  for (const [op, f] of inside) {
    using step = pt.capture((t: pt.Tensor) => (f(t), t.add(1)));
    let caught: unknown;
    try {
      step(x);
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof pt.TensorError, `${op}: expected a TensorError, got ${caught}`);
    assert.match(caught.message, new RegExp(`^${op}: `), op);
    assert.match(caught.message, /pt\.capture\(\) cannot record/, op);
    assert.doesNotMatch(caught.message, /pt_buffer|queue \d/, op);
  }
  using after = other.add(1); // nothing is left capturing
  assert.deepEqual(nums(after), [2, 2, 2]);
});

test("bad fill values, like-functions, eye sizes, fromBuffer lengths and tensor() data name what was wrong", () => {
  bad(() => pt.full([2], "a" as unknown as number), /^full: /, /fill value/, /the string "a"/);
  bad(() => pt.zerosLike(3 as unknown as pt.Tensor), /^zerosLike: /, /expects a tensor/);
  using one = pt.ones([1]);
  bad(() => pt.fullLike(one, {} as unknown as number), /^fullLike: /, /an object/);
  bad(() => pt.eye(1.5), /^eye: /, /n must be an integer >= 0/, /1\.5/);
  bad(() => pt.eye(2, -1), /^eye: /, /m must be/, /-1/);
  bad(() => pt.fromBuffer(new ArrayBuffer(3)), /^fromBuffer: /, /3 bytes/, /whole number of float32 elements/);
  bad(() => pt.tensor(null as unknown as number), /^tensor: /, /got null/);
  bad(() => pt.tensor(new Uint16Array(2) as unknown as Int32Array), /^tensor: /, /Uint16Array is not supported/, /Int16Array/);
  bad(() => pt.full([2], 2 ** 63, { dtype: "int64" }), /^full: /, /\[-9223372036854775808, 9223372036854775807\]/);
  using a = pt.ones([2]);
  bad(() => a.add("1" as unknown as number), /^add: /, /the string "1"/);
  using z = pt.zeros([4]), idx = i64([9]);
  bad(() => z.scatterAdd(0, idx, 1), /^scatterAdd: /, /index 9/);
});

test("a kernel's failure names the function called and what was wrong, not the shim call or the kernel that saw it", () => {
  using x = pt.zeros([3, 2]), i5 = pt.tensor([5n]), i7 = pt.tensor([[0n, 7n]]), n = pt.tensor([1, 2], { dtype: "int32" });
  const cases: [() => unknown, RegExp][] = [
    [() => x.indexSelect(0, i5).toArray(), /^indexSelect: index 5 is out of range for axis 0 of size 3 \(on \w+:\d+\)$/],
    [() => x.gather(1, i7).toArray(), /^gather: index 7 is out of range for axis 1 of size 2 \(on \w+:\d+\)$/],
    [() => n.mod(0).toArray(), /^mod: integer modulo by zero at element 0 \(on \w+:\d+\)$/],
  ];
  for (const [f, p] of cases) {
    let msg = "";
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof pt.TensorError, String(e));
      msg = e.message;
    }
    assert.match(msg, p);
    assert.doesNotMatch(msg, /pt_\w+|device \d/, "no shim call or device number in the user's message");
  }
});
