/**
 * Completions (docs/architecture.md, Queues and completions): a completion passes when the work before it on
 * its queue has finished; its outcome is sticky. A completion covering a failed kernel
 * fails, whether the failure surfaced at launch (devices that run work at once, ops that
 * settle) or only on the device, and it stays failed however often it is polled, after
 * later errors, after later successes and after a device close. A completion with no work
 * after a failure still carries it, and so does an empty tensor's readback. Runs on the
 * default device; the kernel that fails on the device without a host wait is launched
 * through the internal template path, as an op without its settle would be.
 */
import * as pt from "../mod.ts";
import { runTemplate } from "../src/kernels/launch.ts";
import { allocTensor } from "../src/tensor/tensor.ts";
import { assert, assertTensorError, test } from "./harness.ts";

const dev = () => pt.defaultDevice();
const idx = (v: number[]) => pt.tensor(v, { dtype: "int32" });

/** Expects c to be failed with a TensorError matching every pattern; returns the error. */
function assertFailed(c: pt.Completion, ...patterns: RegExp[]): pt.TensorError {
  assert.equal(c.status, "failed");
  const e = c.error;
  assert.ok(e instanceof pt.TensorError, "a failed completion carries a TensorError");
  for (const p of patterns) assert.match(e.message, p);
  assertTensorError(() => c.query(), ...patterns);
  return e;
}

test("a completion after healthy work passes, stays passed, and a completion with no work passes", async () => {
  using q = pt.queue(dev());
  using empty = q.record();
  await empty.wait();
  assert.equal(empty.status, "passed");
  using x = pt.withQueue(q, () => pt.arange(0, 100).sum());
  using c = q.record();
  await c.wait();
  for (let i = 0; i < 5; i++) assert.equal(c.query(), true);
  assert.equal(c.error, undefined);
  await q.done();
  assert.equal(x.item(), 4950);
});

test("a failing gather fails the completion that covers it; polling again and after later errors gives the same failure", async () => {
  const d = dev();
  using q = pt.queue(d);
  using before = q.record(); // covers nothing that fails
  using x = pt.tensor([1, 2, 3]);
  using bad = idx([5]);
  assertTensorError(() => pt.withQueue(q, () => x.gather(0, bad)), /gather/, /5/, /out of range/);
  using failed = q.record(); // no work between the failure and this completion: it still carries the failure
  const first = assertFailed(failed, /gather/, /index 5 is out of range/);
  await assert.rejects(failed.wait(), (e: Error) => e === first, "wait() rejects with the same error");
  for (let i = 0; i < 20; i++) assert.throws(() => failed.query(), (e: Error) => e === first);

  // Later errors of other kinds and of the same kind do not change it.
  using seven = idx([7]);
  assertTensorError(() => pt.withQueue(q, () => seven.mod(0)), /mod/);
  using second = q.record();
  assertFailed(second, /mod|division|by zero/);
  assertTensorError(() => pt.device("cpu:99"), /does not exist/);
  assert.equal(failed.error, first, "the first completion still reports the gather, not the later mod");
  assert.throws(() => failed.query(), (e: Error) => e === first);

  // Later healthy work passes, and neither earlier outcome changes.
  using y = pt.withQueue(q, () => x.gather(0, idx([2, 0])));
  using healthy = q.record();
  await healthy.wait();
  assert.equal(healthy.status, "passed");
  assert.deepEqual(Array.from(y.toArray() as Float32Array), [3, 1]);
  assert.equal(before.query(), true, "a completion from before the failure stays passed");
  assertFailed(failed, /index 5 is out of range/);
});

test("a failure on the default queue fails its completion; a disposed or closed completion keeps its outcome", async () => {
  const d = dev();
  const dq = pt.defaultQueue(d);
  using x = pt.tensor([[1, 2], [3, 4]]);
  await dq.done().catch(() => {}); // start clean: takes a failure another test's op left for the next completion
  assertTensorError(() => x.indexSelect(1, idx([-9])), /indexSelect/);
  const failed = dq.record();
  assertFailed(failed, /indexSelect/);
  await dq.done(); // the failure belongs to `failed`, the first completion after it; this one covers nothing that failed
  failed.dispose();
  assertFailed(failed, /indexSelect/); // disposal frees the fence, not the outcome
  const passed = dq.record();
  await passed.wait();
  d.close();
  assert.equal(passed.query(), true, "a completion that passed stays passed after its device closed");
  assertFailed(failed, /indexSelect/);
  using t = pt.ones([2]); // the device reopens
  using s = t.sum();
  assert.equal(s.item(), 2);
});

test("a completion pending when its device closes fails clearly instead of passing", () => {
  const d = dev();
  using q = pt.queue(d);
  const c = q.record();
  d.close();
  // Whether it had passed before the close is up to the device; if it had not, it must fail.
  if (c.status !== "passed") assertFailed(c, /closed/, new RegExp(d.id));
  const stateAfterClose = c.status;
  for (let i = 0; i < 3; i++) assert.equal(c.status, stateAfterClose, "the outcome is fixed once seen");
  using t = pt.ones([1]);
  assert.equal(t.item(), 1);
});

/**
 * Launches gather in error mode with an out-of-range index and no settle: on devices that
 * run work at launch the launch throws; elsewhere the failure is only on the device.
 */
function unsettledBadGather(): { threw: boolean } {
  const d = dev();
  using src = pt.tensor([1, 2, 3]);
  using index = idx([4]);
  using out = allocTensor(d, "float32", [1], "gather");
  try {
    runTemplate(d, "gather", "gather", (b) => b.push(1).pad8([1], 1).push(0, 3, 0).view(src).view(index).view(out));
    return { threw: false };
  } catch (e) {
    assert.equal((e as Error).name, "TensorError");
    assert.match((e as Error).message, /out of range/);
    return { threw: true };
  }
}

test("a kernel failure that surfaces at launch or only on the device fails its completion either way", async () => {
  using q = pt.queue(dev());
  const { threw } = pt.withQueue(q, unsettledBadGather);
  using c = q.record();
  await assert.rejects(c.wait(), /out of range/, `the completion after the failing kernel (launch ${threw ? "threw" : "returned"})`);
  for (let i = 0; i < 5; i++) assertFailed(c, /out of range/);
  await q.done(); // reported once: later work on a healthy device passes
});

test("an empty tensor's readback still carries a failure queued before it", async () => {
  using q = pt.queue(dev());
  using none = pt.zeros([0]);
  const { threw } = pt.withQueue(q, unsettledBadGather);
  if (threw) {
    // Reported at launch already: the empty readback succeeds with nothing in it.
    assert.equal(pt.withQueue(q, () => none.toArray()).length, 0);
  } else {
    assertTensorError(() => pt.withQueue(q, () => none.toArray()), /out of range/);
  }
  await assert.rejects(q.done(), /out of range/, "the next completion of the queue carries the failure too");
  await q.done();
  assert.equal(pt.withQueue(q, () => none.toArray()).length, 0, "after the report, empty readbacks work");
  using emptyI64 = pt.zeros([0, 3], { dtype: "int64" });
  const host = emptyI64.toArray();
  assert.ok(host instanceof BigInt64Array && host.length === 0, "an empty int64 readback is an empty BigInt64Array");
  using emptyF32 = pt.zeros([2, 0]);
  assert.ok(emptyF32.toArray() instanceof Float32Array, "an empty readback keeps its dtype's array type");
});
