/**
 * Ownership (docs/architecture.md, Ownership): `using` and dispose() free at once, views keep their
 * base alive, the FinalizationRegistry frees what the program dropped, a device close
 * invalidates old tensors, memory statistics add up, and fromBuffer shares host memory.
 * Deno needs --v8-flags=--expose-gc for the GC-driven tests.
 */
import * as pt from "../mod.ts";
import { copyInto } from "../src/tensor/elementwise.ts";
import { assert, assertTensorError, test } from "./harness.ts";

const g = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const inOwnTask = (fn: () => void) => new Promise<void>((resolve) => setTimeout(() => (fn(), resolve()), 0));
/**
 * Runs fn in a macrotask of its own, then makes and disposes other tensors in another. Bun's
 * collector (JavaScriptCore) can keep the last objects fn made alive for dozens of GCs
 * (conservative stack scanning; cells in the block being allocated from): measured, a batch
 * of 500 dropped tensors left a few alive for 29 GC rounds in ~1 run of 4, while batches of
 * 3,000 or more, followed by these other allocations, were freed in one round every time.
 */
async function dropInOwnTask(fn: () => void): Promise<void> {
  await inOwnTask(fn);
  await inOwnTask(() => {
    for (let i = 0; i < 100; i++) pt.zeros([1]).dispose();
  });
}

function forceGC(): void {
  if (g.Bun) g.Bun.gc(true);
  else if (g.gc) g.gc();
  else throw new Error("no way to force a GC: run Deno with --v8-flags=--expose-gc");
}

/** GC, then one macrotask so FinalizationRegistry callbacks run; repeated until done() or `rounds`. */
async function collect(done: () => boolean, rounds = 10): Promise<number> {
  let i = 0;
  for (; i < rounds && !done(); i++) {
    forceGC();
    await tick();
  }
  return i;
}

test("`using` frees a tensor's bytes at the end of its block", () => {
  const base = pt.liveBytes();
  {
    using t = pt.ones([1000]);
    assert.equal(pt.liveBytes(), base + 4000);
    using u = t.add(1).materialize(); // lazy mode would defer the add until nums(u)
    assert.equal(pt.liveBytes(), base + 8000);
    assert.equal(nums(u)[999], 2);
  }
  assert.equal(pt.liveBytes(), base, "both tensors were freed when the block ended");
});

test("dispose() frees at once, is idempotent, and marks the tensor disposed", () => {
  const base = pt.liveBytes();
  const t = pt.zeros([256], { dtype: "float64" });
  assert.equal(pt.liveBytes(), base + 2048);
  assert.equal(t.disposed, false);
  t.dispose();
  assert.equal(pt.liveBytes(), base);
  assert.equal(t.disposed, true);
  t.dispose();
  t[Symbol.dispose]();
  assert.equal(pt.liveBytes(), base, "a second dispose frees nothing more");
  using other = pt.ones([4]); // the released handle must not be released twice into someone else's buffer
  assert.deepEqual(nums(other), [1, 1, 1, 1]);
});

