/**
 * pt.compareBackends: runs a function on two devices (the CPU and the default device, the
 * same one when no other exists) and names the first op whose outputs differ.
 */
import * as pt from "../mod.ts";
import { assert, test } from "./harness.ts";

const other = pt.defaultDevice();

function pipeline(d: pt.Device, bump = 0): pt.Tensor {
  pt.manualSeed(7);
  using x = pt.rand([64, 8], { device: d });
  using y = x.mul(3).add(-1);
  using s = y.sort(1).values;
  using m = s.matmul(pt.ones([8, 4], { device: d }));
  using z = m.add(bump); // the op a test below makes differ
  return z.sum(0);
}

test("compareBackends finds no difference when every op agrees", () => {
  const r = pt.compareBackends((d) => pipeline(d), "cpu", other);
  assert.equal(r.firstDifference, null, r.firstDifference?.message ?? "");
  assert.ok(r.ops >= 6, `traced ${r.ops} ops`);
});

test("compareBackends runs fn on both devices, whose results match values worked out by hand", () => {
  const results: number[][] = [];
  const r = pt.compareBackends(
    (d) => {
      using x = pt.tensor([[3, -1, 2], [0.5, 4, -2]], { device: d });
      using y = x.mul(2).add(1); // [[7, -1, 5], [2, 9, -3]]
      using s = y.sort(1).values; // [[-1, 5, 7], [-3, 2, 9]]
      using w = pt.ones([3, 2], { device: d });
      using m = s.matmul(w); // row sums: [[11, 11], [8, 8]]
      using z = m.sum(0);
      results.push(Array.from(z.toArray() as Float32Array));
    },
    "cpu",
    other,
  );
  assert.equal(r.firstDifference, null, r.firstDifference?.message ?? "");
  assert.deepEqual(results, [[19, 19], [19, 19]], "each device's run gives 19, 19");
  assert.ok(r.ops >= 5, `traced ${r.ops} ops`);
});

test("compareBackends names the first op whose outputs differ, and where", () => {
  let run = 0; // the second run adds 0.5 in its fifth op
  const r = pt.compareBackends((d) => pipeline(d, run++ === 0 ? 0 : 0.5), "cpu", "cpu");
  const diff = r.firstDifference;
  assert.ok(diff !== null, "a difference is reported");
  assert.equal(diff.op, "add");
  assert.equal(diff.element, 0);
  assert.ok(Math.abs(diff.b - diff.a - 0.5) < 1e-5, `${diff.a} vs ${diff.b}`);
  assert.match(diff.message, /differs at element 0/);
});
