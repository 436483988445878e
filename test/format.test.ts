/** formatTensor: PyTorch-like repr strings. */
import * as pt from "../mod.ts";
import { formatTensor } from "../src/tensor/format.ts";
import { assert, test } from "./harness.ts";

function fmt(data: pt.NestedArray, dtype?: pt.DType): { text: string; dev: string } {
  using t = pt.tensor(data, dtype ? { dtype } : undefined);
  return { text: formatTensor(t), dev: t.device.id };
}

test("a 2-D float tensor prints one row per line with 4 decimals, dtype and device", () => {
  const { text, dev } = fmt([[1, 2], [3, 4.5]]);
  assert.equal(text, `tensor([[1.0000, 2.0000],\n        [3.0000, 4.5000]], dtype=float32, device=${dev})`);
});

test("ints print without decimals, right-aligned; bools as true/false", () => {
  const a = fmt([-1, 10, 5], "int32");
  assert.equal(a.text, `tensor([-1, 10,  5], dtype=int32, device=${a.dev})`);
  const b = fmt([3n, -9007199254740993n]);
  assert.equal(b.text, `tensor([                3, -9007199254740993], dtype=int64, device=${b.dev})`);
  const c = fmt([true, false]);
  assert.equal(c.text, `tensor([ true, false], dtype=bool, device=${c.dev})`);
  const d = fmt([0, 255], "uint8");
  assert.equal(d.text, `tensor([  0, 255], dtype=uint8, device=${d.dev})`);
});

test("NaN and infinities print as nan, inf and -inf", () => {
  const { text, dev } = fmt([1.5, NaN, Infinity, -Infinity]);
  assert.equal(text, `tensor([1.5000,    nan,    inf,   -inf], dtype=float32, device=${dev})`);
});

test("widely spread, tiny or huge magnitudes switch to scientific notation", () => {
  const a = fmt([1e-5, 1], "float64");
  assert.equal(a.text, `tensor([1.0000e-05, 1.0000e+00], dtype=float64, device=${a.dev})`);
  const b = fmt([2e9, -3e9], "float64");
  assert.equal(b.text, `tensor([ 2.0000e+09, -3.0000e+09], dtype=float64, device=${b.dev})`);
  const c = fmt([0, 0.25, -100]);
  assert.equal(c.text, `tensor([   0.0000,    0.2500, -100.0000], dtype=float32, device=${c.dev})`);
});

test("0-d tensors print the bare value; empty tensors print [] and their shape", () => {
  const a = fmt(2.5);
  assert.equal(a.text, `tensor(2.5000, dtype=float32, device=${a.dev})`);
  using e = pt.zeros([0]);
  assert.equal(formatTensor(e), `tensor([], dtype=float32, device=${e.device.id})`);
  using e2 = pt.zeros([2, 0], { dtype: "int32" });
  assert.equal(formatTensor(e2), `tensor([[],\n        []], dtype=int32, device=${e2.device.id}, shape=[2, 0])`);
});

test("3-D tensors separate their 2-D blocks with a blank line", () => {
  const { text, dev } = fmt([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], "int32");
  assert.equal(text, `tensor([[[1, 2],\n         [3, 4]],\n\n        [[5, 6],\n         [7, 8]]], dtype=int32, device=${dev})`);
});

test("strided tensors print their logical values (transpose, slice)", () => {
  using t = pt.tensor([[1, 2, 3], [4, 5, 6]], { dtype: "int32" });
  using tt = t.T;
  assert.equal(formatTensor(tt), `tensor([[1, 4],\n        [2, 5],\n        [3, 6]], dtype=int32, device=${t.device.id})`);
  using s = t.slice(1, 0, 3, 2);
  assert.equal(formatTensor(s), `tensor([[1, 3],\n        [4, 6]], dtype=int32, device=${t.device.id})`);
});

