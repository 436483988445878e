/**
 * Queues (docs/architecture.md, Queues and completions): several per device; withQueue scopes where work goes and
 * restores the previous queue, also on throw; a tensor written on queue A and read on queue
 * B sees A's writes through a device-side wait, with no host wait (on devices whose
 * launches are asynchronous the enqueue of the consumer returns while the producer still
 * runs); memory a disposed tensor gave back, reused by another queue through the caching
 * allocator, is not written there before the first queue's work on it is done (the core
 * orders the reuse on the device); disposal and device close are handled clearly. Runs on
 * the default device.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const dev = () => pt.defaultDevice();

test("withQueue routes work on its device to the queue, nests, and restores the previous queue, also on throw", () => {
  const d = dev();
  using a = pt.queue(d);
  using b = pt.queue(d);
  const outer = pt.currentQueue(d);
  assert.equal(outer, pt.defaultQueue(d));
  assert.equal(outer.isDefault, true);
  pt.withQueue(a, () => {
    assert.equal(pt.currentQueue(d), a);
    pt.withQueue(b, () => assert.equal(pt.currentQueue(d), b));
    assert.equal(pt.currentQueue(d), a, "the inner scope restored the outer queue");
    pt.withQueue(pt.defaultQueue(d), () => assert.equal(pt.currentQueue(d), pt.defaultQueue(d)));
  });
  assert.equal(pt.currentQueue(d), outer);
  assert.throws(() =>
    pt.withQueue(a, () => {
      throw new Error("boom");
    }), /boom/);
  assert.equal(pt.currentQueue(d), outer, "restored after a throw");
  assert.equal(a.run(() => 42), 42, "run returns fn's result");
});

/** y = I @ y, `k` times over an n x n pattern of small integers: exact, and slow when k and n are large. */
function producer(eye: pt.Tensor, y0: pt.Tensor, k: number): pt.Tensor {
  let y = y0.matmul(eye);
  for (let i = 1; i < k; i++) {
    const next = eye.matmul(y);
    y.dispose();
    y = next;
  }
  return y;
}

function pattern(n: number): Float32Array {
  const host = new Float32Array(n * n);
  for (let i = 0; i < host.length; i++) host[i] = (i * 7 + (i >> 5)) % 11;
  return host;
}

/** Column sums of pattern(n) viewed as n x n. */
function patternColumnSums(n: number): number[] {
  const host = pattern(n), want = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) want[j] += host[i * n + j];
  return want;
}

const calibrated = new Map<string, { n: number; k: number; ms: number }>();

/** Sizes that make producer() take at least 40 ms of device time on q's device (measured once per device, each size warm). */
async function slowProducer(q: pt.Queue): Promise<{ n: number; k: number; ms: number }> {
  const known = calibrated.get(q.device.id);
  if (known) return known;
  let n = 128, k = 2, ms = 0;
  for (let round = 0; round < 12; round++) {
    using eye = pt.eye(n);
    using y0 = pt.tensor(pattern(n)).reshape(n, n);
    // An untimed run first: the first matmul of a process may load cuBLAS (about a second on
    // the H200), and the device's clock runs on while the host does, so a timed first run
    // reads as slow work and the calibration would stop at a producer that is really fast.
    producer(eye, y0, k).dispose();
    await q.done();
    ms = await q.time(() => producer(eye, y0, k).dispose());
    if (ms >= 40) break;
    if (n < 2048) n *= 2;
    else k *= 2;
  }
  const r = { n, k, ms };
  calibrated.set(q.device.id, r);
  return r;
}

