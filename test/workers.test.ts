/**
 * Workers: a Deno or Bun Worker imports mod.ts, opens the library and
 * does its first work on the default device; two Workers do so at once; a Worker that ends
 * leaves the main thread's device alone; and a device closed by the main thread while a
 * Worker uses it gives that Worker TensorErrors (or successes), never a crash, after which
 * the Worker reopens it. Results are compared with the same work done in JS here.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, test } from "./harness.ts";

interface Computed {
  device: string;
  matmul: number[];
  sorted: number[];
  sum: number;
  error?: string;
  name?: string;
}

type Msg = { data: unknown };
interface WorkerLike {
  onmessage: ((e: Msg) => void) | null;
  onerror: ((e: unknown) => void) | null;
  postMessage(m: unknown): void;
  terminate(): void;
}

function spawn(fixture: string): WorkerLike {
  const W = (globalThis as unknown as { Worker: new (url: string, opts: { type: "module" }) => WorkerLike }).Worker;
  return new W(new URL(`./fixtures/${fixture}`, import.meta.url).href, { type: "module" });
}

/** The next message from w, or a rejection on a Worker error or after `ms`. */
function next<T>(w: WorkerLike, ms = 60_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message from the Worker within ${ms} ms`)), ms);
    w.onmessage = (e) => {
      clearTimeout(timer);
      resolve(e.data as T);
    };
    w.onerror = (e) => {
      clearTimeout(timer);
      const err = e as { message?: string; preventDefault?: () => void };
      err.preventDefault?.();
      reject(new Error(`the Worker failed: ${err.message ?? String(e)}`));
    };
  });
}

/** The worker_compute.ts work, done here with JS loops: what every Worker's answer is checked against. */
function expected(seed: number): Omit<Computed, "device"> {
  // x[i][j] = (8 i + j + seed) / 4, exact in float32; each row ascends, so flipping and sorting it gives it back.
  const x = Array.from({ length: 6 }, (_, i) => Array.from({ length: 8 }, (_, j) => (8 * i + j + seed) * 0.25));
  const matmul: number[] = [];
  for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) matmul.push(x[i].reduce((s, v, k) => s + v * x[j][k], 0));
  return { matmul, sorted: x.flat(), sum: x.flat().reduce((s, v) => s + v, 0) };
}

function checkComputed(got: Computed, seed: number, what: string): void {
  assert.equal(got.error, undefined, `${what}: ${got.name}: ${got.error}`);
  assert.equal(got.device, pt.defaultDevice().id, `${what} used the default device`);
  const want = expected(seed);
  assertClose(got.matmul, want.matmul, 1e-5, 1e-4, `${what} matmul`);
  assert.deepEqual(got.sorted, want.sorted, `${what} sort`);
  assertClose([got.sum], [want.sum], 1e-6, 1e-6, `${what} sum`);
}

test("a Worker imports mod.ts and does its first work on the default device, matching JS loops", async () => {
  const w = spawn("worker_compute.ts");
  try {
    const reply = next<Computed>(w);
    w.postMessage({ seed: 3 });
    checkComputed(await reply, 3, "the Worker");
  } finally {
    w.terminate();
  }
});

test("two Workers open the library and do their first work at once, both correctly", async () => {
  const a = spawn("worker_compute.ts"), b = spawn("worker_compute.ts");
  try {
    const ra = next<Computed>(a), rb = next<Computed>(b);
    a.postMessage({ seed: 1 });
    b.postMessage({ seed: 2 });
    const [ga, gb] = await Promise.all([ra, rb]);
    checkComputed(ga, 1, "Worker A");
    checkComputed(gb, 2, "Worker B");
  } finally {
    a.terminate();
    b.terminate();
  }
});

test("a Worker that ends itself leaves the main thread's device open and its tensors valid", async () => {
  const dev = pt.defaultDevice();
  using mine = pt.tensor([1, 2, 3]);
  const w = spawn("worker_compute.ts");
  try {
    const reply = next<Computed>(w);
    w.postMessage({ seed: 5 });
    checkComputed(await reply, 5, "the Worker");
    // The Worker called close() on itself; give its exit handlers time to run.
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    w.terminate();
  }
  assert.equal(dev.isOpen, true);
  using sum = mine.add(mine);
  assert.deepEqual(Array.from(sum.toArray() as Float32Array), [2, 4, 6], "the main thread's tensor survived the Worker's exit");
});

test("closing the device on the main thread while a Worker works gives the Worker TensorErrors, then it reopens", async () => {
  const dev = pt.defaultDevice();
  using _open = pt.ones([1]); // the main thread holds the device open, so its close shuts it down
  const w = spawn("worker_close.ts");
  try {
    const working = next<string>(w);
    w.postMessage("go");
    assert.equal(await working, "working");
    const result = next<{ ok: number; tensorErrors: number; others: string[]; firstError: string; afterReopen: number[] | null }>(w);
    dev.close();
    w.postMessage("closed");
    const r = await result;
    assert.deepEqual(r.others, [], "every failure in the Worker was a TensorError and every result was right");
    assert.ok(r.ok >= 1, "the Worker worked before the close");
    assert.ok(r.tensorErrors >= 1, "the Worker saw the close as TensorErrors");
    assert.match(r.firstError, /handle|closed|freed/, `the error says what went: ${r.firstError}`);
    assert.deepEqual(r.afterReopen, [10, 20, 30], "the Worker reopened the device and worked again");
  } finally {
    w.terminate();
  }
  using t = pt.tensor([4, 5]);
  using u = t.add(1);
  assert.deepEqual(Array.from(u.toArray() as Float32Array), [5, 6], "the main thread reopens the device too");
});
