/**
 * Captured steps (pt.capture): replay equals eager bit for bit, new input data is used
 * without re-recording, a layout change records again (or throws in strict mode), replays
 * allocate nothing, host reads inside a step and nested captures fail clearly, and
 * disposing a step frees what it held. Runs on the default device (PT_DEVICE).
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, rng, test } from "./harness.ts";

function values(t: pt.Tensor): number[] {
  return Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
}

function randomTensor(seed: number, shape: number[]): pt.Tensor {
  const r = rng(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  return pt.tensor(Float32Array.from({ length: n }, () => r() * 4 - 2)).reshape(shape);
}

/** A step with elementwise work, a broadcast, a reduction, a matmul and a sort. */
function work(x: pt.Tensor, w: pt.Tensor): pt.Tensor[] {
  using h = x.matmul(w);
  using a = h.mul(1.5).add(x.sum(1, true)).relu();
  const s = a.sort(1).values;
  return [a.tanh(), s, a.max(0)];
}

test("a replayed step gives the same bits as running it eagerly, with new input data", () => {
  using w = randomTensor(1, [6, 6]);
  using step = pt.capture(work);
  for (let call = 0; call < 4; call++) {
    using x = randomTensor(100 + call, [5, 6]);
    const got = step(x, w).map(values);
    const want = work(x, w).map((t) => {
      const v = values(t);
      t.dispose();
      return v;
    });
    got.forEach((v, k) => assert.deepEqual(v, want[k], `call ${call} output ${k}`));
  }
  assert.equal(step.recordings, 1, "one recording");
  assert.equal(step.replays, 3, "three replays");
});

test("replays allocate nothing once the step is recorded", () => {
  using x = randomTensor(2, [5, 6]);
  using w = randomTensor(3, [6, 6]);
  using step = pt.capture(work);
  for (const t of step(x, w)) t.dispose();
  const before = pt.memoryStats().allocations;
  for (let i = 0; i < 5; i++) for (const t of step(x, w)) t.dispose();
  assert.equal(pt.memoryStats().allocations, before, "no allocation during replays");
});

test("inputs of another shape record the step again; strict mode refuses them", () => {
  using w = randomTensor(4, [6, 6]);
  using step = pt.capture((x: pt.Tensor) => x.mul(2).sum(0));
  using a = randomTensor(5, [3, 6]);
  using b = randomTensor(6, [4, 6]);
  step(a).dispose();
  using r = step(b);
  assert.deepEqual(values(r), values(b.mul(2).sum(0)));
  assert.equal(step.recordings, 2);
  using strict = pt.capture((x: pt.Tensor) => x.matmul(w), { strict: true });
  strict(a).dispose();
  assertTensorError(() => strict(b), /capture/, /strict/);
});

test("reading values on the host inside a captured step is an error naming the op", () => {
  using x = randomTensor(7, [4]);
  using step = pt.capture((t: pt.Tensor) => t.add(t.sum().item()));
  assertTensorError(() => step(x), /item|toArray/, /captur/);
  using after = x.add(1); // the device works normally afterwards
  assert.equal(values(after).length, 4);
});

test("capturing inside a captured step is an error", () => {
  using x = randomTensor(8, [4]);
  using inner = pt.capture((t: pt.Tensor) => t.mul(3));
  using outer = pt.capture((t: pt.Tensor) => inner(t).add(1));
  assertTensorError(() => outer(x), /capture/, /nest/);
});

test("disposing a step frees its buffers; a disposed step refuses calls", () => {
  using x = randomTensor(9, [64]);
  const base = pt.liveBytes();
  const step = pt.capture((t: pt.Tensor) => t.mul(2).add(1));
  step(x).dispose();
  assert.ok(pt.liveBytes() > base, "the recording holds its output");
  step.dispose();
  assert.equal(pt.liveBytes(), base, "dispose freed the recording");
  assertTensorError(() => step(x), /disposed/);
});