test("a tensor written on queue A and read on queue B sees A's writes, with no host wait on the enqueue", async () => {
  const d = dev();
  using qa = pt.queue(d);
  using qb = pt.queue(d);
  const { n, k, ms } = await slowProducer(qa);
  using eye = pt.eye(n);
  using y0 = pt.tensor(pattern(n)).reshape(n, n);
  pt.withQueue(qb, () => y0.sum(0)).dispose(); // compiles the consumer's kernel now, not inside the timed enqueue
  await qb.done();
  // Drains the default queue. A kernel failure another test's op already reported waits for
  // the queue's next completion (queue.ts), so this sync point takes it and lets it go.
  await pt.defaultQueue(d).done().catch(() => {});

  const y = pt.withQueue(qa, () => producer(eye, y0, k));
  using produced = qa.record();
  const pendingAfterProducer = produced.status === "pending";
  const t0 = performance.now();
  const colSums = pt.withQueue(qb, () => y.sum(0)); // the consumer, launched on B
  const enqueueMs = performance.now() - t0;
  const pendingAfterConsumer = produced.status === "pending";
  using consumed = qb.record();

  if (d.has("async_launch")) assert.ok(pendingAfterProducer, `the producer (${ms.toFixed(1)} ms) was still running after its enqueue`);
  if (pendingAfterProducer) {
    assert.ok(pendingAfterConsumer, `the consumer's enqueue (${enqueueMs.toFixed(2)} ms) returned before the producer finished`);
  } else {
    console.log(`queues: launches on ${d.id} ran at enqueue (producer ${ms.toFixed(1)} ms); only the result is checked`);
  }
  await consumed.wait();
  y.dispose();
  assert.equal(produced.status, "passed", "B's work passed only after A's, which it waited for on the device");
  assert.deepEqual(nums(colSums), patternColumnSums(n), `column sums of the ${n}x${n} product after ${k} matmuls`);
  colSums.dispose();
});

test("memory a disposed tensor gave back is not overwritten on another queue before the queue that read it is done, with no host wait", async () => {
  const d = dev();
  using qa = pt.queue(d);
  using qb = pt.queue(d);
  const { n, k, ms } = await slowProducer(qa);
  using eye = pt.eye(n);
  using y0 = pt.tensor(pattern(n)).reshape(n, n);
  const xFlat = pt.tensor(pattern(n)), x = xFlat.reshape(n, n); // X: read on A behind the slow work, then disposed
  // B's inputs are its own (no tensor is shared with A, so nothing but the allocator links the two queues);
  // one warm-up compiles B's kernel and leaves B's inputs on B.
  using minusOnes = pt.full([n, n], -1);
  using eyeB = pt.eye(n);
  pt.withQueue(qb, () => minusOnes.matmul(eyeB)).dispose();
  pt.withQueue(qa, () => x.sum(0)).dispose(); // compiles A's reader now, not behind the producer
  await qb.done();
  await qa.done();

  const [y, colSums] = pt.withQueue(qa, () => {
    const p = producer(eye, y0, k);
    return [p, x.sum(0)]; // A reads X only once the slow producer is done
  });
  using readX = qa.record();
  x.dispose();
  xFlat.dispose(); // X's memory goes back to the cache while A's read of it is still queued
  const hits = pt.memoryStats(d).cacheHits;
  const t0 = performance.now();
  const overwrite = pt.withQueue(qb, () => minusOnes.matmul(eyeB)); // a same-size result on B: X's block, written with -1
  qb.flush(); // where launches are batched, B's work is submitted before A's: unordered, it would run first
  const enqueueMs = performance.now() - t0;
  const pendingAfterB = readX.status === "pending";
  assert.ok(pt.memoryStats(d).cacheHits > hits, "B's result took a block from the cache (X's, the last one freed)");
  using overwritten = qb.record();

  if (d.has("async_launch")) {
    assert.ok(
      pendingAfterB,
      `A's work (${ms.toFixed(1)} ms) still ran after B's enqueue (${enqueueMs.toFixed(2)} ms): B waits on the device`,
    );
  } else if (!pendingAfterB) {
    console.log(`queues: launches on ${d.id} ran at enqueue (producer ${ms.toFixed(1)} ms); only the values are checked`);
  }
  await overwritten.wait();
  assert.equal(readX.status, "passed", "B's write waited for A's read of the same memory");
  assert.deepEqual(nums(colSums), patternColumnSums(n), "A's read of X saw X's values, not B's -1s");
  using s = overwrite.sum();
  assert.equal(s.item(), -n * n, "B's write landed");
  for (const t of [y, colSums, overwrite]) t.dispose();
});

