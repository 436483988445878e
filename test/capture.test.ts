/**
 * Captured steps (pt.capture): replay equals eager bit for bit, new input data is used
 * without re-recording, a layout change records again (or throws in strict mode), replays
 * allocate nothing, host reads inside a step and nested captures fail clearly, and
 * disposing a step frees what it held. Runs on the default device (PT_DEVICE).
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, rng, test } from "./harness.ts";

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
  const bv = values(b), colSums = [0, 1, 2, 3, 4, 5].map((j) => [0, 1, 2, 3].reduce((s, i) => s + 2 * bv[i * 6 + j], 0));
  assertClose(values(r), colSums, 1e-6, 1e-6, "2 b summed over rows");
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
  const r = rng(7); // randomTensor's values, computed here
  const want = Array.from({ length: 4 }, () => Math.fround(Math.fround(r() * 4 - 2) + 1));
  assert.deepEqual(values(after), want);
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

test("a long step replays right, also several times in a row before a read", () => {
  // More launches than one Vulkan batch holds (512), so a recording spans several params chunks.
  using w = randomTensor(10, [4, 4]);
  const long = (t: pt.Tensor) => {
    let y = t;
    for (let i = 0; i < 260; i++) y = y.matmul(w).tanh().add(0.25);
    return y;
  };
  using step = pt.capture(long);
  using x = randomTensor(11, [2, 4]);
  step(x).dispose();
  for (let i = 0; i < 2; i++) step(x).dispose();
  using got = step(x);
  using want = long(x);
  assert.deepEqual(values(got), values(want));
  assert.equal(step.replays, 3);
});

test("devices whose driver records steps itself report the graphs capability", () => {
  const dev = pt.defaultDevice();
  // CUDA and HIP report it when their runtime has the graph API; the CPU and Metal replay a list.
  const native: Record<string, boolean> = { vulkan: true, cpu: false, metal: false };
  if (dev.backend in native) assert.equal(dev.has("graphs"), native[dev.backend], `${dev.id} graphs`);
});

test("a step recorded inside withQueue records on that queue and replays on the caller's queue", () => {
  using q = pt.queue();
  using step = pt.capture((a: pt.Tensor, b: pt.Tensor) => a.mul(b).add(1));
  pt.withQueue(q, () => {
    using a = pt.tensor([1, 2, 3]), b = pt.tensor([4, 5, 6]);
    using r = step(a, b);
    assert.deepEqual(values(r), [5, 11, 19], "the recording call");
    using c = pt.tensor([2, 2, 2]);
    using r2 = step(c, b);
    assert.deepEqual(values(r2), [9, 11, 13], "a replay on the same queue uses the new input");
  });
  using x = pt.tensor([1, 1, 1]);
  using r3 = step(x, x);
  assert.deepEqual(values(r3), [2, 2, 2], "a replay on the default queue uses the new inputs");
  assert.equal(step.recordings, 1);
  assert.equal(step.replays, 2);
});

test("work sent to another queue while a step records is an error", () => {
  using q = pt.queue();
  using a = pt.tensor([1, 2, 3]);
  using step = pt.capture((x: pt.Tensor) => pt.withQueue(q, () => pt.eager(() => x.add(1))));
  assertTensorError(() => step(a), /another queue/);
});

test("a step's own intermediates are disposed once it is recorded; its results and inputs stay", () => {
  using x = randomTensor(11, [16]);
  let made: pt.Tensor | null = null;
  using step = pt.capture((t: pt.Tensor) => {
    made = t.mul(2).materialize(); // a real buffer in either mode
    return made.add(1);
  });
  using y = step(x);
  assert.ok(made!.disposed, "the intermediate was disposed after recording");
  assert.ok(!y.disposed && !x.disposed);
  const r = rng(11), want = Array.from({ length: 16 }, () => Math.fround(Math.fround(Math.fround(r() * 4 - 2) * 2) + 1));
  assert.deepEqual(values(y), want);
  using y2 = step(x); // the replay still writes through the recorded intermediate's buffer
  assert.deepEqual(values(y2), want);
});
