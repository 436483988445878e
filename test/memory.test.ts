/**
 * Memory pressure (docs/architecture.md, Memory): an allocation the device cannot satisfy
 * trims the cache, retries once and fails with a clear out-of-memory TensorError, after
 * which allocation works; memoryStats() is kept per device; emptyCache() returns only the
 * cache; exact-size and zero-byte allocations are first-class. (Counting allocations,
 * frees, hits and peak on the default device is ownership.test.ts's.)
 */
import * as pt from "../mod.ts";
import { assert, test } from "./harness.ts";

const PT_EOOM = -4;
const dev = () => pt.defaultDevice();

function available(): pt.Device[] {
  return pt.devices().map((d) => pt.device(d.id));
}

test("out of memory trims the cache, retries once, and fails clearly; the next allocation works", () => {
  const d = dev();
  // A failed allocation collects garbage before its retry (long_loops.test.ts); free now what earlier tests dropped, so
  // that nothing that collection releases reaches the cache after the trim this test checks.
  pt.collectGarbage();
  d.sync();
  pt.emptyCache(d);
  for (const n of [1000, 5000, 300_000]) pt.empty([n], { device: d }).dispose(); // fill the cache
  const s0 = pt.memoryStats(d), live0 = pt.liveBytes();
  assert.ok(s0.cached > 0, "the cache holds blocks before the failing allocation");
  const elements = 2 ** 48, bytes = elements * 4; // 2^50 bytes: more than any device has
  let caught: unknown;
  try {
    pt.empty([elements], { device: d });
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof pt.TensorError, `expected a TensorError, got ${caught}`);
  assert.equal(caught.status, PT_EOOM, `status ${caught.status}: ${caught.message}`);
  assert.match(caught.message, new RegExp(`${bytes} bytes`), "the message names the size asked");
  assert.match(caught.message, /cache held \d+ bytes \(trimmed and retried\)/, caught.message);
  assert.match(caught.message, new RegExp(d.backend), "the message names the device");
  const s1 = pt.memoryStats(d);
  assert.equal(s1.cached, 0, "the cache was trimmed before the retry");
  assert.equal(s1.inUse, s0.inUse, "nothing was left allocated");
  assert.equal(pt.liveBytes(), live0);
  using _fresh = pt.empty([1000], { device: d });
  assert.equal(pt.memoryStats(d).driverAllocations, s1.driverAllocations + 1, "the emptied cache could not serve it");
  using ok = pt.full([1000], 7, { device: d });
  using sum = ok.sum();
  assert.equal(sum.item(), 7000, "allocation and work succeed after the failure");
});

test("memoryStats reports in-use, cached, peak and counts for each device separately", () => {
  const devs = available();
  for (const d of devs) {
    const before = new Map(devs.map((x) => [x, pt.memoryStats(x)]));
    const s = before.get(d)!;
    for (const [k, v] of Object.entries(s)) assert.ok(Number.isFinite(v) && v >= 0, `${d.id} ${k} = ${v}`);
    assert.ok(s.peak >= s.inUse, `${d.id}: peak ${s.peak} >= inUse ${s.inUse}`);
    const t = pt.empty([4096], { device: d });
    const after = pt.memoryStats(d);
    assert.equal(after.allocations, s.allocations + 1, `${d.id} counted its allocation`);
    assert.ok(after.inUse >= s.inUse + 16384 && after.peak >= after.inUse, `${d.id} inUse ${after.inUse}`);
    for (const other of devs) {
      if (other === d) continue;
      assert.deepEqual(pt.memoryStats(other), before.get(other), `${d.id}'s allocation left ${other.id}'s statistics alone`);
    }
    t.dispose();
    assert.equal(pt.memoryStats(d).inUse, s.inUse);
    assert.equal(pt.memoryStats(d).frees, s.frees + 1);
  }
  assert.equal(pt.memoryStats().inUse, pt.memoryStats(dev()).inUse, "no argument means the default device");
});