test("work on a new queue sees tensors the default queue wrote, before and after the queue was made", async () => {
  const d = dev();
  using early = pt.arange(0, 64).mul(3).sum(); // on the default queue before any other queue exists
  using q = pt.queue(d);
  using late = pt.arange(0, 64).mul(5).sum(); // on the default queue while q exists
  const [a, b] = pt.withQueue(q, () => [early.add(1), late.add(2)]);
  await q.done();
  assert.deepEqual(nums(a), [3 * 2016 + 1]);
  assert.deepEqual(nums(b), [5 * 2016 + 2]);
  a.dispose();
  b.dispose();
});

test("readbacks and uploads inside withQueue go to its queue and see its work", () => {
  const d = dev();
  using q = pt.queue(d);
  const got = pt.withQueue(q, () => {
    using x = pt.tensor([1, 2, 3, 4]);
    using y = x.mul(x).sum();
    return y.item();
  });
  assert.equal(got, 30);
});

test("a disposed queue's work stays ordered before later reads on the default queue", () => {
  const d = dev();
  const q = pt.queue(d);
  const r = pt.withQueue(q, () => pt.arange(0, 1000).reshape(10, 100).sum(1));
  q.dispose();
  q.dispose(); // idempotent
  assert.equal(q.disposed, true);
  const want = Array.from({ length: 10 }, (_, i) => 100 * (100 * i) + 4950);
  assert.deepEqual(nums(r), want);
  r.dispose();
  assertTensorError(() => pt.withQueue(q, () => 0), /disposed/);
  assertTensorError(() => q.record(), /disposed/);
  pt.defaultQueue(d).dispose(); // a default queue cannot be disposed: a no-op
  assert.equal(pt.defaultQueue(d).disposed, false);
});

test("queues of a closed device are rejected clearly; new queues work after the reopen", async () => {
  const d = dev();
  const q = pt.queue(d);
  using before = q.record();
  await before.wait();
  d.close();
  assertTensorError(() => q.record(), /closed/, new RegExp(d.id));
  assertTensorError(() => pt.withQueue(q, () => 0), /closed/);
  assert.equal(before.query(), true, "a completion that passed before the close stays passed");
  q.dispose(); // disposing a stale queue is a harmless no-op
  using fresh = pt.queue(d);
  const v = pt.withQueue(fresh, () => {
    using t = pt.tensor([2, 3]);
    using s = t.mul(t).sum();
    return s.item();
  });
  assert.equal(v, 13);
  await fresh.done();
});

test("time() gives the device milliseconds of fn's work and rejects an async fn", async () => {
  const d = dev();
  using q = pt.queue(d);
  using x = pt.ones([256, 256]);
  const ms = await q.time(() => x.matmul(x).dispose());
  // A 256x256 matmul (33 MFLOP) takes some device time, and far less than a minute even on a loaded software device.
  assert.ok(Number.isFinite(ms) && ms > 0 && ms < 60_000, `a matmul took ${ms} ms`);
  const empty = await q.time(() => {});
  assert.ok(Number.isFinite(empty) && empty >= 0 && empty < 60_000, `an empty block took ${empty} ms`);
  await assert.rejects(q.time((() => Promise.resolve()) as unknown as () => void), /synchronous/);
  await assert.rejects(
    q.time(() => {
      throw new Error("inside");
    }),
    /inside/,
  );
  assert.equal(pt.currentQueue(d).isDefault, true, "time() left no scope behind");
});

test("elapsedSince needs both completions passed and names what is missing", async () => {
  const d = dev();
  using q = pt.queue(d);
  using a = q.record();
  using x = pt.withQueue(q, () => pt.ones([64]).add(1).sum());
  using b = q.record();
  await b.wait();
  assert.ok(b.elapsedSince(a) >= 0);
  assert.equal(x.item(), 128);
  const c = q.record();
  c.dispose();
  assertTensorError(() => c.elapsedSince(a), /disposed/);
});