test("more than 1000 elements are abbreviated to 3 items at each end per dim, with the shape", () => {
  using a = pt.arange(0, 2000, 1, { dtype: "int32" });
  assert.equal(formatTensor(a), `tensor([   0,    1,    2, ..., 1997, 1998, 1999], dtype=int32, device=${a.device.id}, shape=[2000])`);
  using flat = pt.arange(0, 40 * 33, 1, { dtype: "int32" });
  using m = flat.reshape([40, 33]);
  const rows = [0, 1, 2, 37, 38, 39].map((r) => [0, 1, 2, 30, 31, 32].map((c) => String(r * 33 + c).padStart(4)));
  const line = (r: string[]) => `[${r.slice(0, 3).join(", ")}, ..., ${r.slice(3).join(", ")}]`;
  const body = [...rows.slice(0, 3).map(line), "...", ...rows.slice(3).map(line)].join(",\n        ");
  assert.equal(formatTensor(m), `tensor([${body}], dtype=int32, device=${m.device.id}, shape=[40, 33])`);
  using small = pt.arange(0, 1000, 1, { dtype: "int32" });
  assert.ok(!formatTensor(small).includes("..."), "1000 elements print in full");
});

test("long rows wrap before 80 columns and keep every value", () => {
  using t = pt.arange(0, 30, 1, { dtype: "float32" });
  const text = formatTensor(t);
  const lines = text.split("\n");
  assert.ok(lines.length > 1, "a 30-float row should wrap");
  for (const l of lines.slice(0, -1)) assert.ok(l.length <= 80, `line too long: ${l}`);
  assert.deepEqual(text.match(/\d+\.0000/g)?.map(Number), Array.from({ length: 30 }, (_, i) => i));
  assert.ok(lines.slice(1).every((l) => l.startsWith("        ")), "continuation lines align under the first item");
});

test("a disposed tensor formats without throwing; toString and inspect use the same text", () => {
  const t = pt.tensor([[1, 2], [3, 4]]);
  const live = formatTensor(t);
  assert.equal(String(t), live);
  assert.equal(`${t}`, live);
  t.dispose();
  assert.equal(formatTensor(t), "tensor(<disposed>, dtype=float32, shape=[2, 2])");
  assert.equal(String(t), "tensor(<disposed>, dtype=float32, shape=[2, 2])");
});

test("half-precision tensors print their widened values", () => {
  using t = pt.tensor([0.5, -1.25, 3], { dtype: "float16" });
  assert.equal(formatTensor(t), `tensor([ 0.5000, -1.2500,  3.0000], dtype=float16, device=${t.device.id})`);
});

test("formatting frees the summary copies it makes", () => {
  using big = pt.zeros([50, 60, 7]);
  const before = pt.liveBytes();
  for (let k = 0; k < 3; k++) formatTensor(big);
  assert.equal(pt.liveBytes(), before);
});

test("JSON.stringify writes the values as nested lists: int64 as numbers when exact and as strings beyond 2^53, bools as booleans, NaN as null", () => {
  using f = pt.tensor([[1.5, -2], [NaN, Infinity]]);
  assert.equal(JSON.stringify(f), "[[1.5,-2],[null,null]]");
  using big = pt.tensor([2n ** 60n + 1n, -(2n ** 53n), 2n ** 53n - 1n, 7n]);
  assert.equal(JSON.stringify(big), '["1152921504606846977","-9007199254740992",9007199254740991,7]');
  using b = pt.tensor([true, false]), i = pt.tensor([3, 200], { dtype: "uint8" }), h = pt.tensor([0.1], { dtype: "float16" });
  assert.equal(JSON.stringify({ b, i, h }), '{"b":[true,false],"i":[3,200],"h":[0.0999755859375]}');
  using z = pt.tensor(4).reshape([]), e = pt.zeros([2, 0]), lazy = f.mul(2);
  assert.equal(JSON.stringify(z), "4");
  assert.equal(JSON.stringify(e), "[[],[]]");
  assert.equal(JSON.stringify(lazy), "[[3,-4],[null,null]]");
  assert.deepEqual(JSON.parse(JSON.stringify(big)), big.toJSON());
  const gone = pt.ones([2]);
  gone.dispose();
  assert.throws(() => JSON.stringify(gone), /toJSON: .*disposed/);
});