test("emptyCache returns only cached blocks: live tensors keep their memory and values", () => {
  const d = dev();
  using keep = pt.arange(0, 5000, 1, { device: d });
  for (let i = 0; i < 4; i++) pt.empty([1000 + 700 * i], { device: d }).dispose();
  const s0 = pt.memoryStats(d);
  assert.ok(s0.cached > 0);
  pt.emptyCache(d);
  const s1 = pt.memoryStats(d);
  assert.equal(s1.cached, 0);
  assert.equal(s1.inUse, s0.inUse, "in-use memory is not touched");
  using total = keep.sum();
  assert.equal(total.item(), 4999 * 5000 / 2);
  pt.emptyCache(d); // an empty cache trims to nothing again
  assert.equal(pt.memoryStats(d).cached, 0);
});

test("exact-size allocations of odd byte counts hold exactly their bytes, and every byte round-trips", () => {
  const d = dev();
  for (const n of [1, 3, 511, 512, 513, 4097, 65_537, (1 << 20) + 1, (2 << 20) + 3]) {
    const host = new Uint8Array(n);
    for (let i = 0; i < n; i++) host[i] = (i * 31 + 7) & 255;
    const live0 = pt.liveBytes();
    using t = pt.tensor(host, { device: d });
    assert.equal(pt.liveBytes() - live0, n, `a ${n}-byte tensor holds exactly ${n} bytes`);
    const back = t.toArray() as Uint8Array;
    assert.equal(back.length, n);
    let bad = -1;
    for (let i = 0; i < n && bad < 0; i++) if (back[i] !== host[i]) bad = i;
    assert.equal(bad, -1, `byte ${bad} of ${n} round-trips`);
    using last = t.narrow(0, n - 1, 1).add(1);
    assert.equal(last.item(), (host[n - 1] + 1) & 255, `the last byte of ${n} is readable by a kernel`);
  }
});

test("zero-byte tensors work through creation, ops, transfers, statistics and disposal", () => {
  const d = dev();
  const live0 = pt.liveBytes(), s0 = pt.memoryStats(d);
  const made = [
    pt.zeros([0], { device: d }),
    pt.empty([0, 5], { device: d }),
    pt.tensor([], { device: d }),
    pt.full([3, 0], 2, { device: d, dtype: "int64" }),
    pt.arange(0, 0, 1, { device: d }),
    pt.ones([2, 0, 4], { device: d, dtype: "bool" }),
  ];
  assert.equal(pt.liveBytes(), live0, "empty tensors hold no bytes");
  assert.equal(pt.memoryStats(d).allocations - s0.allocations, made.length, "each is a real (zero-byte) allocation");
  for (const t of made) {
    assert.equal(t.numel, 0);
    assert.equal(t.toArray().length, 0);
  }
  checkOps(d, made);
  for (const t of made) t.dispose();
  assert.equal(pt.liveBytes(), live0);
  assert.equal(pt.memoryStats(d).inUse, s0.inUse, "zero-byte blocks went back");
});

function checkOps(d: pt.Device, made: pt.Tensor[]): void {
  using a = made[0].add(1);
  assert.deepEqual(a.shape, [0]);
  using s = made[1].sum();
  assert.equal(s.item(), 0, "the sum of nothing is 0");
  using rows = made[1].sum(1);
  assert.deepEqual(rows.shape, [0]);
  using cols = made[1].sum(0);
  assert.deepEqual(Array.from(cols.toArray() as Float32Array), [0, 0, 0, 0, 0]);
  using r = made[1].reshape(5, 0);
  assert.deepEqual(r.shape, [5, 0]);
  using x = pt.tensor([1, 2, 3], { device: d });
  using joined = pt.cat([x, made[0], x]);
  assert.deepEqual(Array.from(joined.toArray() as Float32Array), [1, 2, 3, 1, 2, 3]);
  for (const other of available()) {
    using moved = made[3].to(other);
    assert.deepEqual(moved.shape, [3, 0]);
    assert.equal(moved.dtype, "int64");
  }
}