test("a device-side wait is inserted exactly where a buffer changes queues, and none while one queue does the work", () => {
  const d = dev();
  const waits = () => pt.memoryStats(d).queueWaits;
  using x = pt.arange(0, 16);
  const w = waits();
  using y0 = x.cumsum(0).sum(); // one queue: nothing to wait for
  assert.equal(y0.item(), 680);
  assert.equal(waits(), w, "work on one queue inserts no wait");
  const qa = pt.queue(d), qb = pt.queue(d);
  // Each new queue first uses a default-queue buffer, so it waits once for everything the default queue has
  // queued; memory from the cache (last used there) then needs no further wait, and the counts below are exact.
  // (Kept alive to the end: memory freed on one queue and taken by another would cost a wait of its own.)
  using _wa = pt.withQueue(qa, () => x.cumsum(0));
  using z = pt.arange(0, 4);
  using _wb = pt.withQueue(qb, () => z.cumsum(0)); // not x, which would then move from qb to qa below
  assert.equal(waits(), w + 2, "a queue's first use of another queue's buffer costs one device-side wait");
  const w0 = waits();
  // cumsum and sum launch at once (elementwise ops may be deferred, so none is used here).
  const a = pt.withQueue(qa, () => x.cumsum(0));
  const a2 = pt.withQueue(qa, () => a.cumsum(0)); // a stays on qa: no wait
  assert.equal(waits(), w0, "reusing a queue's own output needs no wait");
  const b = pt.withQueue(qb, () => a2.cumsum(0)); // a2 moves from qa to qb: one wait
  assert.equal(waits(), w0 + 1, "a buffer moving to another queue costs one device-side wait");
  const c = pt.withQueue(qb, () => b.sum()); // already on qb
  assert.equal(waits(), w0 + 1);
  let s1 = 0, s2 = 0, s3 = 0, total = 0;
  for (let i = 0; i < 16; i++) {
    s1 += i;
    s2 += s1;
    s3 += s2;
    total += s3;
  }
  assert.equal(c.item(), total, "the default queue's read of c waited for qb");
  assert.equal(waits(), w0 + 2, "the default queue's read of c waited for qb on the device");
  for (const t of [a, a2, b, c]) t.dispose();
  qa.dispose();
  qb.dispose();
});

test("a wrapped host buffer moving between queues is ordered like an allocated one", () => {
  const waits = () => pt.memoryStats("cpu").queueWaits;
  const host = new Float32Array(new ArrayBuffer(16));
  host.set([1, 2, 3, 4]);
  using t = pt.fromBuffer(host, { device: "cpu" });
  using q = pt.queue("cpu");
  using z = pt.zeros([4], { device: "cpu" });
  using _warm = pt.withQueue(q, () => z.cumsum(0)); // q has waited for the default queue once
  const w = waits();
  using s = pt.withQueue(q, () => t.cumsum(0)); // t has not been used yet: nothing to wait for
  assert.equal(waits(), w);
  using u = t.cumsum(0); // t was last used on q: the default queue waits for it
  assert.equal(waits(), w + 1, "the default queue waited for q's use of the wrapped buffer");
  assert.deepEqual([...s.toArray()], [1, 3, 6, 10]);
  assert.deepEqual([...u.toArray()], [1, 3, 6, 10]);
});

test("await data() of a tensor written on another queue resolves with its values; a disposed tensor's rejects naming data", async () => {
  const d = dev();
  using q = pt.queue(d);
  using eye = pt.eye(64);
  using m = pt.arange(0, 4096).reshape(64, 64);
  using x = pt.withQueue(q, () => m.matmul(eye).sum(0));
  const values = await x.data(); // polls a fence on the default queue, which waits for q on the device
  const want = Array.from({ length: 64 }, (_, j) => 64 * j + 64 * 63 * 64 / 2);
  assert.deepEqual(Array.from(values as Float32Array), want);
  const y = pt.tensor([1, 2]);
  y.dispose();
  await assert.rejects(y.data(), /data: .*disposed/);
});