test("a view keeps its base's memory alive; disposing the base first is safe", () => {
  const base = pt.liveBytes();
  const a = pt.arange(6);
  const r = a.reshape(2, 3), s = a.slice(0, 2, 6, 2), p = r.permute(1, 0), row = a.reshape(1, 6), e = row.expand(3, 6);
  row.dispose();
  assert.equal(pt.liveBytes(), base + 24, "views share the base's buffer");
  a.dispose();
  assert.equal(pt.liveBytes(), base + 24, "the views still hold the buffer");
  assert.deepEqual(nums(r), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(nums(s), [2, 4]);
  assert.deepEqual(nums(p), [0, 3, 1, 4, 2, 5]);
  using c = e.contiguous();
  assert.deepEqual(nums(c).slice(6, 12), [0, 1, 2, 3, 4, 5]);
  for (const v of [r, s, p]) v.dispose();
  assert.equal(pt.liveBytes(), base + 24 + 72, "the last view (and the copy) still hold memory");
  e.dispose();
  assert.equal(pt.liveBytes(), base + 72, "disposing the last view freed the base's bytes");
});

test("disposing a view leaves its base readable", () => {
  using a = pt.tensor([[1, 2], [3, 4]]);
  const v = a.T;
  v.dispose();
  assert.deepEqual(nums(a), [1, 2, 3, 4]);
  using w = a.T;
  assert.deepEqual(nums(w), [1, 3, 2, 4]);
});

test("use after dispose throws a TensorError naming the op", () => {
  const t = pt.ones([2]);
  t.dispose();
  for (
    const [op, use] of [
      ["add", () => t.add(1)],
      ["sum", () => t.sum()],
      ["toArray", () => t.toArray()],
      ["reshape", () => t.reshape(2, 1)],
      ["matmul", () => t.matmul(t)],
    ] as const
  ) {
    const before = pt.liveBytes();
    assertTensorError(use, /disposed/, new RegExp(`\\b${op}\\b`));
    assert.equal(pt.liveBytes(), before, `${op} leaked its output`);
  }
});

test("10,000 dropped tensors are freed by the FinalizationRegistry after GC", async () => {
  await collect(() => false, 2); // settle earlier garbage first
  const base = pt.liveBytes();
  await dropInOwnTask(() => {
    for (let i = 0; i < 10_000; i++) pt.ones([4]);
    assert.equal(pt.liveBytes(), base + 160_000, "finalizers never run within the task that dropped the tensors");
  });
  const rounds = await collect(() => pt.liveBytes() === base);
  assert.equal(pt.liveBytes(), base, `after ${rounds} GC rounds ${pt.liveBytes() - base} bytes are still live`);
  using o = pt.ones([3]), t = o.mul(2); // and the library is fine afterwards
  assert.deepEqual(nums(t), [2, 2, 2]);
});

test("a dropped view and its dropped base are both freed by GC", async () => {
  await collect(() => false, 2);
  const base = pt.liveBytes();
  await dropInOwnTask(() => {
    for (let i = 0; i < 3000; i++) pt.arange(8).reshape(2, 4).slice(1, 1, 3);
  });
  const rounds = await collect(() => pt.liveBytes() === base);
  assert.equal(pt.liveBytes(), base, `after ${rounds} GC rounds ${pt.liveBytes() - base} bytes are still live`);
});

test("device close then reopen: tensors from before are rejected clearly and new work succeeds", async () => {
  const dev = pt.defaultDevice();
  const old = pt.tensor([1, 2, 3]), view = old.reshape(3, 1);
  (function dropped() {
    for (let i = 0; i < 100; i++) pt.ones([8]);
  })();
  dev.close();
  assert.equal(dev.isOpen, false);
  assert.equal(pt.liveBytes(), 0, "closing the device freed every buffer on it");
  assertTensorError(() => old.add(1), /closed/, new RegExp(dev.id));
  assertTensorError(() => view.toArray(), /closed/);
  assertTensorError(() => old.reshape(1, 3), /closed/);
  await collect(() => false, 3); // finalizers of pre-close tensors must not touch the new context
  using fresh = pt.tensor([4, 5, 6]);
  assert.equal(dev.isOpen, true, "the device reopened on first use");
  assertTensorError(() => fresh.add(old), /closed/);
  old.dispose(); // disposing stale tensors is a harmless no-op
  view.dispose();
  using sum = fresh.add(fresh);
  assert.deepEqual(nums(sum), [8, 10, 12]);
  assert.equal(pt.liveBytes(), 24);
});

test("memoryStats counts allocations, frees, cache hits and peak; emptyCache empties the cache", () => {
  pt.emptyCache();
  const s0 = pt.memoryStats();
  assert.equal(s0.cached, 0);
  const t = pt.empty([1000]); // 4000 bytes
  const s1 = pt.memoryStats();
  assert.equal(s1.allocations - s0.allocations, 1);
  assert.ok(s1.inUse - s0.inUse >= 4000 && s1.inUse - s0.inUse <= 4096, `inUse grew by ${s1.inUse - s0.inUse}`);
  assert.ok(s1.peak >= s1.inUse);
  t.dispose();
  const s2 = pt.memoryStats();
  assert.equal(s2.inUse, s0.inUse);
  assert.equal(s2.frees - s1.frees, 1);
  assert.ok(s2.cached >= 4000, "the freed block waits in the cache");
  const t2 = pt.empty([1000]);
  const s3 = pt.memoryStats();
  assert.equal(s3.cacheHits - s2.cacheHits, 1, "a same-size request reuses the cached block");
  assert.equal(s3.driverAllocations, s2.driverAllocations);
  t2.dispose();
  const big = pt.empty([1 << 20]); // 4 MiB
  const peak = pt.memoryStats().peak;
  big.dispose();
  assert.ok(peak >= s0.inUse + 4 * 2 ** 20, `peak ${peak} includes the 4 MiB tensor`);
  assert.equal(pt.memoryStats().peak, peak, "peak does not fall when memory is freed");
  assert.ok(pt.memoryStats().cached > 0);
  pt.emptyCache();
  const s4 = pt.memoryStats();
  assert.equal(s4.cached, 0);
  assert.equal(s4.inUse, s0.inUse);
});

test("memoryStats inUse counts allocator blocks (512-byte buckets); liveBytes counts exact sizes", () => {
  const s0 = pt.memoryStats(), live0 = pt.liveBytes();
  using _t = pt.empty([1000]);
  using _u = pt.empty([3], { dtype: "uint8" });
  assert.equal(pt.memoryStats().inUse - s0.inUse, 4096 + 512, "4000 bytes round to 4096, 3 bytes to 512");
  assert.equal(pt.liveBytes() - live0, 4003);
});

test("fromBuffer over an ArrayBuffer shares memory in both directions", () => {
  const ab = new ArrayBuffer(16);
  const arr = new Float32Array(ab);
  arr.set([1, 2, 3, 4]);
  const base = pt.liveBytes();
  using t = pt.fromBuffer(ab, { dtype: "float32", shape: [2, 2], device: "cpu" });
  assert.deepEqual(t.shape, [2, 2]);
  assert.equal(pt.liveBytes(), base + 16);
  assert.deepEqual(nums(t), [1, 2, 3, 4]);
  arr[0] = 10; // JS writes are seen by the tensor
  arr[3] = -4;
  assert.deepEqual(nums(t), [10, 2, 3, -4]);
  using src = pt.tensor([[5, 6], [7, 8]], { device: "cpu" });
  copyInto(t, src, "test"); // device writes land in the JS array
  assert.deepEqual([...arr], [5, 6, 7, 8]);
  using doubled = t.mul(2);
  assert.deepEqual(nums(doubled), [10, 12, 14, 16]);
  using view = t.T; // views of a wrapped tensor share it too
  arr[1] = 60;
  assert.deepEqual(nums(view), [5, 7, 60, 8]);
});

test("fromBuffer over a typed array with a byte offset shares just that window", () => {
  const ab = new ArrayBuffer(32);
  const all = new Int32Array(ab);
  all.set([0, 1, 2, 3, 4, 5, 6, 7]);
  using t = pt.fromBuffer(new Int32Array(ab, 8, 4), { device: "cpu" });
  assert.equal(t.dtype, "int32");
  assert.deepEqual(nums(t), [2, 3, 4, 5]);
  all[2] = 20;
  assert.deepEqual(nums(t), [20, 3, 4, 5]);
  using z = pt.zeros([4], { dtype: "int32", device: "cpu" });
  copyInto(t, z, "test");
  assert.deepEqual([...all], [0, 1, 0, 0, 0, 0, 6, 7], "only the window was written");
});

test("fromBuffer keeps the ArrayBuffer alive while the tensor lives", async () => {
  const make = () => {
    const ab = new ArrayBuffer(1 << 16);
    new Float32Array(ab).fill(3);
    return { t: pt.fromBuffer(ab, { device: "cpu" }), ref: new WeakRef(ab) };
  };
  const { t, ref } = make();
  for (let i = 0; i < 5; i++) {
    forceGC();
    await tick();
    for (let j = 0; j < 20; j++) new Float32Array(1 << 14).fill(-1); // churn so freed memory would be reused
  }
  assert.ok(ref.deref() !== undefined, "the ArrayBuffer was collected while a tensor wrapped it");
  const values = nums(t);
  assert.equal(values.length, 1 << 14);
  assert.ok(values.every((v) => v === 3), "the wrapped memory still holds its values");
  using v = t.slice(0, 0, 4);
  t.dispose();
  forceGC();
  await tick();
  assert.deepEqual(nums(v), [3, 3, 3, 3], "a view of the wrapped tensor keeps the memory alive too");
});

test("a deferred tensor registered in an earlier task, then materialized and disposed, frees its buffer", async () => {
  using x = pt.tensor([1, 2, 3]);
  const base = pt.liveBytes();
  const y = x.add(1); // deferred: no memory of its own yet
  await tick(); // y registers at the end of its task
  assert.deepEqual(nums(y), [2, 3, 4]); // materializes: the registered record now holds the buffer
  assert.equal(pt.liveBytes(), base + 12);
  y.dispose();
  assert.equal(pt.liveBytes(), base, "the materialized buffer was released");
});
